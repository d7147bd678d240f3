#include "solvers/routed/routed_stages.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace meshplan {
namespace {

// Whether swapping hosts a and b changes nothing: the same figures and the same links. A fleet's
// links are compared as the planner holds them (whole links, in time that grows with their own
// cables), a table pair by pair.
bool same_host(const RoutedInstance& in, size_t a, size_t b, const LinkMatrix::Partners& partners) {
  const RoutedHost &x = in.hosts[a], &y = in.hosts[b];
  if (x.table != y.table || x.head_s != y.head_s || x.max_with_first != y.max_with_first ||
      x.max_with_last != y.max_with_last || x.max_with_both != y.max_with_both)
    return false;
  if (!in.has_links()) return true;
  if (in.link.empty()) return in.links->swappable(a, b, partners);
  if (in.link[a][b] != in.link[b][a]) return false;
  for (size_t k = 0; k < in.hosts.size(); ++k) {
    if (k == a || k == b) continue;
    if (in.link[a][k] != in.link[b][k] || in.link[k][a] != in.link[k][b]) return false;
  }
  return true;
}

}  // namespace

std::vector<std::vector<size_t>> interchangeable_hosts(const RoutedInstance& in) {
  std::vector<std::vector<size_t>> groups;
  std::vector<bool> grouped(in.hosts.size(), false);
  const LinkMatrix::Partners partners =
      in.link.empty() && in.links ? in.links->own_partners() : LinkMatrix::Partners{};
  for (size_t i = 0; i < in.hosts.size(); ++i) {
    if (grouped[i]) continue;
    groups.emplace_back();
    for (size_t j = i; j < in.hosts.size(); ++j)
      if (!grouped[j] && same_host(in, i, j, partners)) {
        grouped[j] = true;
        groups.back().push_back(j);
      }
  }
  return groups;
}

GroupCounts::GroupCounts(const std::vector<std::vector<size_t>>& groups)
    : radix_(groups.size() + 1, 1) {
  for (size_t g = 0; g < groups.size(); ++g)
    radix_[g + 1] = radix_[g] * (groups[g].size() + 1);
}

double GroupCounts::how_many(const std::vector<std::vector<size_t>>& groups) {
  double n = 1;
  for (const std::vector<size_t>& g : groups)
    n *= static_cast<double>(g.size() + 1);
  return n;
}

Chains best_stage_layout(const RoutedInstance& in, const std::vector<std::vector<size_t>>& groups,
                         double max_work) {
  Chains out;
  out.layout.assign(in.hosts.size(), {});
  const int L = in.layers;
  const size_t G = groups.size();
  // The program visits (layers, hosts used) states and, from each, every stage length and
  // combination; its work is weighed before the counts are formed.
  const double states = GroupCounts::how_many(groups);
  const double work =
      states * states * static_cast<double>(L) * static_cast<double>(L) * static_cast<double>(G);
  if (L <= 0 || work > static_cast<double>(max_work)) return out;
  const GroupCounts counts(groups);
  const size_t used_states = counts.size();
  auto digit = [&](size_t code, size_t g) { return counts.digit(code, g); };

  struct Step {
    double value = -1;  // the slowest stage so far; -1: not reachable
    int prev_layer = -1, length = 0;
    size_t prev_used = 0, added = 0;  // `added`: hosts of each group in the last stage (code)
  };
  std::vector<Step> best(used_states * static_cast<size_t>(L + 1));
  auto at = [&](int l, size_t used) -> Step& {
    return best[static_cast<size_t>(l) * used_states + used];
  };
  at(0, 0).value = std::numeric_limits<double>::infinity();
  for (int l = 0; l < L; ++l)
    for (size_t used = 0; used < used_states; ++used) {
      const Step from = at(l, used);
      if (from.value < 0) continue;
      for (int len = 1; l + len <= L; ++len) {
        const LayerRange r{l, l + len};
        std::vector<double> cap(G);
        bool any = false;
        for (size_t g = 0; g < G; ++g) {
          cap[g] = range_capacity(in, groups[g].front(), r);
          any = any || (cap[g] > 0 && digit(used, g) < groups[g].size());
        }
        if (!any) continue;
        // Every combination of the groups' unused hosts with a capacity for this range.
        for (size_t add = 1; add < used_states; ++add) {
          double total = 0;
          bool fits = true;
          for (size_t g = 0; g < G && fits; ++g) {
            const size_t k = digit(add, g);
            if (k == 0) continue;
            fits = cap[g] > 0 && digit(used, g) + k <= groups[g].size();
            total += static_cast<double>(k) * cap[g];
          }
          if (!fits) continue;
          const double value = std::min(from.value, total);
          Step& to = at(l + len, used + add);
          if (value > to.value) to = {value, l, len, used, add};
        }
      }
    }
  size_t end = used_states;
  double value = 0;
  for (size_t used = 0; used < used_states; ++used)
    if (at(L, used).value > value) {
      value = at(L, used).value;
      end = used;
    }
  if (end == used_states) return out;
  std::vector<size_t> next(G, 0);  // next unplaced member per group
  for (int l = L; l > 0;) {
    const Step s = at(l, end);
    for (size_t g = 0; g < G; ++g)
      for (size_t k = 0; k < digit(s.added, g); ++k)
        out.layout[groups[g][next[g]++]] = {s.prev_layer, l};
    l = s.prev_layer;
    end = s.prev_used;
    ++out.chains;
  }
  out.tokens_per_s = routed_flow_total(in, out.layout);
  return out;
}

