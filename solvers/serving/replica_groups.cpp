#include "solvers/serving/replica_groups.hpp"

#include "lib/plan/engines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>

#include "lib/core/error.hpp"
#include "solvers/serving/serving_streams.hpp"
#include "solvers/strategy/strategy_planner.hpp"

namespace meshplan {

std::optional<Plan> plan_group(const Cluster& cluster, const Catalog& catalog,
                               const ModelDesc& model, const PlanRequest& request,
                               const std::vector<std::string>& hosts, const Clock& clock) {
  PlanRequest r = request;
  r.hosts = hosts;
  r.min_hosts = r.max_hosts = 0;
  r.pins.clear();
  // Every replica runs the whole plan's engine: a group it does not run on is no replica.
  if (const Engine* e = find_engine(r.engine); e && !runs_on(*e, cluster, catalog, hosts))
    return std::nullopt;
  try {
    Plan p = plan_model(cluster, catalog, model, r, clock, serving_score(model, r));
    apply_serving(p, model, r);
    return p;
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kFailed) throw;
    return std::nullopt;
  }
}

ReplicaSet replica_set(std::vector<Plan> plans) {
  ReplicaSet set;
  for (const Plan& p : plans)
    set.aggregate_tokens_per_s += p.serving->aggregate_tokens_per_s;
  for (const Plan& p : plans) {
    ReplicaInfo r;
    for (const auto& rank : p.ranks)
      r.hosts.push_back(rank.host);
    r.strategy = p.strategy;
    r.backend = p.backend;
    r.concurrency = p.serving->concurrency;
    r.stream_tokens_per_s = p.serving->stream_tokens_per_s;
    r.aggregate_tokens_per_s = p.serving->aggregate_tokens_per_s;
    r.request_share =
        set.aggregate_tokens_per_s > 0 ? r.aggregate_tokens_per_s / set.aggregate_tokens_per_s : 0;
    r.ranks = p.ranks;
    set.replicas.push_back(std::move(r));
  }
  set.plans = std::move(plans);
  return set;
}

namespace {

std::vector<size_t> members_of(size_t mask, size_t n) {
  std::vector<size_t> members;
  for (size_t h = 0; h < n; ++h)
    if (mask >> h & 1) members.push_back(h);
  return members;
}

// The partition of hosts 0..n-1 into two or more groups (hosts may stay idle) with the largest
// sum of the groups' aggregate tokens/s, by a dynamic program over subsets: best[mask][c] is the
// most that the hosts of `mask` serve in c groups (c = 2 meaning two or more). The lowest host of
// a mask either stays idle or joins one group, so every partition is reached once.
template <typename GroupPlan>
std::vector<std::vector<size_t>> best_partition(size_t n, GroupPlan& group_plan) {
  const size_t full = (size_t{1} << n) - 1;
  std::vector<double> value(full + 1, -1);  // a group's aggregate; -1 when it cannot hold a copy
  for (size_t m = 1; m <= full; ++m)
    if (const auto& p = group_plan(members_of(m, n))) value[m] = p->serving->aggregate_tokens_per_s;
  constexpr double kNone = -1;
  std::vector<std::array<double, 3>> best(full + 1, {kNone, kNone, kNone});
  // How best[m][c] was reached: the group holding m's lowest host (0: that host stays idle) and
  // the count of groups among the other hosts.
  std::vector<std::array<size_t, 3>> group(full + 1, {0, 0, 0});
  std::vector<std::array<int, 3>> before(full + 1, {0, 1, 2});
  best[0][0] = 0;
  for (size_t m = 1; m <= full; ++m) {
    const size_t low = m & (~m + 1), rest = m ^ low;
    best[m] = best[rest];
    for (size_t sub = rest;; sub = (sub - 1) & rest) {
      const size_t g = sub | low;
      for (int c = 0; c < 3 && value[g] >= 0; ++c) {
        if (best[m ^ g][c] < 0) continue;
        const int to = std::min(c + 1, 2);
        const double v = best[m ^ g][c] + value[g];
        if (v > best[m][to] * (1 + 1e-12) + 1e-12) {
          best[m][to] = v;
          group[m][to] = g;
          before[m][to] = c;
        }
      }
      if (sub == 0) break;
    }
  }
  std::vector<std::vector<size_t>> out;
  if (best[full][2] < 0) return out;
  int c = 2;
  for (size_t m = full; m;) {
    const size_t g = group[m][c];
    if (g == 0) {  // the lowest host idle
      m ^= m & (~m + 1);
      continue;
    }
    out.push_back(members_of(g, n));
    c = before[m][c];
    m ^= g;
  }
  return out;
}

}  // namespace

std::optional<ReplicaSet> best_replicas(const Cluster& cluster, const Catalog& catalog,
                                        const ModelDesc& model, const PlanRequest& request,
                                        const Plan& whole, const Clock& clock) {
  const size_t n = whole.hosts.size();
  if (n < 2) return std::nullopt;
  // Candidates by usable memory, largest first.
  std::vector<size_t> by_memory(n);
  std::iota(by_memory.begin(), by_memory.end(), 0);
  std::stable_sort(by_memory.begin(), by_memory.end(), [&](size_t a, size_t b) {
    return whole.hosts[a].usable_bytes > whole.hosts[b].usable_bytes;
  });
  std::map<std::vector<size_t>, std::optional<Plan>> cache;
  auto group_plan = [&](std::vector<size_t> members) -> const std::optional<Plan>& {
    std::sort(members.begin(), members.end());  // candidate (ring) order
    auto it = cache.find(members);
    if (it != cache.end()) return it->second;
    std::vector<std::string> names;
    for (size_t m : members)
      names.push_back(whole.hosts[m].name);
    return cache.emplace(members, plan_group(cluster, catalog, model, request, names, clock))
        .first->second;
  };
  std::vector<std::vector<std::vector<size_t>>> splits;
  // Small clusters: the best of every partition (it covers the splits tried for larger ones).
  if (n <= kExactReplicaHosts) {
    splits.push_back(best_partition(n, group_plan));
  } else {
    // k groups balanced by memory: each host, largest first, joins the group with the least.
    for (size_t k = 2; k <= n; ++k) {
      std::vector<std::vector<size_t>> groups(k);
      std::vector<double> memory(k, 0);
      for (size_t h : by_memory) {
        size_t g =
            static_cast<size_t>(std::min_element(memory.begin(), memory.end()) - memory.begin());
        groups[g].push_back(h);
        memory[g] += whole.hosts[h].usable_bytes;
      }
      splits.push_back(groups);
    }
    // Every host that holds the model alone is a replica; the others form one more group.
    {
      std::vector<std::vector<size_t>> groups;
      std::vector<size_t> rest;
      for (size_t h : by_memory) {
        if (group_plan({h}))
          groups.push_back({h});
        else
          rest.push_back(h);
      }
      if (!rest.empty()) groups.push_back(rest);
      splits.push_back(groups);
    }
  }
  std::optional<ReplicaSet> best;
  for (const auto& groups : splits) {
    std::vector<Plan> plans;
    for (const auto& g : groups)
      if (const auto& p = group_plan(g)) plans.push_back(*p);
    if (plans.size() < 2) continue;
    ReplicaSet set = replica_set(std::move(plans));
    if (!best || set.aggregate_tokens_per_s > best->aggregate_tokens_per_s * 1.000001)
      best = std::move(set);
  }
  return best;
}

}  // namespace meshplan
