#include "lib/plan/plan_host_lines.hpp"

#include <fmt/format.h>

#include "lib/core/units.hpp"

namespace meshplan {

std::string plan_host_line(const HostInfo& h) {
  return fmt::format(
      "{}: usable {} ({}), {:.0f} GB/s and {:.1f} TFLOP/s (decode) effective{}{}", h.name,
      format_gib(h.usable_bytes), h.usable_rule, h.bandwidth / 1e9, h.flops / 1e12,
      h.gpus > 1 && h.tp > 1 && h.tp < h.gpus
          ? fmt::format(", {} GPUs: layers split over groups of {} ({}), the groups a pipeline",
                        h.gpus, h.tp, h.gpu_link)
      : h.gpus > 1 && h.tp > 1 ? fmt::format(", layers split over {} GPUs ({})", h.gpus, h.gpu_link)
      : h.gpus > 1             ? fmt::format(", {} GPUs as a pipeline", h.gpus)
                               : "",
      h.used ? "" : ", not used");
}

}  // namespace meshplan
