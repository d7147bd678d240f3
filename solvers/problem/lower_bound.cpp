#include "solvers/problem/lower_bound.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace meshplan {
namespace {

struct Item {
  double resident;  // bytes it occupies
  double load;      // bytes read or FLOPs per token
};

// Minimum of sum load_i * share / speed_j when items spread fractionally over hosts of the given
// speeds and capacities: densest load on the fastest hosts first. Items beyond the total
// capacity go to the fastest host (the plan would not fit anyway).
double greedy_fill(std::vector<Item> items,
                   std::vector<std::pair<double, double>> hosts /* speed, capacity */) {
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    // density load / resident, descending; zero-size items first
    return a.load * b.resident > b.load * a.resident;
  });
  std::stable_sort(hosts.begin(), hosts.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  if (hosts.empty()) return 0;
  double total = 0;
  size_t j = 0;
  double left = hosts[0].second;
  for (const Item& it : items) {
    double need = it.resident;
    if (need <= 0) {
      total += it.load / hosts[0].first;
      continue;
    }
    while (need > 0) {
      while (j < hosts.size() && left <= 0) {
        ++j;
        if (j < hosts.size()) left = hosts[j].second;
      }
      if (j >= hosts.size()) {
        total += it.load * (need / it.resident) / hosts[0].first;
        break;
      }
      double take = std::min(need, left);
      total += it.load * (take / it.resident) / hosts[j].first;
      need -= take;
      left -= take;
    }
  }
  return total;
}

// Sum of the k smallest finite values (infinity when fewer than k are finite).
double smallest_sum(std::vector<double> v, int k) {
  std::sort(v.begin(), v.end());
  double s = 0;
  for (int i = 0; i < k; ++i) {
    if (i >= static_cast<int>(v.size()) || !(v[static_cast<size_t>(i)] < kInfinity))
      return kInfinity;
    s += v[static_cast<size_t>(i)];
  }
  return s;
}

// The most memory host h can fill with whole contiguous layers (plus the head, when it holds it):
// no plan puts more on it, so it is a valid capacity for the relaxation, and a tighter one than
// the usable bytes when layers are coarse (a host smaller than every layer holds nothing).
double fillable_bytes(const PipelineCostModel& cost, size_t h) {
  const double R = cost.host(h).usable_bytes;
  const int L = cost.num_layers();
  double best = 0;
  for (int head = 0; head < 2; ++head) {
    if (head && cost.head_memory() > R) continue;
    if (head) best = std::max(best, cost.head_memory());
    int s = 0;
    for (int e = 1; e <= L; ++e) {
      while (s < e && cost.stage_memory(s, e, head != 0) > R)
        ++s;
      if (s < e) best = std::max(best, cost.stage_memory(s, e, head != 0));
    }
  }
  return std::min(best, R);
}

}  // namespace

PipelineBound pipeline_lower_bound(const PipelineCostModel& cost, int min_hosts) {
  PipelineBound b;
  const ModelDesc& model = cost.model();
  const int L = cost.num_layers();
  const size_t n = cost.num_hosts();
  std::vector<Item> bytes, flops;
  for (int l = 0; l < L; ++l) {
    const LayerInfo& layer = model.layers[static_cast<size_t>(l)];
    double kv = layer.kv_bytes(cost.context());
    double resident = static_cast<double>(layer.weight_bytes) + kv;
    bytes.push_back({resident, static_cast<double>(layer.read_bytes) + kv});
    flops.push_back({resident, layer.flops});
  }
  bytes.push_back({cost.head_memory(), static_cast<double>(model.head_read_bytes())});
  flops.push_back({cost.head_memory(), model.head_flops()});
  std::vector<std::pair<double, double>> by_bw, by_flops;
  double o_min = kInfinity, g_min = kInfinity;
  std::vector<double> capacities;
  std::map<double, double> fillable_of;  // by usable bytes: a fleet has a few sizes of host
  for (size_t i = 0; i < n; ++i) {
    const HostFigures& h = cost.host(i);
    auto [at, fresh] = fillable_of.try_emplace(h.usable_bytes, 0);
    if (fresh) at->second = fillable_bytes(cost, i);
    const double fillable = at->second;
    by_bw.emplace_back(h.bandwidth, fillable);
    by_flops.emplace_back(h.flops, fillable);
    o_min = std::min(o_min, h.overhead_s);
    g_min = std::min(g_min, layer_extra_s(h, model.hidden_size, 1));
    capacities.push_back(fillable);
  }
  b.bandwidth_s = greedy_fill(bytes, by_bw);
  b.compute_s = greedy_fill(flops, by_flops);

  // m*: the fewest hosts that can hold the model at this context.
  std::sort(capacities.rbegin(), capacities.rend());
  double need = cost.stage_memory(0, L, true), have = 0;
  int m = 0;
  while (m < static_cast<int>(n) && have < need)
    have += capacities[static_cast<size_t>(m++)];
  b.min_ranks = std::max({1, m, min_hosts});
  b.overhead_s = b.min_ranks * (n ? o_min : 0);
  if (b.min_ranks >= 2) {
    const std::vector<double> out = cost.least_hops(false), in = cost.least_hops(true);
    double h_out = smallest_sum(out, b.min_ranks), h_in = smallest_sum(in, b.min_ranks);
    b.hops_s = std::max(h_out, h_in);
    if (!(b.hops_s < kInfinity)) b.hops_s = 0;  // no ring of that size exists; nothing to bound
  }
  // Whichever host runs a layer adds its in-host all-reduces; none adds less than the cheapest.
  b.in_host_s = n ? L * g_min : 0;
  b.token_latency_s = std::max(b.bandwidth_s, b.compute_s) + b.overhead_s + b.hops_s + b.in_host_s;
  b.method =
      "memory-bandwidth / FLOP relaxation (fastest hosts first) + stage overheads and hops of the "
      "fewest hosts that hold the model";
  if (b.in_host_s > 0) b.method += " + the in-host all-reduces of multi-GPU hosts";
  return b;
}

double gap_percent(double plan_s, double bound_s) {
  if (!(bound_s > 0) || plan_s <= bound_s) return 0;
  return 100.0 * (plan_s - bound_s) / bound_s;
}

}  // namespace meshplan
