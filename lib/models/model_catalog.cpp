#include "lib/models/model_catalog.hpp"

#include <fmt/format.h>

#include "lib/core/embedded_data.hpp"
#include "lib/core/error.hpp"
#include "lib/core/nearest_names.hpp"
#include "lib/core/units.hpp"
#include "lib/models/model_builder.hpp"

namespace meshplan {

ModelCatalog::ModelCatalog(std::string_view models_json) {
  DocNode root = parse_json_document(models_json, "lib/data/models.json");
  for (const auto& m : root.at("models").require_array().items()) {
    ModelEntry e;
    e.name = m.at("name").as_string();
    e.display_name = m.at("display_name").as_string();
    e.family = m.at("family").as_string();
    e.source = m.at("source").as_string();
    for (const auto& q : m.at("quantizations").require_array().items()) {
      if (!quant_scheme(q.as_string()))
        q.fail(fmt::format("unknown quantization \"{}\"", q.as_string()));
      e.quantizations.push_back(q.as_string());
    }
    if (e.quantizations.empty()) m.at("quantizations").fail("expected at least one quantization");
    e.native = m.find("native") ? m.at("native").as_string() : "bf16";
    if (!quant_scheme(e.native))
      m.at("native").fail(fmt::format("unknown quantization \"{}\"", e.native));
    if (const DocNode* repos = m.find("repos")) {
      for (const auto& [q, r] : repos->fields())
        e.repos.emplace_back(q, r.as_string());
    }
    e.config = read_arch_config(m.at("config"));
    entries_.push_back(std::move(e));
  }
}

const ModelCatalog& ModelCatalog::builtin() {
  static const ModelCatalog catalog(embedded_file("lib/data/models.json"));
  return catalog;
}

const ModelEntry* ModelCatalog::find(std::string_view name) const {
  for (const auto& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::string ModelCatalog::names() const {
  std::string out;
  for (const auto& e : entries_) {
    out += (out.empty() ? "" : ", ") + e.name;
  }
  return out;
}

ModelDesc ModelCatalog::resolve(std::string_view raw_name, std::string_view quant) const {
  std::string name = to_lower(trim(raw_name));
  const ModelEntry* entry = nullptr;
  std::string q;
  // A repo id such as mlx-community/DeepSeek-V3.1-4bit.
  for (const auto& e : entries_) {
    for (const auto& [rq, repo] : e.repos) {
      if (to_lower(repo) == name) {
        entry = &e;
        q = rq;
      }
    }
  }
  if (!entry) entry = find(name);
  if (!entry) {
    // name-quant: the longest catalog name that prefixes it.
    for (const auto& e : entries_) {
      if (name.size() > e.name.size() + 1 && name.compare(0, e.name.size(), e.name) == 0 &&
          name[e.name.size()] == '-' && (!entry || e.name.size() > entry->name.size())) {
        entry = &e;
        q = name.substr(e.name.size() + 1);
      }
    }
  }
  if (!entry) {
    // Suggest full names with a quantization ("deepseek-v3.1-4bit") when one was given.
    std::vector<std::string> candidates;
    for (const auto& e : entries_) {
      candidates.push_back(e.name);
      for (const auto& qn : e.quantizations)
        candidates.push_back(e.name + "-" + qn);
    }
    throw input_error(
        "unknown model \"{}\"{}; known models: {} (add a quantization such as -4bit; see "
        "`meshplan models`), or give the path of a model folder or config.json",
        raw_name, did_you_mean(raw_name, candidates), names());
  }
  if (!quant.empty()) q = to_lower(quant);
  return model(*entry, q);
}

ModelDesc ModelCatalog::model(const ModelEntry& entry, std::string_view quant) const {
  std::string q = to_lower(quant);
  if (q.empty()) q = entry.quantizations.front();
  if (q == "native") q = entry.native;
  auto scheme = quant_scheme(q);
  if (!scheme)
    throw input_error("unknown quantization \"{}\" for {}; expected one of: {}", q, entry.name,
                      quant_names());
  ModelMeta meta{fmt::format("{}-{}", entry.name, scheme->name), entry.display_name, entry.family,
                 scheme->name, entry.source};
  return model_from_config(entry.config, *scheme, meta);
}

}  // namespace meshplan
