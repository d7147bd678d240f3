#include "bench/bench_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "bench/cluster_families.hpp"
#include "lib/core/error.hpp"
#include "lib/core/text_table.hpp"
#include "lib/models/model_catalog.hpp"
#include "solvers/pipeline/pipeline_plan.hpp"

namespace meshplan {
namespace {

BenchRow summarise(const std::string& name, const std::vector<const BenchInstance*>& xs) {
  BenchRow r;
  r.name = name;
  r.instances = static_cast<int>(xs.size());
  double log_sum = 0;
  std::vector<double> times;
  r.speedup_min = 0;
  for (const BenchInstance* x : xs) {
    if (!x->feasible) continue;
    ++r.feasible;
    r.exact += x->exact;
    r.gap_mean += x->gap_percent;
    r.gap_max = std::max(r.gap_max, x->gap_percent);
    times.push_back(x->solve_ms);
    if (x->proportional_ok) {
      double s = x->proportional_s / x->latency_s;
      log_sum += std::log(s);
      r.speedup_min = r.compared == 0 ? s : std::min(r.speedup_min, s);
      r.speedup_max = std::max(r.speedup_max, s);
      ++r.compared;
    }
  }
  if (r.feasible) r.gap_mean /= r.feasible;
  if (r.compared) r.speedup_geomean = std::exp(log_sum / r.compared);
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    size_t k = times.size();
    r.solve_median_ms = k % 2 ? times[k / 2] : (times[k / 2 - 1] + times[k / 2]) / 2;
    r.solve_max_ms = times.back();
  }
  return r;
}

}  // namespace

BenchOptions quick_bench_options() {
  BenchOptions o;
  o.sizes = {2, 3, 5, 8, 12, 16};
  o.models = {"llama-3.3-70b-4bit", "deepseek-v3.1-4bit"};
  o.contexts = {4096};
  o.replicas = 1;
  return o;
}

BenchReport run_bench(const BenchOptions& options, const Catalog& catalog, const Clock& clock) {
  BenchReport report;
  double start = clock.now_seconds();
  std::vector<std::string> families =
      options.families.empty() ? cluster_family_names() : options.families;
  std::vector<ModelDesc> models;
  if (options.models.empty()) {
    for (const ModelEntry& e : ModelCatalog::builtin().entries())
      for (const std::string& q : e.quantizations)
        models.push_back(ModelCatalog::builtin().resolve(e.name, q));
  } else {
    for (const std::string& m : options.models)
      models.push_back(ModelCatalog::builtin().resolve(m, ""));
  }
  uint64_t serial = 0;
  for (const std::string& family : families) {
    for (int size : options.sizes) {
      for (const ModelDesc& model : models) {
        for (int replica = 0; replica < options.replicas; ++replica) {
          ++serial;
          uint64_t seed = options.seed * 1000003ull + serial;
          BenchInstance x;
          x.family = family;
          x.hosts = size;
          x.model = model.name;
          x.context = options.contexts[serial % options.contexts.size()];
          Cluster cluster = generate_cluster(family, size, seed, catalog);
          PlanRequest request;
          request.context = x.context;
          try {
            Plan plan = make_plan(cluster, catalog, model, request, clock);
            x.feasible = true;
            x.exact = plan.solver.optimal;
            x.latency_s = plan.predicted.token_latency_s;
            x.solve_ms = plan.solver.solve_ms;
            x.used_hosts = static_cast<int>(plan.ranks.size());
            if (plan.bound) {
              x.bound_s = plan.bound->token_latency_s;
              x.gap_percent = plan.bound->gap_percent;
            }
            for (const BaselineInfo& b : plan.baselines) {
              if (b.solver != "proportional" || !b.feasible) continue;
              x.proportional_ok = true;
              x.proportional_s = b.token_latency_s;
            }
            if (x.proportional_ok && x.latency_s > x.proportional_s * (1 + 1e-9))
              x.violation = fmt::format("optimal {:.6f} ms is slower than proportional {:.6f} ms",
                                        x.latency_s * 1e3, x.proportional_s * 1e3);
            if (x.bound_s > x.latency_s * (1 + 1e-9))
              x.violation = fmt::format("bound {:.6f} ms is above the plan {:.6f} ms",
                                        x.bound_s * 1e3, x.latency_s * 1e3);
          } catch (const Error& e) {
            if (e.kind() != ErrorKind::kFailed) x.violation = e.what();
          }
          report.violations += !x.violation.empty();
          report.instances.push_back(x);
        }
      }
    }
  }
  std::vector<const BenchInstance*> all;
  for (const auto& x : report.instances)
    all.push_back(&x);
  for (const std::string& family : families) {
    std::vector<const BenchInstance*> xs;
    for (const auto* x : all)
      if (x->family == family) xs.push_back(x);
    report.families.push_back(summarise(family, xs));
  }
  for (int size : options.sizes) {
    std::vector<const BenchInstance*> xs;
    for (const auto* x : all)
      if (x->hosts == size) xs.push_back(x);
    report.sizes.push_back(summarise(std::to_string(size), xs));
  }
  report.total = summarise("all", all);
  report.seconds = clock.now_seconds() - start;
  return report;
}

