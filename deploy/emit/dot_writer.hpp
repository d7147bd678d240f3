// Graphviz (dot) of a cluster: hosts as boxes (name, chip, memory, and a plan's layer range),
// one edge per cable labelled with both interfaces and the speed, styled by kind (Thunderbolt 5
// with RDMA, Thunderbolt over TCP, Ethernet), shared networks as ellipses, and cables a backend
// still needs as dashed red edges. A host of several GPUs is a box around its GPUs, joined by
// their links (NV18, PIX, ...). Renders with `dot -Tsvg`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lib/cluster/cluster.hpp"
#include "lib/cluster/link_graph.hpp"
#include "topologies/check_report.hpp"

namespace meshplan {

struct DotOptions {
  std::string title;                // shown above the graph
  std::vector<CableToAdd> missing;  // dashed red edges
  std::map<std::string, std::string>
      host_notes;  // host -> extra label line, e.g. "rank 0: layers [0, 31)"
  // host -> one extra label line per GPU (by index), e.g. "tp 4 group 1: layers [0, 40)".
  std::map<std::string, std::vector<std::string>> gpu_notes;
  bool dim_unnoted = false;  // grey out hosts without a note (not in the plan)
  // Routed plans: tokens/s passed from one host to the next, drawn as blue arrows.
  struct Flow {
    std::string from, to, label;
  };
  std::vector<Flow> flows;
  // `meshplan advise`'s cables (dot --advice): dashed orange edges labelled with their advice row.
  struct Proposed {
    CableToAdd cable;
    std::string label;  // "advice 1"
  };
  std::vector<Proposed> proposed;
};

std::string write_cluster_dot(const Cluster& cluster, const LinkGraph& graph,
                              const DotOptions& options);

// A dot string literal: quoted, with " and \ escaped and newlines as \n.
std::string dot_quote(std::string_view text);

}  // namespace meshplan
