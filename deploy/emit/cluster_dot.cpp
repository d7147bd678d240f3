#include "deploy/emit/cluster_dot.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "deploy/emit/dot_writer.hpp"
#include "lib/cluster/mlx_backend.hpp"
#include "lib/plan/strategy_kind.hpp"

namespace meshplan {
namespace {

// Cables to draw as missing: those of the requested backend, or for auto (when nothing is valid)
// those of the backend closest to working: jaccl-ring when every host has RDMA, else ring.
std::vector<CableToAdd> missing_cables(const CheckReport& report, const Cluster& cluster,
                                       const std::string& backend, std::string& shown) {
  shown = backend;
  if (is_backend(backend, MlxBackend::kAuto)) {
    if (!report.chosen.empty()) return {};
    bool rdma = true;
    for (const auto& h : cluster.hosts)
      rdma = rdma && h.rdma_enabled.value_or(false);
    shown = name(rdma ? MlxBackend::kJacclRing : MlxBackend::kRing);
  }
  std::vector<CableToAdd> out;
  if (const BackendVerdict* v = report.find(shown))
    for (const auto& i : v->issues)
      if (i.severity == Severity::kError)
        for (const auto& c : i.add_cables)
          out.push_back(c);
  return out;
}

// "0-31, 64, 70-71": a sorted list of expert indices as ranges.
std::string id_ranges(std::vector<int> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string out;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1)
      ++j;
    out += (out.empty() ? "" : ", ") +
           (j == i ? std::to_string(ids[i]) : fmt::format("{}-{}", ids[i], ids[j]));
    i = j + 1;
  }
  return out;
}

// What a rank holds, as its host's extra label line: a layer range (pipeline), a share of every
// layer (tensor) or its experts (expert; the same set on every layer, or the count per layer).
std::string rank_note(const PlanRanks& plan, const PlanRank& r) {
  std::string note = fmt::format("rank {}", r.rank);
  if (is_strategy(plan.strategy, StrategyKind::kTensor) && r.share)
    return note + fmt::format(": {:.4g} % of every layer", *r.share * 100);
  if (is_strategy(plan.strategy, StrategyKind::kExpert) && !r.experts.empty()) {
    bool same = std::all_of(r.experts.begin(), r.experts.end(),
                            [&](const auto& e) { return e == r.experts.front(); });
    if (same) return note + fmt::format(": experts {}", id_ranges(r.experts.front()));
    auto [lo, hi] =
        std::minmax_element(r.experts.begin(), r.experts.end(),
                            [](const auto& a, const auto& b) { return a.size() < b.size(); });
    return note + (lo->size() == hi->size()
                       ? fmt::format(": {} experts per layer", lo->size())
                       : fmt::format(": {}-{} experts per layer", lo->size(), hi->size()));
  }
  if (r.layers) note += fmt::format(": layers [{}, {})", r.layers->first, r.layers->second);
  if (!r.tp_group.empty() && r.share)
    note += fmt::format("\n{:.4g} % of each, tensor-parallel with {}", *r.share * 100,
                        fmt::join(r.tp_group, " + "));
  return note;
}

// A host of several GPUs: each GPU's group of tp GPUs (a stage of the host's inner pipeline) and
// the group's layers, in pipeline order.
std::vector<std::string> gpu_notes(const PlanRank& r) {
  std::vector<std::string> out;
  int group = 0;
  for (const auto& [a, b] : r.gpu_stages) {
    ++group;
    for (int g = 0; g < r.tp; ++g)
      out.push_back(r.tp == 1 ? fmt::format("layers [{}, {})", a, b)
                              : fmt::format("tp {} group {}: layers [{}, {})", r.tp, group, a, b));
  }
  return out;
}

}  // namespace

std::string write_cluster_dot_artifact(const EmitInput& in) {
  return write_cluster_dot_artifact(in, {});
}

std::string write_cluster_dot_artifact(const EmitInput& in,
                                       const std::vector<std::pair<int, AdviceCable>>& advice) {
  const CheckReport& report = in.report;
  const std::string& backend = in.requested_backend;
  DotOptions o;
  std::string shown;
  o.missing = missing_cables(report, in.cluster, backend, shown);
  std::string name = in.cluster.name.empty() ? "cluster" : in.cluster.name;
  if (is_backend(backend, MlxBackend::kAuto) && !report.chosen.empty()) {
    o.title = fmt::format("{}: backend {} is valid", name, report.chosen);
  } else {
    const BackendVerdict* v = report.find(shown);
    o.title = v && v->valid
                  ? fmt::format("{}: backend {} is valid", name, shown)
                  : fmt::format("{}: backend {} needs the dashed red cables", name, shown);
    if (v && !v->valid && o.missing.empty())
      o.title = fmt::format("{}: backend {} is not valid", name, shown);
  }
  if (in.plan) {
    const PlanRanks& plan = *in.plan;
    for (const auto& r : plan.ranks) {
      o.host_notes[r.host] = rank_note(plan, r);
      if (!r.gpu_stages.empty()) o.gpu_notes[r.host] = gpu_notes(r);
    }
    // Replicas: each host's replica, its share of the requests and its own rank.
    for (size_t k = 0; k < plan.replicas.size(); ++k) {
      const PlanReplica& rep = plan.replicas[k];
      PlanRanks one;
      one.strategy = rep.strategy;
      for (const auto& r : rep.ranks)
        o.host_notes[r.host] = fmt::format("replica {} ({:.0f} % of the requests)\n{}", k + 1,
                                           rep.request_share * 100, rank_note(one, r));
    }
    if (plan.routing) {
      // Routed: each host's range and the tokens/s it carries; arrows for the flow between hosts.
      for (const RoutedHostInfo& h : plan.routing->hosts) {
        std::string note =
            fmt::format("layers [{}, {}): {:.1f} tokens/s", h.layer_start, h.layer_end, h.flow);
        if (h.entry > 0) note += fmt::format("\n{:.1f} enter here", h.entry);
        o.host_notes[h.host] = note;
      }
      for (const RoutedLinkInfo& l : plan.routing->links)
        o.flows.push_back({l.from, l.to, fmt::format("{:.1f} tokens/s", l.flow)});
    }
    o.dim_unnoted = true;
    if (!plan.strategy.empty())
      o.title = fmt::format("{}: {} plan over {}{}", name, plan.strategy,
                            plan.backend.empty() ? "?" : plan.backend,
                            plan.transport.empty() ? "" : " (" + plan.transport + ")");
  }
  // One edge per cable, naming every advice row that plugs it in.
  std::map<std::string, size_t> seen;
  for (const auto& [row, c] : advice) {
    std::string key = fmt::format("{}:{}:{}|{}:{}:{}|{}", c.a_host, c.a_port, c.a_interface,
                                  c.b_host, c.b_port, c.b_interface, c.kind);
    auto [it, fresh] = seen.emplace(key, o.proposed.size());
    if (!fresh) {
      o.proposed[it->second].label += fmt::format(", {}", row);
      continue;
    }
    CableToAdd cable{
        {c.a_host, c.a_port, c.a_interface}, {c.b_host, c.b_port, c.b_interface}, c.kind};
    o.proposed.push_back({cable, fmt::format("advice {}", row)});
  }
  if (!advice.empty()) o.title += " (dashed orange: cables the advice proposes)";
  return write_cluster_dot(in.cluster, in.topology.graph, o);
}

}  // namespace meshplan
