#include "solvers/serving/workload_planner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>

#include "lib/core/error.hpp"
#include "solvers/problem/planning_problem.hpp"
#include "solvers/serving/replica_groups.hpp"

namespace meshplan {
namespace {

constexpr double kEnumerateLimit = 4096;  // host-to-model assignments tried exhaustively

class Assigner {
 public:
  Assigner(const Cluster& cluster, const Catalog& catalog, const std::vector<WorkloadModel>& models,
           const PlanRequest& request, const Clock& clock)
      : cluster_(cluster), catalog_(catalog), models_(models), clock_(clock) {
    objective_ = request.objective.empty() ? "throughput" : request.objective;
    for (const WorkloadModel& m : models) {
      PlanRequest r = request;
      r.objective = objective_;
      r.context = m.entry.context;
      r.prompt = m.entry.prompt;
      r.output_tokens = m.entry.output;
      r.concurrency = m.entry.requests_in_flight;
      requests_.push_back(r);
    }
    PlanningProblem problem(cluster, catalog, *models.front().model, requests_.front());
    for (const HostFigures& h : problem.inputs().hosts) {
      names_.push_back(h.name);
      usable_.push_back(h.usable_bytes);
    }
    single_.assign(models.size(), std::vector<std::optional<Plan>>(names_.size()));
    for (size_t m = 0; m < models.size(); ++m)
      for (size_t h = 0; h < names_.size(); ++h)
        single_[m][h] =
            plan_group(cluster, catalog, *models[m].model, requests_[m], {names_[h]}, clock);
  }

  const std::string& objective() const { return objective_; }
  const PlanRequest& request(size_t m) const { return requests_[m]; }
  size_t hosts() const { return names_.size(); }
  size_t models() const { return models_.size(); }

  // The model's plans on its hosts: replicas of those that hold it alone, else one plan over all.
  std::vector<Plan> serve(size_t m, const std::vector<size_t>& group) {
    std::vector<Plan> plans;
    for (size_t h : group)
      if (single_[m][h]) plans.push_back(*single_[m][h]);
    if (!plans.empty() || group.empty()) return plans;
    auto key = std::make_pair(m, group);
    auto it = groups_.find(key);
    if (it == groups_.end()) {
      std::vector<std::string> names;
      for (size_t h : group)
        names.push_back(names_[h]);
      it = groups_
               .emplace(key, plan_group(cluster_, catalog_, *models_[m].model, requests_[m], names,
                                        clock_))
               .first;
    }
    if (it->second) plans.push_back(*it->second);
    return plans;
  }

  // Higher is better; nullopt when a model has no plan.
  std::optional<double> score(const std::vector<int>& owner) {
    double worst = kInfinityScore, sum = 0, latency = 0;
    for (size_t m = 0; m < models_.size(); ++m) {
      std::vector<Plan> plans = serve(m, members(owner, m));
      if (plans.empty()) return std::nullopt;
      double agg = 0, slowest = kInfinityScore;
      for (const Plan& p : plans) {
        agg += p.serving->aggregate_tokens_per_s;
        slowest = std::min(slowest, p.serving->stream_tokens_per_s);
      }
      const double share = models_[m].entry.share;
      worst = std::min(worst, agg / share);
      sum += agg;
      latency += share / slowest;
    }
    // Ties on the main figure go to the larger total.
    if (objective_ == "latency") return -latency + sum * 1e-12;
    return worst + sum * 1e-9;
  }

  std::vector<size_t> members(const std::vector<int>& owner, size_t m) const {
    std::vector<size_t> g;
    for (size_t h = 0; h < owner.size(); ++h)
      if (owner[h] == static_cast<int>(m)) g.push_back(h);
    return g;
  }

  bool fits_alone(size_t m, size_t h) const { return single_[m][h].has_value(); }
  double usable(size_t h) const { return usable_[h]; }
  const std::optional<Plan>& single(size_t m, size_t h) const { return single_[m][h]; }

  static constexpr double kInfinityScore = 1e300;

