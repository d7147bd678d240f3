#include "lib/cluster/catalog.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "lib/core/embedded_data.hpp"
#include "lib/core/error.hpp"
#include "lib/core/nearest_names.hpp"

namespace meshplan {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

nlohmann::json parse_embedded(std::string_view text, std::string_view name) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw internal_error("built-in catalog {} is malformed: {}", name, e.what());
  }
}

// One chips.json entry.
ChipSpec read_chip(const nlohmann::json& j) {
  ChipSpec s;
  s.key = j.at("key");
  s.name = j.at("name");
  s.brand = j.at("brand");
  s.vendor = j.at("vendor");
  if (j.contains("aliases")) s.aliases = j.at("aliases").get<std::vector<std::string>>();
  s.gpu_cores = j.value("gpu_cores", 0);
  s.mem_bandwidth = j.at("mem_bandwidth_GBps").get<double>() * 1e9;
  s.fp16_flops = j.at("fp16_tflops").get<double>() * 1e12;
  s.decode_flops = j.value("decode_tflops", j.at("fp16_tflops").get<double>()) * 1e12;
  s.max_memory = static_cast<uint64_t>(j.at("max_memory_GiB").get<double>() * kGiB);
  if (j.contains("gpu_memory_GiB")) {
    s.gpu_memory = static_cast<uint64_t>(j.at("gpu_memory_GiB").get<double>() * kGiB);
  }
  s.unified_memory = j.value("unified_memory", s.vendor == "apple");
  s.thunderbolt = j.value("thunderbolt", 0);
  s.nvlink = j.value("nvlink", "");
  s.gpu_fabric = j.value("gpu_fabric", "");
  s.bandwidth_efficiency = j.value("bandwidth_efficiency", 0.0);
  for (auto& [k, v] : j.at("sources").items())
    s.sources[k] = v.get<std::string>();
  return s;
}

// One machines.json entry.
MachineSpec read_machine(const nlohmann::json& j) {
  MachineSpec m;
  m.key = j.at("key");
  m.name = j.at("name");
  m.chips = j.at("chips").get<std::vector<std::string>>();
  m.model_ids = j.at("model_ids").get<std::vector<std::string>>();
  if (!j.at("thunderbolt").is_null()) {
    m.tb_generation = j.at("thunderbolt").at("generation");
    m.tb_interfaces = j.at("thunderbolt").at("interfaces").get<std::vector<std::string>>();
  }
  if (!j.at("ethernet").is_null()) {
    auto kind = find_link_kind(j.at("ethernet").get<std::string>());
    if (!kind) throw internal_error("machines.json: unknown ethernet kind for {}", m.key);
    m.ethernet = *kind;
  }
  m.management_interface = j.at("management_interface");
  for (int gib : j.at("memory_GiB").get<std::vector<int>>())
    m.memory_options.push_back(static_cast<uint64_t>(gib) << 30);
  m.sources = j.at("sources").get<std::vector<std::string>>();
  return m;
}

}  // namespace