std::string render_bench(const BenchReport& report) {
  using A = TextTable::Align;
  auto speed = [](const BenchRow& r, double v) {
    return r.compared ? fmt::format("{:.2f}x", v) : std::string("-");
  };
  auto ms = [](double v) { return fmt::format("{:.2f}", v); };
  std::string out;
  TextTable t({"family", "instances", "planned", "vs prop.", "speed-up geo", "min", "max",
               "gap mean %", "gap max %", "exact", "solve median ms", "max ms"},
              {A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight,
               A::kRight, A::kRight, A::kRight, A::kRight, A::kRight});
  auto add = [&](TextTable& table, const BenchRow& r) {
    table.add_row({r.name, std::to_string(r.instances), std::to_string(r.feasible),
                   std::to_string(r.compared), speed(r, r.speedup_geomean), speed(r, r.speedup_min),
                   speed(r, r.speedup_max), fmt::format("{:.2f}", r.gap_mean),
                   fmt::format("{:.2f}", r.gap_max), std::to_string(r.exact), ms(r.solve_median_ms),
                   ms(r.solve_max_ms)});
  };
  for (const auto& r : report.families)
    add(t, r);
  add(t, report.total);
  out += t.render();
  TextTable s({"hosts", "instances", "planned", "vs prop.", "speed-up geo", "min", "max",
               "gap mean %", "gap max %", "exact", "solve median ms", "max ms"},
              {A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight,
               A::kRight, A::kRight, A::kRight, A::kRight, A::kRight});
  for (const auto& r : report.sizes)
    add(s, r);
  out += "\n\n" + s.render();
  out += fmt::format(
      "\n\n{} instances in {:.1f} s; speed-up = proportional token time / optimal token time where "
      "the proportional "
      "split fits; gap = (plan - lower bound) / lower bound; exact = proven optimal.\n",
      report.instances.size(), report.seconds);
  if (report.violations) {
    out += fmt::format("{} violations:\n", report.violations);
    for (const auto& x : report.instances)
      if (!x.violation.empty())
        out += fmt::format("  {} {} hosts {} context {}: {}\n", x.family, x.hosts, x.model,
                           x.context, x.violation);
  } else {
    out +=
        "No violations: optimal is never slower than proportional, and every bound is at most its "
        "plan.\n";
  }
  return out;
}

ojson bench_to_json(const BenchReport& report) {
  auto row = [](const BenchRow& r) {
    ojson x;
    x["name"] = r.name;
    x["instances"] = r.instances;
    x["planned"] = r.feasible;
    x["compared"] = r.compared;
    x["exact"] = r.exact;
    x["speedup_geomean"] = json_number(r.speedup_geomean);
    x["speedup_min"] = json_number(r.speedup_min);
    x["speedup_max"] = json_number(r.speedup_max);
    x["gap_mean_percent"] = json_number(r.gap_mean);
    x["gap_max_percent"] = json_number(r.gap_max);
    x["solve_median_ms"] = json_number(r.solve_median_ms);
    x["solve_max_ms"] = json_number(r.solve_max_ms);
    return x;
  };
  ojson j;
  ojson fams = ojson::array(), sizes = ojson::array(), inst = ojson::array();
  for (const auto& r : report.families)
    fams.push_back(row(r));
  for (const auto& r : report.sizes)
    sizes.push_back(row(r));
  for (const auto& x : report.instances) {
    ojson i;
    i["family"] = x.family;
    i["hosts"] = x.hosts;
    i["model"] = x.model;
    i["context"] = x.context;
    i["planned"] = x.feasible;
    i["exact"] = x.exact;
    i["token_latency_ms"] = x.feasible ? json_ms(x.latency_s) : ojson(nullptr);
    i["proportional_ms"] = x.proportional_ok ? json_ms(x.proportional_s) : ojson(nullptr);
    i["bound_ms"] = x.feasible ? json_ms(x.bound_s) : ojson(nullptr);
    i["gap_percent"] = json_number(x.gap_percent);
    i["solve_ms"] = json_number(x.solve_ms);
    i["used_hosts"] = x.used_hosts;
    if (!x.violation.empty()) i["violation"] = x.violation;
    inst.push_back(i);
  }
  j["families"] = fams;
  j["sizes"] = sizes;
  j["total"] = row(report.total);
  j["violations"] = report.violations;
  j["seconds"] = json_number(report.seconds);
  j["instances"] = inst;
  return j;
}

}  // namespace meshplan
