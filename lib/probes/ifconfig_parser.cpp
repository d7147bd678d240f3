#include "lib/probes/ifconfig_parser.hpp"

#include <bitset>
#include <cctype>
#include <sstream>

#include "lib/cluster/value_readers.hpp"
#include "lib/core/units.hpp"
#include "lib/probes/probe_set.hpp"

namespace meshplan {

int netmask_prefix(std::string_view mask) {
  std::string m = trim(mask);
  uint32_t bits = 0;
  if (m.rfind("0x", 0) == 0) {
    if (m.size() != 10) return -1;
    for (size_t i = 2; i < m.size(); ++i) {
      if (!std::isxdigit(static_cast<unsigned char>(m[i]))) return -1;
    }
    bits = static_cast<uint32_t>(std::stoul(m.substr(2), nullptr, 16));
  } else if (valid_ipv4(m)) {
    std::istringstream in(m);
    std::string part;
    while (std::getline(in, part, '.'))
      bits = (bits << 8) | static_cast<uint32_t>(std::stoul(part));
  } else {
    return -1;
  }
  // A netmask is contiguous ones followed by zeros.
  uint32_t inverted = ~bits;
  if ((inverted & (inverted + 1)) != 0) return -1;
  return static_cast<int>(std::bitset<32>(bits).count());
}

double media_speed_gbps(std::string_view media) {
  // The number before "base" (any case), with an optional G/M in between: 10Gbase-T, 1000baseT.
  std::string m = to_lower(media);
  size_t pos = 0;
  while ((pos = m.find("base", pos)) != std::string::npos) {
    size_t end = pos;
    bool giga = false;
    if (end > 0 && (m[end - 1] == 'g' || m[end - 1] == 'm')) {
      giga = m[end - 1] == 'g';
      --end;
    }
    size_t start = end;
    while (start > 0 &&
           (std::isdigit(static_cast<unsigned char>(m[start - 1])) || m[start - 1] == '.'))
      --start;
    if (start < end) {
      double v = std::strtod(m.substr(start, end - start).c_str(), nullptr);
      if (v > 0) return giga ? v : v / 1000.0;
    }
    pos += 4;
  }
  return 0;
}

namespace {

// "en0: flags=8863<UP,BROADCAST,...> mtu 1500" -> name "en0", flags "UP,BROADCAST,...".
bool interface_header(const std::string& line, std::string* name, std::string* flags) {
  auto colon = line.find(": flags=");
  if (colon == std::string::npos || colon == 0) return false;
  for (size_t i = 0; i < colon; ++i) {
    char c = line[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'))
      return false;
  }
  if (!std::isalpha(static_cast<unsigned char>(line[0]))) return false;
  auto open = line.find('<', colon), close = line.find('>', colon);
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  *name = line.substr(0, colon);
  *flags = line.substr(open + 1, close - open - 1);
  return true;
}

}  // namespace

std::vector<IfconfigInterface> parse_ifconfig(std::string_view text) {
  std::vector<IfconfigInterface> out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && !std::isspace(static_cast<unsigned char>(line[0]))) {
      std::string name, flag_text;
      if (interface_header(line, &name, &flag_text)) {
        IfconfigInterface i;
        i.name = name;
        std::string flags = "," + flag_text + ",";
        i.up = flags.find(",UP,") != std::string::npos;
        out.push_back(std::move(i));
      }
      continue;
    }
    if (out.empty()) continue;
    IfconfigInterface& cur = out.back();
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key == "inet") {
      std::string addr, word;
      words >> addr;
      if (!valid_ipv4(addr)) continue;
      int prefix = -1;
      while (words >> word) {
        if (word == "netmask") {
          std::string mask;
          words >> mask;
          prefix = netmask_prefix(mask);
        }
      }
      if (cur.ipv4.empty()) {
        cur.ipv4 = addr;
        if (prefix >= 0) cur.prefix = prefix;
      }
      cur.addresses.push_back(addr + "/" + std::to_string(prefix >= 0 ? prefix : 32));
    } else if (key == "member:") {
      std::string member;
      words >> member;
      if (!member.empty()) cur.members.push_back(member);
    } else if (key == "status:") {
      std::string status;
      words >> status;
      cur.active = status == "active";
    } else if (key == "media:") {
      std::string rest;
      std::getline(words, rest);
      cur.speed_gbps = media_speed_gbps(rest);
    }
  }
  if (out.empty())
    throw ProbeParseError("expected ifconfig blocks such as \"en0: flags=8863<UP,...> mtu 1500\"");
  return out;
}

std::string parse_getifaddr(std::string_view text) {
  std::string t = trim(text);
  return valid_ipv4(t) ? t : "";
}

}  // namespace meshplan
