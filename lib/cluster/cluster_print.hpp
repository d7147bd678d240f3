// What a plan was made for: the chip, memory and macOS of each host it uses and the link between
// each pair of them under the plan's transport. Recorded in the plan file, compared by `emit
// --plan` so that a plan made for other hardware under the same host names is refused.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/cluster/cluster.hpp"
#include "lib/cluster/link_graph.hpp"

namespace meshplan {

struct ClusterPrint {
  struct HostPrint {
    std::string name;
    std::string chip;
    uint64_t memory = 0;
    std::string os;  // "macos 26.2", "" when unknown
    bool operator==(const HostPrint&) const = default;
  };
  struct LinkPrint {
    std::string a, b;  // host names in the plan's rank order
    std::string link;  // figures name ("tb5-rdma", "10gbe") or "none"
    bool operator==(const LinkPrint&) const = default;
  };
  std::vector<HostPrint> hosts;
  std::vector<LinkPrint> links;
  double message_bytes = 0;  // the activations a hop carries, which picks among parallel links
  bool empty() const { return hosts.empty(); }
};

// The print of `names` (hosts of `cluster`, in rank order) with links of `transport`. Throws an
// input error naming a host that is not in the cluster.
ClusterPrint cluster_print(const Cluster& cluster, const LinkGraph& graph,
                           const std::vector<std::string>& names, Transport transport,
                           double message_bytes);

// One line per difference between what a plan was made for and what the cluster is now, e.g.
// "m3-ultra-4: memory 256 GiB, now 512 GiB".
std::vector<std::string> print_differences(const ClusterPrint& planned, const ClusterPrint& now);

}  // namespace meshplan
