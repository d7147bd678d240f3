// Small, hand-checkable inputs shared by the planner tests: a four-layer model, hosts and links
// with round figures, the example clusters, and the message of an expected failure.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "lib/cluster/host_figures.hpp"
#include "lib/cluster/link_graph.hpp"
#include "lib/core/error.hpp"
#include "lib/models/model.hpp"
#include "solvers/problem/plan_inputs.hpp"
#include "tests/test_support.hpp"

namespace meshplan::testing {

// Four layers of 100 MB (2e8 FLOPs, 1000 KV bytes per token each), 500 x 1000 embedding and head.
inline ModelDesc tiny_model(int heads = 8, int kv_heads = 2, int head_dim = 125) {
  ModelDesc m;
  m.name = "tiny";
  m.hidden_size = 1000;
  m.vocab_size = 500;
  m.num_heads = heads;
  m.num_kv_heads = kv_heads;
  m.head_dim = head_dim;
  m.embedding_bytes = 1'000'000;
  m.head_bytes = 2'000'000;
  for (int i = 0; i < 4; ++i) {
    LayerInfo l;
    l.index = i;
    l.weight_bytes = 100'000'000;
    l.read_bytes = 100'000'000;
    l.flops = 2e8;
    l.kv_bytes_per_token = 1000;
    m.layers.push_back(l);
  }
  return m;
}

inline HostFigures test_host(const std::string& name, double bandwidth, double flops = 1e12,
                             double usable = 1e9) {
  HostFigures h;
  h.name = name;
  h.bandwidth = bandwidth;
  h.flops = flops;
  h.usable_bytes = usable;
  h.overhead_s = 0.5e-3;
  return h;
}

// A Thunderbolt 5 cable with RDMA at the SPEC section 7 figures.
inline LinkFigures rdma_link() {
  LinkFigures l;
  l.name = "tb5-rdma";
  l.rdma = true;
  l.thunderbolt = true;
  l.latency_s = 50e-6;
  l.bandwidth = 6.5e9;
  return l;
}

// Hosts a (1e11 B/s) and b (`b_bandwidth`) joined by one RDMA cable, 2000-byte messages.
inline PlanInputs rdma_pair(double b_bandwidth) {
  PlanInputs in;
  in.hosts = {test_host("a", 1e11), test_host("b", b_bandwidth)};
  in.rdma = in.tcp = in.network = LinkMatrix(2);
  in.rdma.set(0, 1, rdma_link());
  in.rdma.set(1, 0, rdma_link());
  in.message_bytes = 2000;
  in.min_hosts = 1;
  in.max_hosts = 2;
  return in;
}

inline Cluster load_example(const std::string& name = "mac-studio-m3-ultra-x4.yaml") {
  std::string path = source_path("examples/clusters/" + name);
  return load_cluster(read_text(path), path, Catalog::builtin());
}

// The message of the failure (exit 1) that `f` throws, or "" when it does not.
inline std::string failure_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kFailed) << e.what();
    return e.what();
  }
  return "";
}

}  // namespace meshplan::testing
