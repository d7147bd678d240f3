#include "deploy/writers/ansible_inventory.hpp"

#include <yaml-cpp/yaml.h>

#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/mlx_launch.hpp"
#include "lib/plan/engine_kind.hpp"

namespace meshplan {
namespace {

// `mlx_rank`: mlx-lm's rank of the host where it is not the plan's (its pipeline gives rank 0 the
// last layers), so that a playbook can tell both; -1 for none.
void host_vars(YAML::Emitter& y, const LaunchLayout& layout, const LaunchNode& n,
               const std::string& user, int mlx_rank) {
  y << YAML::Key << n.host->name << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "ansible_host" << YAML::Value << n.ssh_host;
  std::string u = n.ssh_user.empty() ? user : n.ssh_user;
  if (!u.empty()) y << YAML::Key << "ansible_user" << YAML::Value << u;
  if (!n.host->chip.empty()) y << YAML::Key << "chip" << YAML::Value << n.host->chip;
  if (n.host->memory > 0) y << YAML::Key << "memory_bytes" << YAML::Value << n.host->memory;
  y << YAML::Key << "rank" << YAML::Value << n.rank;
  if (mlx_rank >= 0) y << YAML::Key << "mlx_rank" << YAML::Value << mlx_rank;
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
  const bool reversed =
      in.plan && is_engine(in.plan->engine, EngineKind::kMlxLm) && mlx_ranks_reversed(in);
  const int n = static_cast<int>(layout.nodes.size());
  auto mlx_rank = [&](size_t i) { return reversed ? n - 1 - static_cast<int>(i) : -1; };
  host_vars(y, layout, layout.nodes.front(), in.launch.user, mlx_rank(0));
  y << YAML::EndMap << YAML::EndMap;
  if (layout.nodes.size() > 1) {
    y << YAML::Key << "workers" << YAML::Value << YAML::BeginMap << YAML::Key << "hosts"
      << YAML::Value << YAML::BeginMap;
    for (size_t i = 1; i < layout.nodes.size(); ++i)
      host_vars(y, layout, layout.nodes[i], in.launch.user, mlx_rank(i));
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
