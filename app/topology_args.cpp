#include "app/topology_args.hpp"

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
