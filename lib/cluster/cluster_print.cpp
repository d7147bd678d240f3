#include "lib/cluster/cluster_print.hpp"

#include <fmt/format.h>

#include "lib/core/error.hpp"
#include "lib/core/units.hpp"

namespace meshplan {

ClusterPrint cluster_print(const Cluster& cluster, const LinkGraph& graph,
                           const std::vector<std::string>& names, Transport transport,
                           double message_bytes) {
  ClusterPrint p;
  p.message_bytes = message_bytes;
  std::vector<size_t> index;
  for (const auto& name : names) {
    int i = cluster.host_index(name);
    if (i < 0) throw input_error("host \"{}\" is not in the cluster", name);
    index.push_back(static_cast<size_t>(i));
    const Host& h = cluster.hosts[static_cast<size_t>(i)];
    std::string os = h.os.kind.empty() ? "" : h.os.kind;
    if (!h.os.version.empty()) os += (os.empty() ? "" : " ") + h.os.version;
    p.hosts.push_back({h.name, h.chip, h.memory, os});
  }
  for (size_t a = 0; a < index.size(); ++a)
    for (size_t b = a + 1; b < index.size(); ++b) {
      auto l = graph.best(index[a], index[b], transport, message_bytes);
      p.links.push_back({names[a], names[b], l ? l->name : "none"});
    }
  return p;
}

std::vector<std::string> print_differences(const ClusterPrint& planned, const ClusterPrint& now) {
  std::vector<std::string> out;
  for (const auto& was : planned.hosts) {
    const ClusterPrint::HostPrint* is = nullptr;
    for (const auto& h : now.hosts)
      if (h.name == was.name) is = &h;
    if (!is) {
      out.push_back(fmt::format("{}: not in the cluster any more", was.name));
      continue;
    }
    if (is->chip != was.chip)
      out.push_back(fmt::format("{}: chip {}, now {}", was.name, was.chip.empty() ? "?" : was.chip,
                                is->chip.empty() ? "?" : is->chip));
    if (is->memory != was.memory)
      out.push_back(fmt::format("{}: memory {}, now {}", was.name, format_bytes(was.memory),
                                format_bytes(is->memory)));
    if (is->os != was.os)
      out.push_back(fmt::format("{}: {}, now {}", was.name, was.os.empty() ? "unknown OS" : was.os,
                                is->os.empty() ? "unknown OS" : is->os));
  }
  for (const auto& was : planned.links) {
    for (const auto& l : now.links) {
      if (l.a == was.a && l.b == was.b && l.link != was.link)
        out.push_back(fmt::format("{} - {}: {}, now {}", was.a, was.b, was.link, l.link));
    }
  }
  return out;
}

}  // namespace meshplan
