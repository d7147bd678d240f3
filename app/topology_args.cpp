#include "app/topology_args.hpp"

#include "lib/core/document.hpp"
#include "lib/core/error.hpp"
#include "topologies/cluster_loader.hpp"

namespace meshplan {

Cluster read_cluster_arg(AppContext& ctx, const std::string& path) {
  return load_cluster(read_input(ctx, path), path, ctx.catalog);
}

std::optional<PlanRanks> read_plan_arg(AppContext& ctx, const std::string& path) {
  if (path.empty()) return std::nullopt;
  return read_plan_ranks(parse_document(read_input(ctx, path), path));
}

CheckOptions check_options_for(const std::string& backend, const std::optional<PlanRanks>& plan) {
  CheckOptions o;
  o.backend = backend;
  if (plan) {
    o.hosts = plan->hosts();
    o.fixed_order = true;
  }
  return o;
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
