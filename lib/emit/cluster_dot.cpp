#include "lib/emit/cluster_dot.hpp"

#include <fmt/format.h>

#include "lib/emit/dot_writer.hpp"

namespace meshplan {
namespace {

// Cables to draw as missing: those of the requested backend, or for auto (when nothing is valid)
// those of the backend closest to working: jaccl-ring when every host has RDMA, else ring.
std::vector<CableToAdd> missing_cables(const CheckReport& report, const Cluster& cluster,
                                       const std::string& backend, std::string& shown) {
  shown = backend;
  if (backend == "auto") {
    if (!report.chosen.empty()) return {};
    bool rdma = true;
    for (const auto& h : cluster.hosts)
      rdma = rdma && h.rdma_enabled.value_or(false);
    shown = rdma ? "jaccl-ring" : "ring";
  }
  std::vector<CableToAdd> out;
  if (const BackendVerdict* v = report.find(shown))
    for (const auto& i : v->issues)
      if (i.severity == Severity::kError)
        for (const auto& c : i.add_cables)
          out.push_back(c);
  return out;
}

}  // namespace

std::string write_cluster_dot_artifact(const EmitInput& in) {
  const CheckReport& report = in.report;
  const std::string& backend = in.requested_backend;
  DotOptions o;
  std::string shown;
  o.missing = missing_cables(report, in.cluster, backend, shown);
  std::string name = in.cluster.name.empty() ? "cluster" : in.cluster.name;
  if (backend == "auto" && !report.chosen.empty()) {
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
    for (const auto& r : in.plan->ranks) {
      o.host_notes[r.host] = r.layers ? fmt::format("rank {}: layers [{}, {})", r.rank,
                                                    r.layers->first, r.layers->second)
                                      : fmt::format("rank {}", r.rank);
    }
    o.dim_unnoted = true;
  }
  return write_cluster_dot(in.cluster, in.topology.graph, o);
}

}  // namespace meshplan
