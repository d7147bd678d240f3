#include "deploy/writers/ray_cluster.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/vllm_launch.hpp"
#include "lib/core/error.hpp"

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

// Whether the file ends with vLLM on Ray: one model's plan over NVIDIA hosts. Its variables
// (VLLM_HOST_IP, NCCL's interfaces) go in front of each host's `ray start`: Ray's workers, where
// vLLM's GPU processes run, inherit the environment of the node's raylet.
bool runs_vllm(const EmitInput& in, const LaunchLayout& layout) {
  if (!in.plan || !in.plan->models.empty()) return false;
  for (const LaunchNode& n : layout.nodes)
    if (n.cuda_gpus() == 0) return false;
  return true;
}

}  // namespace

bool ray_runs_an_engine(const EmitInput& in) {
  return runs_vllm(in, build_launch_layout(in));
}

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

  const bool vllm = runs_vllm(in, layout);
  std::optional<VllmShape> shape;
  if (vllm) shape = vllm_shape(layout);
  auto env = [&](size_t i) {
    return shape ? vllm_node_env(layout, i, *shape)
                 : std::vector<std::pair<std::string, std::string>>{};
  };
  std::vector<std::string> head_start = {"ray", "start", "--head", fmt::format("--port={}", port),
                                         "--node-ip-address=" + head};
  for (auto& o : node_options(layout.nodes[0], in))
    head_start.push_back(o);
  // One command serves every worker of `ray up`; it picks the host's own options by the addresses
  // the host has (hostname -I on Linux, en0's on a Mac), so each gets what its manual line sets.
  std::string worker_start = "case \" $(hostname -I 2>/dev/null || ipconfig getifaddr en0) \" in";
  for (size_t i = 1; i < n; ++i) {
    std::vector<std::string> rest = {"--node-ip-address=" + workers[i - 1]};
    for (auto& o : node_options(layout.nodes[i], in))
      rest.push_back(o);
    worker_start +=
        fmt::format(" *\" {} \"*) {} --address=\"$RAY_HEAD_IP\":{} {} ;;", workers[i - 1],
                    shell_command(env(i), {"ray", "start"}), port, shell_command({}, rest));
  }
  worker_start +=
      " *) echo 'ray-cluster.yaml: this host has none of the worker addresses' >&2; exit 1 ;; "
      "esac";

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
    << shell_command(env(0), head_start) + " --autoscaling-config=~/ray_bootstrap_config.yaml"
    << YAML::EndSeq;
  y << YAML::Key << "worker_start_ray_commands" << YAML::Value << YAML::BeginSeq << "ray stop"
    << worker_start << YAML::EndSeq;
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
    out += fmt::format("# on {}: {}\n", layout.nodes[i].host->name, shell_command(env(i), words));
  }
  if (vllm)
    out += fmt::format(
        "\n# Then vLLM on this Ray cluster, once, on {} (the head); it places its GPU workers "
        "through Ray:\n# {}\n",
        layout.nodes[0].host->name, vllm_ray_command(in, layout));
  return out;
}

}  // namespace meshplan
