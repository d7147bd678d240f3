#include "solvers/advice/advisor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"
#include "solvers/advice/advice_changes.hpp"
#include "solvers/advice/advice_evaluator.hpp"

namespace meshplan {
namespace {

// Below this relative gain a change counts as buying nothing (rounding of the cost model).
constexpr double kNoGain = 1e-3;
// A combination (or a larger purchase) is listed only when it is this much faster than its parts.
constexpr double kBetterThanParts = 1.01;

struct Tried {
  std::vector<size_t> changes;  // indices into the candidates, ascending
  Scenario scenario;
  ScenarioResult result;
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
void evaluate_all(std::vector<Tried>& batch, ScenarioEvaluator& ev, int jobs, bool findings) {
  if (!ev.workload())
    for (Tried& t : batch)
      ev.model(t.scenario.quant);
  parallel_for(batch.size(), jobs,
               [&](size_t i) { batch[i].result = ev.run(batch[i].scenario, findings); });
}

// What the search's steps share: the baseline, the candidate changes and the gain of every set
// of them tried.
struct AdviceSearch {
  const Cluster& cluster;
  const Catalog& catalog;
  const AdviseRequest& request;
  ScenarioEvaluator& ev;
  AdviceReport& report;
  const ScenarioResult& base;
  const std::vector<Change>& changes;
  int jobs;
  std::map<std::vector<size_t>, double> gain_by_set;

