#include "lib/cluster/host_figures.hpp"

#include <gtest/gtest.h>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/cluster/cluster_writer.hpp"
#include "lib/core/error.hpp"

namespace meshplan::host_figures_test {
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

// Decode steps and prompts reach different fractions of a chip's peak: a decode step's products
// (a row per stream) 40 % of an Apple GPU's shader peak, a prompt's 60 % of its spec figure (the
// M5's Neural Accelerators included); a host's own flops_efficiency holds for both.
TEST(host_figures_test, decode_and_prefill_flops_follow_their_own_efficiencies) {
  HostFigures ultra = figures("hosts:\n  - {name: m, chip: m3-ultra-80c, memory: 512GiB}\n");
  EXPECT_DOUBLE_EQ(ultra.flops, 0.4 * 28.6e12);
  EXPECT_DOUBLE_EQ(ultra.prefill_flops, 0.6 * 28.6e12);
  EXPECT_DOUBLE_EQ(ultra.flops_efficiency, 0.4);
  HostFigures m5 = figures("hosts:\n  - {name: m, chip: m5-max-40c, memory: 128GiB}\n");
  EXPECT_DOUBLE_EQ(m5.flops, 0.4 * 17.2e12);
  EXPECT_DOUBLE_EQ(m5.prefill_flops, 0.6 * 68.8e12);
  HostFigures tuned =
      figures("hosts:\n  - {name: m, chip: m5-max-40c, memory: 128GiB, flops_efficiency: 0.5}\n");
  EXPECT_DOUBLE_EQ(tuned.flops, 0.5 * 17.2e12);
  EXPECT_DOUBLE_EQ(tuned.prefill_flops, 0.5 * 68.8e12);
  HostFigures own = figures(
      "hosts:\n  - {name: m, memory: 64GiB, mem_bandwidth: 400GB/s, "
      "flops: 20T}\n");
  EXPECT_DOUBLE_EQ(own.flops, 0.4 * 20e12);
  EXPECT_DOUBLE_EQ(own.prefill_flops, 0.6 * 20e12);
  HostFigures h200 =
      figures("hosts:\n  - name: g\n    os: {kind: linux}\n    gpus: [{chip: h200}]\n");
  EXPECT_DOUBLE_EQ(h200.flops, h200.prefill_flops);
}

TEST(host_figures_test, nvlink_pair_all_reduces_over_its_links) {
  HostFigures h = figures(kTwoH200 + "    nvlink: 18\n");
  EXPECT_EQ(h.gpus, 2);
  EXPECT_EQ(h.gpu_link, "NV18");
  EXPECT_DOUBLE_EQ(h.gpu_link_bandwidth, 18 * 25e9);  // NVLink 4: 25 GB/s per link
  EXPECT_DOUBLE_EQ(h.gpu_link_latency_s, 10.2e-6);
  EXPECT_DOUBLE_EQ(h.gpu_link_step_s, 0.78e-6);
  // Summed figures: the layers are shared out over both GPUs.
  EXPECT_DOUBLE_EQ(h.spec_bandwidth, 2 * 4800e9);
  // Two all-reduces per layer, each a latency and 2(d-1) steps of 1/d of 2*hidden bytes per
  // token: 11.8 us each at one token, as measured on 2 x H200 (11.3-11.9 us for 8-64 KiB).
  const double one = 2 * (10.2e-6 + 2 * 0.78e-6) + 4 * 2.0 * 4096 / (2 * 450e9);
  EXPECT_NEAR(in_host_collectives_s(h, 4096, 1), one, 1e-12);
  EXPECT_NEAR(in_host_collectives_s(h, 4096, 32), 23.52e-6 + 4 * 32 * 2.0 * 4096 / 900e9, 1e-12);
  // Every layer also pays the GPU's fixed kernel time, which no split divides, and a mixture of
  // experts layer its routing on top.
  EXPECT_DOUBLE_EQ(h.layer_overhead_s, 33e-6);
  EXPECT_NEAR(layer_extra_s(h, 4096, 1), 33e-6 + one, 1e-12);
  EXPECT_NEAR(layer_extra_s(h, 4096, 1, 1), 33e-6 + 61e-6 + one, 1e-12);
  // The H200 reaches 0.9 of its spec bandwidth in a decode step (measured); a host's own figure
  // wins.
  EXPECT_DOUBLE_EQ(h.bandwidth, 0.9 * 2 * 4800e9);
  EXPECT_DOUBLE_EQ(figures(kTwoH200 + "    bandwidth_efficiency: 0.5\n").bandwidth,
                   0.5 * 2 * 4800e9);
  // A bandwidth calibrate measured is what a decode step reaches: no efficiency on top.
  EXPECT_DOUBLE_EQ(
      figures(kTwoH200 + "    mem_bandwidth: 8.4TB/s\n    measured: 2026-11-27\n").bandwidth,
      8.4e12);
  EXPECT_DOUBLE_EQ(figures(kTwoH200 + "    mem_bandwidth: 8.4TB/s\n").bandwidth, 0.9 * 8.4e12);
  // A Mac has no fixed layer time modelled.
  EXPECT_EQ(figures("hosts:\n  - {name: m, chip: m3-ultra-80c, memory: 512GiB}\n").layer_overhead_s,
            0);
}

// nvidia-smi nvlink -s says how many links are up: a GPU with 10 of its 18 links moves 10 links'
// worth, whatever topo -m counted; with all up, the catalog's per-link figure stands.
TEST(host_figures_test, nvlinks_that_are_down_lower_the_pairs_bandwidth) {
  const std::string two =
      "hosts:\n  - name: g\n    os: {kind: linux}\n    nvlink: 18\n    gpus:\n"
      "      - {chip: h200, nvlinks: 18, nvlink_GBps: 26.562}\n"
      "      - {chip: h200, nvlinks: ";
  HostFigures h = figures(two + "10, nvlink_GBps: 26.562}\n");
  EXPECT_DOUBLE_EQ(h.gpu_link_bandwidth, 10 * 26.562e9);
  h = figures(two + "18, nvlink_GBps: 26.562}\n");
  EXPECT_DOUBLE_EQ(h.gpu_link_bandwidth, 18 * 25e9);
  // The writer keeps them.
  Cluster c = load_cluster(two + "10, nvlink_GBps: 26.562}\n", "c.yaml", Catalog::builtin());
  const std::string json = write_cluster_json(c);
  EXPECT_NE(json.find("\"nvlinks\": 10"), std::string::npos) << json;
  EXPECT_NE(json.find("\"nvlink_GBps\": 26.562"), std::string::npos) << json;
  // Out of range is an input error naming the key's line.
  try {
    figures(two + "99}\n");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("c.yaml:7"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0 to 64"), std::string::npos) << e.what();
  }
}

TEST(host_figures_test, the_slowest_pair_decides_and_pcie_is_assumed_without_a_matrix) {
  HostFigures pcie = figures(kTwoH200 + "    gpu_fabric: pcie\n");
  EXPECT_EQ(pcie.gpu_link, "PHB");
  EXPECT_DOUBLE_EQ(pcie.gpu_link_bandwidth, 18e9);  // PCIe 5 for an NVLink-4 generation GPU
  EXPECT_DOUBLE_EQ(pcie.gpu_link_latency_s, 13.2e-6);
  EXPECT_DOUBLE_EQ(pcie.gpu_link_step_s, 1.6e-6);
  // Two all-reduces, each lambda + 2(d-1)(sigma + 2h/(d beta)) over d = 2 GPUs.
  EXPECT_NEAR(in_host_collectives_s(pcie, 4096, 1),
              2 * (13.2e-6 + 2 * (1.6e-6 + 8192 / (2 * 18e9))), 1e-12);

  HostFigures sys = figures(
      "hosts:\n  - name: g\n    os: {kind: linux}\n    gpus: [{chip: a100-80gb}, {chip: "
      "a100-80gb}, {chip: a100-80gb}]\n    gpu_links: [[X, NV12, SYS], [NV12, X, NV12], [SYS, "
      "NV12, X]]\n");
  EXPECT_EQ(sys.gpus, 3);
  EXPECT_EQ(sys.gpu_link, "SYS");
  EXPECT_DOUBLE_EQ(sys.gpu_link_bandwidth, 9e9);
  EXPECT_DOUBLE_EQ(sys.gpu_link_step_s, 25e-6);

  // Without a matrix an SXM part sits on NVSwitch (its catalog fabric); a PCIe part on PCIe.
  HostFigures sxm = figures(kTwoH200);
  EXPECT_EQ(sxm.gpu_link, "NV18 (the h200's fabric: no gpu_links given)");
  EXPECT_DOUBLE_EQ(sxm.gpu_link_bandwidth, 18 * 25e9);
  HostFigures unknown = figures(
      "hosts:\n  - name: g\n    os: {kind: linux}\n    gpus: [{chip: h100-pcie}, {chip: "
      "h100-pcie}]\n");
  EXPECT_EQ(unknown.gpu_link, "PHB (assumed: no gpu_links)");
  EXPECT_DOUBLE_EQ(unknown.gpu_link_bandwidth, 18e9);
  // Slower links cost more per layer.
  EXPECT_GT(in_host_collectives_s(pcie, 8192, 8),
            in_host_collectives_s(figures(kTwoH200 + "    nvlink: 18\n"), 8192, 8));
}

TEST(host_figures_test, groups_of_gpus_take_the_slowest_link_inside_them) {
  // Two sockets of four GPUs each: PIX inside a socket, SYS across.
  std::string rows;
  for (int i = 0; i < 8; ++i) {
    rows += "      - [";
    for (int j = 0; j < 8; ++j)
      rows += std::string(j ? ", " : "") + (i == j ? "X" : i / 4 == j / 4 ? "PIX" : "SYS");
    rows += "]\n";
  }
  HostFigures box = figures(
      "hosts:\n  - name: box\n    os: {kind: linux}\n    gpus: 8 x l40s\n    "
      "gpu_links:\n" +
      rows);
  ASSERT_EQ(box.gpus, 8);
  ASSERT_EQ(box.group_links.size(), 3u);
  EXPECT_EQ(box.group_links[0].tp, 2);
  EXPECT_EQ(box.group_links[0].link, "PIX");
  EXPECT_EQ(box.group_links[1].link, "PIX");  // gpu0-3 and gpu4-7 stay inside their socket
  EXPECT_EQ(box.group_links[2].link, "SYS");
  EXPECT_EQ(box.gpu_link, "SYS");
  EXPECT_EQ(tensor_degrees(box, 32, 8), (std::vector<int>{8, 4, 2, 1}));
  // A degree must divide the heads: 12 heads cannot be split 8 ways.
  EXPECT_EQ(tensor_degrees(box, 12, 4), (std::vector<int>{4, 2, 1}));
  EXPECT_EQ(tensor_degrees(box, 32, 2), (std::vector<int>{8, 4, 2, 1}));  // KV heads replicate

  HostFigures four = at_tensor_degree(box, 4);
  EXPECT_EQ(four.tp, 4);
  EXPECT_EQ(four.gpu_stages, 2);
  EXPECT_EQ(four.gpu_link, "PIX");
  EXPECT_DOUBLE_EQ(four.bandwidth, box.bandwidth / 2);  // one group works on a token at a time
  EXPECT_DOUBLE_EQ(four.flops, box.flops / 2);
  EXPECT_DOUBLE_EQ(four.usable_bytes, box.usable_bytes);  // every GPU still holds layers
  EXPECT_DOUBLE_EQ(four.overhead_s, 2 * box.overhead_s);
  EXPECT_LT(in_host_collectives_s(four, 8192, 1), in_host_collectives_s(box, 8192, 1));
  HostFigures one = at_tensor_degree(box, 1);
  EXPECT_EQ(one.gpu_stages, 8);
  EXPECT_EQ(in_host_collectives_s(one, 8192, 1), 0);
  EXPECT_THROW(at_tensor_degree(box, 3), Error);

  // Without a matrix every group is assumed to cross PCIe; a single GPU has no choice.
  HostFigures plain = figures(kTwoH200);
  EXPECT_EQ(tensor_degrees(plain, 32, 8), (std::vector<int>{2, 1}));
  EXPECT_EQ(tensor_degrees(figures("hosts:\n  - name: g\n    os: {kind: linux}\n    gpus: "
                                   "[{chip: h200}]\n"),
                           32, 8),
            (std::vector<int>{1}));
}

TEST(host_figures_test, a_host_overrides_its_gpu_link_figures) {
  HostFigures h = figures(kTwoH200 +
                          "    nvlink: 18\n    gpu_link_latency_us: 10\n    gpu_link_step_us: 2\n"
                          "    gpu_link_bandwidth_gbps: 1600\n");
  EXPECT_EQ(h.gpu_link, "NV18");
  EXPECT_DOUBLE_EQ(h.gpu_link_latency_s, 10e-6);
  EXPECT_DOUBLE_EQ(h.gpu_link_step_s, 2e-6);
  EXPECT_DOUBLE_EQ(h.gpu_link_bandwidth, 200e9);  // 1600 Gb/s
  EXPECT_NEAR(in_host_collectives_s(h, 4096, 1), 2 * (10e-6 + 2 * 2e-6) + 4 * 4096 / 200e9 / 2 * 2,
              1e-12);
  // The figures survive the cluster file.
  Cluster c =
      load_cluster(kTwoH200 + "    gpu_link_step_us: 2\n    gpu_link_bandwidth_gbps: 1600\n",
                   "c.yaml", Catalog::builtin());
  const std::string json = write_cluster_json(c);
  EXPECT_NE(json.find("\"gpu_link_step_us\": 2"), std::string::npos) << json;
  EXPECT_NE(json.find("\"gpu_link_bandwidth_gbps\": 1600"), std::string::npos) << json;
  EXPECT_THROW(figures(kTwoH200 + "    gpu_link_step_us: -1\n"), Error);
}

}  // namespace
}  // namespace meshplan::host_figures_test
