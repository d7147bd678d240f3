#include "lib/models/step_reads.hpp"

#include <algorithm>
#include <cmath>

namespace meshplan {

double distinct_experts(int experts, int per_token, double tokens) {
  if (experts <= 0 || per_token <= 0) return 0;
  const double e = experts;
  const double k = std::min(per_token, experts);
  if (tokens <= 1) return k * std::max(tokens, 0.0);
  return e * (1 - std::pow(1 - k / e, tokens));
}

double step_read_bytes(const LayerInfo& layer, double streams) {
  const double one = static_cast<double>(layer.read_bytes);
  if (!layer.moe || streams <= 1) return one;
  const MoeLayerInfo& m = *layer.moe;
  const double extra = distinct_experts(m.experts, m.experts_per_token, streams) -
                       std::min(m.experts_per_token, m.experts);
  return one + extra * static_cast<double>(m.expert_bytes);
}

}  // namespace meshplan
