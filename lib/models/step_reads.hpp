// What a decode step of several streams reads from a layer. Each stream's token is routed to K of a
// mixture-of-experts layer's E experts, so one step over N tokens reads the union of their experts:
// E(1 - (1 - K/E)^N) on average when routing is uniform (each expert escapes one token's K picks
// with probability 1 - K/E). Measured routing is skewed, so fewer distinct experts come up and the
// uniform figure is the conservative one. Dense layers read their weights once at any count.
#pragma once

#include "lib/models/model.hpp"

namespace meshplan {

// Expected distinct experts among `tokens` tokens' picks of `per_token` of `experts` each.
double distinct_experts(int experts, int per_token, double tokens);

// Bytes the layer reads in one step of `streams` tokens (its KV aside): read_bytes for one stream
// or a dense layer; the non-expert weights and the union of the tokens' experts otherwise.
double step_read_bytes(const LayerInfo& layer, double streams);

}  // namespace meshplan