 private:
  const Cluster& cluster_;
  const Catalog& catalog_;
  const std::vector<WorkloadModel>& models_;
  const Clock& clock_;
  std::string objective_;
  std::vector<PlanRequest> requests_;
  std::vector<std::string> names_;
  std::vector<double> usable_;
  std::vector<std::vector<std::optional<Plan>>> single_;
  std::map<std::pair<size_t, std::vector<size_t>>, std::optional<Plan>> groups_;
};

// Every assignment of hosts to models (or to none), when there are few.
std::optional<std::vector<int>> enumerate(Assigner& a) {
  const size_t n = a.hosts(), M = a.models();
  std::vector<int> owner(n, -1), best_owner;
  double best = -Assigner::kInfinityScore;
  while (true) {
    if (auto s = a.score(owner); s && *s > best) {
      best = *s;
      best_owner = owner;
    }
    size_t i = 0;
    while (i < n && owner[i] == static_cast<int>(M) - 1)
      owner[i++] = -1;
    if (i == n) break;
    ++owner[i];
  }
  if (best_owner.empty()) return std::nullopt;
  return best_owner;
}

// Many hosts: each model first gets the fastest free host that holds it (or the largest free
// hosts until it fits), then each remaining host joins the model it helps most.
std::vector<int> greedy(Assigner& a, const std::vector<WorkloadModel>& models) {
  const size_t n = a.hosts(), M = a.models();
  std::vector<int> owner(n, -1);
  std::vector<size_t> order(M), by_memory(n);
  std::iota(order.begin(), order.end(), 0);
  std::iota(by_memory.begin(), by_memory.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return models[x].model->total_bytes() > models[y].model->total_bytes();
  });
  std::stable_sort(by_memory.begin(), by_memory.end(),
                   [&](size_t x, size_t y) { return a.usable(x) > a.usable(y); });
  for (size_t m : order) {
    int pick = -1;
    for (size_t h = 0; h < n; ++h) {
      if (owner[h] != -1 || !a.fits_alone(m, h)) continue;
      if (pick < 0 || a.single(m, h)->serving->aggregate_tokens_per_s >
                          a.single(m, static_cast<size_t>(pick))->serving->aggregate_tokens_per_s)
        pick = static_cast<int>(h);
    }
    if (pick >= 0) {
      owner[static_cast<size_t>(pick)] = static_cast<int>(m);
      continue;
    }
    for (size_t h : by_memory) {
      if (owner[h] != -1) continue;
      owner[h] = static_cast<int>(m);
      if (!a.serve(m, a.members(owner, m)).empty()) break;
    }
  }
  for (size_t h : by_memory) {
    if (owner[h] != -1) continue;
    std::optional<double> best = a.score(owner);
    int pick = -1;
    for (size_t m = 0; m < M; ++m) {
      owner[h] = static_cast<int>(m);
      auto s = a.score(owner);
      if (s && (!best || *s > *best)) {
        best = s;
        pick = static_cast<int>(m);
      }
    }
    owner[h] = pick;
  }
  return owner;
}

}  // namespace

WorkloadPlan plan_workload(const Cluster& cluster, const Catalog& catalog,
                           const std::vector<WorkloadModel>& models, const PlanRequest& request,
                           const Clock& clock) {
  if (models.empty()) throw internal_error("empty workload");
  Assigner a(cluster, catalog, models, request, clock);
  std::optional<std::vector<int>> owner;
  if (std::pow(static_cast<double>(a.models() + 1), static_cast<double>(a.hosts())) <=
      kEnumerateLimit)
    owner = enumerate(a);
  if (!owner) owner = greedy(a, models);

  WorkloadPlan out;
  out.objective = a.objective();
  std::vector<std::string> shared;  // hosts colocating two models
  for (size_t m = 0; m < models.size(); ++m) {
    std::vector<Plan> plans = a.serve(m, a.members(*owner, m));
    std::string colocated;
    if (plans.empty()) {
      // No host of its own: share a host whose memory holds both.
      for (size_t h = 0; h < a.hosts() && plans.empty(); ++h) {
        const auto& mine = a.single(m, h);
        if (!mine || (*owner)[h] < 0) continue;
        double taken = 0;
        for (const Plan& p : out.plans)
          for (const RankPlan& r : p.ranks)
            if (r.host == mine->ranks.front().host) taken += r.total_bytes;
        if (taken + mine->ranks.front().total_bytes <= mine->ranks.front().usable_bytes) {
          plans.push_back(*mine);
          colocated = mine->ranks.front().host;
        }
      }
      if (plans.empty())
        throw failure(
            "{}: no host is left for it and none has the memory to hold it beside "
            "the models placed already",
            models[m].model->name);
    }
    std::optional<ReplicaSet> shared_out = replica_set(plans, *models[m].model, a.request(m));
    if (!shared_out)
      throw failure("{}: its {} requests in flight do not fit on its hosts within the targets",
                    models[m].model->name, models[m].entry.requests_in_flight);
    ReplicaSet& set = *shared_out;
    Plan plan = set.plans.front();
    ServingInfo s = replicas_serving(set);
    if (!colocated.empty()) shared.push_back(colocated);
    plan.serving = s;
    if (set.replicas.size() > 1) plan.replicas = set.replicas;
    out.plans.push_back(std::move(plan));
    out.shares.push_back(models[m].entry.share);
  }
  // Models sharing a host take turns on its memory bandwidth: each gets half.
  for (Plan& p : out.plans) {
    for (const std::string& h : shared) {
      if (p.ranks.size() != 1 || p.ranks.front().host != h || !p.replicas.empty()) continue;
      p.serving->aggregate_tokens_per_s /= 2;
      p.serving->stream_tokens_per_s /= 2;
      p.notes.push_back(fmt::format(
          "colocated on {} with another model of the workload; they take turns on its memory "
          "bandwidth (figures halved)",
          h));
    }
  }
  return out;
}

}  // namespace meshplan
