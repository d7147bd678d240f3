#include "lib/probes/scontrol_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "lib/core/error.hpp"
#include "lib/core/units.hpp"

namespace meshplan {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

uint64_t number(std::string_view value, std::string_view key, std::string_view source,
                std::string_view node) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || p != value.data() + value.size())
    throw input_error("{}: node {}: {}={} is not a number", source, node, key, value);
  return v;
}

// Gres entries "gpu:h100:8(S:0-1)", "gpu:8", "gpu" (one), "shard:2": the GPUs' type and count.
void read_gres(SlurmNode& n, std::string_view source) {
  size_t pos = 0;
  while (pos < n.gres.size()) {
    size_t comma = n.gres.find(',', pos);
    if (comma == std::string::npos) comma = n.gres.size();
    std::string entry = n.gres.substr(pos, comma - pos);
    pos = comma + 1;
    if (auto paren = entry.find('('); paren != std::string::npos) entry.resize(paren);
    std::vector<std::string> parts;
    size_t p = 0;
    while (true) {
      size_t colon = entry.find(':', p);
      parts.push_back(entry.substr(p, colon == std::string::npos ? colon : colon - p));
      if (colon == std::string::npos) break;
      p = colon + 1;
    }
    if (parts[0] != "gpu") continue;
    // gpu, gpu:COUNT, gpu:TYPE, gpu:TYPE:COUNT (slurm.conf(5), Gres).
    std::string type;
    uint64_t count = 1;
    if (parts.size() == 2) {
      bool digits = !parts[1].empty() && std::all_of(parts[1].begin(), parts[1].end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      });
      if (digits)
        count = number(parts[1], "Gres", source, n.name);
      else
        type = parts[1];
    } else if (parts.size() >= 3) {
      type = parts[1];
      count = number(parts[2], "Gres", source, n.name);
    }
    if (n.gpu_type.empty()) n.gpu_type = type;
    // At most 1024 GPUs on a node: no machine has more, and a host is built GPU by GPU.
    n.gpus = static_cast<int>(
        std::min<uint64_t>(std::min<uint64_t>(count, 1024) + static_cast<uint64_t>(n.gpus), 1024));
  }
}

}  // namespace

std::vector<SlurmNode> parse_scontrol_nodes(std::string_view text, std::string_view source) {
  std::vector<SlurmNode> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string line = trim(text.substr(pos, eol - pos));
    pos = eol + 1;
    if (line.empty()) continue;
    SlurmNode n;
    bool named = false;
    // Fields are Key=Value separated by spaces; Reason's free text runs to the end of the line.
    size_t p = 0;
    while (p < line.size()) {
      size_t end = line.find(' ', p);
      if (end == std::string::npos) end = line.size();
      std::string field = line.substr(p, end - p);
      size_t eq = field.find('=');
      std::string key = field.substr(0, eq);
      if (key == "Reason" && eq != std::string::npos) {
        n.reason = line.substr(p + key.size() + 1);
        break;
      }
      p = end + 1;
      if (eq == std::string::npos) continue;
      std::string value = field.substr(eq + 1);
      if (key == "NodeName") {
        n.name = value;
        named = !value.empty();
      } else if (key == "NodeAddr") {
        n.address = value;
      } else if (key == "State") {
        n.state = value;
      } else if (key == "Gres") {
        n.gres = value == "(null)" ? "" : value;
      } else if (key == "RealMemory") {
        n.real_memory_mib = number(value, key, source, n.name);
      } else if (key == "CPUTot") {
        n.cpus = static_cast<int>(std::min<uint64_t>(number(value, key, source, n.name), 1 << 20));
      }
    }
    if (!named)
      throw input_error("{}: expected `scontrol show node -o` lines starting NodeName=, got \"{}\"",
                        source, line.substr(0, 80));
    read_gres(n, source);
    out.push_back(std::move(n));
  }
  return out;
}

std::string slurm_unavailable(const SlurmNode& node) {
  // State is BASE[+FLAG...][*] (scontrol(1), NODE STATE CODES); DOWN and FAIL are base states,
  // DRAIN (shown as DRAINED or DRAINING by sinfo) a flag.
  std::string state = node.state;
  if (!state.empty() && state.back() == '*') state.pop_back();
  size_t pos = 0;
  while (pos <= state.size()) {
    size_t plus = state.find('+', pos);
    if (plus == std::string::npos) plus = state.size();
    std::string word = state.substr(pos, plus - pos);
    if (word == "DOWN" || word == "FAIL" || word.starts_with("DRAIN")) return word;
    pos = plus + 1;
  }
  return "";
}

const ChipSpec* chip_for_gres_type(std::string_view type, const Catalog& catalog) {
  std::string t = lower(type);
  if (t.empty()) return nullptr;
  if (const ChipSpec* c = catalog.find_chip(t)) return c;
  // Short names Slurm sites give their GPUs: the catalog's chip of that name.
  static const std::vector<std::pair<std::string_view, std::string_view>> kShort = {
      {"h100", "h100-sxm"},
      {"h100sxm", "h100-sxm"},
      {"h100pcie", "h100-pcie"},
      {"h200", "h200"},
      {"a100", "a100-80gb"},
      {"a100_80gb", "a100-80gb"},
      {"a100_40gb", "a100-40gb"},
      {"l40s", "l40s"},
      {"b200", "b200"},
      {"rtx3090", "rtx-3090"},
      {"rtx4090", "rtx-4090"},
      {"rtx5090", "rtx-5090"},
      {"gb10", "gb10"}};
  for (const auto& [name, key] : kShort)
    if (t == name) return catalog.find_chip(key);
  std::string brand(type);
  std::replace(brand.begin(), brand.end(), '_', ' ');
  return catalog.chip_for_brand(brand, 0);
}

Host slurm_node_host(const SlurmNode& node, const Catalog& catalog,
                     std::vector<Finding>& findings) {
  Host h;
  h.name = node.name;
  h.os.kind = "linux";
  h.slurm = true;
  h.memory = node.real_memory_mib * 1024 * 1024;
  if (node.gpus > 0) {
    const ChipSpec* chip = chip_for_gres_type(node.gpu_type, catalog);
    if (!chip)
      findings.push_back({"unknown-chip", h.name, "", "",
                          fmt::format("Slurm's Gres \"{}\" names no GPU of the chip catalog{}; "
                                      "set its gpus: by hand",
                                      node.gres, catalog.suggest_chip(node.gpu_type))});
    for (int i = 0; i < node.gpus; ++i) {
      Gpu g;
      g.name = node.gpu_type.empty() ? "gpu" : node.gpu_type;
      if (chip) {
        g.chip = chip->key;
        g.memory = chip->gpu_memory;
      }
      h.gpus.push_back(std::move(g));
    }
  }
  return h;
}

}  // namespace meshplan
