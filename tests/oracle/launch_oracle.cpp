#include "tests/oracle/launch_oracle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "tests/oracle/oracle_support.hpp"

namespace meshplan::oracle {
namespace {

struct VllmNode {
  std::string host;
  Command command;
};

int routed_experts(const ModelDesc& model) {
  for (const LayerInfo& l : model.layers)
    if (l.moe && l.moe->experts > 0) return l.moe->experts;
  return 0;
}

// vllm/config: ModelConfig.verify_with_parallel_config (heads divisible by TP) and
// QKVParallelLinear (KV heads split when TP <= KV heads, replicated when TP is a multiple).
void check_heads(int tp, const ReadContext& ctx) {
  const int heads = ctx.model.num_heads, kv = ctx.model.num_kv_heads;
  if (heads > 0 && heads % tp != 0)
    ctx.flag("vllm-tp-divides-heads", fmt::format("-tp {} does not divide {}'s {} attention heads",
                                                  tp, ctx.model.name, heads));
  if (kv > 0 && kv % tp != 0 && tp % kv != 0)
    ctx.flag("vllm-tp-kv-heads",
             fmt::format("-tp {} neither divides nor is a multiple of {}'s {} KV heads", tp,
                         ctx.model.name, kv));
}

// VLLM_PP_LAYER_PARTITION when set (one entry per stage, summing to the layers), else the even
// split of get_pp_indices.
std::vector<int> stage_layers(const std::string& partition, int pp, const ReadContext& ctx) {
  const int layers = ctx.model.num_layers();
  if (partition.empty()) return vllm_even_partition(layers, pp);
  std::vector<int> parts;
  size_t start = 0;
  while (start <= partition.size()) {
    size_t comma = partition.find(',', start);
    if (comma == std::string::npos) comma = partition.size();
    try {
      parts.push_back(std::stoi(partition.substr(start, comma - start)));
    } catch (const std::exception&) {
      ctx.flag("vllm-pp-partition", "VLLM_PP_LAYER_PARTITION=" + partition + " is not integers");
      return vllm_even_partition(layers, pp);
    }
    start = comma + 1;
  }
  const int sum = std::accumulate(parts.begin(), parts.end(), 0);
  if (static_cast<int>(parts.size()) != pp || sum != layers) {
    ctx.flag("vllm-pp-partition",
             fmt::format("VLLM_PP_LAYER_PARTITION={} has {} entries summing to {}; -pp {} and {} "
                         "layers need {} entries summing to {}",
                         partition, parts.size(), sum, pp, layers, pp, layers));
    return vllm_even_partition(layers, pp);
  }
  return parts;
}

// Each node's layers and experts from its global ranks: vLLM orders ranks [dp][pp][tp]
// (vllm/distributed/parallel_state.py initialize_model_parallel), and with expert parallel splits
// the routed experts over EP = TP x DP ranks, the first `experts % ep` one more
// (vllm/model_executor/layers/fused_moe/layer.py determine_expert_map, linear placement).
void place_ranks(LaunchReading& out, const std::vector<int>& stages, bool expert_parallel,
                 const ReadContext& ctx) {
  const int tp = out.tp, pp = out.pp;
  std::vector<int> stage_start(stages.size() + 1, 0);
  for (size_t s = 0; s < stages.size(); ++s)
    stage_start[s + 1] = stage_start[s] + stages[s];
  const int experts = routed_experts(ctx.model);
  const int ep = expert_parallel ? tp * out.dp : 1;
  out.ep = ep;
  int global = 0;
  for (EngineHost& h : out.hosts) {
    int lo = ctx.model.num_layers(), hi = 0;
    std::set<int> held;
    for (int k = 0; k < h.processes; ++k, ++global) {
      const int stage = (global / tp) % pp;
      lo = std::min(lo, stage_start[static_cast<size_t>(stage)]);
      hi = std::max(hi, stage_start[static_cast<size_t>(stage) + 1]);
      if (experts == 0) continue;
      if (!expert_parallel) {
        for (int e = 0; e < experts; ++e)
          held.insert(e);
        continue;
      }
      const int r = (global / (pp * tp)) * tp + global % tp;
      const int base = experts / ep, rem = experts % ep;
      const int first = r * base + std::min(r, rem);
      for (int e = first; e < first + base + (r < rem ? 1 : 0); ++e)
        held.insert(e);
    }
    if (hi > lo) h.layers = std::pair{lo, hi};
    if (experts > 0) h.experts = held;
  }
}

// The degrees every node's command gives, with a violation where nodes disagree.
void read_degrees(const std::vector<VllmNode>& nodes, LaunchReading& out, const ReadContext& ctx) {
  auto degree = [&](const Command& c, std::vector<std::string> names) {
    return int_option(c, names, 1, ctx);
  };
  const Command& first = nodes.front().command;
  out.tp = degree(first, {"-tp", "--tensor-parallel-size"});
  out.pp = degree(first, {"-pp", "--pipeline-parallel-size"});
  out.dp = degree(first, {"-dp", "--data-parallel-size"});
  for (const VllmNode& n : nodes)
    if (degree(n.command, {"-tp", "--tensor-parallel-size"}) != out.tp ||
        degree(n.command, {"-pp", "--pipeline-parallel-size"}) != out.pp ||
        n.command.flag("--enable-expert-parallel") != first.flag("--enable-expert-parallel") ||
        n.command.option({"--master-addr"}) != first.option({"--master-addr"}))
      ctx.flag("vllm-nodes-agree", n.host + "'s command differs from node 0's in its degrees");
  if (out.tp < 1 || out.pp < 1 || out.dp < 1) {
    ctx.flag("vllm-degrees", "a degree below 1");
    out.tp = std::max(out.tp, 1), out.pp = std::max(out.pp, 1), out.dp = std::max(out.dp, 1);
  }
  check_heads(out.tp, ctx);
}

// `vllm serve --nnodes N --node-rank R` (multiprocessing across nodes): world / N processes on
// every node (vllm/v1/executor/multiproc_executor.py), node 0 the master and API server, the
// others --headless.
void read_vllm_multiproc(const std::vector<VllmNode>& nodes, LaunchReading& out,
                         const ReadContext& ctx) {
  read_degrees(nodes, out, ctx);
  const Command& first = nodes.front().command;
  const int nnodes = int_option(first, {"--nnodes"}, 1, ctx);
  if (nnodes != static_cast<int>(nodes.size()))
    ctx.flag("vllm-node-ranks",
             fmt::format("--nnodes {} but {} nodes are started", nnodes, nodes.size()));
  const int world = out.tp * out.pp * out.dp;
  if (world % static_cast<int>(nodes.size()) != 0)
    ctx.flag("vllm-nnodes-equal-gpus",
             fmt::format("{} ranks do not split evenly over {} nodes", world, nodes.size()));
  const int per_node = std::max(1, world / static_cast<int>(nodes.size()));
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Command& c = nodes[i].command;
    if (int_option(c, {"--node-rank"}, 0, ctx) != static_cast<int>(i))
      ctx.flag("vllm-node-ranks", fmt::format("node {} ({}) says --node-rank {}", i, nodes[i].host,
                                              c.option({"--node-rank"}).value_or("0")));
    if (c.flag("--headless") != (i != 0))
      ctx.flag("vllm-headless", nodes[i].host + ": --headless belongs on every node but node 0");
    const Host* host = find_host(ctx.cluster, nodes[i].host);
    if (!host) {
      ctx.flag("unknown-host", nodes[i].host);
      continue;
    }
    if (per_node > device_count(*host))
      ctx.flag("vllm-gpus-on-node", fmt::format("{} processes on {}, which has {} GPUs", per_node,
                                                host->name, device_count(*host)));
    check_network_env(c.env, *host, ctx);
    out.hosts.push_back({host->name, per_node, std::nullopt, std::nullopt});
  }
  const Host* head = find_host(ctx.cluster, nodes.front().host);
  const auto master = first.option({"--master-addr"});
  if (nodes.size() > 1 && head) {
    if (!master || !interface_with_address(*head, *master))
      ctx.flag("vllm-master-addr", fmt::format("--master-addr {} is no address of node 0 ({})",
                                               master.value_or("(none)"), head->name));
    auto ip = first.env.find("VLLM_HOST_IP");
    if (master && ip != first.env.end() && ip->second != *master)
      ctx.flag("vllm-master-addr",
               "--master-addr " + *master + " is not node 0's VLLM_HOST_IP " + ip->second);
  }
  auto partition = first.env.find("VLLM_PP_LAYER_PARTITION");
  place_ranks(out, stage_layers(partition == first.env.end() ? "" : partition->second, out.pp, ctx),
              first.flag("--enable-expert-parallel"), ctx);
}

// vllm.sh: a `# node N: HOST` comment, then the node's command.
std::vector<VllmNode> vllm_script_nodes(const std::string& text) {
  std::vector<VllmNode> nodes;
  std::string host;
  for (const std::string& line : lines_of(text)) {
    if (line.rfind("# node ", 0) == 0 && line.find(": ") != std::string::npos)
      host = line.substr(line.find(": ") + 2);
    else if (line.rfind('#', 0) != 0)
      if (auto c = read_command(line, {"vllm"})) nodes.push_back({host, *c});
  }
  return nodes;
}

// slurm.sbatch: `HOST)` case arms, each with `export` lines and the engine's exec line; a
// heterogeneous job (replicas) has one node script per component, `node_script_K`.
std::vector<std::vector<VllmNode>> slurm_components(const std::string& text) {
  std::vector<std::vector<VllmNode>> components(1);
  std::string host;
  std::map<std::string, std::string> env;
  for (std::string line : lines_of(text)) {
    line.erase(0, line.find_first_not_of(' '));
    if (line.rfind("node_script_", 0) == 0 && line.find("=$(") != std::string::npos) {
      if (!components.back().empty()) components.emplace_back();
    } else if (!line.empty() && line.back() == ')' && line.find(' ') == std::string::npos &&
               line.find('(') == std::string::npos) {
      host = line.substr(0, line.size() - 1);
      env.clear();
    } else if (line.rfind("export ", 0) == 0) {
      for (const std::string& w : shell_words(line.substr(7)))
        if (auto eq = w.find('='); eq != std::string::npos) env[w.substr(0, eq)] = w.substr(eq + 1);
    } else if (line.rfind("exec ", 0) == 0) {
      if (auto c = read_command(line, {"vllm"})) {
        for (const auto& [k, v] : env)
          c->env.emplace(k, v);
        components.back().push_back({host, *c});
      }
    }
  }
  return components;
}

struct RayStart {
  std::string host;
  Command command;
};

// ray-cluster.yaml's manual start (`# on HOST: ... ray start ...`) and its `# vllm serve` line.
std::pair<std::vector<RayStart>, std::optional<Command>> ray_file(const std::string& text) {
  std::vector<RayStart> starts;
  std::optional<Command> serve;
  for (const std::string& line : lines_of(text)) {
    const size_t colon = line.find(": ");
    if (line.rfind("# on ", 0) == 0 && colon != std::string::npos)
      if (auto c = read_command(line.substr(colon + 2), {"ray"}))
        starts.push_back({line.substr(5, colon - 5), *c});
    if (line.rfind("# vllm serve", 0) == 0) serve = read_command(line.substr(2), {"vllm"});
  }
  return {starts, serve};
}

// vllm.sh on Ray: `# node N: HOST` blocks with `ray start`, then `vllm serve` on the Ray
// executor once.
std::pair<std::vector<RayStart>, std::optional<Command>> ray_script(const std::string& text) {
  std::vector<RayStart> starts;
  std::optional<Command> serve;
  std::string host;
  for (const std::string& line : lines_of(text)) {
    if (line.rfind("# node ", 0) == 0 && line.find(": ") != std::string::npos)
      host = line.substr(line.find(": ") + 2);
    if (line.rfind('#', 0) == 0) continue;
    if (auto c = read_command(line, {"ray"}); c && c->flag("start"))
      starts.push_back({host, *c});
    else if (auto v = read_command(line, {"vllm"}))
      serve = v;
  }
  return {starts, serve};
}

// Ray's nodes and vLLM on them: the workers ordered as vLLM sorts them
// (vllm/v1/executor/ray_distributed_executor.py sort_by_driver_then_worker_ip: the driver's node,
// then by workers per node, then by address), each node giving its GPUs.
void read_ray(const std::vector<RayStart>& starts, const std::optional<Command>& serve,
              LaunchReading& out, const ReadContext& ctx) {
  struct RayNode {
    const Host* host;
    std::string ip;
  };
  std::vector<RayNode> nodes;
  std::string head_ip;
  for (const RayStart& start : starts) {
    const Host* host = find_host(ctx.cluster, start.host);
    const Command* c = &start.command;
    if (!host) {
      ctx.flag("unknown-host", start.host);
      continue;
    }
    const std::string ip = c->option({"--node-ip-address"}).value_or("");
    if (!interface_with_address(*host, ip))
      ctx.flag("ray-node-ip",
               fmt::format("--node-ip-address {} is no address of {}", ip, host->name));
    auto vip = c->env.find("VLLM_HOST_IP");
    if (vip != c->env.end() && vip->second != ip)
      ctx.flag("ray-node-ip", host->name + ": VLLM_HOST_IP " + vip->second +
                                  " is not its --node-ip-address " + ip);
    check_network_env(c->env, *host, ctx);
    if (c->flag("--head"))
      head_ip = ip;
    else if (auto addr = c->option({"--address"});
             addr && addr->substr(0, addr->find(':')) != head_ip)
      ctx.flag("ray-head-address", host->name + " joins " + *addr + ", not the head " + head_ip);
    nodes.push_back({host, ip});
  }
  if (nodes.empty() || !serve) return;
  std::vector<VllmNode> as_nodes = {{nodes.front().host->name, *serve}};
  read_degrees(as_nodes, out, ctx);
  int remaining = out.tp * out.pp * out.dp, gpus = 0;
  for (const RayNode& n : nodes)
    gpus += device_count(*n.host);
  if (remaining > gpus)
    ctx.flag("ray-world-fits",
             fmt::format("{} ranks on {} GPUs of the Ray cluster", remaining, gpus));
  std::stable_sort(nodes.begin() + 1, nodes.end(), [](const RayNode& a, const RayNode& b) {
    return std::pair{device_count(*a.host), a.ip} < std::pair{device_count(*b.host), b.ip};
  });
  for (const RayNode& n : nodes) {
    const int take = std::min(remaining, device_count(*n.host));
    remaining -= take;
    if (take > 0) out.hosts.push_back({n.host->name, take, std::nullopt, std::nullopt});
  }
  std::string partition =
      serve->env.count("VLLM_PP_LAYER_PARTITION") ? serve->env.at("VLLM_PP_LAYER_PARTITION") : "";
  place_ranks(out, stage_layers(partition, out.pp, ctx), serve->flag("--enable-expert-parallel"),
              ctx);
}

// One folder's launches (the top or a replica's).
void read_folder(const std::string& folder, const std::map<std::string, std::string>& files,
                 OracleReading& reading, const Cluster& cluster, const ModelDesc& model) {
  auto text = [&](const std::string& name) -> const std::string* {
    auto it = files.find(folder + name);
    return it == files.end() ? nullptr : &it->second;
  };
  auto launch = [&](const std::string& name, auto&& read) {
    LaunchReading out;
    out.file = folder + name;
    ReadContext ctx{cluster, model, out.file, reading.violations};
    read(out, ctx);
    if (!out.hosts.empty()) reading.launches.push_back(out);
  };
  if (const std::string* t = text("vllm.sh"))
    launch("vllm.sh", [&](LaunchReading& o, const ReadContext& c) {
      if (t->find("--distributed-executor-backend ray") != std::string::npos) {
        auto [starts, serve] = ray_script(*t);
        read_ray(starts, serve, o, c);
        return;
      }
      auto nodes = vllm_script_nodes(*t);
      if (!nodes.empty()) read_vllm_multiproc(nodes, o, c);
    });
  if (const std::string* t = text("slurm.sbatch")) {
    const auto components = slurm_components(*t);
    for (size_t k = 0; k < components.size(); ++k)
      if (!components[k].empty())
        launch(
            components.size() == 1 ? "slurm.sbatch" : fmt::format("replica-{}/slurm.sbatch", k + 1),
            [&](LaunchReading& o, const ReadContext& c) {
              read_vllm_multiproc(components[k], o, c);
            });
  }
  if (const std::string* t = text("ray-cluster.yaml"))
    launch("ray-cluster.yaml", [&](LaunchReading& o, const ReadContext& c) {
      auto [starts, serve] = ray_file(*t);
      read_ray(starts, serve, o, c);
    });
  const std::string* mlx_hosts = text("mlx-hostfile.json");
  if (const std::string* l = text("mlx-launch.sh"); l || mlx_hosts)
    launch(mlx_hosts ? "mlx-hostfile.json" : "mlx-launch.sh",
           [&](LaunchReading& o, const ReadContext& c) {
             read_mlx(mlx_hosts ? *mlx_hosts : "", l ? *l : "", o, c);
           });
  if (const std::string* t = text("exo.sh"))
    launch("exo.sh", [&](LaunchReading& o, const ReadContext& c) { read_exo(*t, o, c); });
  if (const std::string* t = text("llama-rpc.sh"))
    launch("llama-rpc.sh",
           [&](LaunchReading& o, const ReadContext& c) { read_llama_rpc(*t, o, c); });
  if (const std::string* t = text("torchrun.sh"))
    launch("torchrun.sh", [&](LaunchReading& o, const ReadContext& c) { read_torchrun(*t, o, c); });
  for (const char* name : {"openmpi.hostfile", "mpich.hostfile", "deepspeed.hostfile"})
    if (const std::string* t = text(name))
      launch(name, [&](LaunchReading& o, const ReadContext& c) { read_hostfile(name, *t, o, c); });
}

}  // namespace