Catalog load_catalog(std::string_view chips_text, std::string_view machines_text,
                     std::string_view defaults_text) {
  Catalog c;
  try {
    auto chips = parse_embedded(chips_text, "chips.json");
    for (auto& [k, v] : chips.at("sources").items())
      c.chip_sources_[k] = v.get<std::string>();
    for (const auto& j : chips.at("chips"))
      c.chips_.push_back(read_chip(j));
    auto machines = parse_embedded(machines_text, "machines.json");
    for (const auto& j : machines.at("machines"))
      c.machines_.push_back(read_machine(j));
    auto d = parse_embedded(defaults_text, "cost_defaults.json");
    for (auto& [vendor, e] : d.at("efficiency").items()) {
      c.efficiency_[vendor] = Efficiency{
          e.at("bandwidth"), e.at("flops"), e.value("decode_flops", e.at("flops").get<double>()),
          e.at("source"), e.value("decode_source", e.at("source").get<std::string>())};
    }
    const auto& overhead = d.at("stage_overhead_ms");
    c.stage_overhead_s_ = overhead.at("value").get<double>() * 1e-3;
    for (auto& [vendor, o] : overhead.at("by_vendor").items())
      c.vendor_overhead_s_[vendor] = o.at("value").get<double>() * 1e-3;
    for (auto& [vendor, o] : d.at("layer_overhead_us").at("by_vendor").items()) {
      c.vendor_layer_overhead_s_[vendor] = o.at("value").get<double>() * 1e-6;
      c.vendor_moe_layer_overhead_s_[vendor] = o.value("moe_value", 0.0) * 1e-6;
    }
    c.jaccl_mesh_peer_s_ = d.at("jaccl_mesh").at("peer_us").get<double>() * 1e-6;
    c.jaccl_mesh_peer_bytes_ = d.at("jaccl_mesh").at("message_bytes").get<double>();
    for (auto& [engine, r] : d.at("engine_weight_reads").items())
      if (engine != "note")
        c.engine_weight_reads_[engine] = {r.at("max_bits").get<double>(),
                                          r.at("factor").get<double>()};
    for (auto& [engine, h] : d.at("engine_hop_ms").items())
      if (engine != "note")
        c.engine_hop_[engine] = {h.at("round_trips").get<double>(),
                                 h.at("stage_ms").get<double>() * 1e-3};
    c.loopback_round_trip_s_ = d.at("loopback_round_trip_us").at("value").get<double>() * 1e-6;
    c.activation_bytes_ = d.at("activation_bytes").at("value").get<double>();
    auto rule = [](const nlohmann::json& j) {
      return MemoryRule{j.at("reserve_min_GiB").get<double>() * kGiB, j.at("reserve_fraction"),
                        j.at("source")};
    };
    c.unified_rule_ = rule(d.at("usable_memory").at("unified"));
    c.discrete_rule_ = rule(d.at("usable_memory").at("discrete"));
    const auto& w = d.at("usable_memory").at("macos_default_wired");
    c.wired_rule_ = WiredRule{w.at("fraction"), w.at("small_fraction"),
                              w.at("small_max_GiB").get<double>() * kGiB, w.at("source")};
    for (auto& [kind, l] : d.at("links").items()) {
      c.links_[kind] = LinkDefaults{l.at("latency_us").get<double>() * 1e-6,
                                    l.at("bandwidth_GBps").get<double>() * 1e9, l.at("source")};
    }
    for (auto& [kind, s] : d.at("link_speeds_gbps").items())
      c.speeds_[kind] = s.get<double>();
    for (auto& [name, g] : d.at("gpu_links").items()) {
      if (name == "note") continue;
      c.gpu_links_[name] = GpuLinkDefaults{
          g.value("per_link_GBps", 0.0) * 1e9,  g.value("links_per_gpu", 0),
          g.value("bandwidth_GBps", 0.0) * 1e9, g.at("latency_us").get<double>() * 1e-6,
          g.at("step_us").get<double>() * 1e-6, g.at("source")};
    }
  } catch (const nlohmann::json::exception& e) {
    throw internal_error("built-in catalog is malformed: {}", e.what());
  }
  return c;
}

const Catalog& Catalog::builtin() {
  static const Catalog catalog =
      load_catalog(embedded_file("lib/data/chips.json"), embedded_file("lib/data/machines.json"),
                   embedded_file("lib/data/cost_defaults.json"));
  return catalog;
}

const ChipSpec* Catalog::find_chip(std::string_view key) const {
  for (const auto& c : chips_) {
    if (c.key == key) return &c;
  }
  return nullptr;
}

