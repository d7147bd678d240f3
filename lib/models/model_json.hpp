// The JSON forms of a model description (SPEC §2.3 keys, plus fields added freely): the full form
// with one entry per layer (`models NAME --json`) and the one-line summary of catalog listings.
#pragma once

#include "lib/core/json_util.hpp"
#include "lib/models/model.hpp"

namespace meshplan {

ojson model_json(const ModelDesc& m);
ojson model_summary_json(const ModelDesc& m);
// One layer's figures: index, weight and read bytes, FLOPs, KV per token, window, MoE shape.
ojson layer_json(const LayerInfo& l);

// Indices of the layers without routed experts in a MoE model (DeepSeek's first three); empty
// for dense models.
std::vector<int> dense_layers(const ModelDesc& m);

}  // namespace meshplan
