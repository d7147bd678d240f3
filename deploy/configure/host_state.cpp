#include "deploy/configure/host_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lib/core/units.hpp"
#include "lib/probes/ifconfig_parser.hpp"
#include "lib/probes/linux_parsers.hpp"
#include "lib/probes/probe_set.hpp"

namespace meshplan {
namespace {}  // namespace

std::map<std::string, std::string> script_sections(std::string_view out) {
  std::map<std::string, std::string> s;
  std::string current;
  std::istringstream in{std::string(out)};
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("@@", 0) == 0) {
      auto space = line.find(' ');
      current = line.substr(2, space == std::string::npos ? std::string::npos : space - 2);
      s[current] = space == std::string::npos ? "" : line.substr(space + 1);
      if (space != std::string::npos) s[current] += "\n";
      continue;
    }
    if (!current.empty()) s[current] += line + "\n";
  }
  return s;
}

namespace {

// `netstat -rn -f inet`: "Destination Gateway Flags Netif Expire" rows; the host routes and the
// default route, by interface.
std::map<std::string, std::string> parse_netstat_routes(const std::string& text) {
  std::map<std::string, std::string> routes;
  std::istringstream in(text);
  std::string line;
  bool table = false;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;)
      w.push_back(x);
    if (w.empty()) continue;
    if (w[0] == "Destination") {
      table = true;
      continue;
    }
    if (table && w.size() >= 4) routes.emplace(w[0], w[3]);
  }
  return routes;
}

std::string interface_holding(const std::vector<InterfaceState>& interfaces,
                              const std::string& address) {
  if (address.empty()) return "";
  for (const auto& i : interfaces) {
    for (const auto& a : i.addresses)
      if (a.substr(0, a.find('/')) == address) return i.name;
  }
  return "";
}

}  // namespace

bool InterfaceState::has(const std::string& address_with_prefix) const {
  return std::find(addresses.begin(), addresses.end(), address_with_prefix) != addresses.end();
}

const InterfaceState* HostState::find(const std::string& name) const {
  for (const auto& i : interfaces)
    if (i.name == name) return &i;
  return nullptr;
}

std::string HostState::sudoers_line() const {
  if (macos) return fmt::format("{} ALL=(root) NOPASSWD: /sbin/ifconfig, /sbin/route", user);
  return fmt::format("{} ALL=(root) NOPASSWD: {}", user,
                     ip_path.empty() ? "/usr/sbin/ip" : ip_path);
}

const std::string& host_state_script() {
  static const std::string script = R"SH(echo "@@uid $(id -u)"
echo "@@user $(id -un)"
if [ "$(id -u)" != 0 ]; then
  if sudo -n true 2>/dev/null; then echo "@@sudo yes"; else echo "@@sudo no"; fi
fi
set -- ${SSH_CONNECTION:-}
echo "@@session ${3:-}"
case "$(uname -s)" in
Darwin)
  echo "@@ifconfig"; ifconfig -a || exit 1
  echo "@@netstat"; netstat -rn -f inet || exit 1;;
*)
  echo "@@ip_path $(command -v ip)"
  echo "@@ip"; ip -j addr show || exit 1
  echo "@@default"; ip -j route show default || exit 1;;
esac
echo "@@end"
)SH";
  return script;
}

HostState parse_host_state(std::string_view out) {
  auto s = script_sections(out);
  if (!s.count("uid") || !s.count("end"))
    throw ProbeParseError("expected the state script's @@uid ... @@end sections");
  HostState h;
  h.root = trim(s["uid"]) == "0";
  h.user = trim(s["user"]);
  h.sudo = trim(s["sudo"]) == "yes";
  std::string session = trim(s["session"]);
  if (s.count("ifconfig")) {
    h.macos = true;
    for (const auto& i : parse_ifconfig(s["ifconfig"]))
      h.interfaces.push_back({i.name, i.up, i.addresses});
    h.routes = parse_netstat_routes(s["netstat"]);
    auto d = h.routes.find("default");
    if (d != h.routes.end()) h.default_interface = d->second;
  } else if (s.count("ip")) {
    h.ip_path = trim(s["ip_path"]);
    for (const auto& i : parse_ip_addr(s["ip"]))
      h.interfaces.push_back({i.name, i.up, i.addresses});
    auto routes = nlohmann::json::parse(s["default"], nullptr, false);
    if (routes.is_discarded() || !routes.is_array())
      throw ProbeParseError("expected the JSON array of `ip -j route show default`");
    for (const auto& r : routes) {
      if (r.is_object() && r.contains("dev") && r["dev"].is_string()) {
        h.default_interface = r["dev"].get<std::string>();
        break;
      }
    }
  } else {
    throw ProbeParseError("expected an @@ifconfig (macOS) or @@ip (Linux) section");
  }
  h.ssh_interface = interface_holding(h.interfaces, session);
  return h;
}

}  // namespace meshplan
