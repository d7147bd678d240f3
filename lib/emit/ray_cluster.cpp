#include "lib/emit/ray_cluster.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "lib/core/error.hpp"
#include "lib/emit/emit_formats.hpp"

namespace meshplan {
namespace {

// --resources='{"node:NAME": 1}' (and, for a workload, `"model:MODEL": 1` for each model the
// host serves, so that a task asking for it runs there) and --memory=BYTES for one host.
std::vector<std::string> node_options(const LaunchNode& n, const EmitInput& in) {
  nlohmann::json resources = {{"node:" + n.host->name, 1}};
  if (in.plan)
    for (const auto& m : in.plan->models)
      if (std::find(m.hosts.begin(), m.hosts.end(), n.host->name) != m.hosts.end())
        resources["model:" + m.model] = 1;
  std::vector<std::string> out = {"--resources=" + resources.dump()};
  if (n.host->memory > 0) out.push_back(fmt::format("--memory={}", n.host->memory));
  return out;
}

}  // namespace

std::string write_ray_cluster(const EmitInput& in) {
  LaunchLayout layout = build_launch_layout(in);
  size_t n = layout.nodes.size();
  int port = launch_port(in, kRayDefaultPort);
  std::string head = layout.reachable(0, "Ray's head (rank 0) needs an address every node reaches");
  std::vector<std::string> workers;
  for (size_t i = 1; i < n; ++i)
    workers.push_back(layout.reachable(i, "Ray's local provider reaches every worker by address"));
  std::string user = layout.nodes[0].ssh_user.empty() ? in.launch.user : layout.nodes[0].ssh_user;
  if (user.empty())
    throw input_error(
        "ray-cluster needs the ssh user for auth.ssh_user: give --user NAME or an ssh target "
        "user@host for {}",
        layout.nodes[0].host->name);

  std::vector<std::string> head_start = {"ray", "start", "--head", fmt::format("--port={}", port),
                                         "--node-ip-address=" + head};
  for (auto& o : node_options(layout.nodes[0], in))
    head_start.push_back(o);

  YAML::Emitter y;
  y << YAML::BeginMap;
  y << YAML::Key << "cluster_name" << YAML::Value
    << (in.cluster.name.empty() ? std::string("meshplan") : in.cluster.name);
  y << YAML::Key << "provider" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "type" << YAML::Value << "local";
  y << YAML::Key << "head_ip" << YAML::Value << head;
  y << YAML::Key << "worker_ips" << YAML::Value << YAML::Flow << workers;
  y << YAML::EndMap;
  y << YAML::Key << "auth" << YAML::Value << YAML::BeginMap << YAML::Key << "ssh_user"
    << YAML::Value << user << YAML::EndMap;
  y << YAML::Key << "min_workers" << YAML::Value << workers.size();
  y << YAML::Key << "max_workers" << YAML::Value << workers.size();
  y << YAML::Key << "head_start_ray_commands" << YAML::Value << YAML::BeginSeq << "ray stop"
    << shell_command({}, head_start) + " --autoscaling-config=~/ray_bootstrap_config.yaml"
    << YAML::EndSeq;
  // One command for every worker: the head's address comes from Ray's own variable.
  y << YAML::Key << "worker_start_ray_commands" << YAML::Value << YAML::BeginSeq << "ray stop"
    << fmt::format("ray start --address=$RAY_HEAD_IP:{}", port) << YAML::EndSeq;
  y << YAML::EndMap;

  std::string out = "# Ray cluster on the plan's hosts: ray up FILE\n";
  if (in.plan)
    for (const auto& m : in.plan->models)
      out += fmt::format(
          "# {} runs on {}: @ray.remote(resources={{\"model:{}\": 1}}) pins its tasks there\n",
          m.model, fmt::join(m.hosts, ", "), m.model);
  out += y.c_str();
  out += "\n\n# Manual start instead of `ray up`, in this order:\n";
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::string> words = {"ray", "start"};
    if (i == 0) {
      words.push_back("--head");
      words.push_back(fmt::format("--port={}", port));
    } else {
      words.push_back(fmt::format("--address={}:{}", head, port));
    }
    words.push_back("--node-ip-address=" + (i == 0 ? head : workers[i - 1]));
    for (auto& o : node_options(layout.nodes[i], in))
      words.push_back(o);
    out += fmt::format("# on {}: {}\n", layout.nodes[i].host->name, shell_command({}, words));
  }
  return out;
}

}  // namespace meshplan
