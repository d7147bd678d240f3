#include "lib/core/engine_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace meshplan {

std::string vllm_tensor_refusal(int tp, int heads, int kv_heads) {
  if (tp <= 1) return "";
  if (heads > 0 && heads % tp != 0)
    return fmt::format("vLLM splits the {} attention heads over {} GPUs only when {} divides them",
                       heads, tp, tp);
  if (kv_heads > 0 && kv_heads % tp != 0 && tp % kv_heads != 0)
    return fmt::format(
        "vLLM needs the {} KV heads to divide by the {} GPUs of a tensor-parallel group, or the "
        "group by them",
        kv_heads, tp);
  return "";
}

std::vector<int> vllm_experts_per_rank(int experts, int ep) {
  if (ep <= 0) return {};
  std::vector<int> out(static_cast<size_t>(ep), experts / ep);
  for (int r = 0; r < experts % ep; ++r)
    ++out[static_cast<size_t>(r)];
  return out;
}

std::string vllm_partition_refusal(const std::vector<int>& counts, int layers, int pp) {
  if (static_cast<int>(counts.size()) != pp)
    return fmt::format("VLLM_PP_LAYER_PARTITION has {} entries for {} pipeline stages",
                       counts.size(), pp);
  if (std::any_of(counts.begin(), counts.end(), [](int c) { return c < 1; }))
    return "VLLM_PP_LAYER_PARTITION gives a stage no layer";
  const int sum = std::accumulate(counts.begin(), counts.end(), 0);
  if (sum != layers)
    return fmt::format("VLLM_PP_LAYER_PARTITION sums to {} layers, the model has {}", sum, layers);
  return "";
}

bool vllm_multiprocessing_fits(const std::vector<int>& ranks_per_node) {
  return std::adjacent_find(ranks_per_node.begin(), ranks_per_node.end(),
                            std::not_equal_to<int>()) == ranks_per_node.end();
}

std::string mlx_lm_tensor_refusal(int ranks, int heads, int kv_heads) {
  if (ranks <= 1) return "";
  if (heads > 0 && heads % ranks != 0)
    return fmt::format("mlx-lm divides the {} attention heads by its {} ranks", heads, ranks);
  if (kv_heads > 0 && kv_heads % ranks != 0)
    return fmt::format("mlx-lm divides the {} KV heads by its {} ranks", kv_heads, ranks);
  return "";
}

std::string exo_tensor_refusal(int nodes, int hidden, int kv_heads) {
  if (nodes <= 1) return "";
  if (hidden > 0 && hidden % nodes != 0)
    return fmt::format("exo shards a hidden size of {} over {} nodes only when it divides", hidden,
                       nodes);
  if (kv_heads > 0 && kv_heads % nodes != 0)
    return fmt::format("exo shards the {} KV heads over {} nodes only when they divide", kv_heads,
                       nodes);
  return "";
}

std::vector<int> llama_tensor_split(std::vector<int> layers_per_device) {
  if (!layers_per_device.empty()) layers_per_device.back() += 1;  // the output layer's slot
  return layers_per_device;
}

}  // namespace meshplan
