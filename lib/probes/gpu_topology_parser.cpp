#include "lib/probes/gpu_topology_parser.hpp"

#include <fmt/format.h>

#include <sstream>

#include "lib/core/units.hpp"
#include "lib/probes/probe_set.hpp"

namespace meshplan {
namespace {

// nvidia-smi underlines the header on a terminal: ESC [ 4 m ... ESC [ 0 m.
std::string strip_escapes(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      size_t end = text.find('m', i);
      if (end == std::string_view::npos) break;
      i = end;
      continue;
    }
    out += text[i];
  }
  return out;
}

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, '\t'))
    out.push_back(trim(cell));
  return out;
}

int path_rank(const std::string& p) {
  if (p.starts_with("NV")) return 0;
  for (int i = 0; const char* name : {"PIX", "PXB", "PHB", "NODE", "SYS"}) {
    ++i;
    if (p == name) return i;
  }
  return 9;
}

bool valid_link(const std::string& s) {
  if (s == "X" || s == "PIX" || s == "PXB" || s == "PHB" || s == "NODE" || s == "SYS") return true;
  return s.size() > 2 && s.starts_with("NV") &&
         s.find_first_not_of("0123456789", 2) == std::string::npos;
}

}  // namespace

int GpuTopology::nvlinks(size_t a, size_t b) const {
  const std::string& l = links.at(a).at(b);
  return l.starts_with("NV") ? std::stoi(l.substr(2)) : 0;
}

int GpuTopology::nearest_nic(size_t g) const {
  int best = -1;
  for (size_t n = 0; g < nic_paths.size() && n < nic_paths[g].size(); ++n)
    if (best < 0 || path_rank(nic_paths[g][n]) < path_rank(nic_paths[g][best]))
      best = static_cast<int>(n);
  return best;
}

GpuTopology parse_gpu_topology(std::string_view raw) {
  std::string text = strip_escapes(raw);
  std::stringstream in(text);
  std::string line;
  std::vector<std::string> header;
  GpuTopology t;
  while (std::getline(in, line)) {
    std::vector<std::string> c = cells(line);
    if (header.empty()) {
      // The header: an empty first cell, then GPU0 ...
      if (c.size() >= 2 && c[0].empty() && c[1] == "GPU0") {
        for (size_t i = 1; i < c.size(); ++i) {
          if (c[i].starts_with("GPU") && c[i] != "GPU NUMA ID")
            t.gpus.push_back(c[i]);
          else if (c[i].starts_with("NIC"))
            t.nics.push_back(c[i]);
        }
        header = c;
      }
      continue;
    }
    if (c.empty() || c[0].empty()) continue;
    const size_t columns = t.gpus.size() + t.nics.size();
    const bool gpu_row = c[0].starts_with("GPU") && t.links.size() < t.gpus.size();
    if (gpu_row) {
      if (c[0] != t.gpus[t.links.size()] || c.size() < 1 + columns)
        throw ProbeParseError(
            fmt::format("nvidia-smi topo -m: expected the row of {} with {} entries, got \"{}\"",
                        t.gpus[t.links.size()], columns, line));
      std::vector<std::string> row(c.begin() + 1, c.begin() + 1 + t.gpus.size());
      std::vector<std::string> nic(c.begin() + 1 + t.gpus.size(), c.begin() + 1 + columns);
      for (const auto& v : row)
        if (!valid_link(v))
          throw ProbeParseError(
              fmt::format("nvidia-smi topo -m: unknown link \"{}\" in {}", v, c[0]));
      t.links.push_back(row);
      t.nic_paths.push_back(nic);
      t.numa.push_back(c.size() > 2 + columns ? c[2 + columns] : "");
      continue;
    }
    // "  NIC0: mlx5_0" in the NIC legend names the devices.
    std::string l = trim(line);
    if (l.starts_with("NIC") && l.find(':') != std::string::npos) {
      std::string id = trim(l.substr(0, l.find(':')));
      std::string dev = trim(l.substr(l.find(':') + 1));
      for (auto& n : t.nics)
        if (n == id && !dev.empty()) n = dev;
    }
  }
  if (t.gpus.empty())
    throw ProbeParseError("nvidia-smi topo -m: no GPU matrix (a header line starting GPU0)");
  if (t.links.size() != t.gpus.size())
    throw ProbeParseError(fmt::format("nvidia-smi topo -m: {} GPUs in the header but {} rows",
                                      t.gpus.size(), t.links.size()));
  for (size_t a = 0; a < t.gpus.size(); ++a)
    if (t.links[a][a] != "X")
      throw ProbeParseError(
          fmt::format("nvidia-smi topo -m: {} does not show X for itself", t.gpus[a]));
  return t;
}

}  // namespace meshplan
