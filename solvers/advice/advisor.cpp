#include "solvers/advice/advisor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <thread>

#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"
#include "lib/models/model_catalog.hpp"
#include "lib/models/model_loader.hpp"
#include "solvers/advice/advice_changes.hpp"
#include "solvers/serving/serving_planner.hpp"
#include "solvers/serving/workload_planner.hpp"
#include "solvers/strategy/strategy_planner.hpp"
#include "topologies/backend_rules.hpp"

namespace meshplan {
namespace {

// Below this relative gain a change counts as buying nothing (rounding of the cost model).
constexpr double kNoGain = 1e-3;
// A combination (or a larger purchase) is listed only when it is this much faster than its parts.
constexpr double kBetterThanParts = 1.01;

// A check finding as atoms (code, backend, host), so that one listing more or fewer hosts after a
// change still counts as the same finding on the hosts it keeps naming.
struct Findings {
  std::map<std::string, std::set<std::string>> atoms;  // message -> its atoms
  std::set<std::string> all;                           // every atom of the scenario
};

struct Evaluated {
  AdviceOutcome outcome;
  Findings findings;
  bool memory_binds = false;
  std::string engine;
};

// The check's errors and warnings, each once (a finding shared by backends counts once).
Findings findings_of(const Cluster& cluster, const Catalog& catalog) {
  Findings out;
  auto add = [&](const std::string& message, const std::string& code, const std::string& backend,
                 const std::vector<std::string>& hosts) {
    std::set<std::string>& atoms = out.atoms[message];
    for (const std::string& h : hosts.empty() ? std::vector<std::string>{""} : hosts) {
      std::string atom = code + "|" + backend + "|" + h;
      atoms.insert(atom);
      out.all.insert(atom);
    }
  };
  try {
    TopologyContext ctx(cluster, catalog);
    CheckReport report = check_cluster(ctx, CheckOptions{});
    auto issue = [&](const CheckIssue& i) {
      if (i.severity != Severity::kNote)
        add(i.backend.empty() ? i.message : i.backend + ": " + i.message, i.code, i.backend,
            i.hosts);
    };
    for (const CheckIssue& i : report.general)
      issue(i);
    for (const BackendVerdict& v : report.backends)
      for (const CheckIssue& i : v.issues)
        issue(i);
  } catch (const Error& e) {
    add(e.what(), "check-failed", "", {});
  }
  return out;
}

class Evaluator {
 public:
  Evaluator(const Catalog& catalog, const AdviseRequest& request, const FileSystem& fs,
            const Clock& clock)
      : catalog_(catalog), request_(request), fs_(fs), clock_(clock) {
    workload_models_.reserve(request.workload.size());
    for (const WorkloadEntry& e : request.workload) {
      try {
        workload_models_.push_back(load_model(e.model, e.quant, fs));
      } catch (const Error& err) {
        throw Error(err.kind(), fmt::format("{}: {}", e.where.describe(), err.what()));
      }
    }
  }

  bool workload() const { return !request_.workload.empty(); }
  std::string name() {
    if (!workload()) return model("").name;
    std::string out = fmt::format("a workload of {} models (", workload_models_.size());
    for (size_t i = 0; i < workload_models_.size(); ++i)
      out += (i ? ", " : "") + workload_models_[i].name;
    return out + ")";
  }

  // Loads (once) the model at a quantization; not thread-safe, so called before run().
  const ModelDesc& model(const std::string& quant) {
    auto it = models_.find(quant);
    if (it == models_.end())
      it = models_
               .emplace(quant,
                        load_model(request_.model, quant.empty() ? request_.quant : quant, fs_))
               .first;
    return it->second;
  }

