#include "app/topology_args.hpp"

#include "deploy/layout/plan_match.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/document.hpp"
#include "lib/core/error.hpp"

namespace meshplan {

Cluster read_cluster_arg(AppContext& ctx, const std::string& path) {
  Cluster cluster = load_cluster(read_input(ctx, path), path, ctx.catalog);
  for (const std::string& w : cluster.warnings)
    ctx.console.warn(w);
  return cluster;
}

std::optional<PlanRanks> read_plan_arg(AppContext& ctx, const std::string& path) {
  if (path.empty()) return std::nullopt;
  return read_plan_ranks(parse_document(read_input(ctx, path), path));
}

CheckOptions check_options_for(const std::string& backend, const std::optional<PlanRanks>& plan) {
  CheckOptions o;
  o.backend = backend_for_plan(backend, plan);
  if (plan) {
    o.hosts = plan->hosts();
    // Neither a routed plan's ranks nor a workload's hosts are a ring.
    o.fixed_order = !plan->routing && plan->models.empty();
  }
  return o;
}

CheckReport check_plan_cluster(const TopologyContext& topology, const std::string& backend,
                               const std::optional<PlanRanks>& plan) {
  if (plan) require_plan_matches(topology, *plan);
  return check_cluster(topology, check_options_for(backend, plan));
}

void warn_issues(AppContext& ctx, const CheckReport& report) {
  auto say = [&](const CheckIssue& i) {
    std::string text = i.message + (i.fix.empty() ? "" : " (fix: " + i.fix + ")");
    if (i.severity == Severity::kWarning)
      ctx.console.warn(text);
    else if (i.severity == Severity::kNote)
      ctx.console.note(text);
  };
  if (const BackendVerdict* v = report.find(report.chosen))
    for (const auto& i : v->issues)
      say(i);
  for (const auto& i : report.general)
    say(i);
}

}  // namespace meshplan
