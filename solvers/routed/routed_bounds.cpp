#include "solvers/routed/routed_bounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "solvers/routed/routed_chain_reach.hpp"
#include "solvers/routed/routed_cuts.hpp"
#include "solvers/routed/routed_tables.hpp"

namespace meshplan {
namespace {

// The largest F in [0, hi] with sum of work(F) >= F * layers, by bisection (the left side over F
// only falls as F grows, so the feasible flows are an interval from 0).
double work_bound(const std::vector<LayerWork>& work, int layers, double hi) {
  auto fits = [&](double f) {
    double passes = 0;
    for (const LayerWork& w : work)
      passes += w.per_flow(f);
    return passes >= layers * (1 - 1e-12);
  };
  if (hi <= 0) return 0;
  if (fits(hi)) return hi;
  double lo = 0;
  for (int it = 0; it < 100 && hi - lo > 1e-12 * hi; ++it) {
    double mid = (lo + hi) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

// The LM head: every token leaves through a host that also spends head_s on it, time it cannot
// spend on layers. A host busy with k layers at t(k) does k t(k) layer passes a second; one
// whose exit flow is e loses a share e * head_s of that. So flow x layers + (the least such
// loss over exits summing to the flow) <= the sum of the hosts' best k t(k).
// Lowers `b` to that bound when it is below.
void tighten_by_head(const RoutedInstance& in, RoutedBound& b) {
  struct Exit {
    double cost, cap;
  };
  std::vector<Exit> exits;
  double work = 0;
  for (const RoutedHost& h : in.hosts) {
    double best = 0, cap = 0;
    for (size_t k = 1; k <= h.table.size() && static_cast<int>(k) <= in.layers; ++k) {
      const bool whole = static_cast<int>(k) == in.layers;
      if (whole && in.layers > h.max_with_both) continue;
      best = std::max(best, static_cast<double>(k) * h.table[k - 1]);
      if (whole || static_cast<int>(k) <= h.max_with_last)
        cap = std::max(cap, with_head(h, h.table[k - 1]));
    }
    work += best;
    exits.push_back({best * h.head_s, cap});
  }
  std::sort(exits.begin(), exits.end(), [](auto& a, auto& b) { return a.cost < b.cost; });
  auto fits = [&](double f) {
    double loss = 0, left = f;
    for (const Exit& e : exits) {
      const double take = std::min(left, e.cap);
      loss += take * e.cost;
      left -= take;
    }
    return left <= 1e-12 * f && f * in.layers + loss <= work * (1 + 1e-12);
  };
  double lo = 0, hi2 = b.tokens_per_s;
  if (!fits(hi2)) {
    for (int it = 0; it < 100 && hi2 - lo > 1e-12 * hi2; ++it) {
      const double mid = (lo + hi2) / 2;
      (fits(mid) ? lo : hi2) = mid;
    }
    b.tokens_per_s = lo;
    b.method =
        "every token passes each layer once and the LM head once: flow x layers + the head's "
        "time on the exit hosts, in layer passes, <= the sum over hosts of max_k k x t(k)";
  }
}

// An order of the middles (host, layers) along links from `first` to `last` (n: none), as
// indices into `middles`; any order when all pairs are linked or no order is found.
std::vector<size_t> order_middles(const RoutedInstance& in,
                                  const std::vector<std::pair<size_t, int>>& middles, size_t first,
                                  size_t last) {
  const size_t n = in.hosts.size();
  std::vector<size_t> order;
  std::vector<bool> taken(middles.size(), false);
  auto linked = [&](size_t a, size_t b) { return !in.has_links() || in.link_at(a, b) > 0; };
  int budget = 100000;
  std::function<bool(size_t)> chain = [&](size_t prev) {
    if (order.size() == middles.size()) return last == n || prev == last || linked(prev, last);
    if (--budget < 0) return false;
    for (size_t m = 0; m < middles.size(); ++m) {
      if (taken[m] || !linked(prev, middles[m].first)) continue;
      taken[m] = true;
      order.push_back(m);
      if (chain(middles[m].first)) return true;
      taken[m] = false;
      order.pop_back();
    }
    return false;
  };
  if (first != n && !chain(first)) {
    order.resize(middles.size());
    std::iota(order.begin(), order.end(), size_t{0});
  }
  return order;
}

}  // namespace

LayerWork::LayerWork(const std::vector<double>& table) {
  std::vector<std::pair<double, int>> e;
  for (size_t k = 0; k < table.size(); ++k)
    e.push_back({table[k], static_cast<int>(k + 1)});
  std::sort(e.begin(), e.end(), [](auto& a, auto& b) { return a.first > b.first; });
  prefix_k_.assign(e.size() + 1, 0);
  suffix_kt_.assign(e.size() + 1, 0);
  for (size_t i = 0; i < e.size(); ++i) {
    t_desc_.push_back(e[i].first);
    prefix_k_[i + 1] = std::max(prefix_k_[i], e[i].second);
  }
  for (size_t i = e.size(); i-- > 0;)
    suffix_kt_[i] = std::max(suffix_kt_[i + 1], e[i].second * e[i].first);
}

double LayerWork::per_flow(double flow) const {
  // Entries with t >= flow count k layers each; the others k * t / flow.
  size_t pos = static_cast<size_t>(
      std::upper_bound(t_desc_.begin(), t_desc_.end(), flow, std::greater<double>()) -
      t_desc_.begin());
  return std::max(static_cast<double>(prefix_k_[pos]), flow > 0 ? suffix_kt_[pos] / flow : 0.0);
}

RoutedBound routed_upper_bound(const RoutedInstance& given) {
  const RoutedInstance in = link_capped(given);
  std::vector<LayerWork> work;
  double hi = 0, entry = 0, exit = 0, compute = 0;
  for (const RoutedHost& h : in.hosts) {
    std::vector<double> t = bound_table(h, in.layers);
    work.emplace_back(t);
    double best_first = 0, best_last = 0, best_kt = 0;
    for (size_t k = 1; k <= t.size(); ++k) {
      hi = std::max(hi, t[k - 1]);
      best_kt = std::max(best_kt, k * t[k - 1]);
      if (static_cast<int>(k) == in.layers) {  // the whole model: already with head and memory
        best_first = std::max(best_first, t[k - 1]);
        best_last = std::max(best_last, t[k - 1]);
        continue;
      }
      if (static_cast<int>(k) <= h.max_with_first) best_first = std::max(best_first, t[k - 1]);
      if (static_cast<int>(k) <= h.max_with_last)
        best_last = std::max(best_last, with_head(h, t[k - 1]));
    }
    entry += best_first;
    exit += best_last;
    compute += best_kt;
  }
  hi = std::min(hi * static_cast<double>(in.hosts.size()), std::min(entry, exit));
  RoutedBound b;
  b.tokens_per_s = work_bound(work, in.layers, hi);
  b.method = fmt::format(
      "every token passes each of the {} layers once and no host carries more than the whole "
      "flow: flow x layers <= sum over hosts of max_k k x min(t(k), flow) (the compute bound, "
      "sum of max_k k x t(k) over the layers, is {:.1f})",
      in.layers, in.layers > 0 ? compute / in.layers : 0.0);
  tighten_by_head(in, b);
  if (const double cut = per_layer_cut_bound(in, b.tokens_per_s);
      cut < b.tokens_per_s * (1 - 1e-9)) {
    b.tokens_per_s = cut;
    b.method =
        "per-layer cuts: the hosts on each layer carry the whole flow, so with a cover rounded for "
        "m = 1..8 (sum over a layer's hosts of floor(m x min(t(k), flow) / flow) + 1 >= m + 1), "
        "mixed with the layer work (flow x layers <= sum of k x min(t(k), flow)), each host at its "
        "best k";
  }
  if (entry < b.tokens_per_s) {
    b.tokens_per_s = entry;
    b.method = "what the hosts able to hold the first layer can take in";
  }
  if (exit < b.tokens_per_s) {
    b.tokens_per_s = exit;
    b.method = "what the hosts able to hold the last layer with the LM head can give out";
  }
  return b;
}

void keep_if_better(Chains& best, const RoutedInstance& in, const RoutedLayout& layout) {
  const double f = routed_flow_total(in, layout);
  if (f > best.tokens_per_s) {
    best.tokens_per_s = f;
    best.layout = layout;
    best.chains = 1;
  }
}

namespace {

// best_pipeline, with each host's kind (routed_host_kinds), told that no chain of the hosts
// allowed has a slowest range faster than `most` (0: unknown); `slowest` is set to the chain's.
Chains best_pipeline_under(const RoutedInstance& in, const std::vector<size_t>& kinds,
                           const std::vector<bool>& allowed, double most, double& slowest) {
  const int L = in.layers;
  const size_t n = in.hosts.size();
  ChainReach reach(in, allowed, kinds);
  const std::vector<double> values = reach.capacities();
  Chains out;
  out.layout.assign(n, {});
  // The largest value that is feasible (feasibility only grows as F falls). Values above `most`
  // are not; `most` itself is the answer when feasible. The walk back reads the states of the
  // last program run, so that run must be at the answer.
  double last_run = -1;
  bool last_feasible = false;
  auto feasible = [&](double F) {
    last_run = F;
    return last_feasible = reach.feasible(F);
  };
  size_t lo = 0, hi = values.size();
  if (most > 0) {
    lo = static_cast<size_t>(
        std::lower_bound(values.begin(), values.end(), most, std::greater<double>()) -
        values.begin());
    if (lo < values.size() && values[lo] == most && feasible(most)) hi = lo;
  }
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (feasible(values[mid]))
      hi = mid;
    else
      lo = mid + 1;
  }
  if (lo == values.size()) return out;
  if (!(last_run == values[lo] && last_feasible) && !feasible(values[lo])) return out;
  slowest = values[lo];
  // Walk back through the choices: first host, the middles in host order, the last host.
  std::vector<std::pair<size_t, int>> middles;
  int s = L, mask = 3;
  for (size_t i = n; i-- > 0;) {
    const ChainReach::Step st = reach.how(i, s, mask);
    if (st.role == ChainReach::kBoth) out.layout[i] = {0, L};
    if (st.role == ChainReach::kFirst) out.layout[i] = {0, st.k};
    if (st.role == ChainReach::kLast) out.layout[i] = {L - st.k, L};
    if (st.role == ChainReach::kMiddle) middles.push_back({i, st.k});
    s = st.prev_s;
    mask = st.prev_mask;
  }
  std::reverse(middles.begin(), middles.end());
  size_t first = n, last = n;
  for (size_t i = 0; i < n; ++i) {
    if (out.layout[i].used() && out.layout[i].start == 0) first = i;
    if (out.layout[i].used() && out.layout[i].end == L) last = i;
  }
  int at = first != n ? out.layout[first].end : 0;
  for (size_t m : order_middles(in, middles, first, last)) {
    out.layout[middles[m].first] = {at, at + middles[m].second};
    at += middles[m].second;
  }
  out.tokens_per_s = routed_flow_total(in, out.layout);
  out.chains = out.tokens_per_s > 0 ? 1 : 0;
  return out;
}

}  // namespace

Chains best_pipeline(const RoutedInstance& in, const std::vector<bool>& allowed) {
  double slowest = 0;
  return best_pipeline_under(in, routed_host_kinds(in), allowed, 0, slowest);
}

Chains greedy_replicas(const RoutedInstance& in) {
  const size_t n = in.hosts.size();
  const std::vector<size_t> kinds = routed_host_kinds(in);
  // Each host's table, numbered: hosts compared by table for every chain of a fleet.
  std::vector<size_t> table_of(n);
  {
    std::map<std::vector<double>, size_t> tables;
    for (size_t i = 0; i < n; ++i)
      table_of[i] = tables.emplace(in.hosts[i].table, tables.size()).first->second;
  }
  // Replicas taken one by one, each the best pipeline of the hosts left; first either from all
  // hosts, or with every host that holds the whole model alone as its own copy, or with chains
  // of hosts of one kind (the same table).
  auto take = [&](int first) {
    const bool singles_first = first == 1, kinds_first = first == 2;
    std::vector<bool> allowed(n, true);
    Chains out;
    out.layout.assign(n, {});
    auto add = [&](const Chains& c) {
      for (size_t i = 0; i < n; ++i)
        if (c.layout[i].used()) {
          out.layout[i] = c.layout[i];
          allowed[i] = false;
        }
      ++out.chains;
    };
    // A host alone holds the model or not by its own figures: one try per kind.
    std::set<size_t> alone_fails;
    for (size_t i = 0; i < n && singles_first; ++i) {
      if (alone_fails.count(kinds[i])) continue;
      std::vector<bool> one(n, false);
      one[i] = true;
      double slowest = 0;
      Chains c = best_pipeline_under(in, kinds, one, 0, slowest);
      if (c.tokens_per_s > 0)
        add(c);
      else
        alone_fails.insert(kinds[i]);
    }
    // Chains taken one after another from hosts that only shrink: each one's slowest range is at
    // most the one before's, which bounds the next search.
    auto chains_of = [&](auto hosts, auto go_on) {
      double most = 0;
      while (go_on()) {
        double slowest = 0;
        Chains c = best_pipeline_under(in, kinds, hosts(), most, slowest);
        if (c.tokens_per_s <= 0) break;
        add(c);
        most = slowest;
      }
    };
    // Hosts with the same table in chains of their own, while host i is left.
    for (size_t i = 0; i < n && kinds_first; ++i)
      chains_of(
          [&] {
            std::vector<bool> same(n, false);
            for (size_t j = 0; j < n; ++j)
              same[j] = allowed[j] && table_of[j] == table_of[i];
            return same;
          },
          [&] { return allowed[i]; });
    chains_of([&] { return allowed; }, [] { return true; });
    out.tokens_per_s = routed_flow_total(in, out.layout);
    return out;
  };
  Chains best = take(0);
  for (int first : {1, 2}) {
    Chains c = take(first);
    if (c.tokens_per_s > best.tokens_per_s) best = c;
  }
  return best;
}

}  // namespace meshplan
