#include "solvers/routed/routed_chain_reach.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

namespace meshplan {

std::vector<size_t> routed_host_kinds(const RoutedInstance& in) {
  using Key = std::tuple<const std::vector<double>&, double, int, int, int>;
  std::map<Key, size_t> kinds;
  std::vector<size_t> out;
  for (const RoutedHost& h : in.hosts)
    out.push_back(
        kinds
            .emplace(Key{h.table, h.head_s, h.max_with_first, h.max_with_last, h.max_with_both},
                     kinds.size())
            .first->second);
  return out;
}

ChainReach::ChainReach(const RoutedInstance& in, const std::vector<bool>& allowed)
    : ChainReach(in, allowed, routed_host_kinds(in)) {}

ChainReach::ChainReach(const RoutedInstance& in, const std::vector<bool>& allowed,
                       const std::vector<size_t>& kinds)
    : L_(in.layers), words_(static_cast<size_t>(in.layers) / 64 + 1) {
  const int L = L_;
  const size_t n = in.hosts.size();
  // Each kind's capacity per role and length, read once: the bisection asks at every flow it
  // tries. Kinds renumbered in the order met, so that kinds no host considered has cost nothing.
  std::vector<size_t> renumbered;
  std::vector<int> kind_longest, kind_count;
  for (size_t i = 0; i < n; ++i) {
    if (!allowed[i]) continue;
    if (kinds[i] >= renumbered.size()) renumbered.resize(kinds[i] + 1, SIZE_MAX);
    size_t& kind = renumbered[kinds[i]];
    if (kind == SIZE_MAX) {
      kind = kind_count.size();
      kind_count.push_back(0);
      kind_longest.push_back(0);
      caps_.resize((kind + 1) * static_cast<size_t>(L + 1) * 5, 0);
      auto put = [&](Role r, int k, double c) {
        caps_[(kind * static_cast<size_t>(L + 1) + static_cast<size_t>(k)) * 5 +
              static_cast<size_t>(r)] = c;
        if (c > 0) kind_longest[kind] = k;
      };
      for (int k = 1; k <= L; ++k) {
        if (k == L) put(kBoth, k, range_capacity(in, i, {0, L}));
        if (k < L) put(kFirst, k, range_capacity(in, i, {0, k}));
        if (k < L) put(kLast, k, range_capacity(in, i, {L - k, L}));
        if (k < L - 1) put(kMiddle, k, range_capacity(in, i, {1, 1 + k}));
      }
    }
    if (++kind_count[kind] > L) continue;
    host_.push_back(i);
    kind_.push_back(kind);
    longest_.push_back(kind_longest[kind]);
  }
}

std::vector<double> ChainReach::capacities() const {
  std::vector<double> values;
  for (double c : caps_)
    if (c > 0) values.push_back(c);
  std::sort(values.begin(), values.end(), std::greater<double>());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

void ChainReach::or_shifted(uint64_t* to, const uint64_t* from, int k) const {
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
  const size_t slots = host_.size(), set = 4 * words_;
  std::vector<uint64_t> reach(set, 0), next(set, 0);
  auto at = [&](std::vector<uint64_t>& v, int mask) {
    return &v[static_cast<size_t>(mask) * words_];
  };
  reach[0] = 1;
  before_.resize(slots * set);
  for (size_t i = 0; i < slots; ++i) {
    std::copy(reach.begin(), reach.end(), before_.begin() + static_cast<long>(i * set));
    next = reach;
    if (usable(i, kBoth, L_) && test(at(reach, 0), 0))
      at(next, 3)[static_cast<size_t>(L_) / 64] |= uint64_t{1} << (L_ % 64);
    for (int k = 1; k < L_ && k <= longest_[i]; ++k) {
      if (usable(i, kFirst, k)) {
        or_shifted(at(next, 1), at(reach, 0), k);
        or_shifted(at(next, 3), at(reach, 2), k);
      }
      if (usable(i, kLast, k)) {
        or_shifted(at(next, 2), at(reach, 0), k);
        or_shifted(at(next, 3), at(reach, 1), k);
      }
      if (k < L_ - 1 && usable(i, kMiddle, k))
        for (int m = 0; m < 4; ++m)
          or_shifted(at(next, m), at(reach, m), k);
    }
    reach.swap(next);
    // The chain is found: hosts after this one only pass (L, both placed) on, which is the one
    // state the walk back asks of them.
    if (test(at(reach, 3), L_)) {
      reached_at_ = i;
      return true;
    }
  }
  reached_at_ = slots;
  return false;
}

ChainReach::Step ChainReach::how(size_t host, int s, int mask) const {
  // A host not considered passes every state on as it found it; so do the hosts after the chain
  // was found, for (L, both placed).
  const auto it = std::lower_bound(host_.begin(), host_.end(), host);
  const size_t i = static_cast<size_t>(it - host_.begin());
  if (it == host_.end() || *it != host || i > reached_at_ || test(before(i, mask), s))
    return {s, mask, 0, kSkip};
  // The first writer of a state-by-state program: states in order of (layers, mask), then the
  // roles in order.
  for (int from = 0; from < s; ++from)
    for (int m = 0; m < 4; ++m) {
      if (!test(before(i, m), from)) continue;
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
