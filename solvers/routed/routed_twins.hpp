// Hosts that are near copies of one another, planned as copies. A host that is at least as good as
// another of its region (routed_regions.hpp) in everything the flow reads (each table entry no
// slower and at most a quarter faster,
// at most two layers more, as much memory at either end, an LM head no slower, links no slower
// to and from every other host) is a variant of it: the same machine measured a little faster,
// given more memory or a faster cable. The search groups hosts that are exact copies and so
// searches a cluster with variants differently from the one without them; solving both and
// keeping the better layout on the real figures means a variant never plans worse than the copy
// it improves on. Links from one region to another that differ a little are planned as the
// slowest of them in the same way.
#pragma once

#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

// The instance with every link that cannot bind made unlimited: a link from i to j carries at
// most what both ends do, and no more than the whole flow, so one at or above the slower end's
// fastest figure or the instance's upper bound never limits a flow.
// Links that differ only above that then group and order their hosts alike: a faster link that
// changes nothing changes no step of the search.
// `most_flow`: the instance's upper bound where the caller has it (worked out when below 0).
RoutedInstance routed_unbound_links(const RoutedInstance& instance, double most_flow = -1);

// The instance with its links unbound as above, the links between two regions that differ by at
// most four times made the slowest of them, then each variant made a copy of the host it improves
// on (in host order, a host copying only a host that copies no other); the same instance when it
// has neither.
RoutedInstance routed_without_variants(const RoutedInstance& instance, double most_flow = -1);

}  // namespace meshplan
