#include "tests/oracle/oracle_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace meshplan::oracle {

const Host* find_host(const Cluster& cluster, const std::string& name) {
  for (const Host& h : cluster.hosts)
    if (h.name == name || h.ssh_target() == name) return &h;
  return nullptr;
}

int device_count(const Host& host) {
  return host.gpus.empty() ? 1 : static_cast<int>(host.gpus.size());
}

const NetInterface* interface_with_address(const Host& host, const std::string& address) {
  for (const NetInterface& i : host.interfaces)
    if (!address.empty() && i.ipv4 == address) return &i;
  return nullptr;
}

std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (ch == '\'') {
      const size_t end = line.find('\'', i + 1);
      word += line.substr(i + 1, end - i - 1);
      i = end == std::string::npos ? line.size() : end;
      in_word = true;
    } else if (ch == '"') {
      for (++i; i < line.size() && line[i] != '"'; ++i)
        word += line[i] == '\\' && i + 1 < line.size() ? line[++i] : line[i];
      in_word = true;
    } else if (ch == ' ' || ch == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += ch;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    lines.push_back(line);
  return lines;
}

namespace {

bool is_assignment(const std::string& word) {
  const size_t eq = word.find('=');
  if (eq == 0 || eq == std::string::npos) return false;
  return std::all_of(word.begin(), word.begin() + static_cast<long>(eq), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) || c == '_' ||
           std::isdigit(static_cast<unsigned char>(c));
  });
}

}  // namespace

std::optional<Command> read_command(const std::string& line,
                                    const std::vector<std::string>& programs) {
  const std::vector<std::string> words = shell_words(line);
  Command c;
  for (size_t i = 0; i < words.size(); ++i) {
    if (std::find(programs.begin(), programs.end(), words[i]) != programs.end()) {
      c.words.assign(words.begin() + static_cast<long>(i), words.end());
      return c;
    }
    if (is_assignment(words[i])) {
      const size_t eq = words[i].find('=');
      c.env[words[i].substr(0, eq)] = words[i].substr(eq + 1);
    }
  }
  return std::nullopt;
}

std::optional<std::string> Command::option(const std::vector<std::string>& names) const {
  for (size_t i = 0; i < words.size(); ++i)
    for (const std::string& n : names) {
      if (words[i] == n && i + 1 < words.size()) return words[i + 1];
      if (words[i].rfind(n + "=", 0) == 0) return words[i].substr(n.size() + 1);
    }
  return std::nullopt;
}

bool Command::flag(const std::string& name) const {
  return std::find(words.begin(), words.end(), name) != words.end();
}

int int_option(const Command& c, const std::vector<std::string>& names, int fallback,
               const ReadContext& ctx) {
  auto v = c.option(names);
  if (!v) return fallback;
  try {
    size_t used = 0;
    const int n = std::stoi(*v, &used);
    if (used == v->size()) return n;
  } catch (const std::exception&) {
  }
  ctx.flag("not-a-number", fmt::format("{} {} is not an integer", names.front(), *v));
  return fallback;
}

namespace {

std::vector<std::string> split_list(std::string value) {
  if (!value.empty() && (value[0] == '=' || value[0] == '^')) value.erase(0, 1);
  std::vector<std::string> out;
  std::istringstream in(value);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

bool has_interface(const Host& host, const std::string& name, bool exact) {
  for (const NetInterface& i : host.interfaces)
    if (exact ? i.name == name : i.name.rfind(name, 0) == 0) return true;
  return false;
}

}  // namespace

void check_network_env(const std::map<std::string, std::string>& env, const Host& host,
                       const ReadContext& ctx) {
  auto get = [&](const char* key) -> std::string {
    auto it = env.find(key);
    return it == env.end() ? "" : it->second;
  };
  const std::string gloo = get("GLOO_SOCKET_IFNAME");
  if (!gloo.empty() && !has_interface(host, gloo, true))
    ctx.flag("gloo-ifname",
             fmt::format("GLOO_SOCKET_IFNAME={} is no interface of {}", gloo, host.name));
  const std::string nccl = get("NCCL_SOCKET_IFNAME");
  if (!nccl.empty() && nccl[0] != '^')
    for (const std::string& name : split_list(nccl))
      if (!has_interface(host, name, nccl[0] == '='))
        ctx.flag("nccl-ifname",
                 fmt::format("NCCL_SOCKET_IFNAME={} names no interface of {}", nccl, host.name));
  const std::string hca = get("NCCL_IB_HCA");
  if (!hca.empty() && hca[0] != '^')
    for (const std::string& item : split_list(hca)) {
      const std::string device = item.substr(0, item.find(':'));
      bool found = false;
      for (const NetInterface& i : host.interfaces)
        found = found || i.rdma_device == device;
      if (!found)
        ctx.flag("nccl-ib-hca",
                 fmt::format("NCCL_IB_HCA={} names no RDMA device of {}", hca, host.name));
    }
  const std::string ip = get("VLLM_HOST_IP");
  if (ip.empty()) return;
  const NetInterface* on = interface_with_address(host, ip);
  if (!on)
    ctx.flag("vllm-host-ip", fmt::format("VLLM_HOST_IP={} is no address of {}", ip, host.name));
  else if (!gloo.empty() && on->name != gloo)
    ctx.flag("vllm-host-ip-interface",
             fmt::format("{}: VLLM_HOST_IP={} is on {}, but GLOO_SOCKET_IFNAME={}", host.name, ip,
                         on->name, gloo));
}

}  // namespace meshplan::oracle