  // Safe to call from several threads once model(s.quant) has been loaded.
  // Without `findings` the check is left for later (combinations: only those listed need it).
  Evaluated run(const Scenario& s, bool findings = true) const {
    ++plans;
    if (workload()) return run_workload(s, findings);
    Evaluated e;
    const ModelDesc& m = models_.at(s.quant);
    AdviceOutcome& o = e.outcome;
    o.quantization = m.quantization;
    o.context = s.request.context;
    try {
      Plan p = s.request.serving() ? plan_serving(s.cluster, catalog_, m, s.request, clock_)
                                   : plan_model(s.cluster, catalog_, m, s.request, clock_);
      o.feasible = true;
      o.decode_tokens_per_s = p.predicted.decode_tokens_per_s;
      o.token_latency_s = p.predicted.token_latency_s;
      o.ttft_s = p.predicted.ttft_s;
      if (p.serving) o.aggregate_tokens_per_s = p.serving->aggregate_tokens_per_s;
      o.score = objective() == "throughput" ? o.aggregate_tokens_per_s : o.decode_tokens_per_s;
      o.strategy = p.replicas.size() > 1 ? "replicas" : p.strategy;
      o.backend = p.backend;
      o.engine = p.engine;
      for (const RankPlan& r : p.ranks)
        o.hosts.push_back(r.host);
      for (const ReplicaInfo& r : p.replicas)
        if (p.ranks.empty()) o.hosts.insert(o.hosts.end(), r.hosts.begin(), r.hosts.end());
      e.engine = p.engine;
      for (const Alternative& a : p.alternatives)
        e.memory_binds = e.memory_binds || a.reason.find("memory") != std::string::npos;
      if (p.serving && p.serving->bound_by == "memory") e.memory_binds = true;
    } catch (const Error& err) {
      o.feasible = false;
      o.note = err.what();
      e.memory_binds = true;
    }
    if (findings) e.findings = findings_of(s.cluster, catalog_);
    return e;
  }

  // Several models (--workload): the workload planner's objective, the least aggregate tokens/s
  // per unit of share (throughput) or the share-weighted time per token, as tokens/s (latency).
  Evaluated run_workload(const Scenario& s, bool findings) const {
    Evaluated e;
    AdviceOutcome& o = e.outcome;
    o.strategy = "workload";
    try {
      std::vector<WorkloadModel> models;
      for (size_t i = 0; i < workload_models_.size(); ++i)
        models.push_back({&workload_models_[i], request_.workload[i]});
      WorkloadPlan w = plan_workload(s.cluster, catalog_, models, s.request, clock_);
      double least = std::numeric_limits<double>::infinity(), weighted = 0, shares = 0;
      for (size_t i = 0; i < w.plans.size(); ++i) {
        const Plan& p = w.plans[i];
        const double share = w.shares[i] > 0 ? w.shares[i] : 1e-12;
        const double aggregate =
            p.serving ? p.serving->aggregate_tokens_per_s : p.predicted.decode_tokens_per_s;
        least = std::min(least, aggregate / share);
        weighted += share * p.predicted.token_latency_s;
        shares += share;
        for (const RankPlan& r : p.ranks)
          if (std::find(o.hosts.begin(), o.hosts.end(), r.host) == o.hosts.end())
            o.hosts.push_back(r.host);
        if (o.engine.empty()) o.engine = p.engine;
      }
      o.feasible = !w.plans.empty();
      o.token_latency_s = shares > 0 ? weighted / shares : 0;
      o.decode_tokens_per_s = o.token_latency_s > 0 ? 1 / o.token_latency_s : 0;
      o.aggregate_tokens_per_s = std::isfinite(least) ? least : 0;
      o.score = objective() == "throughput" ? o.aggregate_tokens_per_s : o.decode_tokens_per_s;
    } catch (const Error& err) {
      o.feasible = false;
      o.note = err.what();
    }
    if (findings) e.findings = findings_of(s.cluster, catalog_);
    return e;
  }

  std::string objective() const {
    return request_.plan.objective == "throughput" ? "throughput" : "latency";
  }

  mutable std::atomic<int> plans{0};

