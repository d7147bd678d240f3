#include "lib/plan/engines.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "lib/core/engine_rules.hpp"
#include "lib/core/error.hpp"
#include "lib/plan/strategy_kind.hpp"

namespace meshplan {

const std::vector<Engine>& engines() {
  static const std::vector<Engine> table = [] {
    std::vector<Engine> rows = {
        {.kind = EngineKind::kMlxLm,
         .macs = true,
         .nvidia = true,
         .cpu = true,
         .pipeline = PipelineSplit::kEvenReversed,
         .tensor = true,
         .transports = "ring, JACCL (RDMA over Thunderbolt), NCCL on CUDA",
         .source = "mlx_lm/models/pipeline.py 0.32.0 (equal split, rank 0 the last layers, no "
                   "explicit ranges); mlx/_distributed_utils/launch.py (ring, jaccl, jaccl-ring, "
                   "nccl); no group per stage (ml-explore/mlx#3205)"},
        {.kind = EngineKind::kExo,
         .macs = true,
         .nvidia = true,
         .cpu = true,
         .mixes = true,
         .pipeline = PipelineSplit::kOwn,
         .tensor = true,
         .disaggregated = true,
         .transports = "its own discovery (zenoh), MLX ring or JACCL between runners",
         .source = "exo-explore/exo src/exo/master/placement (its own layer placement, in "
                   "proportion to memory; pipeline or tensor instances); @b5375f8: prefill/decode "
                   "with ENABLE_DISAGGREGATION=true, a one-node instance on each host linked by "
                   "POST /v1/instance-links, the KV cache sent layer by layer over TCP (MLX on "
                   "both: an NVIDIA host runs mlx-cuda)"},
        {.kind = EngineKind::kLlamaRpc,
         .macs = true,
         .nvidia = true,
         .cpu = true,
         .mixes = true,
         .pipeline = PipelineSplit::kExplicit,
         .transports = "TCP (RDMA on RoCE NICs)",
         .source =
             "ggml-org/llama.cpp tools/rpc/README.md, src/llama-model.cpp (--tensor-split per "
             "device; row split only inside one host)"},
        {.kind = EngineKind::kVllm,
         .nvidia = true,
         .pipeline = PipelineSplit::kExplicit,
         .tensor = true,
         .expert = true,
         .hybrid = true,
         .replicas = true,
         .disaggregated = true,
         .transports = "NCCL (InfiniBand, RoCE, TCP)",
         .source = "vllm config/parallel.py (-tp, -pp, VLLM_PP_LAYER_PARTITION, "
                   "--data-parallel-size, --enable-expert-parallel), distributed/kv_transfer "
                   "(prefill/decode KV connectors)"},
    };
    for (Engine& e : rows) {
      e.name = meshplan::name(e.kind);
      e.title = meshplan::title(e.kind);
    }
    return rows;
  }();
  return table;
}

const Engine* find_engine(std::string_view name) {
  for (const Engine& e : engines())
    if (e.name == name) return &e;
  return nullptr;
}

const Engine& engine(EngineKind kind) {
  for (const Engine& e : engines())
    if (e.kind == kind) return e;
  throw internal_error("no engine row for {}", name(kind));
}

std::string_view engine_pipeline_solver(const Engine& engine) {
  switch (engine.pipeline) {
    case PipelineSplit::kEvenReversed:
      return "even";
    case PipelineSplit::kOwn:
      return "proportional";
    default:
      return "";
  }
}

std::pair<int, int> mlx_lm_pipeline_range(int layers, int size, int rank) {
  int per_rank = layers / size;
  const int extra = layers - per_rank * size;
  if (rank < extra) per_rank += 1;
  const int start = (size - rank - 1) * per_rank;
  // pipeline.py keeps self.layers[:end]: an end past the last layer stops at it.
  return {std::min(start, layers), std::min(start + per_rank, layers)};
}

std::vector<int> mlx_lm_orphaned_layers(int layers, int size) {
  std::vector<bool> held(static_cast<size_t>(std::max(layers, 0)), false);
  for (int r = 0; r < size; ++r) {
    auto [a, b] = mlx_lm_pipeline_range(layers, size, r);
    for (int l = a; l < b; ++l)
      held[static_cast<size_t>(l)] = true;
  }
  std::vector<int> out;
  for (int l = 0; l < layers; ++l)
    if (!held[static_cast<size_t>(l)]) out.push_back(l);
  return out;
}

Platform host_platform(const Host& host, const Catalog& catalog) {
  const ChipSpec* chip = host.chip.empty() ? nullptr : catalog.find_chip(host.chip);
  if (host.os.kind == "macos") return Platform::kMac;
  if (!host.gpus.empty() || (chip && chip->vendor == "nvidia")) return Platform::kNvidia;
  if (host.os.kind.empty() && (!chip || chip->vendor == "apple")) return Platform::kMac;
  return Platform::kCpu;
}

namespace {

const char* platform_name(Platform p) {
  return p == Platform::kMac ? "a Mac" : p == Platform::kNvidia ? "an NVIDIA host" : "a CPU host";
}

bool runs_on_platform(const Engine& e, Platform p) {
  return p == Platform::kMac ? e.macs : p == Platform::kNvidia ? e.nvidia : e.cpu;
}

// How `e` runs `plan` when it does: "runs it as planned" or with a split of its own.
std::string layout_how(const Engine& e, const Plan& plan) {
  if (!is_strategy(plan.strategy, StrategyKind::kPipeline) ||
      e.pipeline == PipelineSplit::kExplicit || plan.ranks.size() <= 1)
    return "runs it as planned";
  if (plan.solver.name == engine_pipeline_solver(e)) return "runs it as planned";
  return e.pipeline == PipelineSplit::kEvenReversed
             ? "runs a pipeline with its own equal split (rank 0 the last layers)"
             : "runs a pipeline with its own placement";
}

// The GPUs of a rank's host as the plan recorded them (1 for a host of one device).
int rank_gpus(const Plan& plan, const RankPlan& r) {
  for (const HostInfo& h : plan.hosts)
    if (h.name == r.host) return std::max(1, h.gpus);
  return 1;
}

// vLLM's experts per layer on each node: its even split over every GPU, summed per node.
std::vector<int> vllm_node_experts(const Plan& plan) {
  std::vector<int> gpus;
  int total = 0;
  for (const RankPlan& r : plan.ranks) {
    gpus.push_back(rank_gpus(plan, r));
    total += gpus.back();
  }
  const std::vector<int> per_rank = vllm_experts_per_rank(plan.routed_experts, total);
  std::vector<int> out;
  size_t next = 0;
  for (int g : gpus) {
    int sum = 0;
    for (int k = 0; k < g; ++k)
      sum += per_rank[next++];
    out.push_back(sum);
  }
  return out;
}

// On nodes of unequal GPU counts vLLM runs on Ray, which orders the nodes after the head's by
// their GPUs (vllm/v1/executor/ray_distributed_executor.py sort_by_driver_then_worker_ip): a
// pipeline or expert plan loads as planned only when its ranks after the first come in that order.
std::string ray_order_refusal(const Plan& plan) {
  if (is_strategy(plan.strategy, StrategyKind::kTensor) || plan.ranks.size() <= 2) return "";
  std::vector<int> gpus;
  for (const RankPlan& r : plan.ranks)
    gpus.push_back(rank_gpus(plan, r));
  if (vllm_multiprocessing_fits(gpus)) return "";
  if (std::is_sorted(gpus.begin() + 1, gpus.end())) return "";
  return fmt::format(
      "on nodes of {} GPUs it runs on Ray, which orders the nodes after the first by their GPUs",
      fmt::join(gpus, ", "));
}

// Why vLLM would refuse `plan` or load it otherwise ("" when it loads it as planned): one
// tensor-parallel degree on every pipeline stage that divides the heads; a tensor or expert plan
// is one group over every GPU, whose shares and experts vLLM splits evenly per GPU.
std::string vllm_refusal(const Plan& plan) {
  const bool stages = is_strategy(plan.strategy, StrategyKind::kPipeline) ||
                      is_strategy(plan.strategy, StrategyKind::kHybrid);
  if (stages) {
    auto degree = [&](const RankPlan& x) {
      if (x.tp_group.empty()) return x.tp;
      int sum = 0;
      for (const std::string& h : x.tp_group)
        for (const RankPlan& y : plan.ranks)
          if (y.host == h) sum += rank_gpus(plan, y);
      return std::max(sum, static_cast<int>(x.tp_group.size()));
    };
    for (const RankPlan& r : plan.ranks)
      if (degree(r) != degree(plan.ranks.front()))
        return "one tensor-parallel degree on every stage only";
    if (std::string why = ray_order_refusal(plan); !why.empty()) return why;
    return plan.ranks.empty() ? ""
                              : vllm_tensor_refusal(degree(plan.ranks.front()),
                                                    plan.attention_heads, plan.kv_heads);
  }
  std::vector<int> gpus;
  int total = 0;
  for (const RankPlan& r : plan.ranks) {
    gpus.push_back(rank_gpus(plan, r));
    total += gpus.back();
  }
  if (std::string why = ray_order_refusal(plan); !why.empty()) return why;
  if (std::string why = vllm_tensor_refusal(total, plan.attention_heads, plan.kv_heads);
      !why.empty())
    return why;
  if (is_strategy(plan.strategy, StrategyKind::kTensor) && !vllm_multiprocessing_fits(gpus))
    return fmt::format(
        "it splits every layer equally over its {} GPUs ({} per node), not equally "
        "per node",
        total, fmt::join(gpus, ", "));
  if (is_strategy(plan.strategy, StrategyKind::kExpert) && plan.routed_experts > 0) {
    const std::vector<int> loads = vllm_node_experts(plan);
    for (size_t i = 0; i < plan.ranks.size(); ++i)
      for (const std::vector<int>& layer : plan.ranks[i].experts)
        if (!layer.empty() && static_cast<int>(layer.size()) != loads[i])
          return fmt::format(
              "it loads the {} experts of a layer evenly over its {} GPUs ({} per node), not the "
              "plan's split",
              plan.routed_experts, total, fmt::join(loads, ", "));
  }
  return "";
}

// A routed plan whose every host holds every layer is whole copies, one a host: every engine runs
// them as replicas behind nginx, as `emit` launches them (lib/plan/plan_file_reader.cpp).
bool whole_copies(const Plan& plan) {
  for (const RankPlan& r : plan.ranks)
    if (r.layer_start != 0 || r.layer_end != plan.num_layers) return false;
  return !plan.ranks.empty();
}

}  // namespace

std::string rule_refusal(const Engine& e, const Plan& plan) {
  if (plan.routing && !whole_copies(plan)) return "no engine follows a routing table";
  if (e.kind == EngineKind::kVllm)
    if (std::string why = vllm_refusal(plan); !why.empty()) return why;
  if (e.kind == EngineKind::kMlxLm)
    for (const RankPlan& r : plan.ranks)
      if (rank_gpus(plan, r) > 1)
        return fmt::format(
            "mlx.launch makes each of {}'s {} GPUs a rank of its own, not the plan's split inside "
            "the host",
            r.host, rank_gpus(plan, r));
  if (is_strategy(plan.strategy, StrategyKind::kTensor)) {
    const int n = static_cast<int>(plan.ranks.size());
    std::string why =
        e.kind == EngineKind::kMlxLm ? mlx_lm_tensor_refusal(n, plan.attention_heads, plan.kv_heads)
        : e.kind == EngineKind::kExo ? exo_tensor_refusal(n, plan.hidden_size, plan.kv_heads)
                                     : "";
    if (!why.empty()) return why;
  }
  return "";
}

std::string layout_refusal(const Engine& e, const Plan& plan) {
  if (std::string why = rule_refusal(e, plan); !why.empty()) return why;
  if (is_strategy(plan.strategy, StrategyKind::kPipeline)) {
    if (e.pipeline == PipelineSplit::kNone) return "no pipeline across hosts";
    if (e.pipeline != PipelineSplit::kExplicit && plan.ranks.size() > 1 &&
        plan.solver.name != engine_pipeline_solver(e))
      return e.pipeline == PipelineSplit::kEvenReversed ? "its own equal split only"
                                                        : "its own layer placement only";
    return "";
  }
  if (is_strategy(plan.strategy, StrategyKind::kTensor)) {
    if (!e.tensor) return "no tensor parallel across hosts";
    for (const RankPlan& r : plan.ranks)
      if (r.share && plan.ranks.front().share &&
          std::abs(*r.share - *plan.ranks.front().share) > 1e-9)
        return "equal tensor shares only";
    return "";
  }
  if (is_strategy(plan.strategy, StrategyKind::kExpert) && !e.expert)
    return "no expert parallel across hosts";
  if (is_strategy(plan.strategy, StrategyKind::kHybrid) && !e.hybrid)
    return "no tensor-parallel groups as pipeline stages";
  return "";
}

std::string platform_refusal(const Engine& engine, const Cluster& cluster, const Catalog& catalog,
                             const std::vector<std::string>& hosts) {
  std::string first_host;
  Platform first = Platform::kMac;
  for (const std::string& name : hosts) {
    const int i = cluster.host_index(name);
    if (i < 0) continue;
    const Platform p = host_platform(cluster.hosts[static_cast<size_t>(i)], catalog);
    if (!runs_on_platform(engine, p)) return fmt::format("{} is {}", name, platform_name(p));
    if (first_host.empty()) {
      first_host = name;
      first = p;
    } else if (p != first && !engine.mixes) {
      return fmt::format("one job over {} ({}) and {} ({}) does not run", first_host,
                         platform_name(first), name, platform_name(p));
    }
  }
  return "";
}

bool runs_on(const Engine& engine, const Cluster& cluster, const Catalog& catalog,
             const std::vector<std::string>& hosts) {
  return platform_refusal(engine, cluster, catalog, hosts).empty();
}

namespace {

void platforms_of(const Cluster& cluster, const Catalog& catalog,
                  const std::vector<std::string>& hosts, bool& macs, bool& nvidia) {
  macs = nvidia = true;
  for (const std::string& name : hosts) {
    const int i = cluster.host_index(name);
    if (i < 0) continue;
    const Platform p = host_platform(cluster.hosts[static_cast<size_t>(i)], catalog);
    macs = macs && p == Platform::kMac;
    nvidia = nvidia && p == Platform::kNvidia;
  }
}

}  // namespace

bool one_platform_engine(const Cluster& cluster, const Catalog& catalog,
                         const std::vector<std::string>& hosts) {
  bool macs = true, nvidia = true;
  platforms_of(cluster, catalog, hosts, macs, nvidia);
  return macs || nvidia;
}

const Engine* infer_engine(const Cluster& cluster, const Catalog& catalog,
                           const std::vector<std::string>& hosts, std::string& why) {
  bool macs = true, nvidia = true;
  platforms_of(cluster, catalog, hosts, macs, nvidia);
  if (macs) {
    why = "every host is a Mac";
    return &engine(EngineKind::kMlxLm);
  }
  if (nvidia) {
    why = "every host has NVIDIA GPUs";
    return &engine(EngineKind::kVllm);
  }
  // A mix, or CPU hosts: llama.cpp RPC runs everywhere and takes the planned split.
  const Engine* llama = &engine(EngineKind::kLlamaRpc);
  if (runs_on(*llama, cluster, catalog, hosts)) {
    why = "it runs on every host, Macs and Linux alike, and takes the planned split";
    return llama;
  }
  for (const Engine& e : engines())
    if (runs_on(e, cluster, catalog, hosts)) {
      why = "the first engine that runs on every host";
      return &e;
    }
  why = "no engine runs on every host";
  return nullptr;
}

std::string_view default_engine(const Cluster& cluster, const Catalog& catalog,
                                const std::vector<std::string>& hosts) {
  std::string why;
  const Engine* e = hosts.empty() ? nullptr : infer_engine(cluster, catalog, hosts, why);
  return e ? e->name : name(EngineKind::kLlamaRpc);
}

std::vector<std::string> plan_hosts(const Plan& plan) {
  std::vector<std::string> hosts;
  auto add = [&](const std::string& h) {
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  };
  for (const RankPlan& r : plan.ranks)
    add(r.host);
  for (const ReplicaInfo& replica : plan.replicas)  // every replica runs the plan's engine
    for (const std::string& h : replica.hosts)
      add(h);
  return hosts;
}

std::vector<std::string> engine_verdicts(const Plan& plan, const Cluster& cluster,
                                         const Catalog& catalog) {
  const std::vector<std::string> hosts = plan_hosts(plan);
  std::vector<std::string> out;
  for (const Engine& e : engines()) {
    std::string why = platform_refusal(e, cluster, catalog, hosts);
    if (why.empty()) why = rule_refusal(e, plan);
    if (why.empty() && !is_strategy(plan.strategy, StrategyKind::kPipeline))
      why = layout_refusal(e, plan);
    if (why.empty() && is_strategy(plan.strategy, StrategyKind::kPipeline) &&
        e.pipeline == PipelineSplit::kNone)
      why = "no pipeline across hosts";
    const bool behind_nginx =
        (plan.replicas.size() >= 2 || (plan.routing && plan.ranks.size() >= 2)) && !e.replicas;
    const std::string how =
        why.empty() ? fmt::format("{}{}", layout_how(e, plan),
                                  behind_nginx ? ", one launch per replica behind nginx" : "")
                    : "";
    out.push_back(why.empty() ? fmt::format("{} {}", e.title, how)
                              : fmt::format("{} cannot ({})", e.title, why));
  }
  return out;
}

std::string render_engine_verdicts(const Plan& plan, const Cluster& cluster,
                                   const Catalog& catalog) {
  std::string out;
  if (const Engine* e = find_engine(plan.engine)) {
    std::string others;
    for (const Engine& o : engines())
      if (&o != e) others += fmt::format("{}{}", others.empty() ? "" : ", ", o.name);
    out = fmt::format("Engine: {} ({}; another with --engine {} or any)\n", e->title,
                      plan.engine_reason, others);
  } else if (!plan.engine_reason.empty())
    out = fmt::format("Engine: {}\n", plan.engine_reason);
  out += "Engines:";
  const auto verdicts = engine_verdicts(plan, cluster, catalog);
  for (size_t i = 0; i < verdicts.size(); ++i)
    out += (i ? "; " : " ") + verdicts[i];
  return out + "\n";
}

}  // namespace meshplan
