// One sweep over the layers at a target flow F (routed_greedy.hpp bisects on F and perturbs it):
// from the first layer, each next stage is the length and the lanes of unused hosts (one host
// holding the whole stage, or a chain of one group's hosts, routed_lanes.hpp) that carry F
// through the most layers for the layer work the hosts give up (max_k k x min(t(k), F)), so long
// as the hosts left can still cover the layers left at F. A lane counts at most what the links from
// the stage before carry into its first host, so a slow link is crossed only by a stage wide
// enough to carry F over it; a `carried` sweep also counts each host before at most what it
// carries, shared among the lanes it feeds, so the flows it reaches are flows its layouts carry.
// With regions in series, the hosts of one region hold layers until what it has left would no
// longer hand the tokens on, and its last stage is then wide enough for the next region's links.
#pragma once

#include <random>
#include <utility>
#include <vector>

#include "solvers/routed/routed_flow.hpp"
#include "solvers/routed/routed_lanes.hpp"

namespace meshplan {

// The most hosts of a lane the sweeps and the stage program try.
inline constexpr int kMostLaneHosts = 16;

class StageSweep {
 public:
  // `groups`: interchangeable hosts (routed_stages.hpp); `lanes`: the most hosts in a lane (1:
  // every host holds the whole range of its stage).
  StageSweep(const RoutedInstance& instance, const std::vector<std::vector<size_t>>& groups,
             int lanes);

  // With `carried`, the sweeps from now on let a lane take in no more than the hosts before it
  // still hand on, each at most what it carries in all (without, the default: each link counted
  // whole for every lane, which overrates what a stage passes across slow links).
  void set_carried(bool carried) { carried_ = carried; }

  // The regions (routed_regions.hpp), as `order` below numbers them.
  size_t regions() const { return regions_; }

  // Fills `layout` and returns true when the stages reach the last layer. With `noise` > 0 each
  // stage's measure is scaled by a factor in [1, 1 + noise) drawn from `rng`.
  bool run(double F, RoutedLayout& layout, double noise = 0, std::mt19937_64* rng = nullptr) {
    return run_series(F, layout, {}, 1, noise, rng);
  }

  // Regions in series: the hosts of region order[0] hold the first layers, then those of
  // order[1], and so on. Where one region hands the tokens to the next, both stages have about
  // `width` x sqrt(F / link) lanes, each counted at most that many links' worth. Empty `order`:
  // every host, as one region.
  bool run_series(double F, RoutedLayout& layout, const std::vector<size_t>& order, double width,
                  double noise = 0, std::mt19937_64* rng = nullptr);

 private:
  struct Lane {
    size_t g;     // its group
    int q;        // its hosts
    double flow;  // what it carries
  };
  struct Stage {
    int len = 0;
    double cost = 0;
    std::vector<Lane> take;
  };
  struct Item {
    size_t g;
    int q;
    double cap, cost;
    size_t room;  // the group's hosts this sweep has not used, less q: how many a cover may take
  };

  void set_inflow();
  double region_link(size_t a, size_t b) const;
  Stage best_stage(double F, int p, int rest, double left, double most, double noise,
                   std::mt19937_64* rng);
  void lay(const Stage& stage, int p, RoutedLayout& layout);
  double cheapest_cover(double F, int p, int l, double most);
  // For a carried sweep with a stage before.
  double reach(size_t g);
  void hand(size_t g, double amount);
  double prev_link(size_t k, size_t g);
  void prev_changed();  // after prev_ changes: its links are read again

  const RoutedInstance& in_;
  const std::vector<std::vector<size_t>>& groups_;
  std::vector<std::vector<double>> tables_;
  std::vector<LaneTables> lanes_;
  std::vector<double> inner_;   // per group: the link between two of its hosts
  int reach_ = 0;               // the longest lane
  std::vector<size_t> region_;  // per group
  size_t regions_ = 1;
  bool carried_ = false;
  // The state of one sweep.
  std::vector<double> work_;
  std::vector<size_t> used_, cur_;
  std::vector<bool> allowed_;      // groups a stage may take hosts from
  std::vector<size_t> prev_;       // the hosts of the stage before that hand tokens on
  std::vector<double> prev_flow_;  // what each of them carries
  std::vector<double> supply_;     // what each has left to hand on while a cover is built
  std::vector<double> inflow_;     // per group: what links from them carry into its next host
  std::vector<Item> items_;
  std::vector<Lane> chosen_, take_;
  std::vector<double> reach_now_;                // per group: reach(g) while a cover is built
  std::vector<double> prev_link_;                // per host before and group; NaN: not read yet
  std::vector<std::vector<size_t>> prev_order_;  // per group: hosts before, fastest link first
};

}  // namespace meshplan
