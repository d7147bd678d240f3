// The human-readable model description: totals, the MoE and attention shape, KV cache per 1000
// tokens, and a per-layer table in which runs of identical layers share one row.
#pragma once

#include <string>

#include "lib/models/model.hpp"

namespace meshplan {

std::string render_model(const ModelDesc& m);

}  // namespace meshplan
