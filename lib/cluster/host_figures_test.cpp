#include "lib/cluster/host_figures.hpp"

#include <gtest/gtest.h>

#include "topologies/cluster_loader.hpp"

namespace meshplan {
namespace {

HostFigures figures(const std::string& yaml) {
  Cluster c = load_cluster(yaml, "c.yaml", Catalog::builtin());
  return host_figures(c.hosts.at(0), Catalog::builtin());
}

const std::string kTwoH200 =
    "hosts:\n  - name: g\n    os: {kind: linux}\n    gpus: [{chip: h200}, {chip: h200}]\n";

TEST(host_figures_test, one_device_has_no_in_host_collectives) {
  HostFigures h = figures("hosts:\n  - name: g\n    os: {kind: linux}\n    gpus: [{chip: h200}]\n");
  EXPECT_EQ(h.gpus, 1);
  EXPECT_EQ(in_host_collectives_s(h, 4096, 1), 0);
  HostFigures mac = figures("hosts:\n  - {name: m, chip: m3-ultra-80c, memory: 512GiB}\n");
  EXPECT_EQ(mac.gpus, 1);
  EXPECT_EQ(in_host_collectives_s(mac, 8192, 32), 0);
}

TEST(host_figures_test, nvlink_pair_all_reduces_over_its_links) {
  HostFigures h = figures(kTwoH200 + "    nvlink: 18\n");
  EXPECT_EQ(h.gpus, 2);
  EXPECT_EQ(h.gpu_link, "NV18");
  EXPECT_DOUBLE_EQ(h.gpu_link_bandwidth, 18 * 25e9);  // NVLink 4: 25 GB/s per link
  EXPECT_DOUBLE_EQ(h.gpu_link_latency_s, 15e-6);
  // Summed figures: the layers are shared out over both GPUs.
  EXPECT_DOUBLE_EQ(h.spec_bandwidth, 2 * 4800e9);
  // Two ring all-reduces per layer, each 2(d-1) steps of 1/d of 2*hidden bytes per token.
  const double one = 4 * (15e-6 + 2.0 * 4096 / (2 * 450e9));
  EXPECT_DOUBLE_EQ(in_host_collectives_s(h, 4096, 1), one);
  EXPECT_DOUBLE_EQ(in_host_collectives_s(h, 4096, 32), 4 * (15e-6 + 32 * 2.0 * 4096 / 900e9));
}

TEST(host_figures_test, the_slowest_pair_decides_and_pcie_is_assumed_without_a_matrix) {
  HostFigures pcie = figures(kTwoH200 + "    gpu_fabric: pcie\n");
  EXPECT_EQ(pcie.gpu_link, "PHB");
  EXPECT_DOUBLE_EQ(pcie.gpu_link_bandwidth, 50e9);  // PCIe 5 for an NVLink-4 generation GPU
  EXPECT_DOUBLE_EQ(pcie.gpu_link_latency_s, 20e-6);

  HostFigures sys = figures(
      "hosts:\n  - name: g\n    os: {kind: linux}\n    gpus: [{chip: a100-80gb}, {chip: "
      "a100-80gb}, {chip: a100-80gb}]\n    gpu_links: [[X, NV12, SYS], [NV12, X, NV12], [SYS, "
      "NV12, X]]\n");
  EXPECT_EQ(sys.gpus, 3);
  EXPECT_EQ(sys.gpu_link, "SYS");
  EXPECT_DOUBLE_EQ(sys.gpu_link_bandwidth, 15e9);

  HostFigures unknown = figures(kTwoH200);
  EXPECT_EQ(unknown.gpu_link, "PHB (assumed: no gpu_links)");
  EXPECT_DOUBLE_EQ(unknown.gpu_link_bandwidth, 50e9);
  // Slower links cost more per layer.
  EXPECT_GT(in_host_collectives_s(pcie, 8192, 8),
            in_host_collectives_s(figures(kTwoH200 + "    nvlink: 18\n"), 8192, 8));
}

}  // namespace
}  // namespace meshplan
