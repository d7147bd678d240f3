#include "deploy/writers/mlx_launch.hpp"

#include "lib/cluster/mlx_backend.hpp"
#include "lib/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/mlx_cuda_hostfile.hpp"
#include "lib/plan/strategy_kind.hpp"
#include "topologies/backend_rules.hpp"

namespace meshplan {
namespace {

int total_layers(const LaunchLayout& layout) {
  int total = 0;
  for (const LaunchNode& n : layout.nodes)
    if (n.layers) total = std::max(total, n.layers->second);
  return total;
}

// The report over the plan's hosts in reverse, when a pipeline plan's MLX ranks should run so.
std::optional<CheckReport> reversed_report(const EmitInput& in) {
  const LaunchLayout& layout = in.layout();
  if (!in.plan || !splits_by_layers(layout) || layout.nodes.size() < 2 || mlx_runs_nccl(layout))
    return std::nullopt;
  CheckOptions options;
  options.backend =
      in.report.chosen.empty() ? std::string(name(MlxBackend::kAuto)) : in.report.chosen;
  for (auto it = layout.nodes.rbegin(); it != layout.nodes.rend(); ++it)
    options.hosts.push_back(it->host->name);
  options.fixed_order = true;
  CheckReport report = check_cluster(in.topology, options);
  const BackendVerdict* v = report.find(report.chosen);
  if (!v || !v->valid || report.chosen != in.report.chosen) return std::nullopt;
  return report;
}

// One rank holds the whole model: mlx_lm.server runs on its host as it is, with no mlx.launch,
// hostfile or MLX_RANK (mlx.core.distributed.init() without them is a group of one).
std::string one_rank_server(const LaunchLayout& layout, const std::string& model) {
  const std::string& host = layout.nodes.front().host->name;
  std::string out = fmt::format(
      "# One rank: run mlx_lm.server on {} itself; a single host needs no mlx.launch, hostfile or "
      "MLX_RANK. It answers on port {} of every interface.\n",
      host, kMlxLmServerPort);
  return out + shell_command({}, {"mlx_lm.server", "--model", model, "--host", "0.0.0.0"}) + "\n";
}

}  // namespace

int mlx_rank_count(const LaunchLayout& layout) {
  const int per_host = mlx_runs_nccl(layout) ? mlx_gpus_per_host(layout) : 1;
  return static_cast<int>(layout.nodes.size()) * per_host;
}

void mark_plan_ranks(const EmitInput& in, std::vector<MlxRankEnv>& ranks) {
  if (mlx_runs_nccl(in.layout()) || !mlx_ranks_reversed(in)) return;
  const std::vector<LaunchNode>& nodes = in.layout().nodes;
  for (MlxRankEnv& r : ranks) {
    const size_t k = static_cast<size_t>(r.rank);
    if (k < nodes.size() && nodes[nodes.size() - 1 - k].rank != r.rank)
      r.plan_rank = nodes[nodes.size() - 1 - k].rank;
  }
}

CheckReport mlx_rank_report(const EmitInput& in) {
  std::optional<CheckReport> reversed = reversed_report(in);
  return reversed ? *reversed : in.report;
}

bool mlx_ranks_reversed(const EmitInput& in) {
  return reversed_report(in).has_value();
}

std::string mlx_lm_split_note(const EmitInput& in) {
  const LaunchLayout& layout = in.layout();
  if (!splits_by_layers(layout) || !mlx_runs_on(layout)) return "";
  const int total = total_layers(layout);
  const int per_host = mlx_runs_nccl(layout) ? mlx_gpus_per_host(layout) : 1;
  const int size = static_cast<int>(layout.nodes.size()) * per_host;
  std::string out;
  const std::vector<int> orphaned = mlx_lm_orphaned_layers(total, size);
  if (!orphaned.empty())
    out = fmt::format(
        "mlx-lm 0.32.0 computes {} on no rank: {} ranks do not divide {} layers, and the model "
        "then answers wrongly without an error; plan with --engine mlx-lm, which uses only host "
        "counts that divide the layers. ",
        orphaned.size() == 1 ? fmt::format("layer {}", orphaned.front())
                             : fmt::format("layers {}-{}", orphaned.front(), orphaned.back()),
        size, total);
  if (per_host > 1)
    return out +
           "mlx-lm 0.32.0 splits layers evenly over its ranks, one per GPU here, and takes no "
           "explicit split: it cannot load the plan's per-host layer ranges (mlx-launch lists "
           "what each rank loads).";
  const bool reversed = mlx_ranks_reversed(in);
  for (int r = 0; r < size; ++r) {
    const LaunchNode& n = layout.nodes[static_cast<size_t>(reversed ? size - 1 - r : r)];
    if (*n.layers != mlx_lm_pipeline_range(total, size, r))
      return out +
             "mlx-lm 0.32.0 splits layers evenly, rank 0 taking the last ones, and takes no "
             "explicit split: it cannot load the plan's layer ranges (mlx-launch lists both).";
  }
  return out.empty() ? "" : out.substr(0, out.size() - 1);
}

std::string write_mlx_launch(const EmitInput& in) {
  const LaunchLayout& layout = in.layout();
  if (is_strategy(layout.strategy, StrategyKind::kHybrid))
    throw failure(
        "mlx_lm runs one tensor-parallel group or one pipeline over all its ranks; a hybrid plan "
        "needs a group per stage (mx.distributed Group.split), which MLX's ring and JACCL "
        "backends do not offer (ml-explore/mlx#3205); emit vllm runs hybrid plans whose groups "
        "are all one size");
  bool pipeline = splits_by_layers(layout);
  std::string model = in.launch.model.empty() ? "MODEL" : in.launch.model;
  if (mlx_rank_count(layout) == 1) return one_rank_server(layout, model);
  // NVIDIA hosts: nccl, a rank per GPU, each on GPU rank % -n
  // (deploy/writers/mlx_cuda_hostfile.hpp).
  const bool nccl = mlx_runs_nccl(layout);
  const int per_host = nccl ? mlx_gpus_per_host(layout) : 1;
  std::vector<std::string> words = {"mlx.launch", "--hostfile", "mlx-hostfile.json", "--backend",
                                    nccl ? std::string(name(MlxBackend::kNccl))
                                    : is_backend(layout.backend, MlxBackend::kEthernet)
                                        ? std::string(name(MlxBackend::kRing))
                                        : layout.backend};
  if (nccl) {
    words.push_back("-n");
    words.push_back(std::to_string(per_host));
  }
  for (const std::string& e : in.envs) {
    words.push_back("--env");
    words.push_back(e);
  }
  for (const std::string& w :
       {std::string("--"), std::string("mlx_lm.server"), std::string("--model"), model})
    words.push_back(w);
  // One rank holds every layer: nothing to split.
  if (pipeline && layout.nodes.size() * static_cast<size_t>(per_host) > 1)
    words.push_back("--pipeline");
  // mlx_lm.server answers on 127.0.0.1 unless told otherwise: other hosts could not reach it.
  words.push_back("--host");
  words.push_back("0.0.0.0");
  const int size = static_cast<int>(layout.nodes.size()) * per_host;
  std::string out = fmt::format(
      "# mlx.launch over {} ranks ({}): write the hostfile with `meshplan emit mlx-hostfile` "
      "(-o mlx-hostfile.json), then run on any host that reaches them all by ssh. mlx_lm.server "
      "answers on port 8080 of every interface.\n",
      size, nccl ? "nccl, one rank per GPU" : layout.backend);
  out += shell_command({}, words) + "\n\n";
  out += "# Per rank, what mlx.launch exports (`meshplan emit mlx-env` has every variable):\n";
  int total = total_layers(layout);
  // mlx.launch's rank order: the hostfile's, a pipeline's last stage first (mlx_rank_report).
  const bool reversed = !nccl && mlx_ranks_reversed(in);
  for (size_t k = 0; k < layout.nodes.size(); ++k) {
    const LaunchNode& n = layout.nodes[reversed ? layout.nodes.size() - 1 - k : k];
    for (int g = 0; g < per_host; ++g) {
      const int rank = static_cast<int>(k) * per_host + g;
      // The plan's ranks run last stage first here: both numbers, so neither is read for the
      // other.
      out += n.rank == rank ? fmt::format("# rank {}: {} MLX_RANK={}", rank, n.host->name, rank)
                            : fmt::format("# MLX rank {} (plan rank {}): {} MLX_RANK={}", rank,
                                          n.rank, n.host->name, rank);
      if (nccl) out += fmt::format(" CUDA_VISIBLE_DEVICES={}", g);
      if (size == 1) {
        // One rank: it loads every layer.
      } else if (pipeline && n.layers && !nccl) {
        auto [a, b] = mlx_lm_pipeline_range(total, size, rank);
        out += fmt::format("; plan layers [{}, {}), mlx-lm --pipeline loads [{}, {}){}",
                           n.layers->first, n.layers->second, a, b,
                           std::make_pair(a, b) == *n.layers ? "" : " (differs)");
      } else if (pipeline && n.layers) {
        auto [a, b] = mlx_lm_pipeline_range(total, size, rank);
        out += fmt::format("; mlx-lm --pipeline loads [{}, {})", a, b);
      }
      out += "\n";
    }
  }
  std::string note = mlx_lm_split_note(in);
  if (!note.empty()) out += "# " + note + "\n";
  return out;
}

}  // namespace meshplan
