#include "solvers/problem/candidate_classes.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <tuple>

namespace meshplan {
namespace {

bool fixed(const PlanningProblem& p, size_t i) {
  if (p.head_host() && *p.head_host() == i) return true;
  return std::any_of(p.pins().begin(), p.pins().end(),
                     [&](const RangePin& pin) { return pin.host == i; });
}

// The links of every transport, read once per search for classes.
struct Structure {
  std::array<const LinkMatrix*, 5> matrices;
  std::array<const LinkMatrix::Partners*, 5> partners;
  explicit Structure(const PlanInputs& in) : matrices(in.matrices()) {
    for (size_t m = 0; m < matrices.size(); ++m)
      partners[m] = &matrices[m]->own_partners();
  }
  bool swappable(size_t i, size_t j) const {
    for (size_t m = 0; m < matrices.size(); ++m)
      if (!matrices[m]->swappable(i, j, *partners[m])) return false;
    return true;
  }
  // Hosts that may be interchangeable with `h` in one respect: where h has links of its own
  // (cables), a host on the same media must have the same ones (or be one of their ends), so it
  // is within two cables of h. mark_near(h) marks those hosts of the first transport where h has
  // any (a stamp per host, not a sorted list: a switch's partners are thousands); ruled_out then
  // reads the marks of the host marked last.
  void mark_near(size_t h) {
    near_matrix = SIZE_MAX;
    if (stamp.empty()) stamp.assign(matrices[0]->size(), 0);
    ++epoch;
    for (size_t m = 0; m < matrices.size() && near_matrix == SIZE_MAX; ++m) {
      if ((*partners[m])[h].empty()) continue;
      near_matrix = m;
      for (uint32_t k : (*partners[m])[h]) {
        stamp[k] = epoch;
        for (uint32_t q : (*partners[m])[k])
          stamp[q] = epoch;
      }
    }
  }
  // Whether the marks of host h rule out j without comparing links.
  bool ruled_out(size_t h, size_t j) const {
    return near_matrix != SIZE_MAX && matrices[near_matrix]->same_media(h, j) && stamp[j] != epoch;
  }
  size_t near_matrix = SIZE_MAX;  // none: no constraint
  std::vector<uint64_t> stamp;
  uint64_t epoch = 0;
};

bool interchangeable(const PlanningProblem& p, const Structure& s, size_t i, size_t j) {
  return !fixed(p, i) && !fixed(p, j) && same_figures(p.host(i), p.host(j)) && s.swappable(i, j);
}

}  // namespace

bool interchangeable(const PlanningProblem& p, size_t i, size_t j) {
  return interchangeable(p, Structure(p.inputs()), i, j);
}

bool same_figures(const HostFigures& a, const HostFigures& b) {
  HostFigures renamed = a;
  renamed.name = b.name;
  return renamed == b;
}

std::vector<int> candidate_classes(const PlanningProblem& problem,
                                   const std::vector<size_t>& among) {
  Structure s(problem.inputs());
  // Only hosts alike in these can be interchangeable: each is compared with the first host of
  // each class among those alike, not with every class.
  using Key = std::tuple<double, double, double, int, std::array<size_t, 5>>;
  auto key_of = [&](size_t h) {
    const HostFigures& f = problem.host(h);
    std::array<size_t, 5> own{};
    for (size_t m = 0; m < own.size(); ++m)
      own[m] = (*s.partners[m])[h].size();
    return Key{f.usable_bytes, f.bandwidth, f.flops, f.gpus, own};
  };
  std::map<Key, std::vector<size_t>> firsts;  // per key, the first member of each class
  std::vector<int> class_of(among.size(), -1);
  int classes = 0;
  for (size_t x = 0; x < among.size(); ++x) {
    const size_t h = among[x];
    std::vector<size_t>& alike = firsts[key_of(h)];
    if (!alike.empty()) s.mark_near(h);
    for (size_t f : alike)
      if (!s.ruled_out(h, among[f]) && interchangeable(problem, s, among[f], h)) {
        class_of[x] = class_of[f];
        break;
      }
    if (class_of[x] < 0) {
      class_of[x] = classes++;
      alike.push_back(x);
    }
  }
  return class_of;
}

std::vector<size_t> at_most_per_class(const PlanningProblem& problem, size_t cap) {
  std::vector<size_t> all(problem.size());
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  return at_most_per_class(problem, cap, all);
}

std::vector<size_t> at_most_per_class(const PlanningProblem& problem, size_t cap,
                                      const std::vector<size_t>& among) {
  const std::vector<int> class_of = candidate_classes(problem, among);
  std::vector<size_t> taken(among.size(), 0), kept;
  for (size_t x = 0; x < among.size(); ++x)
    if (taken[static_cast<size_t>(class_of[x])]++ < cap) kept.push_back(among[x]);
  return kept;
}

}  // namespace meshplan
