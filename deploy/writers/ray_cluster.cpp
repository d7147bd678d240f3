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

// Ray's nodes by management address (rank 0 the head, the others its workers) and how they start.
struct RayNodes {
  explicit RayNodes(const EmitInput& in) : in(in), layout(in.layout()) {}

  const EmitInput& in;
  const LaunchLayout& layout;
  int port = 0;
  std::string head;
  std::vector<std::string> workers;
  std::string user;                // auth.ssh_user
  std::optional<VllmShape> shape;  // set when the file ends with vLLM on Ray

  // The address node i's Ray runs on (--node-ip-address): with vLLM, the node's address on the
  // interface NCCL and Gloo use, as VLLM_HOST_IP is, so that the two agree; else the address `ray
  // up` reaches it by.
  std::string node_ip(size_t i) const {
    if (shape) return rendezvous_address(layout, i, "Ray's nodes reach each other by address");
    return i == 0 ? head : workers[i - 1];
  }

  // The variables in front of node i's `ray start`.
  std::vector<std::pair<std::string, std::string>> env(size_t i) const {
    return shape ? vllm_node_env(layout, i, *shape)
                 : std::vector<std::pair<std::string, std::string>>{};
  }
};

RayNodes ray_nodes(const EmitInput& in) {
  RayNodes ray(in);
  const LaunchLayout& layout = ray.layout;
  ray.port = launch_port(in, kRayDefaultPort);
  ray.head = served_address(layout, 0, "Ray's head (rank 0) needs an address every node reaches");
  for (size_t i = 1; i < layout.nodes.size(); ++i)
    ray.workers.push_back(
        served_address(layout, i, "Ray's local provider reaches every worker by address"));
  ray.user = layout.nodes[0].ssh_user.empty() ? in.launch.user : layout.nodes[0].ssh_user;
  if (ray.user.empty())
    throw input_error(
        "ray-cluster needs the ssh user for auth.ssh_user: give --user NAME or an ssh target "
        "user@host for {}",
        layout.nodes[0].host->name);
  if (runs_vllm(in, layout)) ray.shape = vllm_shape(layout, in.plan->model);
  return ray;
}

// One command serves every worker of `ray up`; it picks the host's own options by the addresses
// the host has (hostname -I on Linux, en0's on a Mac), so each gets what its manual line sets.
std::string worker_start_command(const RayNodes& ray) {
  std::string worker_start = "case \" $(hostname -I 2>/dev/null || ipconfig getifaddr en0) \" in";
  for (size_t i = 1; i < ray.layout.nodes.size(); ++i) {
    std::vector<std::string> rest = {"--node-ip-address=" + ray.node_ip(i)};
    for (auto& o : node_options(ray.layout.nodes[i], ray.in))
      rest.push_back(o);
    worker_start += fmt::format(" *\" {} \"*) {} --address={}:{} {} ;;", ray.workers[i - 1],
                                shell_command(ray.env(i), {"ray", "start"}),
                                ray.shape ? ray.node_ip(0) : std::string("\"$RAY_HEAD_IP\""),
                                ray.port, shell_command({}, rest));
  }
  worker_start +=
      " *) echo 'ray-cluster.yaml: this host has none of the worker addresses' >&2; exit 1 ;; "
      "esac";
  return worker_start;
}

// The `ray up` document of the local provider.
std::string ray_up_yaml(const RayNodes& ray) {
  std::vector<std::string> head_start = {"ray", "start", "--head",
                                         fmt::format("--port={}", ray.port),
                                         "--node-ip-address=" + ray.node_ip(0)};
  for (auto& o : node_options(ray.layout.nodes[0], ray.in))
    head_start.push_back(o);
  const std::string worker_start = worker_start_command(ray);

  YAML::Emitter y;
  y << YAML::BeginMap;
  y << YAML::Key << "cluster_name" << YAML::Value
    << (ray.in.cluster.name.empty() ? std::string("meshplan") : ray.in.cluster.name);
  y << YAML::Key << "provider" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "type" << YAML::Value << "local";
  y << YAML::Key << "head_ip" << YAML::Value << ray.head;
  y << YAML::Key << "worker_ips" << YAML::Value << YAML::Flow << ray.workers;
  y << YAML::EndMap;
  y << YAML::Key << "auth" << YAML::Value << YAML::BeginMap << YAML::Key << "ssh_user"
    << YAML::Value << ray.user << YAML::EndMap;
  y << YAML::Key << "min_workers" << YAML::Value << ray.workers.size();
  y << YAML::Key << "max_workers" << YAML::Value << ray.workers.size();
  y << YAML::Key << "head_start_ray_commands" << YAML::Value << YAML::BeginSeq << "ray stop"
    << shell_command(ray.env(0), head_start) + " --autoscaling-config=~/ray_bootstrap_config.yaml"
    << YAML::EndSeq;
  y << YAML::Key << "worker_start_ray_commands" << YAML::Value << YAML::BeginSeq << "ray stop"
    << worker_start << YAML::EndSeq;
  y << YAML::EndMap;
  return y.c_str();
}

// Each host's `ray start` for a manual start, as comments, head first.
std::string manual_start_lines(const RayNodes& ray) {
  std::string out;
  for (size_t i = 0; i < ray.layout.nodes.size(); ++i) {
    std::vector<std::string> words = {"ray", "start"};
    if (i == 0) {
      words.push_back("--head");
      words.push_back(fmt::format("--port={}", ray.port));
    } else {
      words.push_back(fmt::format("--address={}:{}", ray.node_ip(0), ray.port));
    }
    words.push_back("--node-ip-address=" + ray.node_ip(i));
    for (auto& o : node_options(ray.layout.nodes[i], ray.in))
      words.push_back(o);
    out += fmt::format("# on {}: {}\n", ray.layout.nodes[i].host->name,
                       shell_command(ray.env(i), words));
  }
  return out;
}

}  // namespace

bool ray_runs_an_engine(const EmitInput& in) {
  return runs_vllm(in, in.layout());
}

std::string write_ray_cluster(const EmitInput& in) {
  const RayNodes ray = ray_nodes(in);
  const std::string yaml = ray_up_yaml(ray);
  std::string out = "# Ray cluster on the plan's hosts: ray up FILE\n";
  if (in.plan)
    for (const auto& m : in.plan->models)
      out += fmt::format(
          "# {} runs on {}: @ray.remote(resources={{\"model:{}\": 1}}) pins its tasks there\n",
          m.model, fmt::join(m.hosts, ", "), m.model);
  out += yaml;
  out += "\n\n# Manual start instead of `ray up`, in this order:\n";
  out += manual_start_lines(ray);
  const std::string order = ray.shape ? ray_order_refusal(ray.layout) : "";
  if (ray.shape && !order.empty())
    out += fmt::format("\n# vLLM is not started on this Ray cluster: {}. Start it with vllm.sh.\n",
                       order);
  else if (ray.shape)
    out += fmt::format(
        "\n# Then vLLM on this Ray cluster, once, on {} (the head); it places its GPU workers "
        "through Ray:\n# {}\n",
        ray.layout.nodes[0].host->name, vllm_ray_command(in, ray.layout));
  return out;
}

}  // namespace meshplan
