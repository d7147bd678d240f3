#include <fmt/format.h>

#include <memory>

#include "app/commands.hpp"
#include "lib/core/json_util.hpp"
#include "lib/core/text_table.hpp"
#include "lib/core/units.hpp"
#include "lib/models/model_catalog.hpp"
#include "lib/models/model_json.hpp"
#include "lib/models/model_loader.hpp"
#include "lib/models/model_report.hpp"

namespace meshplan {
namespace {

struct ModelsOptions {
  std::string name;
  std::string quant;
  bool json = false;
};

constexpr const char* kModelsHelp =
    R"(List the built-in models, or describe one: per-layer weight bytes, bytes read
per token, FLOPs, KV cache, experts.

Examples:
  meshplan models
  meshplan models deepseek-v3.1-4bit
  meshplan models qwen3-235b-a22b --quant 8bit --json
  meshplan models gpt-oss-120b-native
  meshplan models ~/models/Qwen3-30B-A3B-4bit          (a Hugging Face or MLX folder)
  meshplan models ./config.json --quant 4bit          (computed from the architecture)

A folder is read from config.json and the safetensors headers (never the weights); --quant on a
path computes its architecture at that quantization instead.)";

int list_models(const ModelsOptions& o, AppContext& ctx) {
  const ModelCatalog& catalog = ModelCatalog::builtin();
  if (o.json) {
    ojson list = ojson::array();
    for (const auto& e : catalog.entries()) {
      for (const auto& q : e.quantizations) {
        ojson j = model_summary_json(catalog.model(e, q));
        j["native"] = q == e.native;
        for (const auto& [rq, repo] : e.repos) {
          if (rq == q) j["repo"] = repo;
        }
        list.push_back(j);
      }
    }
    ctx.console.data(list.dump(2) + "\n");
    return 0;
  }
  using A = TextTable::Align;
  TextTable t({"model", "layers", "hidden", "kind", "size", ""},
              {A::kLeft, A::kRight, A::kRight, A::kLeft, A::kRight, A::kLeft});
  for (const auto& e : catalog.entries()) {
    for (const auto& q : e.quantizations) {
      ModelDesc m = catalog.model(e, q);
      std::string note = q == e.quantizations.front() ? "default" : "";
      if (q == e.native) note += note.empty() ? "native" : ", native";
      t.add_row({m.name, std::to_string(m.num_layers()), std::to_string(m.hidden_size),
                 m.is_moe() ? "MoE" : "dense", format_gib(static_cast<double>(m.total_bytes())),
                 note});
    }
  }
  ctx.console.data(t.render());
  return 0;
}

int run_models(const ModelsOptions& o, AppContext& ctx) {
  if (o.name.empty()) return list_models(o, ctx);
  ModelDesc m = load_model(o.name, o.quant, ctx.fs);
  ctx.console.data(o.json ? model_json(m).dump(2) + "\n" : render_model(m));
  return 0;
}

}  // namespace

void add_models_command(CLI::App& app, AppContext& ctx) {
  auto o = std::make_shared<ModelsOptions>();
  CLI::App* sub = app.add_subcommand("models", kModelsHelp);
  sub->add_option("name", o->name, "Model name (see the list), model folder or config.json");
  sub->add_option("--quant", o->quant,
                  "Quantization: 4bit, 8bit, bf16, fp8, mxfp4-q8, native, ...");
  sub->add_flag("--json", o->json, "Print JSON");
  sub->callback([o, &ctx] { ctx.run = [o, &ctx] { return run_models(*o, ctx); }; });
}

}  // namespace meshplan
