#include "lib/models/expert_load.hpp"

#include <fmt/format.h>

#include <cmath>
#include <tuple>

#include "lib/core/error.hpp"

namespace meshplan {
namespace {

// "4-60" -> [4, 60]; a plain "7" -> [7, 7].
std::pair<int64_t, int64_t> read_range(const DocNode& n) {
  if (n.is_number()) {
    int64_t v = n.as_int();
    return {v, v};
  }
  std::string text = n.is_string() ? n.as_string() : "";
  auto dash = text.find('-', 1);
  auto parse = [&](const std::string& s) -> int64_t {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) {
      n.fail(fmt::format("expected a layer range FIRST-LAST such as 3-60, got {}",
                         n.describe_value()));
    }
    return std::stoll(s);
  };
  if (dash == std::string::npos) {
    int64_t v = parse(text);
    return {v, v};
  }
  int64_t a = parse(text.substr(0, dash)), b = parse(text.substr(dash + 1));
  if (b < a) n.fail(fmt::format("the last layer of {} is before the first", text));
  return {a, b};
}

}  // namespace

const std::vector<double>* ExpertLoad::find(int layer) const {
  int i = distribution_index(layer);
  return i < 0 ? nullptr : &distributions[static_cast<size_t>(i)];
}

int ExpertLoad::distribution_index(int layer) const {
  auto it = layer_distribution.find(layer);
  return it == layer_distribution.end() ? -1 : it->second;
}

ExpertLoad read_expert_load(const DocNode& doc, const ModelDesc& model) {
  ExpertLoad out;
  out.source = doc.where().file ? *doc.where().file : "";
  doc.require_object();
  doc.check_keys({"schema", "layers"});
  if (const DocNode* schema = doc.find("schema")) {
    if (schema->as_string() != kExpertLoadSchema) {
      schema->fail(
          fmt::format("expected \"{}\", got {}", kExpertLoadSchema, schema->describe_value()));
    }
  }
  const DocNode& layers = doc.at("layers").require_array();
  for (const DocNode& entry : layers.items()) {
    entry.require_object();
    entry.check_keys({"layer", "layers", "load"});
    const DocNode* one = entry.find("layer");
    const DocNode* many = entry.find("layers");
    if ((one == nullptr) == (many == nullptr)) {
      entry.fail(
          "expected exactly one of \"layer\" (an index) or \"layers\" (a range such as 3-60)");
    }
    int64_t first = 0, last = 0;
    if (one) {
      first = last = one->as_int();
    } else {
      std::tie(first, last) = read_range(*many);
    }
    const DocNode& where = one ? *one : *many;
    if (first < 0 || last >= model.num_layers()) {
      where.fail(fmt::format("{} has layers 0 to {}, got {}", model.name, model.num_layers() - 1,
                             where.describe_value()));
    }
    const DocNode& load = entry.at("load").require_array();
    std::vector<double> values;
    double total = 0;
    for (const DocNode& v : load.items()) {
      double x = v.as_number();
      if (!std::isfinite(x) || x < 0) {
        v.fail(fmt::format("expected a non-negative load, got {}", v.describe_value()));
      }
      values.push_back(x);
      total += x;
    }
    if (total <= 0) load.fail("expected at least one positive load");
    for (double& x : values)
      x /= total;
    int index = static_cast<int>(out.distributions.size());
    for (int64_t l = first; l <= last; ++l) {
      const LayerInfo& info = model.layers[static_cast<size_t>(l)];
      if (!info.moe) {
        where.fail(fmt::format("layer {} of {} has no routed experts", l, model.name));
      }
      if (static_cast<int>(values.size()) != info.moe->experts) {
        load.fail(fmt::format("expected {} loads (one per routed expert of layer {}), got {}",
                              info.moe->experts, l, values.size()));
      }
      if (!out.layer_distribution.emplace(static_cast<int>(l), index).second) {
        where.fail(fmt::format("layer {} is given twice", l));
      }
    }
    out.distributions.push_back(std::move(values));
  }
  return out;
}

ExpertLoad parse_expert_load(std::string_view text, const std::string& file_name,
                             const ModelDesc& model) {
  return read_expert_load(parse_document(text, file_name), model);
}

}  // namespace meshplan
