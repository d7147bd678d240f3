#include "lib/probes/linux_parsers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lib/core/units.hpp"
#include "lib/probes/probe_set.hpp"

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
    if (j.contains("mtu") && j["mtu"].is_number_integer() && j["mtu"].get<int64_t>() > 0 &&
        j["mtu"].get<int64_t>() <= 1 << 20)
      i.mtu = static_cast<int>(j["mtu"].get<int64_t>());
    if (j.contains("address") && j["address"].is_string() && i.link_type == "ether")
      i.mac = j["address"].get<std::string>();
    if (j.contains("flags") && j["flags"].is_array()) {
      for (const auto& f : j["flags"])
        i.up = i.up || (f.is_string() && f.get<std::string>() == "UP");
    }
    if (j.contains("addr_info") && j["addr_info"].is_array()) {
      for (const auto& a : j["addr_info"]) {
        if (!a.is_object() || !a.contains("family") || a["family"] != "inet") continue;
        if (!a.contains("local") || !a["local"].is_string()) continue;
        int prefix = a.contains("prefixlen") && a["prefixlen"].is_number_integer()
                         ? a["prefixlen"].get<int>()
                         : 32;
        if (i.ipv4.empty()) {
          i.ipv4 = a["local"].get<std::string>();
          i.prefix = a.contains("prefixlen") ? prefix : 0;
        }
        i.addresses.push_back(a["local"].get<std::string>() + "/" + std::to_string(prefix));
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

namespace {

bool valid_mac(const std::string& mac) {
  if (mac.size() != 17) return false;
  for (size_t i = 0; i < mac.size(); ++i) {
    if (i % 3 == 2 ? mac[i] != ':' : !std::isxdigit(static_cast<unsigned char>(mac[i])))
      return false;
  }
  return true;
}

std::string lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::vector<SysNetInterface> parse_sys_net(std::string_view text) {
  std::vector<SysNetInterface> out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (trim(line).empty()) continue;
    std::vector<std::string> f;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, '|'))
      f.push_back(trim(cell));
    if (line.back() == '|') f.emplace_back();  // getline drops a trailing empty field
    if (f.size() != 4 || f[0].empty())
      throw ProbeParseError(fmt::format(
          "/sys/class/net: expected \"NAME|ADDRESS|OPERSTATE|SPEED\", got \"{}\"", line));
    SysNetInterface i;
    i.name = f[0];
    i.mac = valid_mac(f[1]) ? lower(f[1]) : "";
    i.operstate = lower(f[2]);
    const std::string& sp = f[3];
    if (!sp.empty() && sp.size() < 12 && sp.find_first_not_of("0123456789") == std::string::npos)
      i.speed_mbps = std::stoll(sp);
    else if (!sp.empty() && sp != "-1")
      throw ProbeParseError(
          fmt::format("/sys/class/net/{}/speed: expected Mb/s, got \"{}\"", i.name, sp));
    out.push_back(std::move(i));
  }
  return out;
}

std::vector<RdmaNetInterface> parse_rdma_net(std::string_view text) {
  std::vector<RdmaNetInterface> out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    RdmaNetInterface r;
    if (!(words >> r.device)) continue;
    std::string extra;
    if (!(words >> r.interface) || (words >> extra))
      throw ProbeParseError(
          fmt::format("/sys/class/infiniband: expected \"DEVICE INTERFACE\", got \"{}\"", line));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<RdmaRate> parse_rdma_rates(std::string_view text) {
  std::vector<RdmaRate> out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string device, rate, unit;
    if (!(words >> device)) continue;
    words >> rate >> unit;
    char* end = nullptr;
    const double gbps = std::strtod(rate.c_str(), &end);
    if (rate.empty() || end != rate.c_str() + rate.size() || !(gbps >= 0) || unit != "Gb/sec")
      throw ProbeParseError(
          fmt::format("/sys/class/infiniband: expected \"DEVICE RATE Gb/sec\", got \"{}\"", line));
    auto it =
        std::find_if(out.begin(), out.end(), [&](const RdmaRate& r) { return r.device == device; });
    if (it == out.end())
      out.push_back({device, gbps});
    else
      it->gbps = std::max(it->gbps, gbps);
  }
  return out;
}

std::vector<Neighbour> parse_ip_neigh(std::string_view json_text) {
  using nlohmann::json;
  std::string t = trim(std::string(json_text));
  if (t.empty()) return {};  // older iproute2 prints nothing for an empty table
  json doc = json::parse(t, nullptr, false);
  if (doc.is_discarded() || !doc.is_array())
    throw ProbeParseError("expected the JSON array of `ip -j -6 neigh show`");
  std::vector<Neighbour> out;
  for (const auto& j : doc) {
    if (!j.is_object()) throw ProbeParseError("expected objects in `ip -j -6 neigh show`");
    auto str = [&](const char* key) {
      return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
    };
    Neighbour n{str("dev"), str("dst"), lower(str("lladdr"))};
    if (n.interface.empty() || !valid_mac(n.mac)) continue;
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace meshplan
