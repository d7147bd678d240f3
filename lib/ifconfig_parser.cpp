#include "lib/ifconfig_parser.hpp"

#include <bitset>
#include <cctype>
#include <regex>
#include <sstream>

#include "lib/cluster_reader.hpp"
#include "lib/probe_set.hpp"
#include "lib/units.hpp"

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
  static const std::regex speed(R"((\d+(?:\.\d+)?)\s*(G|M)?base)", std::regex::icase);
  std::string m(media);
  std::smatch match;
  if (!std::regex_search(m, match, speed)) return 0;
  double v = std::stod(match[1]);
  bool giga = match[2].matched && (match[2] == "G" || match[2] == "g");
  return giga ? v : v / 1000.0;
}

std::vector<IfconfigInterface> parse_ifconfig(std::string_view text) {
  static const std::regex header(R"(^([A-Za-z][A-Za-z0-9_.-]*): flags=[0-9a-fA-F]+<([^>]*)>.*)");
  std::vector<IfconfigInterface> out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (!line.empty() && !std::isspace(static_cast<unsigned char>(line[0]))) {
      if (std::regex_match(line, m, header)) {
        IfconfigInterface i;
        i.name = m[1];
        std::string flags = "," + std::string(m[2]) + ",";
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
    if (key == "inet" && cur.ipv4.empty()) {
      std::string addr, word;
      words >> addr;
      if (!valid_ipv4(addr)) continue;
      cur.ipv4 = addr;
      while (words >> word) {
        if (word == "netmask") {
          std::string mask;
          words >> mask;
          int p = netmask_prefix(mask);
          if (p >= 0) cur.prefix = p;
        }
      }
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
