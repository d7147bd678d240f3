// `plan -v`: the figures behind the prediction, one line per candidate host.
#pragma once

#include <string>

#include "lib/plan/plan.hpp"

namespace meshplan {

// "studio-1: usable 460.0 GiB (rule), 780 GB/s and 28.0 TFLOP/s (decode) effective" and how its
// GPUs split the layers, or ", not used".
std::string plan_host_line(const HostInfo& h);

}  // namespace meshplan
