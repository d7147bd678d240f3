#include "lib/remote/redaction.hpp"

#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

#include "lib/core/units.hpp"

namespace meshplan {
namespace {

using nlohmann::json;

// Keys whose values identify one machine or device. No regex: outputs can be large and
// std::regex recurses per character.
bool identifying_key(const std::string& key) {
  std::string k = to_lower(key);
  for (const char* word : {"serial", "uuid", "udid", "uid_key"}) {
    if (k.find(word) != std::string::npos) return true;
  }
  return false;
}

// Serial numbers anywhere in a document, and the other identifiers of objects that are not
// Macs. A Mac (bus or peer) is an object with a domain_uuid_key; the devices below an object are
// its `_items`; nested objects such as service lists belong to the object that holds them.
void collect_ids(const json& j, bool mac, std::set<std::string>* values) {
  if (j.is_array()) {
    for (const auto& x : j)
      collect_ids(x, mac, values);
    return;
  }
  if (!j.is_object()) return;
  for (const auto& [key, value] : j.items()) {
    if (key == "_items" && value.is_array()) {
      for (const auto& item : value)
        collect_ids(item, item.is_object() && item.contains("domain_uuid_key"), values);
    } else if (value.is_structured()) {
      collect_ids(value, mac, values);
    } else if (value.is_string() && identifying_key(key)) {
      bool serial = to_lower(key).find("serial") != std::string::npos;
      if (serial || !mac) values->insert(value.get<std::string>());
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

bool hex_digit(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

// "GPU-04a2c780-8426-..." -> "GPU-REDACTED".
std::string redact_gpu_uuids(std::string text) {
  size_t pos = 0;
  while ((pos = text.find("GPU-", pos)) != std::string::npos) {
    size_t start = pos + 4, end = start;
    while (end < text.size() && (hex_digit(text[end]) || text[end] == '-'))
      ++end;
    if (end - start >= 9) text.replace(start, end - start, kRedacted);
    pos = start;
  }
  return text;
}

}  // namespace

std::string redact_probe_output(std::string_view probe, std::string_view text) {
  std::string out(text);
  if (probe == "nvidia_smi") return redact_gpu_uuids(out);
  if (probe != "system_profiler" && probe != "hardware") return out;
  json doc = json::parse(out, nullptr, false);
  if (doc.is_discarded()) return out;
  std::set<std::string> ids;
  if (probe == "system_profiler") {
    // The top level lists the Mac's own buses: each is the Mac itself.
    if (doc.contains("SPThunderboltDataType") && doc["SPThunderboltDataType"].is_array()) {
      for (const auto& bus : doc["SPThunderboltDataType"])
        collect_ids(bus, true, &ids);
    }
  } else {
    collect_ids(doc, false, &ids);  // the hardware overview: serial, platform UUID, UDID
  }
  for (const auto& id : ids) {
    if (id != kRedacted && !id.empty())
      out = replace_all(out, "\"" + id + "\"", std::string("\"") + kRedacted + "\"");
  }
  return out;
}

}  // namespace meshplan