namespace {

struct KindStage {
  int hosts = 0, layers = 0;
};

// Per kind: with every stage at `F` tokens/s or more, the fewest hosts whose stages cover exactly
// s layers. A stage of l layers needs m hosts with m t(l) >= F, and more hosts in a stage only
// add capacity, so u hosts can cover s layers exactly when u >= fewest[s] (s > 0): a table over
// the layers, not over hosts and layers, for a kind of thousands of hosts.
struct KindReach {
  const std::vector<double>* table = nullptr;
  double F = 0;
  size_t hosts = 0;
  std::vector<size_t> fewest;  // SIZE_MAX: not within the kind's hosts

  bool reach(size_t u, int s) const {
    return s == 0 ? u == 0 : fewest[static_cast<size_t>(s)] <= u;
  }
  // The stage that last reaches (v hosts, t layers): of the states it may follow, the one with
  // the fewest hosts, then the fewest layers (the order in which a walk over every state meets
  // them first).
  KindStage last_stage(size_t v, int t) const {
    for (size_t u = 0; u < v; ++u)
      for (int s = 0; s < t; ++s) {
        const int l = t - s;
        if (static_cast<size_t>(l) > table->size() || !reach(u, s)) continue;
        if (static_cast<double>(v - u) * (*table)[static_cast<size_t>(l - 1)] >= F)
          return {static_cast<int>(v - u), l};
      }
    return {};
  }
};

// The stages one kind of host can form with every stage at `F` tokens/s or more.
KindReach plan_kind(const RoutedInstance& in, const std::vector<size_t>& group, int L, double F) {
  const std::vector<double>& t = in.hosts[group.front()].table;
  KindReach k{&t, F, group.size(), std::vector<size_t>(static_cast<size_t>(L + 1), SIZE_MAX)};
  k.fewest[0] = 0;
  // The fewest hosts for a stage of l layers: m t(l) >= F as the comparison reads it.
  std::vector<size_t> need(t.size() + 1, SIZE_MAX);
  for (size_t l = 1; l <= t.size(); ++l) {
    if (!(t[l - 1] > 0)) continue;
    const double ratio = std::ceil(F / t[l - 1]);
    if (!(ratio <= static_cast<double>(k.hosts))) continue;
    size_t m = std::max<size_t>(1, static_cast<size_t>(ratio));
    while (m > 1 && static_cast<double>(m - 1) * t[l - 1] >= F)
      --m;
    while (m <= k.hosts && static_cast<double>(m) * t[l - 1] < F)
      ++m;
    if (m <= k.hosts) need[l] = m;
  }
  for (int s = 1; s <= L; ++s)
    for (int l = 1; l <= s && static_cast<size_t>(l) <= t.size(); ++l) {
      const size_t before = k.fewest[static_cast<size_t>(s - l)];
      if (before == SIZE_MAX || need[static_cast<size_t>(l)] == SIZE_MAX) continue;
      const size_t u = before + need[static_cast<size_t>(l)];
      if (u <= k.hosts)
        k.fewest[static_cast<size_t>(s)] = std::min(k.fewest[static_cast<size_t>(s)], u);
    }
  return k;
}

// from[g][s] >= 0: kinds 0..g-1 cover exactly s layers, kind g-1 with from[g][s] of them.
std::vector<std::vector<int>> kind_layer_sums(const std::vector<KindReach>& kinds, int L) {
  const size_t G = kinds.size();
  std::vector<std::vector<int>> from(G + 1, std::vector<int>(static_cast<size_t>(L + 1), -1));
  from[0][0] = 0;
  for (size_t g = 0; g < G; ++g)
    for (int s = 0; s <= L; ++s) {
      if (from[g][static_cast<size_t>(s)] < 0) continue;
      for (int add = 0; s + add <= L; ++add) {
        const bool ok = add == 0 || kinds[g].fewest[static_cast<size_t>(add)] != SIZE_MAX;
        if (ok && from[g + 1][static_cast<size_t>(s + add)] < 0)
          from[g + 1][static_cast<size_t>(s + add)] = add;
      }
    }
  return from;
}

using KindStages = std::vector<std::pair<std::vector<size_t>, int>>;  // hosts, layers

// Walk back: each kind's layers, then its stages.
KindStages walk_back_stages(const std::vector<KindReach>& kinds,
                            const std::vector<std::vector<int>>& from,
                            const std::vector<std::vector<size_t>>& groups, int L) {
  KindStages stages;
  int s = L;
  for (size_t g = kinds.size(); g-- > 0;) {
    int add = from[g + 1][static_cast<size_t>(s)];
    s -= add;
    size_t u = add == 0 ? 0 : kinds[g].fewest[static_cast<size_t>(add)];
    size_t next = 0;
    while (add > 0) {
      KindStage st = kinds[g].last_stage(u, add);
      std::vector<size_t> hosts(groups[g].begin() + static_cast<long>(next),
                                groups[g].begin() + static_cast<long>(next + st.hosts));
      next += static_cast<size_t>(st.hosts);
      stages.push_back({hosts, st.layers});
      u -= static_cast<size_t>(st.hosts);
      add -= st.layers;
    }
  }
  return stages;
}

// Lays the stages end to end. The embedding and the LM head take room and time: first the stage
// that keeps the most capacity beside the embedding, last the one that keeps the most beside the
// head.
void lay_out_stages(const RoutedInstance& in, const KindStages& stages, int L,
                    RoutedLayout* layout) {
  auto capacity = [&](size_t k, LayerRange r) {
    double c = 0;
    for (size_t h : stages[k].first)
      c += range_capacity(in, h, r);
    return c;
  };
  const size_t count = stages.size();
  size_t first = 0, last = count - 1;
  for (size_t k = 0; k < count; ++k)
    if (capacity(k, {0, stages[k].second}) > capacity(first, {0, stages[first].second})) first = k;
  if (count > 1) {
    last = first == 0 ? 1 : 0;
    for (size_t k = 0; k < count; ++k)
      if (k != first &&
          capacity(k, {L - stages[k].second, L}) > capacity(last, {L - stages[last].second, L}))
        last = k;
  }
  std::vector<size_t> order{first};
  for (size_t k = 0; k < count; ++k)
    if (k != first && k != last) order.push_back(k);
  if (last != first) order.push_back(last);
  int at = 0;
  layout->assign(in.hosts.size(), {});
  for (size_t k : order) {
    for (size_t h : stages[k].first)
      (*layout)[h] = {at, at + stages[k].second};
    at += stages[k].second;
  }
}

// Whether the kinds' layer counts can sum to L with every stage at `F` tokens/s or more; fills the
// layout when they can.
bool attempt_kind_stages(const RoutedInstance& in, const std::vector<std::vector<size_t>>& groups,
                         double F, RoutedLayout* layout) {
  const int L = in.layers;
  std::vector<KindReach> kinds;
  for (size_t g = 0; g < groups.size(); ++g)
    kinds.push_back(plan_kind(in, groups[g], L, F));
  const std::vector<std::vector<int>> from = kind_layer_sums(kinds, L);
  if (from[groups.size()][static_cast<size_t>(L)] < 0) return false;
  if (!layout) return true;
  lay_out_stages(in, walk_back_stages(kinds, from, groups, L), L, layout);
  return true;
}

}  // namespace

Chains best_kind_stages(const RoutedInstance& in, const std::vector<std::vector<size_t>>& groups,
                        double low, double high) {
  const int L = in.layers;
  const size_t G = groups.size();
  Chains out;
  out.layout.assign(in.hosts.size(), {});
  if (L <= 0 || G == 0 || !(high > low)) return out;
  for (int it = 0; it < 40 && high - low > 1e-6 * high; ++it) {
    const double mid = (low + high) / 2;
    (attempt_kind_stages(in, groups, mid, nullptr) ? low : high) = mid;
  }
  RoutedLayout layout;
  if (!attempt_kind_stages(in, groups, low, &layout)) return out;
  out.layout = layout;
  out.tokens_per_s = routed_flow_total(in, layout);
  out.chains = 1;
  return out;
}

}  // namespace meshplan
