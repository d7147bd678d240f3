// Lanes for routed stage layouts: q hosts of one group in a chain over l layers, each holding a
// piece, the lane carrying what its slowest piece does. A stage of lanes lets a chain of fast
// hosts run beside a wide one (eight hosts holding six layers each beside three holding sixteen),
// where a stage of whole ranges makes every host hold every layer of the stage.
#pragma once

#include <functional>
#include <vector>

#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

// Where a lane lies: in the middle (neither end), from the first layer, to the last, or all.
enum LanePosition { kLaneMiddle = 0, kLaneFirst = 1, kLaneLast = 2, kLaneAll = 3 };

LanePosition lane_position(int start, int length, int layers);

class LaneTables {
 public:
  LaneTables() = default;
  // For the hosts of one group (`host` one of them, `members` of them), lanes of up to `most`.
  LaneTables(const RoutedInstance& instance, size_t host, size_t members, int most);

  int most() const { return most_; }
  // The best slowest piece of q hosts over l layers at `pos` (0 when none fits).
  double capacity(LanePosition pos, int q, int l) const {
    return q <= most_ && l < static_cast<int>(cap_[pos][q].size()) ? cap_[pos][q][l] : 0;
  }
  // The pieces of that lane from `start`: calls put(start, length) for each, in layer order.
  void lay(LanePosition pos, int q, int start, int l,
           const std::function<void(int, int)>& put) const;

 private:
  std::vector<std::vector<double>> cap_[4];
  std::vector<std::vector<int>> first_[4];  // the first (kLaneLast: the last) piece's length
  int most_ = 0;
};

// The most h hosts of a group carry over l layers in the middle, cut into lanes: a knapsack over
// lane sizes. lanes(h, l) lists the sizes.
class GroupLanes {
 public:
  GroupLanes(const LaneTables& tables, int hosts, int layers);
  double capacity(int h, int l) const { return best_[h][l]; }
  std::vector<int> lanes(int h, int l) const;

 private:
  std::vector<std::vector<double>> best_;
  std::vector<std::vector<int>> pick_;
};

}  // namespace meshplan