 private:
  const Catalog& catalog_;
  const AdviseRequest& request_;
  const FileSystem& fs_;
  const Clock& clock_;
  std::map<std::string, ModelDesc> models_;
  std::vector<ModelDesc> workload_models_;
};

// Smaller quantizations the catalog (or, for a folder, MLX's usual ones) offers.
std::vector<std::string> smaller_quantizations(Evaluator& ev, const std::string& model) {
  const ModelDesc& now = ev.model("");
  std::vector<std::string> offered = {"8bit", "6bit", "4bit", "3bit"};
  for (const ModelEntry& e : ModelCatalog::builtin().entries())
    if (now.name.rfind(e.name + "-", 0) == 0 || model == e.name) offered = e.quantizations;
  std::vector<std::pair<uint64_t, std::string>> smaller;
  for (const std::string& q : offered) {
    try {
      uint64_t bytes = ev.model(q).total_bytes();
      if (bytes < now.total_bytes()) smaller.push_back({bytes, q});
    } catch (const Error&) {
      // a quantization this architecture cannot take: not offered
    }
  }
  std::sort(smaller.rbegin(), smaller.rend());
  std::vector<std::string> out;
  for (auto& [bytes, q] : smaller)
    out.push_back(q);
  return out;
}

struct Tried {
  std::vector<size_t> changes;  // indices into the candidates, ascending
  Scenario scenario;
  Evaluated result;
  double gain = 0;
};

bool disjoint(const std::vector<const Change*>& picked) {
  std::set<std::string> uses;
  for (const Change* c : picked)
    for (const std::string& u : c->uses)
      if (!uses.insert(u).second) return false;
  return true;
}

// Every k-subset of `pool` (indices), in lexicographic order.
void subsets(const std::vector<size_t>& pool, size_t k, size_t from, std::vector<size_t>& cur,
             std::vector<std::vector<size_t>>& out) {
  if (cur.size() == k) {
    out.push_back(cur);
    return;
  }
  for (size_t i = from; i < pool.size(); ++i) {
    cur.push_back(pool[i]);
    subsets(pool, k, i + 1, cur, out);
    cur.pop_back();
  }
}

double binomial(size_t n, size_t k) {
  double r = 1;
  for (size_t i = 0; i < k; ++i)
    r = r * static_cast<double>(n - i) / static_cast<double>(i + 1);
  return r;
}

AdviceRow row_of(const Tried& t, const std::vector<Change>& changes, const AdviceReport& report) {
  AdviceRow r;
  for (size_t i : t.changes) {
    r.kinds.push_back(changes[i].kind);
    r.changes.push_back(changes[i].label);
  }
  r.steps = t.scenario.steps;
  r.cables = t.scenario.cables;
  r.outcome = t.result.outcome;
  r.gain = t.gain;
  r.speedup = report.baseline.feasible && report.baseline.score > 0
                  ? r.outcome.score / report.baseline.score
                  : 0;
  return r;
}

// Plans every scenario, on as many threads as the request allows.
void evaluate_all(std::vector<Tried>& batch, Evaluator& ev, int jobs, bool findings) {
  if (!ev.workload())
    for (Tried& t : batch)
      ev.model(t.scenario.quant);
  parallel_for(batch.size(), jobs,
               [&](size_t i) { batch[i].result = ev.run(batch[i].scenario, findings); });
}

}  // namespace

AdviceReport advise(const Cluster& cluster, const Catalog& catalog, const AdviseRequest& request,
                    const FileSystem& fs, const Clock& clock) {
  const double began = clock.now_seconds();
  for (const std::string& key : request.buy)
    if (!catalog.find_machine(key))
      throw input_error("--buy {}: not a machine of the catalog{}; known: {}", key,
                        catalog.suggest_machine(key), catalog.machine_keys());
  if (request.max_changes < 1) throw input_error("--changes must be 1 or more");
  Evaluator ev(catalog, request, fs, clock);
  AdviceReport report;
  report.objective = ev.objective();
  report.max_changes = request.max_changes;
  report.model = ev.name();

  Scenario now{cluster, request.plan, "", {}, {}, ""};
  Evaluated base = ev.run(now);
  report.baseline = base.outcome;
  for (const auto& [message, atoms] : base.findings.atoms)
    report.findings.push_back(message);

  ChangeSources sources{cluster, catalog,     request.plan, request.model,
                        {},      request.buy, base.engine,  base.memory_binds};
  // A workload's models keep their quantization and context (the file sets them).
  if (ev.workload()) sources.memory_binds = false;
  if (sources.memory_binds) sources.quantizations = smaller_quantizations(ev, request.model);
  const std::vector<Change> changes = candidate_changes(sources);
  report.candidates = static_cast<int>(changes.size());

  auto gain_of = [&](const Evaluated& e) {
    if (!e.outcome.feasible) return 0.0;
    return e.outcome.score - (report.baseline.feasible ? report.baseline.score : 0.0);
  };
  auto counts = [&](double gain) {
    return gain > kNoGain * std::max(1.0, report.baseline.feasible ? report.baseline.score : 1.0);
  };
  // Baseline findings none of whose atoms remain, on hosts the scenario still has.
  auto resolved = [&](const Tried& t) {
    std::vector<std::string> out;
    for (const auto& [message, atoms] : base.findings.atoms) {
      bool gone = true, counted = false;
      for (const std::string& atom : atoms) {
        std::string host = atom.substr(atom.rfind('|') + 1);
        if (!host.empty() && !t.scenario.cluster.find_host(host)) continue;
        counted = true;
        gone = gone && !t.result.findings.all.count(atom);
      }
      if (counted && gone) out.push_back(message);
    }
    return out;
  };

  // GLPK (the ILP expert placement, routed serving's stage program) keeps global state: one
  // thread then.
  const int jobs =
      request.plan.solver == "ilp" || report.objective == "throughput"
          ? 1
          : std::max(1, request.jobs > 0 ? request.jobs
                                         : static_cast<int>(std::thread::hardware_concurrency()));

  // One change at a time.
  std::vector<Tried> tried;
  for (size_t i = 0; i < changes.size(); ++i) {
    Tried t;
    t.changes = {i};
    t.scenario = apply_changes(cluster, request.plan, {&changes[i]}, catalog);
    if (t.scenario.invalid.empty()) tried.push_back(std::move(t));
  }
  evaluate_all(tried, ev, jobs, true);
  std::map<std::vector<size_t>, double> gain_by_set;
  std::map<size_t, size_t> fixes_of;  // change -> findings it resolves alone
  std::vector<size_t> pool;           // changes that make nothing worse, for the combinations
  for (Tried& t : tried) {
    t.gain = gain_of(t.result);
    gain_by_set[t.changes] = t.gain;
    fixes_of[t.changes[0]] = resolved(t).size();
    // Changes that make nothing worse may add up (two cables that complete a mesh); while
    // nothing fits, every change may be half of what makes it fit.
    if (!report.baseline.feasible ||
        (t.result.outcome.feasible && t.gain >= -kNoGain * report.baseline.score))
      pool.push_back(t.changes[0]);
  }

  // Combinations of 2..max_changes, all of them while the budget lasts, else those of the
  // changes with the largest gains alone.
  std::vector<std::string> narrowed;
  int budget = request.plan_budget;
  // The most promising first: by gain alone, then by the findings each resolves alone (a cable
  // that is half of a mesh gains nothing alone but resolves a finding).
  std::sort(pool.begin(), pool.end(), [&](size_t a, size_t b) {
    const double ga = gain_by_set[{a}], gb = gain_by_set[{b}];
    if (ga != gb) return ga > gb;
    if (fixes_of[a] != fixes_of[b]) return fixes_of[a] > fixes_of[b];
    return a < b;
  });
  for (int m = 2; m <= request.max_changes && static_cast<size_t>(m) <= pool.size(); ++m) {
    size_t k = pool.size();
    while (k > static_cast<size_t>(m) && binomial(k, static_cast<size_t>(m)) > budget)
      --k;
    if (binomial(k, static_cast<size_t>(m)) > budget) {
      report.exact = false;
      narrowed.push_back(
          fmt::format("{} changes and more: none (the --budget of plans is spent)", m));
      break;
    }
    if (k < pool.size()) {
      report.exact = false;
      narrowed.push_back(fmt::format(
          "{} changes: those of the {} best of {} alone ({:.0f} of "
          "{:.0f} combinations untried)",
          m, k, pool.size(),
          binomial(pool.size(), static_cast<size_t>(m)) - binomial(k, static_cast<size_t>(m)),
          binomial(pool.size(), static_cast<size_t>(m))));
    }
    std::vector<size_t> top(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(k));
    std::sort(top.begin(), top.end());
    std::vector<std::vector<size_t>> sets;
    std::vector<size_t> cur;
    subsets(top, static_cast<size_t>(m), 0, cur, sets);
    std::vector<Tried> batch;
    for (const auto& set : sets) {
      std::vector<const Change*> picked;
      for (size_t i : set)
        picked.push_back(&changes[i]);
      if (!disjoint(picked)) continue;
      Tried t;
      t.changes = set;
      t.scenario = apply_changes(cluster, request.plan, picked, catalog);
      if (t.scenario.invalid.empty()) batch.push_back(std::move(t));
    }
    budget -= static_cast<int>(batch.size());
    evaluate_all(batch, ev, jobs, false);
    for (Tried& t : batch) {
      t.gain = gain_of(t.result);
      gain_by_set[t.changes] = t.gain;
      tried.push_back(std::move(t));
    }
  }

  // Rows: a combination only when it beats every smaller set of its changes.
  std::map<std::string, double> group_best;
  for (Tried& t : tried) {
    const bool single = t.changes.size() == 1;
    if (!counts(t.gain)) {
      if (!single) continue;
      std::vector<std::string> fixed = resolved(t);
      // Only what one does to the hosts as they are: buying, leaving out or another model
      // changes more than the finding.
      const std::string& kind = changes[t.changes[0]].kind;
      const bool fix_kind = kind != "buy" && kind != "remove-host" && kind != "quantization" &&
                            kind != "context" && kind != "engine";
      if (fixed.empty() || !fix_kind || t.result.outcome.feasible != report.baseline.feasible) {
        ++report.no_gain;
        continue;
      }
      AdviceRow r = row_of(t, changes, report);
      r.resolves = fixed;
      report.fixes.push_back(std::move(r));
      continue;
    }
    {
      // Sizes of one purchase come smallest first: a larger one only when it is faster.
      std::string key;
      for (size_t i : t.changes)
        key += (changes[i].group.empty() ? changes[i].label : "buy " + changes[i].group) + "\n";
      double& best = group_best[key];
      if (t.result.outcome.score <= best * kBetterThanParts) continue;
      best = t.result.outcome.score;
    }
    bool beats_parts = true;
    for (size_t drop = 0; drop < t.changes.size() && !single; ++drop) {
      std::vector<size_t> part = t.changes;
      part.erase(part.begin() + static_cast<std::ptrdiff_t>(drop));
      auto it = gain_by_set.find(part);
      if (it != gain_by_set.end() &&
          t.result.outcome.score <=
              (report.baseline.score * report.baseline.feasible + it->second) * kBetterThanParts)
        beats_parts = false;
    }
    if (!beats_parts) continue;
    AdviceRow r = row_of(t, changes, report);
    if (!single) t.result.findings = findings_of(t.scenario.cluster, catalog);
    r.resolves = resolved(t);
    report.gains.push_back(std::move(r));
  }
  std::stable_sort(report.gains.begin(), report.gains.end(),
                   [](const AdviceRow& a, const AdviceRow& b) {
                     if (a.outcome.score != b.outcome.score)
                       return a.outcome.score > b.outcome.score;
                     return a.changes.size() < b.changes.size();
                   });

  report.search =
      report.exact ? fmt::format("every combination of up to {} changes tried", request.max_changes)
                   : fmt::format("combinations of {} (not proven best)", fmt::join(narrowed, "; "));
  report.plans = ev.plans;
  report.seconds = clock.now_seconds() - began;
  return report;
}

}  // namespace meshplan
