#include "solvers/advice/advice_evaluator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "lib/core/error.hpp"
#include "lib/models/model_catalog.hpp"
#include "lib/models/model_loader.hpp"
#include "solvers/serving/serving_planner.hpp"
#include "solvers/serving/workload_planner.hpp"
#include "solvers/strategy/strategy_planner.hpp"
#include "topologies/backend_rules.hpp"

namespace meshplan {

ScenarioFindings findings_of(const Cluster& cluster, const Catalog& catalog) {
  ScenarioFindings out;
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

ScenarioEvaluator::ScenarioEvaluator(const Catalog& catalog, const std::string& model,
                                     const std::string& quant,
                                     const std::vector<WorkloadEntry>& workload,
                                     const std::string& objective, const FileSystem& fs,
                                     const Clock& clock)
    : catalog_(catalog),
      model_(model),
      quant_(quant),
      workload_(workload),
      objective_(objective),
      fs_(fs),
      clock_(clock) {
  workload_models_.reserve(workload.size());
  for (const WorkloadEntry& e : workload) {
    try {
      workload_models_.push_back(load_model(e.model, e.quant, fs));
    } catch (const Error& err) {
      throw Error(err.kind(), fmt::format("{}: {}", e.where.describe(), err.what()));
    }
  }
}

std::string ScenarioEvaluator::name() {
  if (!workload()) return model("").name;
  std::string out = fmt::format("a workload of {} models (", workload_models_.size());
  for (size_t i = 0; i < workload_models_.size(); ++i)
    out += (i ? ", " : "") + workload_models_[i].name;
  return out + ")";
}

const ModelDesc& ScenarioEvaluator::model(const std::string& quant) {
  auto it = models_.find(quant);
  if (it == models_.end())
    it = models_.emplace(quant, load_model(model_, quant.empty() ? quant_ : quant, fs_)).first;
  return it->second;
}

ScenarioResult ScenarioEvaluator::run(const Scenario& s, bool findings) const {
  ++plans;
  if (workload()) return run_workload(s, findings);
  ScenarioResult e;
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

ScenarioResult ScenarioEvaluator::run_workload(const Scenario& s, bool findings) const {
  ScenarioResult e;
  AdviceOutcome& o = e.outcome;
  o.strategy = "workload";
  try {
    std::vector<WorkloadModel> models;
    for (size_t i = 0; i < workload_models_.size(); ++i)
      models.push_back({&workload_models_[i], workload_[i]});
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

std::vector<std::string> smaller_quantizations(ScenarioEvaluator& ev, const std::string& model) {
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

}  // namespace meshplan
