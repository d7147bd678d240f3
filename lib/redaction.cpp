#include "lib/redaction.hpp"

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

namespace meshplan {
namespace {

using nlohmann::json;

bool identifying_key(const std::string& key) {
  static const std::regex id(R"(serial|uuid|udid|uid_key)", std::regex::icase);
  return std::regex_search(key, id);
}

// Collects the identifying values of the devices in a Thunderbolt tree that are not Macs. A Mac
// (bus or peer) is an object with a domain_uuid_key; the devices below an object are its
// `_items`; nested objects such as service lists belong to the object that holds them.
void collect_device_ids(const json& j, bool mac, std::set<std::string>* values) {
  if (j.is_array()) {
    for (const auto& x : j)
      collect_device_ids(x, mac, values);
    return;
  }
  if (!j.is_object()) return;
  for (const auto& [key, value] : j.items()) {
    if (key == "_items") {
      for (const auto& item : value)
        collect_device_ids(item, item.is_object() && item.contains("domain_uuid_key"), values);
    } else if (value.is_structured()) {
      collect_device_ids(value, mac, values);
    } else if (!mac && value.is_string() && identifying_key(key)) {
      values->insert(value.get<std::string>());
    }
  }
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  size_t pos = 0;
  while ((pos = text.find(from, pos)) != std::string::npos) {
    text.replace(pos, from.size(), to);
    pos += to.size();
  }
  return text;
}

}  // namespace

std::string redact_probe_output(std::string_view probe, std::string_view text) {
  std::string out(text);
  // Serial numbers wherever a JSON key names one (hardware overview, displays, devices).
  static const std::regex serial_value(
      R"re(("[^"]*(?:serial|platform_UUID|provisioning_UDID)[^"]*"\s*:\s*)"[^"]*")re",
      std::regex::icase);
  out = std::regex_replace(out, serial_value, std::string("$1\"") + kRedacted + "\"");
  if (probe == "system_profiler") {
    json doc = json::parse(out, nullptr, false);
    if (!doc.is_discarded()) {
      std::set<std::string> ids;
      // The top level is a document of Macs' buses: each bus is the Mac itself.
      if (doc.contains("SPThunderboltDataType") && doc["SPThunderboltDataType"].is_array())
        for (const auto& bus : doc["SPThunderboltDataType"])
          collect_device_ids(bus, true, &ids);
      for (const auto& id : ids) {
        if (id != kRedacted)
          out = replace_all(out, "\"" + id + "\"", std::string("\"") + kRedacted + "\"");
      }
    }
  } else if (probe == "nvidia_smi") {
    static const std::regex gpu_uuid(R"(GPU-[0-9a-fA-F]{8}-[0-9a-fA-F-]+)");
    out = std::regex_replace(out, gpu_uuid, std::string("GPU-") + kRedacted);
  }
  return out;
}

}  // namespace meshplan
