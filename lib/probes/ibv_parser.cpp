#include "lib/probes/ibv_parser.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "lib/core/units.hpp"

namespace meshplan {
namespace {

std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  std::string w;
  while (in >> w)
    out.push_back(w);
  return out;
}

bool is_guid(std::string_view w) {
  if (w.empty()) return false;
  for (char c : w) {
    if (!(std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == 'X' || c == 'x'))
      return false;
  }
  return true;
}

bool is_device_name(std::string_view w) {
  if (w.empty() || !std::isalpha(static_cast<unsigned char>(w[0]))) return false;
  for (char c : w) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      return false;
  }
  return true;
}

// "hca_id: rdma_en2" -> key "hca_id", value "rdma_en2".
bool key_value(std::string_view line, std::string* key, std::string* value) {
  std::string t = trim(line);
  auto colon = t.find(':');
  if (colon == std::string::npos || colon == 0) return false;
  *key = trim(t.substr(0, colon));
  *value = trim(t.substr(colon + 1));
  return true;
}

}  // namespace

std::vector<std::string> parse_ibv_devices(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    auto w = words(line);
    // A device row is "NAME GUID"; the header ("device node GUID") and rules are not.
    if (w.size() == 2 && is_device_name(w[0]) && is_guid(w[1]) && w[0] != "device")
      out.push_back(w[0]);
  }
  return out;
}

std::vector<IbvPort> parse_ibv_devinfo(std::string_view text) {
  std::vector<IbvPort> out;
  std::istringstream in{std::string(text)};
  std::string line, key, value;
  std::string device;
  bool device_has_port = false;
  auto close_device = [&] {
    if (!device.empty() && !device_has_port) out.push_back({device, 0, "", ""});
  };
  while (std::getline(in, line)) {
    if (!key_value(line, &key, &value)) continue;
    if (key == "hca_id") {
      close_device();
      device = value;
      device_has_port = false;
    } else if (key == "port" && !device.empty()) {
      IbvPort p;
      p.device = device;
      p.port = static_cast<int>(std::clamp(std::strtol(value.c_str(), nullptr, 10), 0L, 1L << 16));
      out.push_back(p);
      device_has_port = true;
    } else if (key == "state" && device_has_port) {
      // "PORT_ACTIVE (4)" -> "PORT_ACTIVE"
      out.back().state = value.substr(0, value.find(' '));
    } else if (key == "link_layer" && device_has_port) {
      out.back().link_layer = value;
    }
  }
  close_device();
  return out;
}

bool ibv_reports_no_devices(std::string_view text) {
  return text.find("Failed to get IB devices list") != std::string_view::npos ||
         text.find("No IB devices found") != std::string_view::npos;
}

}  // namespace meshplan