std::vector<int> vllm_even_partition(int layers, int pp) {
  std::vector<int> parts(static_cast<size_t>(pp), layers / pp);
  for (int i = 2; i < layers % pp + 2; ++i)
    parts[static_cast<size_t>(pp - i)] += 1;
  return parts;
}

std::pair<int, int> mlx_pipeline_range(int layers, int size, int rank) {
  int per_rank = layers / size;
  if (rank < layers - per_rank * size) per_rank += 1;
  const int start = (size - rank - 1) * per_rank;
  return {std::min(start, layers), std::min(start + per_rank, layers)};
}

std::vector<int> llama_layer_devices(int layers, const std::vector<double>& split) {
  std::vector<double> bounds(split.size());
  double total = 0;
  for (size_t i = 0; i < split.size(); ++i)
    bounds[i] = (total += split[i]);
  for (double& b : bounds)
    b /= total;
  std::vector<int> device;
  for (int l = 0; l <= layers; ++l) {
    const double at = static_cast<double>(l) / (layers + 1);
    const auto it = std::upper_bound(bounds.begin(), bounds.end(), at);
    device.push_back(static_cast<int>(
        std::min<long>(it - bounds.begin(), static_cast<long>(bounds.size()) - 1)));
  }
  return device;
}

OracleReading read_launches(const std::map<std::string, std::string>& files, const Cluster& cluster,
                            const ModelDesc& model) {
  OracleReading reading;
  std::set<std::string> folders = {""};
  for (const auto& [name, text] : files)
    if (auto slash = name.find('/'); slash != std::string::npos)
      folders.insert(name.substr(0, slash + 1));
  for (const std::string& folder : folders)
    read_folder(folder, files, reading, cluster, model);
  return reading;
}

}  // namespace meshplan::oracle
