#include "solvers/serving/replica_splits.hpp"

#include <algorithm>
#include <queue>

namespace meshplan {
namespace {

std::vector<size_t> members_of(size_t mask, size_t n) {
  std::vector<size_t> members;
  for (size_t h = 0; h < n; ++h)
    if (mask >> h & 1) members.push_back(h);
  return members;
}

}  // namespace

// best[m][c][k] is the most that the hosts of `mask` serve in c groups (c = 2 meaning two or
// more) holding k units of the load. The lowest host of a mask either stays idle or joins one
// group, so every partition is reached once.
std::vector<std::vector<size_t>> best_partition(size_t n, size_t units,
                                                const GroupValues& value_of) {
  const size_t full = (size_t{1} << n) - 1, width = units + 1;
  std::vector<std::vector<double>> value(full + 1);
  for (size_t m = 1; m <= full; ++m)
    value[m] = value_of(members_of(m, n));
  constexpr double kNone = -1;
  // best[(m * 3 + c) * width + k]; how it was reached: the group holding m's lowest host (0: that
  // host stays idle), and the groups and units among the other hosts.
  std::vector<double> best((full + 1) * 3 * width, kNone);
  struct Step {
    size_t group = 0, units = 0;
    int groups = 0;
  };
  std::vector<Step> how((full + 1) * 3 * width);
  auto at = [&](size_t m, int c, size_t k) { return (m * 3 + static_cast<size_t>(c)) * width + k; };
  best[at(0, 0, 0)] = 0;
  for (size_t m = 1; m <= full; ++m) {
    const size_t low = m & (~m + 1), rest = m ^ low;
    for (int c = 0; c < 3; ++c)
      for (size_t k = 0; k < width; ++k) {
        best[at(m, c, k)] = best[at(rest, c, k)];
        how[at(m, c, k)] = {0, k, c};
      }
    for (size_t sub = rest;; sub = (sub - 1) & rest) {
      const size_t g = sub | low;
      const std::vector<double>& v = value[g];
      for (int c = 0; c < 3 && !v.empty(); ++c) {
        const int to = std::min(c + 1, 2);
        for (size_t used = 0; used < width; ++used) {
          const double before = best[at(m ^ g, c, used)];
          if (before < 0) continue;
          for (size_t u = units == 0 ? 0 : 1; used + u < width && u < v.size(); ++u) {
            if (v[u] < 0) continue;
            const double total = before + v[u];
            double& b = best[at(m, to, used + u)];
            if (total > b * (1 + 1e-12) + 1e-12) {
              b = total;
              how[at(m, to, used + u)] = {g, used, c};
            }
          }
        }
      }
      if (sub == 0) break;
    }
  }
  std::vector<std::vector<size_t>> out;
  if (best[at(full, 2, units)] < 0) return out;
  int c = 2;
  size_t k = units;
  for (size_t m = full; m;) {
    const Step s = how[at(m, c, k)];
    if (s.group == 0) {  // the lowest host idle
      m ^= m & (~m + 1);
      continue;
    }
    out.push_back(members_of(s.group, n));
    c = s.groups;
    k = s.units;
    m ^= s.group;
  }
  return out;
}

std::vector<std::vector<size_t>> balanced_groups(const std::vector<size_t>& by_memory,
                                                 const std::vector<double>& memory, size_t k) {
  std::vector<std::vector<size_t>> groups(k);
  using Least = std::pair<double, size_t>;  // memory, group
  std::priority_queue<Least, std::vector<Least>, std::greater<Least>> least;
  for (size_t g = 0; g < k; ++g)
    least.push({0.0, g});
  for (size_t h : by_memory) {
    const auto [held, g] = least.top();
    least.pop();
    groups[g].push_back(h);
    least.push({held + memory[h], g});
  }
  return groups;
}

std::vector<size_t> replica_sizes(size_t fewest, size_t hosts, size_t largest) {
  std::vector<size_t> sizes;
  const size_t most = std::min(hosts, largest);
  fewest = std::max<size_t>(fewest, 1);
  for (size_t s = fewest; s <= most && s <= 2 * fewest + 1; ++s)
    sizes.push_back(s);
  for (size_t s = 2 * (2 * fewest + 1); s <= most; s *= 2)
    sizes.push_back(s);
  return sizes;
}

std::vector<size_t> best_group_sizes(size_t hosts, const std::vector<size_t>& sizes,
                                     const std::vector<double>& values) {
  // best[h]: the most h hosts serve; last[h]: the size of the group that ends there (0: the last
  // host idle). Ties keep the fewer groups found first, so equal splits come out the same way.
  std::vector<double> best(hosts + 1, 0);
  std::vector<size_t> last(hosts + 1, 0);
  for (size_t h = 1; h <= hosts; ++h) {
    best[h] = best[h - 1];
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == 0 || sizes[i] > h || !(values[i] > 0)) continue;
      const double total = best[h - sizes[i]] + values[i];
      if (total > best[h] * (1 + 1e-12) + 1e-12) {
        best[h] = total;
        last[h] = sizes[i];
      }
    }
  }
  std::vector<size_t> out;
  for (size_t h = hosts; h > 0;) {
    if (last[h] == 0) {
      --h;
      continue;
    }
    out.push_back(last[h]);
    h -= last[h];
  }
  std::sort(out.rbegin(), out.rend());
  return out;
}

}  // namespace meshplan
