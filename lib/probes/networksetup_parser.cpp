#include "lib/probes/networksetup_parser.hpp"

#include <cctype>

#include "lib/core/units.hpp"
#include "lib/probes/probe_set.hpp"

namespace meshplan {
namespace {

bool take(std::string_view line, std::string_view key, std::string* value) {
  if (line.substr(0, key.size()) != key) return false;
  *value = trim(line.substr(key.size()));
  return true;
}

}  // namespace

std::vector<HardwarePort> parse_networksetup(std::string_view text) {
  std::vector<HardwarePort> ports;
  bool open = false;  // a Hardware Port line waits for its Device line
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string line = trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    std::string value;
    if (take(line, "Hardware Port:", &value)) {
      ports.push_back({value, "", ""});
      open = true;
    } else if (open && take(line, "Device:", &value)) {
      ports.back().device = value;
    } else if (open && take(line, "Ethernet Address:", &value)) {
      ports.back().mac = value;
    } else if (line.empty()) {
      open = false;
    }
  }
  std::vector<HardwarePort> out;
  for (auto& p : ports) {
    if (!p.device.empty()) out.push_back(std::move(p));
  }
  if (out.empty())
    throw ProbeParseError(
        "expected \"Hardware Port: NAME\" / \"Device: enX\" blocks from networksetup "
        "-listallhardwareports");
  return out;
}

std::string thunderbolt_device(const std::vector<HardwarePort>& ports,
                               std::string_view receptacle_id) {
  std::string want = "Thunderbolt " + std::string(receptacle_id);
  for (const auto& p : ports) {
    if (p.name == want) return p.device;
  }
  return "";
}

std::string hardware_port_kind(std::string_view port_name) {
  std::string n(port_name);
  if (n == "Thunderbolt Bridge") return "bridge";
  if (n.rfind("Thunderbolt ", 0) == 0) {
    std::string rest = n.substr(12);
    bool digits = !rest.empty();
    for (char c : rest)
      digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (digits) return "thunderbolt";
  }
  std::string l = to_lower(n);
  if (l == "wi-fi" || l == "airport" || l.find("wi-fi") != std::string::npos) return "wifi";
  if (l.find("ethernet") != std::string::npos || l.find(" lan") != std::string::npos)
    return "ethernet";
  return "other";
}

}  // namespace meshplan
