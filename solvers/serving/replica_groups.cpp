#include "solvers/serving/replica_groups.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <queue>
#include <tuple>

#include "lib/core/error.hpp"
#include "lib/plan/engines.hpp"
#include "lib/plan/plan_rename.hpp"
#include "solvers/problem/batched_decode.hpp"
#include "solvers/serving/kind_replicas.hpp"
#include "solvers/serving/replica_kinds.hpp"
#include "solvers/serving/replica_splits.hpp"
#include "solvers/serving/serving_streams.hpp"
#include "solvers/strategy/strategy_planner.hpp"

namespace meshplan {

std::optional<Plan> plan_group(const Cluster& cluster, const Catalog& catalog,
                               const ModelDesc& model, const PlanRequest& request,
                               const std::vector<std::string>& hosts, const Clock& clock,
                               const TopologyContext* topology) {
  PlanRequest r = request;
  r.hosts = hosts;
  r.min_hosts = r.max_hosts = 0;
  r.pins.clear();
  // A group is planned for its own capacity within the targets; the load is shared out after.
  r.concurrency = 0;
  r.rate = 0;
  // Every replica runs the whole plan's engine: a group it does not run on is no replica.
  if (const Engine* e = find_engine(r.engine); e && !runs_on(*e, cluster, catalog, hosts))
    return std::nullopt;
  try {
    Plan p = topology ? plan_model(*topology, model, r, clock, serving_score(model, r))
                      : plan_model(cluster, catalog, model, r, clock, serving_score(model, r));
    apply_serving(p, model, r);
    return p;
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kFailed) throw;
    return std::nullopt;
  }
}

namespace {

// One group's copy as the load model sees it.
struct GroupLoad {
  std::unique_ptr<BatchedDecode> decode;
  CopyCurve curve;
  int most = 0;  // requests in flight within the targets
  GroupLoad(const Plan& p, const ModelDesc& model, const PlanRequest& request)
      : decode(std::make_unique<BatchedDecode>(p, model)),
        curve(copy_curve(p, *decode)),
        most(most_in_flight(curve, latency_targets(request), request.output_tokens_or_default())) {}
  double aggregate(int n) const { return decode->at(n).aggregate_tokens_per_s; }
};

// N requests in flight over the groups: one each, then each next one where it adds the most
// decode tokens/s (the best split when each group's tokens/s grow less with every request, as
// batched decode does); ties go to the first group. Empty when they do not fit within the
// targets.
std::vector<int> share_in_flight(const std::vector<const GroupLoad*>& groups, int total) {
  std::vector<int> n(groups.size(), 1);
  if (static_cast<size_t>(total) < groups.size()) return {};
  for (const GroupLoad* g : groups)
    if (g->most < 1) return {};
  // Each group's gain from one more request, largest first (then the lowest group).
  using Gain = std::pair<double, size_t>;
  auto after = [](const Gain& a, const Gain& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  };
  std::priority_queue<Gain, std::vector<Gain>, decltype(after)> gains(after);
  auto push = [&](size_t i) {
    if (n[i] + 1 > groups[i]->most) return;
    const double gain = groups[i]->aggregate(n[i] + 1) - groups[i]->aggregate(n[i]);
    if (gain > -1) gains.push({gain, i});
  };
  for (size_t i = 0; i < groups.size(); ++i)
    push(i);
  for (int left = total - static_cast<int>(groups.size()); left > 0; --left) {
    if (gains.empty()) return {};
    const size_t best = gains.top().second;
    gains.pop();
    ++n[best];
    push(best);
  }
  return n;
}

// The load each of `plans` (already planned, with serving figures) takes: the request's
// requests in flight or arrivals shared out, or each at its own best. `load_of(i)` gives plan i's
// load model. Nothing when the requests in flight do not fit.
template <typename LoadOf>
std::optional<std::vector<PlanRequest>> shared_loads(const std::vector<const Plan*>& plans,
                                                     const PlanRequest& request, LoadOf load_of) {
  std::vector<PlanRequest> loads(plans.size(), request);
  if (request.concurrency > 0) {
    std::vector<const GroupLoad*> groups;
    for (size_t i = 0; i < plans.size(); ++i)
      groups.push_back(&load_of(i));
    std::vector<int> n = share_in_flight(groups, request.concurrency);
    if (n.empty()) return std::nullopt;
    for (size_t i = 0; i < plans.size(); ++i)
      loads[i].concurrency = n[i];
  } else if (request.rate > 0) {
    // Arrivals shared by what each copy finishes at its most within the targets.
    double sum = 0;
    for (const Plan* p : plans)
      sum += p->serving->requests_per_s;
    for (size_t i = 0; i < plans.size(); ++i)
      loads[i].rate = request.rate * plans[i]->serving->requests_per_s / sum;
  } else {
    for (size_t i = 0; i < plans.size(); ++i)
      loads[i].concurrency = plans[i]->serving->requests_in_flight;
  }
  return loads;
}

}  // namespace

