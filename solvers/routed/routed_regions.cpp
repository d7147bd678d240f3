#include "solvers/routed/routed_regions.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>

namespace meshplan {

namespace {

// The components of `count` items joined where `joined(a, b)`, each sorted, by least member. Each
// item reached is compared with the items not yet reached only: one region after `count` reads.
template <typename Joined>
std::vector<std::vector<size_t>> components(size_t count, Joined joined) {
  std::vector<std::vector<size_t>> out;
  std::vector<size_t> unseen(count);
  std::iota(unseen.begin(), unseen.end(), 0);
  while (!unseen.empty()) {
    out.emplace_back();
    std::vector<size_t> stack{unseen.front()};
    unseen.erase(unseen.begin());
    while (!stack.empty()) {
      const size_t i = stack.back();
      stack.pop_back();
      out.back().push_back(i);
      size_t kept = 0;
      for (size_t j : unseen)
        if (joined(i, j))
          stack.push_back(j);
        else
          unseen[kept++] = j;
      unseen.resize(kept);
    }
    std::sort(out.back().begin(), out.back().end());
  }
  return out;
}

// Hosts whose fastest figure is the same and that see the same links (LinkMatrix::swappable) reach
// the same hosts. A host without links of its own is compared with the first host of each class
// so far of its figure; one with cables, with the hosts within two cables of it only.
std::vector<size_t> link_classes(const LinkMatrix& links, const std::vector<double>& fastest,
                                 size_t& count) {
  const size_t n = fastest.size();
  const LinkMatrix::Partners& partners = links.own_partners();
  std::vector<size_t> class_of(n, SIZE_MAX), firsts;
  std::map<double, std::vector<size_t>> uncabled;  // by figure: classes without cables
  for (size_t i = 0; i < n; ++i) {
    auto alike = [&](size_t k) {
      return k < i && fastest[k] == fastest[i] && links.swappable(k, i, partners);
    };
    if (partners[i].empty()) {
      std::vector<size_t>& mine = uncabled[fastest[i]];
      for (size_t c : mine)
        if (alike(firsts[c])) {
          class_of[i] = c;
          break;
        }
      if (class_of[i] == SIZE_MAX) mine.push_back(firsts.size());
    } else {
      for (uint32_t k : partners[i]) {
        for (uint32_t m : partners[k])
          if (class_of[i] == SIZE_MAX && alike(m)) class_of[i] = class_of[m];
        if (class_of[i] == SIZE_MAX && alike(k)) class_of[i] = class_of[k];
      }
    }
    if (class_of[i] == SIZE_MAX) {
      class_of[i] = firsts.size();
      firsts.push_back(i);
    }
  }
  count = firsts.size();
  return class_of;
}

}  // namespace

std::vector<std::vector<size_t>> routed_regions(const RoutedInstance& in) {
  const size_t n = in.hosts.size();
  std::vector<double> fastest(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (double t : in.hosts[i].table)
      fastest[i] = std::max(fastest[i], t);
  auto fast = [&](size_t i, size_t j) {
    if (!in.has_links()) return true;
    const double need = std::max(fastest[i], fastest[j]);
    return in.link_at(i, j) >= need && in.link_at(j, i) >= need;
  };
  if (!in.link.empty() || !in.links) return components(n, fast);
  // A fleet's hosts fall into classes that reach alike (a switch's hosts, an island's): regions
  // are found between classes, where two regions of thousands of hosts would take millions of
  // link reads host by host. A class's hosts reach what its first host reaches, and each other
  // as its first two do.
  size_t count = 0;
  const std::vector<size_t> class_of = link_classes(*in.links, fastest, count);
  std::vector<std::vector<size_t>> members(count);
  for (size_t i = 0; i < n; ++i)
    members[class_of[i]].push_back(i);
  std::vector<std::vector<size_t>> regions;
  for (const std::vector<size_t>&joined :
       components(count, [&](size_t a, size_t b) { return fast(members[a][0], members[b][0]); })) {
    const std::vector<size_t>& first = members[joined[0]];
    if (joined.size() == 1 && first.size() > 1 && !fast(first[0], first[1])) {
      for (size_t h : first)
        regions.push_back({h});
      continue;
    }
    regions.emplace_back();
    for (size_t c : joined)
      regions.back().insert(regions.back().end(), members[c].begin(), members[c].end());
    std::sort(regions.back().begin(), regions.back().end());
  }
  std::sort(regions.begin(), regions.end(),
            [](const auto& a, const auto& b) { return a.front() < b.front(); });
  return regions;
}

}  // namespace meshplan
