#include "solvers/routed/routed_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/routed/routed_regions.hpp"
#include "solvers/routed/routed_tables.hpp"

namespace meshplan {

StageSweep::StageSweep(const RoutedInstance& in, const std::vector<std::vector<size_t>>& groups,
                       int lanes)
    : in_(in), groups_(groups) {
  for (const std::vector<size_t>& g : groups) {
    tables_.push_back(bound_table(in.hosts[g.front()], in.layers));
    lanes_.emplace_back(in, g.front(), g.size(), lanes);
    inner_.push_back(g.size() > 1 && in.has_links() ? in.link_at(g[0], g[1])
                                                    : std::numeric_limits<double>::infinity());
    reach_ = std::max(reach_, lanes_.back().most() * static_cast<int>(tables_.back().size()));
  }
  region_.assign(groups.size(), 0);
  const std::vector<std::vector<size_t>> regions = routed_regions(in);
  regions_ = regions.size();
  for (size_t r = 0; r < regions.size(); ++r)
    for (size_t g = 0; g < groups.size(); ++g)
      if (std::binary_search(regions[r].begin(), regions[r].end(), groups[g].front()))
        region_[g] = r;
}

bool StageSweep::run_series(double F, RoutedLayout& layout, const std::vector<size_t>& order,
                            double width, double noise, std::mt19937_64* rng) {
  const size_t G = groups_.size();
  work_.assign(G, 0);
  used_.assign(G, 0);
  allowed_.assign(G, order.empty());
  std::vector<double> region_left(regions_, 0);
  double left = 0;  // layer work of the unused hosts at F, of the regions still to come
  for (size_t g = 0; g < G; ++g) {
    for (size_t k = 1; k <= tables_[g].size(); ++k)
      work_[g] = std::max(work_[g], static_cast<double>(k) * std::min(tables_[g][k - 1], F));
    const double w = static_cast<double>(groups_[g].size()) * work_[g];
    region_left[region_[g]] += w;
    if (order.empty() || std::find(order.begin(), order.end(), region_[g]) != order.end())
      left += w;
  }
  size_t at = 0;  // the region of `order` holding layers now
  auto allow = [&](size_t region) {
    for (size_t g = 0; g < G; ++g)
      allowed_[g] = region_[g] == region;
  };
  if (!order.empty()) allow(order[0]);
  layout.assign(in_.hosts.size(), {});
  prev_.clear();
  prev_flow_.clear();
  prev_changed();
  for (int p = 0; p < in_.layers;) {
    const int rest = in_.layers - p;
    set_inflow();
    const bool handing = !order.empty() && at + 1 < order.size();
    double hand_cap = std::numeric_limits<double>::infinity();
    if (handing) {
      const double link = region_link(order[at], order[at + 1]);
      // As many lanes on each side as the flow needs over links of `link` each (times `width`).
      const double receivers = link > 0 ? std::max(1.0, std::ceil(width * std::sqrt(F / link))) : 0;
      hand_cap = receivers * link;
    }
    Stage normal =
        best_stage(F, p, rest, left, std::numeric_limits<double>::infinity(), noise, rng);
    if (handing) {
      // A stage of this region's alone only while what it leaves can still hand over.
      const Stage hand = best_stage(F, p, rest, left, hand_cap, noise, rng);
      bool keep_going = normal.len > 0 && p + normal.len < in_.layers;
      if (keep_going) {
        // Tentatively take it and look for a hand-over after it.
        const std::vector<size_t> saved_used = used_, saved_prev = prev_;
        const std::vector<double> saved_flow = prev_flow_;
        RoutedLayout scratch = layout;
        lay(normal, p, scratch);
        set_inflow();
        const Stage after = best_stage(F, p + normal.len, rest - normal.len, left - normal.cost,
                                       hand_cap, 0, nullptr);
        used_ = saved_used;
        prev_ = saved_prev;
        prev_flow_ = saved_flow;
        prev_changed();
        keep_going = after.len > 0 && region_left[order[at]] - normal.cost >= after.cost;
      }
      if (!keep_going) {
        if (hand.len == 0) return false;
        lay(hand, p, layout);
        region_left[order[at]] -= hand.cost;
        left -= hand.cost;
        // What the region leaves unused is no longer layer work the layers after can use.
        left -= region_left[order[at]];
        p += hand.len;
        allow(order[++at]);
        continue;
      }
    }
    if (normal.len == 0) return false;
    lay(normal, p, layout);
    if (!order.empty()) region_left[order[at]] -= normal.cost;
    left -= normal.cost;
    p += normal.len;
  }
  return true;
}

// What the links from the stage before carry into each group's next host.
void StageSweep::set_inflow() {
  const size_t G = groups_.size();
  inflow_.assign(G, std::numeric_limits<double>::infinity());
  if (!prev_.empty() && in_.has_links())
    for (size_t g = 0; g < G; ++g) {
      if (used_[g] >= groups_[g].size()) continue;
      inflow_[g] = 0;
      for (size_t k = 0; k < prev_.size(); ++k)
        inflow_[g] += prev_link(k, g);
    }
}

// The slowest link from a host of region a to one of region b.
double StageSweep::region_link(size_t a, size_t b) const {
  double least = std::numeric_limits<double>::infinity();
  for (size_t g = 0; g < groups_.size(); ++g)
    for (size_t h = 0; h < groups_.size(); ++h)
      if (region_[g] == a && region_[h] == b)
        least = std::min(least, in_.link_at(groups_[g][0], groups_[h][0]));
  return std::isfinite(least) ? least : 0;
}

// The most efficient stage from p (layer work carried per layer work given up), each lane
// counted at most `most`; len 0 when none fits.
StageSweep::Stage StageSweep::best_stage(double F, int p, int rest, double left, double most,
                                         double noise, std::mt19937_64* rng) {
  Stage out;
  double best_eff = 0;
  for (int l = 1; l <= std::min(rest, reach_); ++l) {
    const double cost = cheapest_cover(F, p, l, most);
    // The stage must leave enough layer work for the layers after it.
    if (cost <= 0 || left - cost < (rest - l) * F * (1 - 1e-12)) continue;
    double eff = l * F / cost;
    if (noise > 0 && rng) eff *= 1 + noise * std::uniform_real_distribution<double>(0, 1)(*rng);
    if (eff > best_eff * (1 + 1e-12)) {
      best_eff = eff;
      out = {l, cost, take_};
    }
  }
  return out;
}

// Lays the stage's lanes from p, taking each group's next hosts; prev_ becomes the hosts that hold
// each lane's last piece.
void StageSweep::lay(const Stage& stage, int p, RoutedLayout& layout) {
  prev_.clear();
  prev_flow_.clear();
  for (const Lane& lane : stage.take) {
    const size_t g = lane.g;
    size_t last = 0;
    lanes_[g].lay(lane_position(p, stage.len, in_.layers), lane.q, p, stage.len,
                  [&](int start, int k) {
                    last = groups_[g][used_[g]++];
                    layout[last] = {start, start + k};
                  });
    prev_.push_back(last);
    prev_flow_.push_back(lane.flow);
  }
  prev_changed();
}

// The least layer work of unused hosts whose capacities for [p, p + l) sum to F: lanes (one
// host or a chain of a group's hosts) are added by capacity per work while one alone cannot
// close the gap; each step also tries closing it with the cheapest lane that can. 0 when no set
// reaches F. The lanes go to take_. A lane counts at most what its links from the previous
// stage's hosts carry, and at most `most` (hosts of a group are linked alike).
double StageSweep::cheapest_cover(double F, int p, int l, double most) {
  const size_t G = groups_.size();
  const LanePosition pos = lane_position(p, l, in_.layers);
  items_.clear();
  for (size_t g = 0; g < G; ++g) {
    if (!allowed_[g]) continue;
    const size_t free_hosts = groups_[g].size() - used_[g];
    const LaneTables& t = lanes_[g];
    for (int q = 1; q <= t.most() && static_cast<size_t>(q) <= free_hosts && q <= l; ++q) {
      double cap = std::min(t.capacity(pos, q, l), inflow_[g]);
      if (q > 1) cap = std::min(cap, inner_[g]);
      cap = std::min(cap, most);
      if (cap <= 0) continue;
      const double cost = std::max(q * work_[g], l * std::min(cap, F));
      items_.push_back({g, q, cap, cost, free_hosts - static_cast<size_t>(q)});
    }
  }
  cur_.assign(G, 0);
  take_.clear();
  chosen_.clear();
  if (carried_) supply_ = prev_flow_;
  double need = F, cost = 0, best = std::numeric_limits<double>::infinity();
  auto free = [&](const Item& it) { return cur_[it.g] <= it.room; };
  // What a lane can take in is also what the hosts before still hand on over their links: a host
  // of the stage before feeds the lanes after it with no more than it carries, in all.
  const bool limited = carried_ && !prev_.empty() && in_.has_links();
  std::vector<double>& reach = reach_now_;
  for (;;) {
    if (limited) reach.assign(G, -1);
    auto cap_of = [&](const Item& it) {
      if (!limited) return it.cap;
      if (reach[it.g] < 0) reach[it.g] = this->reach(it.g);
      return std::min(it.cap, reach[it.g]);
    };
    const Item* close = nullptr;
    const Item* add = nullptr;
    double add_cap = 0;
    for (const Item& it : items_) {
      if (!free(it)) continue;
      const double cap = cap_of(it);
      if (cap <= 0) continue;
      // On a tie (the same kind in two regions) the host the stage before reaches faster.
      if (cap >= need * (1 - 1e-12)) {
        if (!close || it.cost < close->cost ||
            (it.cost == close->cost && inflow_[it.g] > inflow_[close->g]))
          close = &it;
      } else if (!add || cap * add->cost > add_cap * it.cost ||
                 (cap * add->cost == add_cap * it.cost && inflow_[it.g] > inflow_[add->g])) {
        add = &it;
        add_cap = cap;
      }
    }
    if (close && cost + close->cost < best) {
      best = cost + close->cost;
      take_ = chosen_;
      take_.push_back({close->g, close->q, need});
    }
    if (!add || cost + add->cost >= best) break;
    if (limited) hand(add->g, add_cap);
    cur_[add->g] += static_cast<size_t>(add->q);
    chosen_.push_back({add->g, add->q, add_cap});
    need -= add_cap;
    cost += add->cost;
  }
  return std::isfinite(best) ? best : 0;
}

// What the hosts of the stage before can still hand to group g's next host: each at most its link
// to it and what it has left.
double StageSweep::reach(size_t g) {
  double sum = 0;
  for (size_t k = 0; k < prev_.size(); ++k)
    sum += std::min(prev_link(k, g), supply_[k]);
  return sum;
}

// Takes `amount` for group g's next host from the hosts before, those with the fastest links to it
// first.
void StageSweep::hand(size_t g, double amount) {
  std::vector<size_t>& order = prev_order_[g];
  if (order.empty()) {
    order.resize(prev_.size());
    for (size_t k = 0; k < prev_.size(); ++k)
      order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return prev_link(a, g) > prev_link(b, g); });
  }
  for (size_t k : order) {
    if (amount <= 0) break;
    const double take = std::min({amount, supply_[k], prev_link(k, g)});
    supply_[k] -= take;
    amount -= take;
  }
}

// The link from the k-th host of the stage before to group g's unused hosts (linked alike; a
// group's hosts are taken from the front, so its last is unused while any is), read once while the
// stage before stays the same: a fleet's links are looked up, not tabled.
double StageSweep::prev_link(size_t k, size_t g) {
  double& l = prev_link_[k * groups_.size() + g];
  if (std::isnan(l)) l = in_.link_at(prev_[k], groups_[g].back());
  return l;
}

void StageSweep::prev_changed() {
  prev_link_.assign(prev_.size() * groups_.size(), std::numeric_limits<double>::quiet_NaN());
  prev_order_.assign(groups_.size(), {});
}

}  // namespace meshplan