std::optional<ReplicaSet> replica_set(std::vector<Plan> plans, const ModelDesc& model,
                                      const PlanRequest& request,
                                      const std::vector<size_t>& alike) {
  auto kind_of = [&](size_t i) { return alike.empty() ? i : alike[i]; };
  std::vector<const Plan*> of;
  for (const Plan& p : plans)
    of.push_back(&p);
  // Plans alike get one load model and, at one load, one serving.
  std::map<size_t, GroupLoad> made;
  auto load_of = [&](size_t i) -> const GroupLoad& {
    return made.try_emplace(kind_of(i), plans[i], model, request).first->second;
  };
  std::optional<std::vector<PlanRequest>> loads = shared_loads(of, request, load_of);
  if (!loads) return std::nullopt;
  std::map<std::tuple<size_t, int, double>, ServingInfo> served;
  ReplicaSet set;
  double rate = 0;
  for (size_t i = 0; i < plans.size(); ++i) {
    const PlanRequest& r = (*loads)[i];
    auto it = served.find({kind_of(i), r.concurrency, r.rate});
    if (it != served.end()) {
      plans[i].serving = it->second;
    } else {
      try {
        apply_serving(plans[i], model, r);
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::kFailed) throw;
        return std::nullopt;
      }
      served.emplace(std::make_tuple(kind_of(i), r.concurrency, r.rate), *plans[i].serving);
    }
    set.aggregate_tokens_per_s += plans[i].serving->aggregate_tokens_per_s;
    rate += plans[i].serving->requests_per_s;
  }
  for (Plan& p : plans) {
    const ServingInfo& s = *p.serving;
    ReplicaInfo r;
    for (const auto& rank : p.ranks)
      r.hosts.push_back(rank.host);
    r.strategy = p.strategy;
    r.backend = p.backend;
    r.requests_in_flight = s.requests_in_flight;
    r.requests_per_s = s.requests_per_s;
    r.ttft_s = s.ttft_s;
    r.tpot_s = s.tpot_s;
    r.stream_tokens_per_s = s.stream_tokens_per_s;
    r.aggregate_tokens_per_s = s.aggregate_tokens_per_s;
    r.request_share = rate > 0 ? s.requests_per_s / rate : 0;
    r.ranks = p.ranks;
    set.replicas.push_back(std::move(r));
  }
  set.plans = std::move(plans);
  return set;
}

