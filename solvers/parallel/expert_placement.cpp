#include "solvers/parallel/expert_placement.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <queue>

#include "lib/core/error.hpp"

namespace meshplan {
namespace {

constexpr double kRelativeEps = 1e-12;
constexpr size_t kEveryBudget = 32;

// One placement being built: copies per expert, experts per rank, each rank's load and time.
struct State {
  const ExpertInstance* inst;
  size_t E, p;
  double K;
  std::vector<int> cap;
  std::vector<int> copies;
  std::vector<std::vector<int>> held;
  std::vector<char> holds;  // [host * E + expert]
  std::vector<double> cost;

  explicit State(const ExpertInstance& i)
      : inst(&i), E(i.load.size()), p(i.hosts.size()), K(i.experts_per_token) {
    for (const auto& h : i.hosts)
      cap.push_back(std::min<int>(h.capacity, static_cast<int>(E)));
  }
  double weight(int e) const {
    return inst->load[static_cast<size_t>(e)] / copies[static_cast<size_t>(e)];
  }
  double unit(size_t host) const { return K * inst->hosts[host].expert_s; }
  bool has(size_t host, int e) const { return holds[host * E + static_cast<size_t>(e)] != 0; }
  bool full(size_t host) const { return static_cast<int>(held[host].size()) >= cap[host]; }

  void reset() {
    held.assign(p, {});
    holds.assign(p * E, 0);
    cost.assign(p, 0);
    for (size_t i = 0; i < p; ++i)
      cost[i] = inst->hosts[i].base_s;
  }
  void put(size_t host, int e) {
    held[host].push_back(e);
    holds[host * E + static_cast<size_t>(e)] = 1;
  }
  void recompute() {
    std::fill(copies.begin(), copies.end(), 0);
    for (const auto& h : held)
      for (int e : h)
        ++copies[static_cast<size_t>(e)];
    for (size_t i = 0; i < p; ++i) {
      double load = 0;
      for (int e : held[i])
        load += weight(e);
      cost[i] = inst->hosts[i].base_s + unit(i) * load;
    }
  }
  double makespan() const { return *std::max_element(cost.begin(), cost.end()); }

  // EPLB's replicate_experts: each extra copy to the expert with the largest load per copy.
  void replicate(size_t extra, int max_copies) {
    copies.assign(E, 1);
    std::priority_queue<std::pair<double, int>> queue;
    for (size_t e = 0; e < E; ++e)
      queue.push({inst->load[e], -static_cast<int>(e)});
    while (extra > 0 && !queue.empty()) {
      auto [w, neg] = queue.top();
      queue.pop();
      const size_t e = static_cast<size_t>(-neg);
      if (copies[e] >= max_copies) continue;
      ++copies[e];
      --extra;
      queue.push({inst->load[e] / copies[e], neg});
    }
  }

  // Related-machines LPT with slot caps: heaviest copies first, each where it finishes earliest.
  void pack() {
    reset();
    std::vector<std::pair<double, int>> items;
    for (size_t e = 0; e < E; ++e)
      for (int c = 0; c < copies[e]; ++c)
        items.push_back({weight(static_cast<int>(e)), static_cast<int>(e)});
    std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    for (const auto& [w, e] : items) {
      size_t best = p;
      double best_cost = 0;
      for (size_t i = 0; i < p; ++i) {
        if (full(i) || has(i, e)) continue;
        const double c = cost[i] + unit(i) * w;
        if (best == p || c < best_cost) {
          best = i;
          best_cost = c;
        }
      }
      if (best == p) continue;  // no rank left for this copy: the expert gets one copy fewer
      put(best, e);
      cost[best] = best_cost;
    }
    recompute();
  }

