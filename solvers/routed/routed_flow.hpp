// Routed serving (issue 19, SPEC section 7 "Routed serving"): every host holds one contiguous
// range of layers, and a request may pass through any chain of hosts whose ranges join end to
// start, from the first layer to the last. The cluster's throughput is the maximum flow of that
// network: a host carries at most its table's tokens/s for its range length, a link at most its
// bandwidth over one token's activations. This file holds the instance, a layout and its flow.
#pragma once

#include <climits>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "solvers/problem/link_matrix.hpp"

namespace meshplan {

// A layout or move must beat the best flow by this factor to count (rounding is not progress).
inline constexpr double kRoutedBetter = 1 + 1e-9;

struct RoutedHost {
  std::string name;
  // Aggregate tokens/s while holding k = 1..size() layers, without embedding and LM head. Tables
  // need not fall as k grows.
  std::vector<double> table;
  double head_s = 0;  // seconds per token the LM head adds to the host holding the last layer
  // The most layers when the host also holds the embedding (first layer), the LM head (last
  // layer), or both: what memory leaves beside them.
  int max_with_first = INT_MAX;
  int max_with_last = INT_MAX;
  int max_with_both = INT_MAX;
};

struct RoutedInstance {
  int layers = 0;
  std::vector<RoutedHost> hosts;
  // Tokens/s a link carries from host i to host j; 0 = no link (they cannot follow each other).
  // Either a table per pair (`link`, as tests and small clusters give them) or, for fleets, the
  // planner's links (`links`, where a switch is one entry) carrying bandwidth / message_bytes;
  // neither: every pair unlimited. Read through has_links() and link_at().
  std::vector<std::vector<double>> link;
  std::shared_ptr<const LinkMatrix> links;
  double message_bytes = 0;

  bool has_links() const { return !link.empty() || links != nullptr; }
  double link_at(size_t i, size_t j) const {
    if (!link.empty()) return link[i][j];
    if (!links) return std::numeric_limits<double>::infinity();
    const std::optional<LinkFigures>& l = links->at(i, j);
    return l && message_bytes > 0 ? l->bandwidth / message_bytes : 0;
  }
  // The same links among `members`, in that order.
  void links_of(const RoutedInstance& whole, const std::vector<size_t>& members);
};

// The instance with host a of the result being host order[a] of `instance` (its links too).
RoutedInstance routed_reordered(const RoutedInstance& instance, const std::vector<size_t>& order);

// Layers [start, end) of one host; start == end: the host is left out.
struct LayerRange {
  int start = 0;
  int end = 0;
  bool used() const { return end > start; }
  int size() const { return end - start; }
  bool operator==(const LayerRange&) const = default;
};
using RoutedLayout = std::vector<LayerRange>;  // one per host of the instance

// Tokens/s host `i` sustains holding `r` (its table entry, slowed by the LM head when it holds the
// last layer); 0 when the range is longer than its table or what memory allows at that position.
double range_capacity(const RoutedInstance& instance, size_t i, LayerRange r);

struct RoutedFlow {
  double total = 0;           // tokens/s from the first layer to the last
  std::vector<double> host;   // per host
  std::vector<double> entry;  // per host: tokens entering at layer 0
  // Per host i, (j, tokens/s passed from i to j) for every link the layout uses, by j: as many
  // entries as the layout's links, not a pair table (a fleet's layout uses few of its hosts).
  std::vector<std::vector<std::pair<size_t, double>>> out;
  double link(size_t i, size_t j) const;
};

// The maximum flow of a layout. With `cut_at` in [0, layers), every host reaching past that point
// exits as if it held the last layer: for a layout whose hosts starting after the cut are not yet
// placed, an upper bound on the flow of every layout that places them.
RoutedFlow routed_max_flow(const RoutedInstance& instance, const RoutedLayout& layout,
                           int cut_at = -1);
// Its total alone (the same figure), for searches that measure many layouts.
double routed_flow_total(const RoutedInstance& instance, const RoutedLayout& layout,
                         int cut_at = -1);

}  // namespace meshplan