ServingInfo replicas_serving(const ReplicaSet& set) {
  ServingInfo s = *set.plans.front().serving;
  s.requests_in_flight = s.max_requests_in_flight = 0;
  s.requests_per_s = s.aggregate_tokens_per_s = s.output_tokens_per_s = s.ttft_s = s.tpot_s = 0;
  for (size_t i = 0; i < set.plans.size(); ++i) {
    const ServingInfo& r = *set.plans[i].serving;
    const double share = set.replicas[i].request_share;
    s.requests_in_flight += r.requests_in_flight;
    s.max_requests_in_flight += r.max_requests_in_flight;
    s.requests_per_s += r.requests_per_s;
    s.aggregate_tokens_per_s += r.aggregate_tokens_per_s;
    s.output_tokens_per_s += r.output_tokens_per_s;
    s.ttft_s += share * r.ttft_s;
    s.tpot_s += share * r.tpot_s;
    if (r.stream_tokens_per_s < s.stream_tokens_per_s) {  // a request may land on the slowest
      s.stream_tokens_per_s = r.stream_tokens_per_s;
      s.step_s = r.step_s;
    }
  }
  s.bound_aggregate_tokens_per_s =
      std::max(s.bound_aggregate_tokens_per_s, s.aggregate_tokens_per_s);
  return s;
}

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
  // Groups that plan alike (GroupKinds) get the same plan: each kind of group is planned once,
  // and the replicas chosen get it renamed to their own hosts.
  std::vector<std::string> names(n);
  for (size_t h = 0; h < n; ++h)
    names[h] = whole.hosts[h].name;
  const GroupKinds kinds(cluster, names);
  const TopologyContext topology(cluster, catalog);
  struct Planned {
    std::vector<size_t> members;  // the group planned, sorted
    std::optional<Plan> plan;
  };
  std::map<std::vector<int>, Planned> by_kinds;
  auto kinds_of = [&](std::vector<size_t> members) {
    std::sort(members.begin(), members.end());
    return kinds.key(members);
  };
  auto planned = [&](std::vector<size_t> members) -> const Planned& {
    std::sort(members.begin(), members.end());  // candidate (ring) order
    std::vector<int> key = kinds_of(members);
    auto it = by_kinds.find(key);
    if (it != by_kinds.end()) return it->second;
    std::vector<std::string> group;
    for (size_t m : members)
      group.push_back(names[m]);
    std::optional<Plan> p = plan_group(cluster, catalog, model, request, group, clock, &topology);
    return by_kinds.emplace(std::move(key), Planned{std::move(members), std::move(p)})
        .first->second;
  };
  auto group_plan = [&](const std::vector<size_t>& members) -> const std::optional<Plan>& {
    return planned(members).plan;
  };
  // The plan of the group itself: its kind's plan with the hosts renamed.
  auto own_plan = [&](std::vector<size_t> members) {
    const Planned& p = planned(members);
    std::sort(members.begin(), members.end());
    Plan plan = *p.plan;
    HostRenames to;
    for (size_t i = 0; i < members.size(); ++i)
      if (members[i] != p.members[i]) to[names[p.members[i]]] = names[members[i]];
    if (!to.empty()) rename_hosts(plan, to);
    return plan;
  };
  // Each split is compared as it is made, on its kinds' plans (names aside, the same figures):
  // each kind's load model and each kind's serving at a load are worked out once. The best
  // split's replicas are then named.
  std::map<const Planned*, GroupLoad> kind_loads;
  std::map<std::tuple<const Planned*, int, double>, std::optional<double>> kind_tokens;
  auto split_tokens = [&](const std::vector<std::vector<size_t>>& groups) -> std::optional<double> {
    std::vector<const Planned*> kinds;
    std::vector<const Plan*> plans;
    for (const auto& g : groups)
      if (const Planned& p = planned(g); p.plan) {
        kinds.push_back(&p);
        plans.push_back(&*p.plan);
      }
    if (plans.size() < 2) return std::nullopt;
    auto load_of = [&](size_t i) -> const GroupLoad& {
      return kind_loads.try_emplace(kinds[i], *plans[i], model, request).first->second;
    };
    std::optional<std::vector<PlanRequest>> loads = shared_loads(plans, request, load_of);
    if (!loads) return std::nullopt;
    double sum = 0;
    for (size_t i = 0; i < plans.size(); ++i) {
      const PlanRequest& r = (*loads)[i];
      auto [it, fresh] = kind_tokens.try_emplace({kinds[i], r.concurrency, r.rate});
      if (fresh) {
        Plan q = *plans[i];
        try {
          apply_serving(q, model, r);
          it->second = q.serving->aggregate_tokens_per_s;
        } catch (const Error& e) {
          if (e.kind() != ErrorKind::kFailed) throw;
        }
      }
      if (!it->second) return std::nullopt;
      sum += *it->second;
    }
    return sum;
  };
  // A group's tokens/s at its own best, for the splits of a fleet.
  const GroupServes serves = [&](const std::vector<size_t>& g) -> std::optional<double> {
    const std::optional<Plan>& p = group_plan(g);
    if (!p) return std::nullopt;
    return p->serving->aggregate_tokens_per_s;
  };
  KindSplitInputs fleet;
  std::optional<double> best;
  std::vector<std::vector<size_t>> chosen;
  auto consider = [&](const std::vector<std::vector<size_t>>& groups) {
    std::optional<double> tokens = split_tokens(groups);
    if (tokens && (!best || *tokens > *best * 1.000001)) {
      best = tokens;
      chosen = groups;
    }
  };
  // Small clusters: the best of every partition (it covers the splits tried for larger ones).
  if (n <= kExactReplicaHosts) {
    // The load in units: every request up to kLoadUnits of them, else kLoadUnits even parts
    // (the split found is then shared out request by request).
    const int total = request.concurrency;
    const size_t units = total > 0 ? static_cast<size_t>(std::min(total, kLoadUnits)) : 0;
    std::map<std::vector<int>, GroupLoad> loads;  // by the kinds of the group's hosts
    auto values = [&](const std::vector<size_t>& members) {
      const std::optional<Plan>& p = group_plan(members);
      if (!p) return std::vector<double>{};
      if (units == 0) return std::vector<double>{p->serving->aggregate_tokens_per_s};
      const GroupLoad& g = loads.try_emplace(kinds_of(members), *p, model, request).first->second;
      std::vector<double> v(units + 1, -1);
      for (size_t u = 1; u <= units; ++u) {
        const int k = std::max(1, static_cast<int>(std::lround(static_cast<double>(u) * total /
                                                               static_cast<double>(units))));
        if (k <= g.most) v[u] = g.aggregate(k);
      }
      return v;
    };
    consider(best_partition(n, units, values));
  } else {
    std::vector<double> memory(n);
    double total = 0, largest = 0, layers = 0;
    for (size_t h = 0; h < n; ++h) {
      memory[h] = whole.hosts[h].usable_bytes;
      total += memory[h];
      largest = std::max(largest, memory[h]);
    }
    for (const LayerInfo& l : model.layers)
      layers += static_cast<double>(l.weight_bytes);
    if (n <= kBalancedReplicaHosts) {
      // k groups balanced by memory. No group then holds more than the mean and the largest
      // host: once that is below the model's layers, no group of that k or more holds a replica.
      for (size_t k = 2; k <= n && total / static_cast<double>(k) + largest >= layers; ++k)
        consider(balanced_groups(by_memory, memory, k));
      // Every host that holds the model alone is a replica; the others form one more group.
      std::vector<std::vector<size_t>> groups;
      std::vector<size_t> rest;
      for (size_t h : by_memory) {
        if (group_plan({h}))
          groups.push_back({h});
        else
          rest.push_back(h);
      }
      if (!rest.empty()) groups.push_back(rest);
      consider(groups);
    }
    // Groups of one kind of machine each (kind_replicas.hpp).
    fleet.kinds = &kinds;
    fleet.memory = memory;
    fleet.weights = layers;
    fleet.most_in_group = model.layers.size();
    fleet.concurrency = request.concurrency;
    for (const auto& split : kind_splits(fleet, serves))
      consider(split);
  }
  if (!best) return std::nullopt;
  // The replicas named: each group's kind's plan renamed; alike groups share their serving.
  std::vector<Plan> plans;
  std::vector<size_t> alike;
  std::map<const Planned*, size_t> kind_numbers;
  for (const auto& g : chosen)
    if (group_plan(g)) {
      plans.push_back(own_plan(g));
      alike.push_back(kind_numbers.try_emplace(&planned(g), kind_numbers.size()).first->second);
    }
  std::optional<ReplicaSet> set = replica_set(std::move(plans), model, request, alike);
  if (set && n > kBalancedReplicaHosts) set->notes = kind_usage(fleet, serves, names, chosen);
  return set;
}

}  // namespace meshplan
