// Runs every backend's rules over a cluster and picks one (declared in backend_rules.hpp):
// `check`'s report, and the refusal emitters give for invalid backends.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "lib/core/error.hpp"
#include "topologies/backend_rules.hpp"

namespace meshplan {
namespace {

constexpr double kReportMessageBytes = 32768;  // a hidden state of a large model, for "best link"

}  // namespace

CheckReport check_cluster(const TopologyContext& ctx, const CheckOptions& options) {
  std::vector<size_t> members = ctx.members(options.hosts);
  CheckReport r;
  r.cluster = ctx.cluster.name;
  r.hosts = members.size();
  r.requested = options.backend;
  std::vector<char> in(ctx.cluster.hosts.size(), 0);
  for (size_t h : members)
    in[h] = 1;
  for (const auto& c : ctx.fabric.cables()) {
    if (!in[c.lo.host] || !in[c.hi.host]) continue;
    ++r.thunderbolt_cables;
    r.rdma_cables += c.rdma;
  }
  for (size_t k = 0; k < ctx.cluster.cables.size(); ++k) {
    const auto [a, b] = ctx.cable_ends[k];
    if (!is_thunderbolt(ctx.cluster.cables[k].kind) && a >= 0 && b >= 0 &&
        in[static_cast<size_t>(a)] && in[static_cast<size_t>(b)])
      ++r.network_cables;
  }
  for (const std::vector<char>& on : ctx.on_network)
    r.networks += std::any_of(members.begin(), members.end(), [&](size_t h) { return on[h]; });
  const MlxBackend requested = parse_mlx_backend(options.backend);
  for (MlxBackend b : all_mlx_backends())
    r.backends.push_back(check_backend(ctx, name(b), members, options.fixed_order));
  if (requested == MlxBackend::kAuto) {
    for (const auto& b : r.backends)
      if (b.valid && r.chosen.empty()) r.chosen = b.backend;
  } else {
    r.chosen = options.backend;
  }
  r.general = cluster_issues(ctx, members);
  auto add_link = [&](size_t a, size_t b) {
    auto best = ctx.graph.best(a, b, Transport::kAny, kReportMessageBytes);
    if (!best) return;
    r.links.push_back({ctx.cluster.hosts[a].name, ctx.cluster.hosts[b].name, best->name,
                       static_cast<int>(ctx.fabric.count(a, b)), best->latency_s, best->bandwidth});
  };
  if (members.size() <= kAllPairLinksMaxHosts) {
    for (size_t a = 0; a < members.size(); ++a)
      for (size_t b = a + 1; b < members.size(); ++b)
        add_link(members[a], members[b]);
  } else {
    // Every pair of a large shared network would be n² entries; past the limit only pairs joined
    // by a cable are listed, each once, in the order of their first cable.
    r.links_complete = false;
    std::set<std::pair<size_t, size_t>> seen;
    auto cabled = [&](int a, int b) {
      if (a < 0 || b < 0 || !in[static_cast<size_t>(a)] || !in[static_cast<size_t>(b)]) return;
      const size_t x = static_cast<size_t>(a), y = static_cast<size_t>(b);
      const std::pair<size_t, size_t> key = std::minmax(x, y);
      if (key.first != key.second && seen.insert(key).second) add_link(key.first, key.second);
    };
    for (const auto& c : ctx.fabric.cables())
      cabled(static_cast<int>(c.lo.host), static_cast<int>(c.hi.host));
    for (const auto& [a, b] : ctx.cable_ends)
      cabled(a, b);
  }
  for (const auto& s : ctx.subnets.cables) {
    const FabricCable& c = *s.cable;
    r.subnets.push_back({s.subnet,
                         {ctx.cluster.hosts[c.lo.host].name, c.lo.port, c.lo.interface},
                         {ctx.cluster.hosts[c.hi.host].name, c.hi.port, c.hi.interface},
                         s.lo_address,
                         s.hi_address});
  }
  return r;
}

const BackendVerdict& require_valid(const CheckReport& report) {
  const BackendVerdict* v = report.chosen.empty() ? nullptr : report.find(report.chosen);
  if (v && v->valid) return *v;
  std::string details;
  for (const auto& b : report.backends) {
    if (!report.chosen.empty() && b.backend != report.chosen) continue;
    for (const auto& i : b.issues)
      if (i.severity == Severity::kError)
        details += fmt::format("\n[{}]{}", b.backend, render_issue(i).substr(1));
  }
  if (!details.empty() && details.back() == '\n') details.pop_back();
  if (report.chosen.empty())
    throw failure(
        "no backend is valid for this cabling (run `meshplan check` for the full report):{}",
        details);
  throw failure("{} is not valid for this cabling (run `meshplan check --backend {}`):{}",
                report.chosen, report.chosen, details);
}

}  // namespace meshplan
