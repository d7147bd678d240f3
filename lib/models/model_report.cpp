#include "lib/models/model_report.hpp"

#include <fmt/format.h>

#include "lib/core/text_table.hpp"
#include "lib/core/units.hpp"
#include "lib/models/model_json.hpp"

namespace meshplan {
namespace {

std::string bytes_text(uint64_t bytes) {
  return fmt::format("{} ({})", format_gib(static_cast<double>(bytes)),
                     format_bytes(static_cast<double>(bytes)));
}

bool same(const LayerInfo& a, const LayerInfo& b) {
  return a.weight_bytes == b.weight_bytes && a.read_bytes == b.read_bytes && a.flops == b.flops &&
         a.kv_bytes_per_token == b.kv_bytes_per_token && a.sliding_window == b.sliding_window &&
         a.moe.has_value() == b.moe.has_value();
}

}  // namespace

std::string render_model(const ModelDesc& m) {
  std::string out = fmt::format("{} ({}, {})\n", m.name, m.architecture, m.quantization);
  out += fmt::format("  source       {}\n", m.source);
  out += fmt::format("  total        {}\n", bytes_text(m.total_bytes()));
  out += fmt::format("  embedding    {}\n", bytes_text(m.embedding_bytes));
  out += m.tied_embeddings ? "  LM head      tied to the embedding\n"
                           : fmt::format("  LM head      {}\n", bytes_text(m.head_bytes));
  if (m.other_bytes > 0)
    out += fmt::format("  other        {} (final norm and tensors outside the layers)\n",
                       bytes_text(m.other_bytes));
  if (m.unloaded_bytes > 0)
    out += fmt::format("  not loaded   {} (multi-token-prediction layers)\n",
                       bytes_text(m.unloaded_bytes));
  out += fmt::format(
      "  shape        {} layers, hidden {}, vocabulary {}, {} heads, {} KV heads, head dim {}\n",
      m.num_layers(), m.hidden_size, m.vocab_size, m.num_heads, m.num_kv_heads, m.head_dim);
  for (const auto& l : m.layers) {
    if (!l.moe) continue;
    out += fmt::format("  experts      {} routed, {} per token, {} shared; {} per expert",
                       l.moe->experts, l.moe->experts_per_token, l.moe->shared_experts,
                       format_gib(static_cast<double>(l.moe->expert_bytes)));
    std::vector<int> dense = dense_layers(m);
    out += dense.empty() ? "\n" : fmt::format("; dense layers {}\n", format_ranges(dense));
    break;
  }
  uint64_t kv = 0;
  std::vector<int> windowed;
  for (const auto& l : m.layers) {
    kv += l.kv_bytes_per_token;
    if (l.sliding_window > 0) windowed.push_back(l.index);
  }
  out +=
      fmt::format("  KV cache     {} per 1000 tokens", format_gib(static_cast<double>(kv) * 1000));
  if (!windowed.empty()) {
    out += fmt::format(" (layers {} keep at most {} tokens)", format_ranges(windowed),
                       m.layers[static_cast<size_t>(windowed.front())].sliding_window);
  }
  out += "\n\n";

  using A = TextTable::Align;
  TextTable t({"layers", "weights", "read/token", "GFLOP/token", "KV/1000 tokens", "kind"},
              {A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kLeft});
  for (size_t i = 0; i < m.layers.size();) {
    size_t j = i + 1;
    while (j < m.layers.size() && same(m.layers[i], m.layers[j]))
      ++j;
    const LayerInfo& l = m.layers[i];
    std::string kind = l.moe ? "MoE" : "dense";
    if (l.sliding_window > 0) kind += fmt::format(", window {}", l.sliding_window);
    t.add_row({j - i == 1 ? std::to_string(i) : fmt::format("{}-{}", i, j - 1),
               format_gib(static_cast<double>(l.weight_bytes)),
               format_gib(static_cast<double>(l.read_bytes)), fmt::format("{:.2f}", l.flops / 1e9),
               format_gib(static_cast<double>(l.kv_bytes_per_token) * 1000), kind});
    i = j;
  }
  out += t.render();
  return out;
}

}  // namespace meshplan
