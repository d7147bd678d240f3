// The best arrival at each layer from the earlier hosts of a long host sequence (range_dp.hpp with
// hosts skipped): a fleet's sequences run to a thousand hosts, and reading every earlier host's
// row for each host is O(m^2 L). A hop from a host that has no link of its own with the next one
// is the best medium both are on, so it is the same for every host on the same media: the rows
// are kept as running minima per kind of media membership (the few lowest per layer, so that the
// next host's own cable partners can be passed over), and the partners are read one by one.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "solvers/problem/search_space.hpp"

namespace meshplan {

class SequenceArrivals {
 public:
  // Empty when the sequence is too short to gain or a host has too many partners in it.
  static std::optional<SequenceArrivals> of(const SearchSpace& space,
                                            const std::vector<size_t>& sequence);

  // Row `j` of the program (its least time at each layer) is final: later hosts may come from it.
  void add(size_t j, const double* row);
  // For host j of the sequence, the best arrival at each layer l in [1, L) from an earlier host:
  // `G[l]` its time with the hop, `Gi[l]` that host's position (ties: the lower position), as the
  // program's own loop over the earlier rows finds them. `rows(i)`: row i of the program.
  template <typename Rows>
  void arrive(size_t j, Rows rows, std::vector<double>& G, std::vector<int>& Gi) const;

  static constexpr size_t kKept = 8;       // lowest entries per kind and layer
  static constexpr size_t kShortest = 96;  // shorter sequences read every earlier row

 private:
  struct Entry {
    double value;
    int at;
  };
  const SearchSpace* space_ = nullptr;
  const std::vector<size_t>* q_ = nullptr;
  int L_ = 0;
  std::vector<int> media_;                     // per position: its kind, -1 when cut
  std::vector<std::vector<size_t>> partners_;  // per position: positions of own-link partners
  std::vector<std::vector<Entry>> kept_;       // [kind * L + l]: lowest first, then position
};

template <typename Rows>
void SequenceArrivals::arrive(size_t j, Rows rows, std::vector<double>& G,
                              std::vector<int>& Gi) const {
  const size_t u = (*q_)[j];
  const std::vector<size_t>& mine = partners_[j];
  auto partner = [&](int at) {
    return std::find(mine.begin(), mine.end(), static_cast<size_t>(at)) != mine.end();
  };
  auto offer = [&](int l, double v, int at) {
    double& g = G[static_cast<size_t>(l)];
    int& gi = Gi[static_cast<size_t>(l)];
    if (v < g || (v == g && at < gi)) {
      g = v;
      gi = at;
    }
  };
  const size_t kinds = kept_.size() / static_cast<size_t>(L_);
  for (size_t k = 0; k < kinds; ++k) {
    double hop = kInfinity;
    bool hop_known = false;
    for (int l = 1; l < L_; ++l)
      for (const Entry& e : kept_[k * static_cast<size_t>(L_) + static_cast<size_t>(l)]) {
        if (partner(e.at)) continue;
        if (!hop_known) {  // the same from every host of the kind that is not a partner
          hop = space_->hop((*q_)[static_cast<size_t>(e.at)], u);
          hop_known = true;
        }
        if (hop < kInfinity) offer(l, e.value + hop, e.at);
        break;
      }
  }
  for (size_t i : mine) {
    if (i >= j) continue;
    const double hop = space_->hop((*q_)[i], u);
    if (!(hop < kInfinity)) continue;
    const double* D = rows(i);
    for (int l = 1; l < L_; ++l)
      offer(l, D[l] + hop, static_cast<int>(i));
  }
}

}  // namespace meshplan
