#include "solvers/routed/routed_lanes.hpp"

#include <algorithm>

namespace meshplan {

LanePosition lane_position(int start, int length, int layers) {
  const bool first = start == 0, last = start + length == layers;
  return first && last ? kLaneAll : first ? kLaneFirst : last ? kLaneLast : kLaneMiddle;
}

LaneTables::LaneTables(const RoutedInstance& in, size_t host, size_t members, int most) {
  const int L = in.layers;
  const int K = static_cast<int>(std::min<size_t>(in.hosts[host].table.size(), L));
  most_ = static_cast<int>(std::min<size_t>(members, static_cast<size_t>(std::max(most, 1))));
  auto piece = [&](int pos, int k) {
    if (pos == kLaneMiddle) return k <= K ? in.hosts[host].table[static_cast<size_t>(k - 1)] : 0.0;
    const int start = pos == kLaneLast ? L - k : 0;
    return range_capacity(in, host, {start, start + k});
  };
  for (int pos = 0; pos < 4; ++pos) {
    cap_[pos].assign(static_cast<size_t>(most_) + 1, std::vector<double>(L + 1, 0));
    first_[pos].assign(static_cast<size_t>(most_) + 1, std::vector<int>(L + 1, 0));
  }
  // A lane at one end differs from a middle one only in its end piece, taken first here (for
  // kLaneLast that is the piece that ends at the last layer).
  for (int k = 1; k <= K; ++k)
    for (int pos = 0; pos < 3; ++pos) {
      cap_[pos][1][k] = piece(pos, k);
      first_[pos][1][k] = k;
    }
  for (int q = 2; q <= most_; ++q)
    for (int l = q; l <= L; ++l)
      for (int pos = 0; pos < 3; ++pos) {
        double best = 0;
        int pick = 0;
        for (int k = 1; k <= K && k < l; ++k) {
          const double c = std::min(piece(pos, k), cap_[kLaneMiddle][q - 1][l - k]);
          if (c > best) best = c, pick = k;
        }
        cap_[pos][q][l] = best;
        first_[pos][q][l] = pick;
      }
  // Every layer: a first piece, then a lane to the last layer.
  if (K == L) cap_[kLaneAll][1][L] = piece(kLaneAll, L), first_[kLaneAll][1][L] = L;
  for (int q = 2; q <= most_; ++q) {
    double best = 0;
    int pick = 0;
    for (int k = 1; k <= K && k < L; ++k) {
      const double c = std::min(piece(kLaneFirst, k), cap_[kLaneLast][q - 1][L - k]);
      if (c > best) best = c, pick = k;
    }
    cap_[kLaneAll][q][L] = best;
    first_[kLaneAll][q][L] = pick;
  }
}

void LaneTables::lay(LanePosition pos, int q, int start, int l,
                     const std::function<void(int, int)>& put) const {
  if (q == 1) {
    put(start, l);
    return;
  }
  const int k = first_[pos][q][l];
  if (pos == kLaneLast) {
    lay(kLaneMiddle, q - 1, start, l - k, put);
    put(start + l - k, k);
    return;
  }
  put(start, k);
  lay(pos == kLaneAll ? kLaneLast : kLaneMiddle, q - 1, start + k, l - k, put);
}

GroupLanes::GroupLanes(const LaneTables& t, int hosts, int layers)
    : best_(static_cast<size_t>(hosts) + 1, std::vector<double>(layers + 1, 0)),
      pick_(static_cast<size_t>(hosts) + 1, std::vector<int>(layers + 1, 0)) {
  for (int l = 1; l <= layers; ++l)
    for (int h = 1; h <= hosts; ++h)
      for (int q = 1; q <= std::min(h, t.most()); ++q) {
        const double c = t.capacity(kLaneMiddle, q, l);
        if (c <= 0) continue;
        const double v = c + best_[h - q][l];
        if (v > best_[h][l]) best_[h][l] = v, pick_[h][l] = q;
      }
}

std::vector<int> GroupLanes::lanes(int h, int l) const {
  std::vector<int> out;
  while (h > 0 && pick_[h][l] > 0) {
    out.push_back(pick_[h][l]);
    h -= pick_[h][l];
  }
  return out;
}

}  // namespace meshplan
