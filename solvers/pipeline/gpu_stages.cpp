#include "solvers/pipeline/gpu_stages.hpp"

#include <fmt/format.h>

#include "lib/core/units.hpp"

namespace meshplan {

void split_gpu_stages(const PipelineCostModel& cost, const HostFigures& h, RankPlan& r) {
  r.gpu_stages.clear();
  if (h.gpus <= 1) return;
  r.tp = h.tp;
  const int stages = h.gpu_stages;
  const double per_gpu = h.usable_bytes / h.gpus;
  int start = r.layer_start;
  const int head_stage = cost.head_last() ? stages - 1 : 0;
  for (int k = 0; k < stages; ++k) {
    const int left = r.layer_end - start;
    const bool head = r.holds_head && k == head_stage;
    int n = k + 1 == stages ? left : (left + stages - k - 1) / (stages - k);
    // A group over its GPUs' memory passes layers on to the groups after it.
    while (k + 1 < stages && n > 1 && cost.stage_memory(start, start + n, head) > per_gpu * h.tp)
      --n;
    RankPlan::GpuStage g;
    for (int i = 0; i < h.tp; ++i)
      g.devices.push_back(fmt::format("{}/gpu{}", h.name, k * h.tp + i));
    g.layer_start = start;
    g.layer_end = start + n;
    g.bytes_per_gpu = n > 0 || head ? cost.stage_memory(start, start + n, head) / h.tp : 0;
    g.usable_per_gpu = per_gpu;
    r.gpu_stages.push_back(g);
    start += n;
  }
}

std::string gpu_stage_problem(const Plan& plan) {
  for (const RankPlan& r : plan.ranks) {
    for (const RankPlan::GpuStage& g : r.gpu_stages) {
      const std::string who =
          g.devices.size() == 1
              ? g.devices.front()
              : fmt::format("{}-{}", g.devices.front(), g.devices.back().substr(r.host.size() + 1));
      if (g.layer_end <= g.layer_start)
        return fmt::format("{} would hold no layer ({} has {} layers for {} groups of {} GPUs)",
                           who, r.host, r.layer_end - r.layer_start, r.gpu_stages.size(), r.tp);
      if (g.bytes_per_gpu > g.usable_per_gpu)
        return fmt::format("{} needs {} per GPU for layers {}-{} but a GPU has {} usable", who,
                           format_gib(g.bytes_per_gpu), g.layer_start, g.layer_end - 1,
                           format_gib(g.usable_per_gpu));
    }
  }
  return "";
}

}  // namespace meshplan
