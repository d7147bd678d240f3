#include "lib/plan/engines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace meshplan {

const std::vector<Engine>& engines() {
  static const std::vector<Engine> table = {
      {"mlx-lm", "mlx-lm through mlx.launch", true, true, true, PipelineSplit::kEvenReversed, true,
       false, false, false, false, "ring, JACCL (RDMA over Thunderbolt), NCCL on CUDA",
       "mlx_lm/models/pipeline.py 0.32.0 (equal split, rank 0 the last layers, no explicit "
       "ranges); mlx/_distributed_utils/launch.py (ring, jaccl, jaccl-ring, nccl); no group per "
       "stage (ml-explore/mlx#3205)"},
      {"exo", "exo", true, true, true, PipelineSplit::kOwn, true, false, false, false, true,
       "its own discovery (zenoh), MLX ring or JACCL between runners",
       "exo-explore/exo src/exo/master/placement (its own layer placement, pipeline or tensor "
       "instances); exo 1.0 prefill on a DGX Spark with decode on a Mac"},
      {"llama-rpc", "llama.cpp RPC", true, true, true, PipelineSplit::kExplicit, false, false,
       false, false, false, "TCP (RDMA on RoCE NICs)",
       "ggml-org/llama.cpp tools/rpc/README.md, src/llama-model.cpp (--tensor-split per device; "
       "row split only inside one host)"},
      {"vllm", "vLLM", false, true, false, PipelineSplit::kExplicit, true, true, true, true, true,
       "NCCL (InfiniBand, RoCE, TCP)",
       "vllm config/parallel.py (-tp, -pp, VLLM_PP_LAYER_PARTITION, --data-parallel-size, "
       "--enable-expert-parallel), distributed/kv_transfer (prefill/decode KV connectors)"},
  };
  return table;
}

const Engine* find_engine(std::string_view name) {
  for (const Engine& e : engines())
    if (e.name == name) return &e;
  return nullptr;
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

// Why `e` cannot run `plan` as a layout, or "" when it can; `how` says how it runs it.
std::string layout_verdict(const Engine& e, const Plan& plan, std::string& how) {
  if (plan.routing) return "no engine follows a routing table";
  if (plan.strategy == "pipeline") {
    switch (e.pipeline) {
      case PipelineSplit::kExplicit:
        how = "runs it as planned";
        return "";
      case PipelineSplit::kEvenReversed:
        how = "runs a pipeline with its own equal split (rank 0 the last layers)";
        return "";
      case PipelineSplit::kOwn:
        how = "runs a pipeline with its own placement";
        return "";
      case PipelineSplit::kNone:
        return "no pipeline across hosts";
    }
  }
  if (plan.strategy == "tensor") {
    if (!e.tensor) return "no tensor parallel across hosts";
    for (const RankPlan& r : plan.ranks)
      if (r.share && plan.ranks.front().share &&
          std::abs(*r.share - *plan.ranks.front().share) > 1e-9)
        return "equal tensor shares only";
    how = "runs it as planned";
    return "";
  }
  if (plan.strategy == "expert") {
    if (!e.expert) return "no expert parallel across hosts";
    how = "runs it as planned";
    return "";
  }
  if (plan.strategy == "hybrid") {
    if (!e.hybrid) return "no tensor-parallel groups as pipeline stages";
    how = "runs it as planned";
    return "";
  }
  how = "runs it";
  return "";
}

}  // namespace

bool runs_on(const Engine& engine, const Cluster& cluster, const Catalog& catalog,
             const std::vector<std::string>& hosts) {
  for (const std::string& name : hosts) {
    const int i = cluster.host_index(name);
    if (i < 0) continue;
    if (!runs_on_platform(engine, host_platform(cluster.hosts[static_cast<size_t>(i)], catalog)))
      return false;
  }
  return true;
}

std::string_view default_engine(const Cluster& cluster, const Catalog& catalog,
                                const std::vector<std::string>& hosts) {
  bool macs = true, nvidia = true;
  for (const std::string& name : hosts) {
    const int i = cluster.host_index(name);
    const Platform p =
        i < 0 ? Platform::kCpu : host_platform(cluster.hosts[static_cast<size_t>(i)], catalog);
    macs = macs && p == Platform::kMac;
    nvidia = nvidia && p == Platform::kNvidia;
  }
  if (hosts.empty()) return "llama-rpc";
  return macs ? "mlx-lm" : nvidia ? "vllm" : "llama-rpc";
}

std::vector<std::string> engine_verdicts(const Plan& plan, const Cluster& cluster,
                                         const Catalog& catalog) {
  std::vector<std::string> hosts;
  for (const RankPlan& r : plan.ranks)
    if (std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
  std::vector<std::string> out;
  for (const Engine& e : engines()) {
    std::string why, how;
    for (const std::string& name : hosts) {
      const int i = cluster.host_index(name);
      if (i < 0) continue;
      const Platform p = host_platform(cluster.hosts[static_cast<size_t>(i)], catalog);
      if (!runs_on_platform(e, p)) {
        why = fmt::format("{} is {}", name, platform_name(p));
        break;
      }
    }
    if (why.empty()) why = layout_verdict(e, plan, how);
    if (why.empty() && plan.replicas.size() >= 2 && !e.replicas)
      how += ", one launch per replica (no router of its own)";
    out.push_back(why.empty() ? fmt::format("{} {}", e.title, how)
                              : fmt::format("{} cannot ({})", e.title, why));
  }
  return out;
}

std::string render_engine_verdicts(const Plan& plan, const Cluster& cluster,
                                   const Catalog& catalog) {
  std::string out = "Engines:";
  const auto verdicts = engine_verdicts(plan, cluster, catalog);
  for (size_t i = 0; i < verdicts.size(); ++i)
    out += (i ? "; " : " ") + verdicts[i];
  return out + "\n";
}

}  // namespace meshplan
