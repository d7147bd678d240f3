#include "lib/probes/hardware_parser.hpp"

#include <fmt/format.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lib/core/units.hpp"
#include "lib/probes/probe_set.hpp"

namespace meshplan {
namespace {

using nlohmann::json;

std::string text_of(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  return "";
}

// Also bounds the length, so that the numbers converted below cannot overflow.
bool all_digits(std::string_view s, size_t max_length = 18) {
  if (s.empty() || s.size() > max_length) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Apple's "16 GB" and "512 GB" are binary sizes (GiB); "1 TB" is 1 TiB.
uint64_t apple_memory(std::string_view text) {
  std::string t = to_lower(trim(text));
  double v = 0;
  char unit[8] = {0};
  // A size no Mac has (or inf / nan) is not understood rather than converted out of range.
  if (std::sscanf(t.c_str(), "%lf %7s", &v, unit) < 1 || !(v > 0) || v > 1e6) return 0;
  std::string u = unit;
  double mult = u == "tb"   ? 1024.0 * 1024 * 1024 * 1024
                : u == "mb" ? 1024.0 * 1024
                            : 1024.0 * 1024 * 1024;
  return static_cast<uint64_t>(v * mult);
}

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line))
    out.push_back(line);
  return out;
}

// "hw.memsize: 123" -> ("hw.memsize", "123"); false for other lines.
bool sysctl_line(const std::string& line, std::string* key, std::string* value) {
  auto colon = line.find(':');
  if (colon == std::string::npos || colon == 0) return false;
  for (size_t i = 0; i < colon; ++i) {
    char c = line[i];
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '_'))
      return false;
  }
  if (line.find('.') > colon) return false;  // sysctl names are dotted: hw.model
  *key = line.substr(0, colon);
  *value = trim(line.substr(colon + 1));
  return true;
}

}  // namespace

bool parse_number_processors(std::string_view text, int* total, std::vector<int>* tiers) {
  std::string t = trim(text);
  tiers->clear();
  if (all_digits(t, 6)) {
    *total = std::stoi(t);
    return true;
  }
  if (t.rfind("proc ", 0) != 0) return false;
  std::vector<int> parts;
  std::string part;
  std::istringstream in(t.substr(5));
  while (std::getline(in, part, ':')) {
    part = trim(part);
    if (!all_digits(part, 6)) return false;
    parts.push_back(std::stoi(part));
  }
  if (parts.empty()) return false;
  *total = parts[0];
  tiers->assign(parts.begin() + 1, parts.end());
  return true;
}

MacHardware parse_system_profiler_hardware(std::string_view json_text) {
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    throw ProbeParseError(
        "expected the JSON of system_profiler -json SPHardwareDataType SPDisplaysDataType");
  bool hw_present = doc.contains("SPHardwareDataType"),
       gpu_present = doc.contains("SPDisplaysDataType");
  if (!hw_present && !gpu_present)
    throw ProbeParseError(
        "expected SPHardwareDataType or SPDisplaysDataType in the system_profiler JSON");
  MacHardware hw;
  if (hw_present) {
    const json& arr = doc["SPHardwareDataType"];
    if (!arr.is_array() || arr.empty() || !arr[0].is_object())
      throw ProbeParseError("expected SPHardwareDataType to be a list with one hardware overview");
    const json& h = arr[0];
    hw.chip_type = text_of(h, "chip_type");
    hw.machine_model = text_of(h, "machine_model");
    hw.machine_name = text_of(h, "machine_name");
    hw.memory = apple_memory(text_of(h, "physical_memory"));
    std::string procs = text_of(h, "number_processors");
    if (!procs.empty() && !parse_number_processors(procs, &hw.cpu_cores, &hw.cpu_tiers))
      throw ProbeParseError(
          fmt::format("number_processors: expected \"proc 8:4:4\" or a number, got \"{}\"", procs));
  }
  if (gpu_present && doc["SPDisplaysDataType"].is_array()) {
    for (const auto& g : doc["SPDisplaysDataType"]) {
      if (!g.is_object()) continue;
      std::string cores = text_of(g, "sppci_cores");
      if (cores.empty()) continue;
      if (!all_digits(cores, 6))
        throw ProbeParseError(
            fmt::format("sppci_cores: expected a number of GPU cores, got \"{}\"", cores));
      hw.gpu_cores = std::stoi(cores);
      hw.gpu_model = text_of(g, "sppci_model");
      break;  // the built-in GPU comes first
    }
  }
  return hw;
}

MacSysctl parse_sysctl(std::string_view text) {
  MacSysctl s;
  auto lines = lines_of(text);
  std::string key, value;
  for (const auto& line : lines) {
    if (sysctl_line(line, &key, &value)) s.values[key] = value;
  }
  if (s.values.empty()) {
    // `sysctl -n hw.memsize hw.model machdep.cpu.brand_string`: values in that order.
    std::vector<std::string> v;
    for (const auto& line : lines) {
      if (!trim(line).empty()) v.push_back(trim(line));
    }
    if (v.size() >= 1 && all_digits(v[0])) s.values["hw.memsize"] = v[0];
    if (v.size() >= 2) s.values["hw.model"] = v[1];
    if (v.size() >= 3) s.values["machdep.cpu.brand_string"] = v[2];
  }
  if (s.values.empty())
    throw ProbeParseError("expected sysctl lines such as \"hw.memsize: 137438953472\"");
  if (auto it = s.values.find("hw.memsize"); it != s.values.end()) {
    if (!all_digits(it->second))
      throw ProbeParseError(
          fmt::format("hw.memsize: expected a number of bytes, got \"{}\"", it->second));
    s.memsize = std::stoull(it->second);
  }
  if (auto it = s.values.find("hw.model"); it != s.values.end()) s.model = it->second;
  if (auto it = s.values.find("machdep.cpu.brand_string"); it != s.values.end())
    s.brand = it->second;
  return s;
}

std::optional<int64_t> parse_wired_limit(std::string_view text) {
  std::string t = trim(text);
  if (auto colon = t.find(':'); colon != std::string::npos) t = trim(t.substr(colon + 1));
  if (!all_digits(t, 12)) return std::nullopt;
  return std::stoll(t);
}

SwVers parse_sw_vers(std::string_view text) {
  SwVers v;
  for (const auto& line : lines_of(text)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "ProductName")
      v.product = value;
    else if (key == "ProductVersion")
      v.version = value;
    else if (key == "BuildVersion")
      v.build = value;
  }
  if (v.version.empty())
    throw ProbeParseError("expected a \"ProductVersion: 26.2\" line from sw_vers");
  return v;
}

}  // namespace meshplan
