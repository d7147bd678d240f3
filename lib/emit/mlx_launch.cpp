#include "lib/emit/mlx_launch.hpp"

#include "lib/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "lib/emit/emit_formats.hpp"
#include "lib/emit/mlx_cuda_hostfile.hpp"

namespace meshplan {
namespace {

int total_layers(const LaunchLayout& layout) {
  int total = 0;
  for (const LaunchNode& n : layout.nodes)
    if (n.layers) total = std::max(total, n.layers->second);
  return total;
}

}  // namespace

std::string mlx_lm_split_note(const EmitInput& in) {
  LaunchLayout layout = build_launch_layout(in);
  if (!splits_by_layers(layout) || !mlx_runs_on(layout)) return "";
  if (mlx_runs_nccl(layout) && mlx_gpus_per_host(layout) > 1)
    return "mlx-lm 0.32.0 splits layers evenly over its ranks, one per GPU here, and takes no "
           "explicit split: it cannot load the plan's per-host layer ranges (mlx-launch lists what "
           "each rank loads).";
  int total = total_layers(layout);
  int size = static_cast<int>(layout.nodes.size());
  for (const LaunchNode& n : layout.nodes)
    if (*n.layers != mlx_lm_pipeline_range(total, size, n.rank))
      return "mlx-lm 0.32.0 splits layers evenly, rank 0 taking the last ones, and takes no "
             "explicit split: it cannot load the plan's layer ranges (mlx-launch lists both).";
  return "";
}

std::string write_mlx_launch(const EmitInput& in) {
  LaunchLayout layout = build_launch_layout(in);
  if (layout.strategy == "hybrid")
    throw failure(
        "mlx_lm runs one tensor-parallel group or one pipeline over all its ranks; a hybrid plan "
        "needs a group per stage (mx.distributed Group.split), which MLX's ring and JACCL "
        "backends do not offer (ml-explore/mlx#3205); emit vllm runs hybrid plans whose groups "
        "are all one size");
  bool pipeline = splits_by_layers(layout);
  std::string model = in.launch.model.empty() ? "MODEL" : in.launch.model;
  // NVIDIA hosts: nccl, a rank per GPU, each on GPU rank % -n (lib/emit/mlx_cuda_hostfile.hpp).
  const bool nccl = mlx_runs_nccl(layout);
  const int per_host = nccl ? mlx_gpus_per_host(layout) : 1;
  std::vector<std::string> words = {"mlx.launch", "--hostfile", "mlx-hostfile.json", "--backend",
                                    nccl                           ? std::string("nccl")
                                    : layout.backend == "ethernet" ? std::string("ring")
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
  if (pipeline) words.push_back("--pipeline");
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
  for (const LaunchNode& n : layout.nodes) {
    for (int g = 0; g < per_host; ++g) {
      const int rank = n.rank * per_host + g;
      out += fmt::format("# rank {}: {} MLX_RANK={}", rank, n.host->name, rank);
      if (nccl) out += fmt::format(" CUDA_VISIBLE_DEVICES={}", g);
      if (pipeline && n.layers && !nccl) {
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
