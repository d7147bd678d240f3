// One host's build in progress, shared by host_builder.cpp (the OS and the probe helpers),
// macos_host.cpp and linux_host.cpp (the facts of each OS). Internal to lib/discovery.
#pragma once

#include <map>
#include <string>

#include "lib/cluster/catalog.hpp"
#include "lib/probes/ifconfig_parser.hpp"
#include "lib/probes/probe_set.hpp"
#include "lib/remote/remote_executor.hpp"

namespace meshplan {

// Defined in host_builder.hpp; including that here would loop (host_builder.cpp includes this).
struct BuiltHost;

class HostBuild {
 public:
  HostBuild(const HostTarget& target, const ProbeSet& probes, const Catalog& catalog,
            BuiltHost& result);

  void build();

 private:
  struct MacProbes;  // the parsed macOS probe outputs (macos_host.cpp)
  using InterfacesByName = std::map<std::string, const IfconfigInterface*>;

  // host_builder.cpp
  void report(const std::string& name, HostFailureKind kind, const std::string& detail);
  const ProbeOutput* take(const std::string& name);
  template <typename F>
  bool parse(const std::string& name, F&& f);
  std::string detect_os();

  // macos_host.cpp
  void build_macos();
  void read_macos_probes(MacProbes& m);
  const MachineSpec* set_macos_identity(const MacProbes& m);
  void add_macos_interfaces(const MacProbes& m, const InterfacesByName& by_name);
  void add_thunderbolt_ports(const MacProbes& m, const MachineSpec* machine,
                             const InterfacesByName& by_name);
  void resolve_chip(const std::string& brand, int gpu_cores);
  void set_usable_memory();

  // linux_host.cpp
  void build_linux();
  void add_nvidia_gpus(const ProbeOutput* p);
  void add_ip_interfaces();
  void add_link_facts();

  const ProbeSet& probes_;
  const Catalog& catalog_;
  BuiltHost& r_;
};

// Runs F, a parser of probe NAME's output; a ProbeParseError is reported and gives false.
template <typename F>
bool HostBuild::parse(const std::string& name, F&& f) {
  try {
    f();
    return true;
  } catch (const ProbeParseError& e) {
    report(name, HostFailureKind::kOutputNotUnderstood, e.what());
    return false;
  }
}

}  // namespace meshplan
