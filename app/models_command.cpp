#include <fmt/format.h>

#include <memory>

#include "app/commands.hpp"
#include "lib/json_util.hpp"
#include "lib/model_catalog.hpp"
#include "lib/text_table.hpp"
#include "lib/units.hpp"

namespace meshplan {
namespace {

struct ModelsOptions {
  std::string name;
  std::string quant;
  bool json = false;
};

constexpr const char* kModelsHelp = R"(List the built-in models, or show one model's per-layer figures.

Examples:
  meshplan models
  meshplan models deepseek-v3.1-4bit
  meshplan models qwen3-235b-a22b --quant 8bit --json)";

ojson model_json(const ModelDesc& m) {
  ojson j;
  j["name"] = m.name;
  j["quantization"] = m.quantization;
  j["architecture"] = m.architecture;
  j["hidden_size"] = m.hidden_size;
  j["vocab_size"] = m.vocab_size;
  j["num_layers"] = m.num_layers();
  j["num_heads"] = m.num_heads;
  j["num_kv_heads"] = m.num_kv_heads;
  j["head_dim"] = m.head_dim;
  j["tied_embeddings"] = m.tied_embeddings;
  j["embedding_bytes"] = m.embedding_bytes;
  j["head_bytes"] = m.head_bytes;
  j["total_bytes"] = m.total_bytes();
  j["source"] = m.source;
  ojson layers = ojson::array();
  for (const auto& l : m.layers) {
    ojson x;
    x["index"] = l.index;
    x["weight_bytes"] = l.weight_bytes;
    x["read_bytes"] = l.read_bytes;
    x["flops"] = json_number(l.flops);
    x["kv_bytes_per_token"] = l.kv_bytes_per_token;
    if (l.moe) {
      x["experts"] = l.moe->experts;
      x["experts_per_token"] = l.moe->experts_per_token;
      x["expert_bytes"] = l.moe->expert_bytes;
    }
    layers.push_back(x);
  }
  j["layers"] = layers;
  return j;
}

int run_models(const ModelsOptions& o, AppContext& ctx) {
  const ModelCatalog& catalog = ModelCatalog::builtin();
  if (o.name.empty()) {
    if (o.json) {
      ojson list = ojson::array();
      for (const auto& e : catalog.entries()) {
        for (const auto& q : e.quantizations) {
          ModelDesc m = catalog.resolve(e.name, q);
          ojson j;
          j["name"] = m.name;
          j["display_name"] = e.display_name;
          j["quantization"] = q;
          j["num_layers"] = m.num_layers();
          j["total_bytes"] = m.total_bytes();
          j["moe"] = m.is_moe();
          j["source"] = e.source;
          list.push_back(j);
        }
      }
      ctx.console.data(list.dump(2) + "\n");
      return 0;
    }
    using A = TextTable::Align;
    TextTable t({"model", "layers", "hidden", "kind", "size"}, {A::kLeft, A::kRight, A::kRight, A::kLeft, A::kRight});
    for (const auto& e : catalog.entries()) {
      for (const auto& q : e.quantizations) {
        ModelDesc m = catalog.resolve(e.name, q);
        t.add_row({m.name, std::to_string(m.num_layers()), std::to_string(m.hidden_size), m.is_moe() ? "MoE" : "dense",
                   format_gib(static_cast<double>(m.total_bytes()))});
      }
    }
    ctx.console.data(t.render());
    return 0;
  }
  ModelDesc m = catalog.resolve(o.name, o.quant);
  if (o.json) {
    ctx.console.data(model_json(m).dump(2) + "\n");
    return 0;
  }
  std::string out = fmt::format("{} ({}), {} layers, hidden {}, total {}\n", m.name, m.architecture, m.num_layers(),
                                m.hidden_size, format_gib(static_cast<double>(m.total_bytes())));
  using A = TextTable::Align;
  TextTable t({"layers", "weights", "read/token", "GFLOP/token", "KV/1000 tokens"}, {A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight});
  // Runs of identical layers are shown once.
  for (size_t i = 0; i < m.layers.size();) {
    size_t j = i + 1;
    auto same = [&](const LayerInfo& a, const LayerInfo& b) {
      return a.weight_bytes == b.weight_bytes && a.read_bytes == b.read_bytes && a.flops == b.flops &&
             a.kv_bytes_per_token == b.kv_bytes_per_token;
    };
    while (j < m.layers.size() && same(m.layers[i], m.layers[j])) ++j;
    const LayerInfo& l = m.layers[i];
    t.add_row({j - i == 1 ? std::to_string(i) : fmt::format("{}-{}", i, j - 1), format_gib(static_cast<double>(l.weight_bytes)),
               format_gib(static_cast<double>(l.read_bytes)), fmt::format("{:.2f}", l.flops / 1e9),
               format_gib(static_cast<double>(l.kv_bytes_per_token) * 1000)});
    i = j;
  }
  out += t.render();
  ctx.console.data(out);
  return 0;
}

}  // namespace

void add_models_command(CLI::App& app, AppContext& ctx) {
  auto o = std::make_shared<ModelsOptions>();
  CLI::App* sub = app.add_subcommand("models", kModelsHelp);
  sub->add_option("name", o->name, "Model name (see the list)");
  sub->add_option("--quant", o->quant, "Quantization (4bit, 8bit, bf16, ...)");
  sub->add_flag("--json", o->json, "Print JSON");
  sub->callback([o, &ctx] { ctx.run = [o, &ctx] { return run_models(*o, ctx); }; });
}

}  // namespace meshplan
