#include "lib/discovery/host_builder.hpp"

#include <fmt/format.h>

#include "lib/core/units.hpp"
#include "lib/discovery/host_build.hpp"

namespace meshplan {
namespace {

std::string first_line(const std::string& text) {
  std::string t = trim(text);
  return t.substr(0, t.find('\n'));
}

}  // namespace

HostBuild::HostBuild(const HostTarget& target, const ProbeSet& probes, const Catalog& catalog,
                     BuiltHost& result)
    : probes_(probes), catalog_(catalog), r_(result) {
  r_.host.name = target.name;
  if (target.spec() != target.name) r_.host.ssh = target.spec();
}

void HostBuild::build() {
  std::string os = detect_os();
  if (r_.failure != HostFailureKind::kNone) return;
  if (os == "macos")
    build_macos();
  else
    build_linux();
}

// A probe failure: fails the host when the probe is essential, else becomes a finding.
void HostBuild::report(const std::string& name, HostFailureKind kind, const std::string& detail) {
  const ProbeSpec* spec = find_probe_spec(name);
  std::string message = fmt::format("`{}`: {}", spec ? spec->command : name.c_str(), detail);
  if (spec && spec->essential) {
    if (r_.failure == HostFailureKind::kNone) {
      r_.failure = kind;
      r_.failure_message = message;
    }
    return;
  }
  r_.findings.push_back({"probe-failed", r_.host.name, "", "",
                         fmt::format("{}: {}", host_failure_name(kind), message)});
}

// The output of a probe that ran and exited 0; nullptr when it is absent or failed (reported).
const ProbeOutput* HostBuild::take(const std::string& name) {
  const ProbeOutput* p = probes_.find(name);
  if (!p) return nullptr;
  if (p->status == ProbeStatus::kOk) return p;
  if (p->status == ProbeStatus::kMissing) {
    report(name, HostFailureKind::kCommandMissing, "command not found on the host");
  } else {
    std::string why = first_line(p->err);
    report(name, HostFailureKind::kCommandFailed,
           why.empty() ? fmt::format("exited with status {}", p->exit_status)
                       : fmt::format("exited with status {}: {}", p->exit_status, why));
  }
  return nullptr;
}

std::string HostBuild::detect_os() {
  if (const ProbeOutput* p = take("uname")) {
    std::string s = trim(p->out);
    if (s == "Darwin") return r_.host.os.kind = "macos";
    if (s == "Linux") return r_.host.os.kind = "linux";
    report("uname", HostFailureKind::kOutputNotUnderstood,
           fmt::format("expected Darwin or Linux, got \"{}\"", first_line(s)));
    return "";
  }
  if (r_.failure != HostFailureKind::kNone) return "";
  // A replay folder without uname: the probes present say which OS it is.
  for (const auto& spec : probe_specs()) {
    if (!probes_.has(spec.name)) continue;
    if (spec.os == ProbeOs::kMacos) return r_.host.os.kind = "macos";
    if (spec.os == ProbeOs::kLinux) return r_.host.os.kind = "linux";
  }
  r_.failure = HostFailureKind::kOutputNotUnderstood;
  r_.failure_message = "cannot tell the operating system: no uname output and no OS-specific probe";
  return "";
}

BuiltHost build_host(const HostTarget& target, const ProbeSet& probes, const Catalog& catalog) {
  BuiltHost built;
  HostBuild(target, probes, catalog, built).build();
  return built;
}

}  // namespace meshplan
