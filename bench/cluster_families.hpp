// Seeded what-if clusters of the benchmark families of reference/solvers.md section 7.6, built
// from catalog chips: homogeneous, two-tier (one big host and small ones), long tail (one strong
// host and many 8-32 GB machines), fits-on-one (one host can hold the model alone), Thunderbolt
// 5 mesh with RDMA, Thunderbolt daisy chain (plus a 1 GbE switch so that rings can close),
// 10 GbE switch, and Thunderbolt islands of 2-4 hosts joined by a 10 GbE switch. Families with
// mixed machines also vary each host's memory bandwidth by up to 10 % (profile noise), so
// hosts are rarely interchangeable. Port counts of real machines are not enforced.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"

namespace meshplan {

const std::vector<std::string>& cluster_family_names();

// Throws an input error naming the families for an unknown one.
Cluster generate_cluster(const std::string& family, int hosts, uint64_t seed,
                         const Catalog& catalog);

}  // namespace meshplan