  double gain_of(const ScenarioResult& e) const {
    if (!e.outcome.feasible) return 0.0;
    return e.outcome.score - (report.baseline.feasible ? report.baseline.score : 0.0);
  }
  bool counts(double gain) const {
    return gain > kNoGain * std::max(1.0, report.baseline.feasible ? report.baseline.score : 1.0);
  }
  // Baseline findings none of whose atoms remain, on hosts the scenario still has.
  std::vector<std::string> resolved(const Tried& t) const {
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
  }
};

// One change at a time. `pool` gets the changes that make nothing worse, for the combinations,
// the most promising first.
std::vector<Tried> try_singles(AdviceSearch& a, std::vector<size_t>& pool) {
  std::vector<Tried> tried;
  for (size_t i = 0; i < a.changes.size(); ++i) {
    Tried t;
    t.changes = {i};
    t.scenario = apply_changes(a.cluster, a.request.plan, {&a.changes[i]}, a.catalog);
    if (t.scenario.invalid.empty()) tried.push_back(std::move(t));
  }
  evaluate_all(tried, a.ev, a.jobs, true);
  std::map<size_t, size_t> fixes_of;  // change -> findings it resolves alone
  for (Tried& t : tried) {
    t.gain = a.gain_of(t.result);
    a.gain_by_set[t.changes] = t.gain;
    fixes_of[t.changes[0]] = a.resolved(t).size();
    // Changes that make nothing worse may add up (two cables that complete a mesh); while
    // nothing fits, every change may be half of what makes it fit.
    if (!a.report.baseline.feasible ||
        (t.result.outcome.feasible && t.gain >= -kNoGain * a.report.baseline.score))
      pool.push_back(t.changes[0]);
  }
  // The most promising first: by gain alone, then by the findings each resolves alone (a cable
  // that is half of a mesh gains nothing alone but resolves a finding).
  std::sort(pool.begin(), pool.end(), [&](size_t x, size_t y) {
    const double gx = a.gain_by_set[{x}], gy = a.gain_by_set[{y}];
    if (gx != gy) return gx > gy;
    if (fixes_of[x] != fixes_of[y]) return fixes_of[x] > fixes_of[y];
    return x < y;
  });
  return tried;
}

// The scenarios of every m-subset of `top` whose changes use nothing twice and can be made.
std::vector<Tried> combination_batch(const AdviceSearch& a, const std::vector<size_t>& top,
                                     size_t m) {
  std::vector<std::vector<size_t>> sets;
  std::vector<size_t> cur;
  subsets(top, m, 0, cur, sets);
  std::vector<Tried> batch;
  for (const auto& set : sets) {
    std::vector<const Change*> picked;
    for (size_t i : set)
      picked.push_back(&a.changes[i]);
    if (!disjoint(picked)) continue;
    Tried t;
    t.changes = set;
    t.scenario = apply_changes(a.cluster, a.request.plan, picked, a.catalog);
    if (t.scenario.invalid.empty()) batch.push_back(std::move(t));
  }
  return batch;
}

// Combinations of 2..max_changes, all of them while the budget lasts, else those of the
// changes with the largest gains alone. `narrowed` says where the search was cut.
void try_combinations(AdviceSearch& a, const std::vector<size_t>& pool, std::vector<Tried>& tried,
                      std::vector<std::string>& narrowed) {
  AdviceReport& report = a.report;
  int budget = a.request.plan_budget;
  for (int m = 2; m <= a.request.max_changes && static_cast<size_t>(m) <= pool.size(); ++m) {
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
    std::vector<Tried> batch = combination_batch(a, top, static_cast<size_t>(m));
    budget -= static_cast<int>(batch.size());
    evaluate_all(batch, a.ev, a.jobs, false);
    for (Tried& t : batch) {
      t.gain = a.gain_of(t.result);
      a.gain_by_set[t.changes] = t.gain;
      tried.push_back(std::move(t));
    }
  }
}

// Whether a combination is faster than each set of its changes with one left out, by
// kBetterThanParts.
bool beats_parts(const AdviceSearch& a, const Tried& t) {
  bool beats = true;
  for (size_t drop = 0; drop < t.changes.size() && t.changes.size() != 1; ++drop) {
    std::vector<size_t> part = t.changes;
    part.erase(part.begin() + static_cast<std::ptrdiff_t>(drop));
    auto it = a.gain_by_set.find(part);
    if (it != a.gain_by_set.end() &&
        t.result.outcome.score <=
            (a.report.baseline.score * a.report.baseline.feasible + it->second) * kBetterThanParts)
      beats = false;
  }
  return beats;
}

// Rows: a combination only when it beats every smaller set of its changes; a single change that
// gains nothing only when it resolves a finding on the hosts as they are.
void add_rows(AdviceSearch& a, std::vector<Tried>& tried) {
  AdviceReport& report = a.report;
  const std::vector<Change>& changes = a.changes;
  std::map<std::string, double> group_best;
  for (Tried& t : tried) {
    const bool single = t.changes.size() == 1;
    if (!a.counts(t.gain)) {
      if (!single) continue;
      std::vector<std::string> fixed = a.resolved(t);
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
    if (!beats_parts(a, t)) continue;
    AdviceRow r = row_of(t, changes, report);
    if (!single) t.result.findings = findings_of(t.scenario.cluster, a.catalog);
    r.resolves = a.resolved(t);
    // A shorter context serves less than was asked: listed apart, not ranked with the rest.
    bool changes_request = false;
    for (size_t i : t.changes)
      changes_request = changes_request || changes[i].kind == "context";
    (changes_request ? report.request_changes : report.gains).push_back(std::move(r));
  }
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
  ScenarioEvaluator ev(catalog, request.model, request.quant, request.workload,
                       request.plan.objective, fs, clock);
  AdviceReport report;
  report.objective = ev.objective();
  report.max_changes = request.max_changes;
  report.model = ev.name();

  Scenario now{cluster, request.plan, "", {}, {}, ""};
  ScenarioResult base = ev.run(now);
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

  // GLPK (the ILP expert placement, routed serving's stage program) keeps global state: one
  // thread then.
  const int jobs =
      request.plan.solver == "ilp" || report.objective == "throughput"
          ? 1
          : std::max(1, request.jobs > 0 ? request.jobs
                                         : static_cast<int>(std::thread::hardware_concurrency()));
  AdviceSearch search{cluster, catalog, request, ev, report, base, changes, jobs, {}};

  std::vector<size_t> pool;
  std::vector<Tried> tried = try_singles(search, pool);
  std::vector<std::string> narrowed;
  try_combinations(search, pool, tried, narrowed);
  add_rows(search, tried);
  for (auto* rows : {&report.gains, &report.request_changes})
    std::stable_sort(rows->begin(), rows->end(), [](const AdviceRow& a, const AdviceRow& b) {
      if (a.outcome.score != b.outcome.score) return a.outcome.score > b.outcome.score;
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