  // Moves, swaps, extra copies and dropped copies that shorten the slowest rank, best first,
  // until none does.
  void improve() {
    enum Kind { kMove, kSwap, kAdd, kDrop };
    const size_t limit = 50 * (E + p);
    for (size_t iter = 0; iter < limit; ++iter) {
      const size_t b =
          static_cast<size_t>(std::max_element(cost.begin(), cost.end()) - cost.begin());
      const double top = cost[b];
      double best = top * (1 - kRelativeEps);
      size_t bi = 0, bj = p, bk = 0;  // expert index on b, other rank, expert index there
      Kind kind = kMove;
      auto consider = [&](double v, size_t x, size_t j, size_t y, Kind k) {
        if (v < best) {
          best = v;
          bi = x, bj = j, bk = y, kind = k;
        }
      };
      for (size_t x = 0; x < held[b].size(); ++x) {
        const int e = held[b][x];
        const size_t ue = static_cast<size_t>(e);
        const double we = weight(e);
        if (we <= 0) continue;
        if (copies[ue] >= 2) {
          // Drop b's copy: the other holders share its tokens.
          const double more = inst->load[ue] / (copies[ue] - 1) - we;
          double v = top - unit(b) * we;
          for (size_t h = 0; h < p; ++h)
            if (h != b && has(h, e)) v = std::max(v, cost[h] + unit(h) * more);
          consider(v, x, b, 0, kDrop);
        }
        const double shared = inst->load[ue] / (copies[ue] + 1);
        for (size_t j = 0; j < p; ++j) {
          if (j == b || has(j, e)) continue;
          if (!full(j)) {
            consider(std::max(top - unit(b) * we, cost[j] + unit(j) * we), x, j, 0, kMove);
            consider(std::max(top - unit(b) * (we - shared), cost[j] + unit(j) * shared), x, j, 0,
                     kAdd);
          }
          for (size_t y = 0; y < held[j].size(); ++y) {
            const int f = held[j][y];
            const double d = we - weight(f);
            if (d <= 0 || has(b, f)) continue;
            consider(std::max(top - unit(b) * d, cost[j] + unit(j) * d), x, j, y, kSwap);
          }
        }
      }
      if (bj == p) return;
      const int e = held[b][bi];
      if (kind == kAdd) {
        put(bj, e);
        recompute();
        continue;
      }
      if (kind == kDrop) {
        holds[b * E + static_cast<size_t>(e)] = 0;
        held[b].erase(held[b].begin() + static_cast<long>(bi));
        recompute();
        continue;
      }
      holds[b * E + static_cast<size_t>(e)] = 0;
      holds[bj * E + static_cast<size_t>(e)] = 1;
      double delta = weight(e);
      if (kind == kSwap) {
        const int f = held[bj][bk];
        holds[bj * E + static_cast<size_t>(f)] = 0;
        holds[b * E + static_cast<size_t>(f)] = 1;
        delta -= weight(f);
        held[b][bi] = f;
        held[bj][bk] = e;
      } else {
        held[b].erase(held[b].begin() + static_cast<long>(bi));
        held[bj].push_back(e);
      }
      cost[b] -= unit(b) * delta;
      cost[bj] += unit(bj) * delta;
    }
  }

