#include "solvers/routed/routed_chain_reach.hpp"

namespace meshplan {

ChainReach::ChainReach(const RoutedInstance& in, const std::vector<bool>& allowed)
    : in_(in), allowed_(allowed), L_(in.layers), words_(static_cast<size_t>(in.layers) / 64 + 1) {
  const int L = L_;
  const size_t n = in.hosts.size();
  // Each host's capacity per role and length, read once: the bisection asks at every flow it
  // tries.
  caps_.assign(n, std::vector<double>(static_cast<size_t>(L + 1) * 5, 0));
  longest_.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!allowed[i]) continue;
    auto put = [&](Role r, int k, double c) {
      caps_[i][static_cast<size_t>(k) * 5 + static_cast<size_t>(r)] = c;
      if (c > 0) longest_[i] = k;
    };
    for (int k = 1; k <= L; ++k) {
      if (k == L) put(kBoth, k, range_capacity(in, i, {0, L}));
      if (k < L) put(kFirst, k, range_capacity(in, i, {0, k}));
      if (k < L) put(kLast, k, range_capacity(in, i, {L - k, L}));
      if (k < L - 1) put(kMiddle, k, range_capacity(in, i, {1, 1 + k}));
    }
  }
}

void ChainReach::or_shifted(Bits& to, const Bits& from, int k) const {
  const size_t q = static_cast<size_t>(k) / 64;
  const int r = k % 64;
  for (size_t w = words_; w-- > q;) {
    uint64_t v = from[w - q] << r;
    if (r && w > q) v |= from[w - q - 1] >> (64 - r);
    to[w] |= v;
  }
  // Nothing beyond L layers.
  const int top = L_ % 64;
  if (top < 63) to[words_ - 1] &= (uint64_t{2} << top) - 1;
}

bool ChainReach::feasible(double F) {
  F_ = F;
  const size_t n = in_.hosts.size();
  std::vector<Bits> reach(4, Bits(words_, 0));
  reach[0][0] = 1;
  before_.assign(n, {});
  for (size_t i = 0; i < n; ++i) {
    before_[i] = reach;
    if (!allowed_[i]) continue;
    std::vector<Bits> next = reach;
    if (usable(i, kBoth, L_) && test(reach[0], 0))
      next[3][static_cast<size_t>(L_) / 64] |= uint64_t{1} << (L_ % 64);
    for (int k = 1; k < L_ && k <= longest_[i]; ++k) {
      if (usable(i, kFirst, k)) {
        or_shifted(next[1], reach[0], k);
        or_shifted(next[3], reach[2], k);
      }
      if (usable(i, kLast, k)) {
        or_shifted(next[2], reach[0], k);
        or_shifted(next[3], reach[1], k);
      }
      if (k < L_ - 1 && usable(i, kMiddle, k))
        for (int m = 0; m < 4; ++m)
          or_shifted(next[static_cast<size_t>(m)], reach[static_cast<size_t>(m)], k);
    }
    reach = std::move(next);
  }
  return test(reach[3], L_);
}

ChainReach::Step ChainReach::how(size_t i, int s, int mask) const {
  const std::vector<Bits>& reach = before_[i];
  if (test(reach[static_cast<size_t>(mask)], s)) return {s, mask, 0, kSkip};
  // The first writer of a state-by-state program: states in order of (layers, mask), then the
  // roles in order.
  for (int from = 0; from < s; ++from)
    for (int m = 0; m < 4; ++m) {
      if (!test(reach[static_cast<size_t>(m)], from)) continue;
      const int k = s - from;
      if (k > longest_[i]) continue;
      if (m == 0 && from == 0 && k == L_ && mask == 3 && usable(i, kBoth, k))
        return {from, m, k, kBoth};
      if (!(m & 1) && k < L_ && mask == (m | 1) && usable(i, kFirst, k))
        return {from, m, k, kFirst};
      if (!(m & 2) && k < L_ && mask == (m | 2) && usable(i, kLast, k)) return {from, m, k, kLast};
      if (k < L_ - 1 && mask == m && usable(i, kMiddle, k)) return {from, m, k, kMiddle};
    }
  return {};
}

}  // namespace meshplan
