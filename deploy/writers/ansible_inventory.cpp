#include "deploy/writers/ansible_inventory.hpp"

#include <yaml-cpp/yaml.h>

#include "deploy/layout/launch_nodes.hpp"

namespace meshplan {
namespace {

void host_vars(YAML::Emitter& y, const LaunchLayout& layout, const LaunchNode& n,
               const std::string& user) {
  y << YAML::Key << n.host->name << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "ansible_host" << YAML::Value << n.ssh_host;
  std::string u = n.ssh_user.empty() ? user : n.ssh_user;
  if (!u.empty()) y << YAML::Key << "ansible_user" << YAML::Value << u;
  if (!n.host->chip.empty()) y << YAML::Key << "chip" << YAML::Value << n.host->chip;
  if (n.host->memory > 0) y << YAML::Key << "memory_bytes" << YAML::Value << n.host->memory;
  y << YAML::Key << "rank" << YAML::Value << n.rank;
  y << YAML::Key << "backend" << YAML::Value << layout.backend;
  if (!n.address.empty()) y << YAML::Key << "address" << YAML::Value << n.address;
  if (n.layers)
    y << YAML::Key << "layers" << YAML::Value << YAML::Flow << YAML::BeginSeq << n.layers->first
      << n.layers->second << YAML::EndSeq;
  y << YAML::EndMap;
}

}  // namespace

std::string write_ansible_inventory(const EmitInput& in) {
  const LaunchLayout& layout = in.layout();
  YAML::Emitter y;
  y << YAML::BeginMap << YAML::Key << "all" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "children" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "head" << YAML::Value << YAML::BeginMap << YAML::Key << "hosts" << YAML::Value
    << YAML::BeginMap;
  host_vars(y, layout, layout.nodes.front(), in.launch.user);
  y << YAML::EndMap << YAML::EndMap;
  if (layout.nodes.size() > 1) {
    y << YAML::Key << "workers" << YAML::Value << YAML::BeginMap << YAML::Key << "hosts"
      << YAML::Value << YAML::BeginMap;
    for (size_t i = 1; i < layout.nodes.size(); ++i)
      host_vars(y, layout, layout.nodes[i], in.launch.user);
    y << YAML::EndMap << YAML::EndMap;
  }
  for (const char* os : {"macos", "linux"}) {
    bool any = false;
    for (const LaunchNode& n : layout.nodes) {
      if (n.host->os.kind != os) continue;
      if (!any)
        y << YAML::Key << os << YAML::Value << YAML::BeginMap << YAML::Key << "hosts" << YAML::Value
          << YAML::BeginMap;
      any = true;
      y << YAML::Key << n.host->name << YAML::Value << YAML::Null;
    }
    if (any) y << YAML::EndMap << YAML::EndMap;
  }
  y << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  return std::string("# Ansible inventory: ansible-inventory -i FILE --list\n") + y.c_str() + "\n";
}

}  // namespace meshplan