  // Experts with one copy and the same load are interchangeable: give them out in id order so
  // that each rank's list reads as ranges.
  void canonicalise() {
    std::map<double, std::vector<int>> groups;
    for (size_t e = 0; e < E; ++e)
      if (copies[e] == 1) groups[inst->load[e]].push_back(static_cast<int>(e));
    std::vector<int> owner(E, -1);
    for (size_t i = 0; i < p; ++i)
      for (int e : held[i])
        if (copies[static_cast<size_t>(e)] == 1)
          owner[static_cast<size_t>(e)] = static_cast<int>(i);
    for (auto& [load, ids] : groups) {
      std::vector<int> hosts;
      for (int e : ids)
        hosts.push_back(owner[static_cast<size_t>(e)]);
      std::sort(hosts.begin(), hosts.end());
      for (size_t k = 0; k < ids.size(); ++k)
        owner[static_cast<size_t>(ids[k])] = hosts[k];
    }
    std::vector<std::vector<int>> next(p);
    for (size_t i = 0; i < p; ++i)
      for (int e : held[i])
        if (copies[static_cast<size_t>(e)] != 1) next[i].push_back(e);
    for (size_t e = 0; e < E; ++e)
      if (owner[e] >= 0) next[static_cast<size_t>(owner[e])].push_back(static_cast<int>(e));
    reset();
    for (size_t i = 0; i < p; ++i) {
      std::sort(next[i].begin(), next[i].end());
      for (int e : next[i])
        put(i, e);
    }
    recompute();
  }
};

}  // namespace

std::vector<double> rank_times(const ExpertInstance& inst,
                               const std::vector<std::vector<int>>& experts) {
  const size_t E = inst.load.size();
  std::vector<int> copies(E, 0);
  for (const auto& h : experts)
    for (int e : h) {
      if (e < 0 || static_cast<size_t>(e) >= E) throw internal_error("expert {} out of range", e);
      ++copies[static_cast<size_t>(e)];
    }
  std::vector<double> out;
  for (size_t i = 0; i < inst.hosts.size(); ++i) {
    double load = 0;
    for (int e : experts[i])
      load += inst.load[static_cast<size_t>(e)] / copies[static_cast<size_t>(e)];
    out.push_back(inst.hosts[i].base_s + inst.experts_per_token * inst.hosts[i].expert_s * load);
  }
  return out;
}

double placement_makespan(const ExpertInstance& inst,
                          const std::vector<std::vector<int>>& experts) {
  std::vector<double> t = rank_times(inst, experts);
  return t.empty() ? 0 : *std::max_element(t.begin(), t.end());
}

double expert_lower_bound(const ExpertInstance& inst) {
  std::vector<double> sorted = inst.load;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  std::vector<double> prefix(sorted.size() + 1, 0);
  for (size_t e = 0; e < sorted.size(); ++e)
    prefix[e + 1] = prefix[e] + sorted[e];
  double floor = 0;
  for (const auto& h : inst.hosts)
    floor = std::max(floor, h.base_s);
  return expert_lower_bound(inst.hosts, inst.experts_per_token, prefix, floor);
}

double expert_lower_bound(const std::vector<ExpertHost>& hosts, int experts_per_token,
                          const std::vector<double>& prefix, double floor) {
  const size_t p = hosts.size(), E = prefix.size() - 1;
  if (p == 0) return floor;
  const double K = experts_per_token;
  std::vector<double> most(p);  // the most load rank i can take: its capacity's heaviest experts
  for (size_t i = 0; i < p; ++i)
    most[i] = prefix[std::min<size_t>(E, static_cast<size_t>(std::max(0, hosts[i].capacity)))];
  // Load the ranks can absorb by time T (piecewise linear, increasing).
  auto absorbed = [&](double T) {
    double sum = 0;
    for (size_t i = 0; i < p; ++i) {
      const double rate = K * hosts[i].expert_s;
      const double room = T - hosts[i].base_s;
      sum += rate > 0 ? std::min(most[i], std::max(0.0, room) / rate) : most[i];
    }
    return sum;
  };
  const double total = prefix[E];
  double fluid = floor;
  if (absorbed(floor) < total * (1 - 1e-12)) {
    std::vector<double> points;
    for (size_t i = 0; i < p; ++i)
      points.push_back(hosts[i].base_s + K * hosts[i].expert_s * most[i]);
    std::sort(points.begin(), points.end());
    double lo = floor, lo_value = absorbed(floor);
    fluid = points.back();
    for (double hi : points) {
      if (hi <= lo) continue;
      const double hi_value = absorbed(hi);
      if (hi_value >= total) {
        fluid = lo + (hi - lo) * (total - lo_value) / (hi_value - lo_value);
        break;
      }
      lo = hi;
      lo_value = hi_value;
    }
  }
  // The heaviest expert: its copies sit on at most p ranks, one of which runs load/p of it.
  double heaviest = std::numeric_limits<double>::infinity();
  const double top = E ? prefix[1] : 0;
  for (size_t i = 0; i < p; ++i)
    heaviest = std::min(heaviest, hosts[i].base_s + K * hosts[i].expert_s * top / p);
  return std::max({floor, fluid, heaviest});
}

std::optional<ExpertPlacement> place_experts(const ExpertInstance& inst) {
  State s(inst);
  const size_t E = s.E, p = s.p;
  size_t slots = 0, eligible = 0;
  for (int c : s.cap) {
    slots += static_cast<size_t>(std::max(0, c));
    eligible += c > 0;
  }
  if (p == 0 || slots < E) return std::nullopt;
  const double bound = expert_lower_bound(inst);
  const size_t max_extra = std::min(slots - E, E * (eligible - 1));
  // Copy budgets: every one on small layers, doubling steps on large ones.
  std::vector<size_t> budgets = {0};
  if (max_extra <= kEveryBudget) {
    for (size_t k = 1; k <= max_extra; ++k)
      budgets.push_back(k);
  } else {
    for (size_t k = std::max<size_t>(1, E / 16); k < max_extra; k *= 2)
      budgets.push_back(k);
    budgets.push_back(max_extra);
  }

  ExpertPlacement best;
  bool have = false;
  for (size_t extra : budgets) {
    s.replicate(extra, static_cast<int>(eligible));
    s.pack();
    if (s.makespan() > bound * (1 + 1e-9)) s.improve();
    const double m = s.makespan();
    if (!have || m < best.makespan * (1 - 1e-9)) {
      s.canonicalise();
      best.experts = s.held;
      best.makespan = s.makespan();
      have = true;
    }
    if (best.makespan <= bound * (1 + 1e-9)) break;
  }
  best.makespan = placement_makespan(inst, best.experts);
  best.lower_bound = bound;
  return best;
}

}  // namespace meshplan