const MachineSpec* Catalog::find_machine(std::string_view key) const {
  for (const auto& m : machines_) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

const MachineSpec* Catalog::default_machine(std::string_view chip_key) const {
  for (const auto& m : machines_) {
    for (const auto& c : m.chips) {
      if (c == chip_key) return &m;
    }
  }
  return nullptr;
}

const MachineSpec* Catalog::machine_for_model_id(std::string_view model_id) const {
  for (const auto& m : machines_) {
    for (const auto& id : m.model_ids) {
      if (id == model_id) return &m;
    }
  }
  return nullptr;
}

const ChipSpec* Catalog::chip_for_brand(std::string_view brand, int gpu_cores) const {
  const ChipSpec* best = nullptr;
  for (const auto& c : chips_) {
    if (c.brand != brand && std::find(c.aliases.begin(), c.aliases.end(), brand) == c.aliases.end())
      continue;
    if (gpu_cores > 0 && c.gpu_cores == gpu_cores) return &c;
    if (gpu_cores <= 0 && (best == nullptr || c.gpu_cores > best->gpu_cores)) best = &c;
  }
  return gpu_cores > 0 ? nullptr : best;
}

std::string Catalog::suggest_chip(std::string_view word) const {
  std::vector<std::string> names;
  const bool reported = word.find(' ') != std::string_view::npos;
  for (const auto& c : chips_) {
    if (!reported) {
      names.push_back(c.key);
      continue;
    }
    if (std::find(names.begin(), names.end(), c.brand) == names.end()) names.push_back(c.brand);
    names.insert(names.end(), c.aliases.begin(), c.aliases.end());
  }
  return did_you_mean(word, names);
}

std::string Catalog::suggest_machine(std::string_view word) const {
  std::vector<std::string> names;
  for (const auto& m : machines_)
    names.push_back(m.key);
  return did_you_mean(word, names);
}

std::string Catalog::chip_keys() const {
  std::string out;
  for (const auto& c : chips_)
    out += (out.empty() ? "" : ", ") + c.key;
  return out;
}

std::string Catalog::machine_keys() const {
  std::string out;
  for (const auto& m : machines_)
    out += (out.empty() ? "" : ", ") + m.key;
  return out;
}

const Efficiency& Catalog::efficiency(std::string_view vendor) const {
  auto it = efficiency_.find(std::string(vendor));
  if (it == efficiency_.end()) it = efficiency_.find("apple");
  return it->second;
}

double Catalog::layer_overhead_s(std::string_view vendor) const {
  auto it = vendor_layer_overhead_s_.find(std::string(vendor));
  return it == vendor_layer_overhead_s_.end() ? 0 : it->second;
}

double Catalog::moe_layer_overhead_s(std::string_view vendor) const {
  auto it = vendor_moe_layer_overhead_s_.find(std::string(vendor));
  return it == vendor_moe_layer_overhead_s_.end() ? 0 : it->second;
}

Catalog::EngineHop Catalog::engine_hop(std::string_view engine) const {
  auto it = engine_hop_.find(std::string(engine));
  return it == engine_hop_.end() ? EngineHop{} : it->second;
}

Catalog::EngineWeightReads Catalog::engine_weight_reads(std::string_view engine) const {
  auto it = engine_weight_reads_.find(std::string(engine));
  return it == engine_weight_reads_.end() ? EngineWeightReads{} : it->second;
}

double Catalog::stage_overhead_s(std::string_view vendor) const {
  auto it = vendor_overhead_s_.find(std::string(vendor));
  return it == vendor_overhead_s_.end() ? stage_overhead_s_ : it->second;
}

const LinkDefaults& Catalog::link_defaults(LinkKind kind, bool rdma) const {
  std::string key(link_figures_name(kind, rdma));
  auto it = links_.find(key);
  if (it == links_.end()) throw internal_error("no link defaults for {}", key);
  return it->second;
}

const GpuLinkDefaults* Catalog::gpu_link_defaults(std::string_view name) const {
  auto it = gpu_links_.find(std::string(name));
  return it == gpu_links_.end() ? nullptr : &it->second;
}

double Catalog::default_speed_gbps(LinkKind kind) const {
  auto it = speeds_.find(link_kind_name(kind));
  return it == speeds_.end() ? 0.0 : it->second;
}

}  // namespace meshplan
