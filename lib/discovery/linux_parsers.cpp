#include "lib/discovery/linux_parsers.hpp"

#include <fmt/format.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lib/core/units.hpp"
#include "lib/discovery/probe_set.hpp"

namespace meshplan {
namespace {

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ','))
    out.push_back(trim(cell));
  return out;
}

// "memory.total [MiB]" -> "memory.total"
std::string column_name(const std::string& header_cell) {
  return trim(header_cell.substr(0, header_cell.find('[')));
}

// "81559 MiB" or "81559" -> bytes.
bool mib_to_bytes(const std::string& text, uint64_t* bytes) {
  std::string t = trim(text);
  if (t.size() > 4 && t.compare(t.size() - 3, 3, "MiB") == 0) t = trim(t.substr(0, t.size() - 3));
  if (t.empty() || t.size() > 12) return false;
  for (char c : t) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  *bytes = std::stoull(t) * 1024ull * 1024ull;
  return true;
}

}  // namespace

uint64_t parse_meminfo_total(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemTotal:", 0) != 0) continue;
    std::istringstream words(line.substr(9));
    uint64_t v = 0;
    std::string unit;
    if (!(words >> v)) break;
    words >> unit;
    if (unit == "kB" || unit == "KiB" || unit.empty()) return unit.empty() ? v : v * 1024ull;
    break;
  }
  throw ProbeParseError("expected a \"MemTotal: N kB\" line from /proc/meminfo");
}

const std::vector<std::string>& nvidia_smi_columns() {
  static const std::vector<std::string> columns = {"index", "name", "uuid", "pci.bus_id",
                                                   "memory.total"};
  return columns;
}

std::vector<NvidiaGpu> parse_nvidia_smi(std::string_view text,
                                        const std::vector<std::string>& columns) {
  std::vector<NvidiaGpu> gpus;
  std::vector<std::string> cols = columns;
  std::istringstream in{std::string(text)};
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (trim(line).empty()) continue;
    auto cells = split_csv(line);
    if (first && !cells.empty() && column_name(cells[0]) == "index") {
      cols.clear();
      for (const auto& c : cells)
        cols.push_back(column_name(c));
      first = false;
      continue;
    }
    first = false;
    if (cells.size() != cols.size())
      throw ProbeParseError(
          fmt::format("nvidia-smi: expected {} comma-separated columns ({}), got \"{}\"",
                      cols.size(), fmt::join(cols, ", "), line));
    NvidiaGpu g;
    for (size_t i = 0; i < cols.size(); ++i) {
      const std::string& v = cells[i];
      if (cols[i] == "index") {
        if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos)
          throw ProbeParseError(fmt::format("nvidia-smi: expected a GPU index, got \"{}\"", v));
        g.index = std::stoi(v);
      } else if (cols[i] == "name") {
        g.name = v;
      } else if (cols[i] == "uuid") {
        g.uuid = v;
      } else if (cols[i] == "pci.bus_id") {
        g.pci_bus = v;
      } else if (cols[i] == "memory.total") {
        if (!mib_to_bytes(v, &g.memory))
          throw ProbeParseError(
              fmt::format("nvidia-smi: expected memory.total in MiB, got \"{}\"", v));
      }
    }
    gpus.push_back(std::move(g));
  }
  return gpus;
}

std::vector<LinuxInterface> parse_ip_addr(std::string_view json_text) {
  using nlohmann::json;
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_array())
    throw ProbeParseError("expected the JSON array of `ip -j addr show`");
  std::vector<LinuxInterface> out;
  for (const auto& j : doc) {
    if (!j.is_object() || !j.contains("ifname") || !j["ifname"].is_string())
      throw ProbeParseError("expected every entry of `ip -j addr show` to have an ifname");
    LinuxInterface i;
    i.name = j["ifname"].get<std::string>();
    if (j.contains("link_type") && j["link_type"].is_string())
      i.link_type = j["link_type"].get<std::string>();
    if (j.contains("operstate") && j["operstate"].is_string())
      i.operstate = j["operstate"].get<std::string>();
    if (j.contains("flags") && j["flags"].is_array()) {
      for (const auto& f : j["flags"])
        i.up = i.up || (f.is_string() && f.get<std::string>() == "UP");
    }
    if (j.contains("addr_info") && j["addr_info"].is_array()) {
      for (const auto& a : j["addr_info"]) {
        if (!a.is_object() || !a.contains("family") || a["family"] != "inet") continue;
        if (!a.contains("local") || !a["local"].is_string()) continue;
        i.ipv4 = a["local"].get<std::string>();
        if (a.contains("prefixlen") && a["prefixlen"].is_number_integer())
          i.prefix = a["prefixlen"].get<int>();
        break;
      }
    }
    out.push_back(std::move(i));
  }
  return out;
}

OsRelease parse_os_release(std::string_view text) {
  OsRelease r;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    if (key == "ID")
      r.id = value;
    else if (key == "VERSION_ID")
      r.version_id = value;
    else if (key == "PRETTY_NAME")
      r.pretty_name = value;
  }
  return r;
}

}  // namespace meshplan
