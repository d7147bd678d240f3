// The tables `meshplan profile` writes against published or measured decode throughput
// (tests/data/profile_reference.json, each figure with its source): within 35 % for every point
// not listed as a known miss, and still outside for the known misses (so their notes stay true).
// A case may hold itself to its own "tolerance": the GPU points measured with an engine's fused
// kernels hold to 5 %; those of eager PyTorch layers, slower than any engine, to 50 %.
// The ratios are printed; docs/cost-model.md ("Accuracy of the throughput tables") quotes them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/cluster/host_figures.hpp"
#include "lib/core/file_system.hpp"
#include "lib/models/model_loader.hpp"
#include "solvers/problem/throughput_profile.hpp"
#include "tests/test_support.hpp"

namespace meshplan::profile_accuracy_test {
namespace {

using nlohmann::json;
using testing::read_text;
using testing::run_meshplan;
using testing::source_path;
using testing::temp_dir;

constexpr double kTolerance = 0.35;

// A cluster of one host as the case describes it: a Mac with its chip and memory, or a Linux
// host with its GPUs (and NVLinks); with the case's stage overhead where its engine needs its own.
std::string one_host_cluster(const json& c) {
  std::string chip = c["chip"];
  std::string host;
  if (c["gpu"].get<bool>()) {
    host = "  - name: h\n    os: {kind: linux}\n    gpus: [";
    for (int g = 0; g < c.value("gpus", 1); ++g)
      host += (g ? ", {name: gpu" : "{name: gpu") + std::to_string(g) + ", chip: " + chip + "}";
    host += "]\n";
    if (c.contains("nvlink")) host += "    nvlink: " + c["nvlink"].dump() + "\n";
  } else {
    host = "  - name: h\n    chip: " + chip +
           "\n    memory: " + std::to_string(c["memory_GiB"].get<int>()) + "GiB\n";
  }
  if (c.contains("stage_overhead_ms"))
    host += "    stage_overhead_ms: " + c["stage_overhead_ms"].dump() + "\n";
  return "hosts:\n" + host;
}

std::string model_arg(const json& c) {
  std::string m = c["model"];
  return m.find('/') != std::string::npos ? source_path(m) : m;
}

TEST(profile_accuracy_test, tables_within_35_percent_of_published_decode_throughput) {
  const json ref = json::parse(read_text(source_path("tests/data/profile_reference.json")));
  const std::string dir = temp_dir();
  RealFileSystem fs;
  int within = 0, misses = 0;
  for (const json& c : ref["cases"]) {
    const std::string id = c["id"];
    const std::string cluster_path = dir + "/" + id + ".yaml";
    std::ofstream(cluster_path) << one_host_cluster(c);
    const std::string quant = c["quant"];
    ModelDesc model = load_model(model_arg(c), quant, fs);
    Cluster cluster = load_cluster(read_text(cluster_path), cluster_path, Catalog::builtin());
    HostFigures host = host_figures(cluster.hosts.at(0), Catalog::builtin());
    std::vector<int> known_miss;
    if (c.contains("known_miss")) known_miss = c["known_miss"]["streams"].get<std::vector<int>>();
    const int layers = c.value("layers", model.num_layers());
    const double tolerance = c.value("tolerance", kTolerance);
    for (const json& p : c["points"]) {
      const int n = p["streams"];
      std::vector<std::string> args = {"profile",
                                       "-c",
                                       cluster_path,
                                       "-m",
                                       model_arg(c),
                                       "--streams",
                                       std::to_string(n),
                                       "--context",
                                       std::to_string(c["context"].get<int>())};
      if (!quant.empty()) args.insert(args.end(), {"--quant", quant});
      auto r = run_meshplan(args);
      ASSERT_EQ(r.exit_code, 0) << id << ": " << r.err;
      ThroughputProfile profile = parse_throughput_profile(r.out, id + ".yaml");
      const std::vector<double>& t = profile.hosts.at("h");
      ASSERT_GE(static_cast<int>(t.size()), layers) << id << ": the host cannot hold the model";
      double predicted = t[static_cast<size_t>(layers - 1)];
      if (c["whole_model"].get<bool>())
        predicted = 1 / (1 / predicted + head_seconds_per_token(host, model, n));
      const double measured = p["tokens_per_s"];
      const double ratio = predicted / measured;
      const bool miss = std::find(known_miss.begin(), known_miss.end(), n) != known_miss.end();
      std::printf(
          "profile accuracy: %-34s streams %2d  measured %8.2f  predicted %8.2f  ratio %.2f%s\n",
          id.c_str(), n, measured, predicted, ratio, miss ? "  (known miss)" : "");
      if (miss) {
        EXPECT_GT(std::fabs(ratio - 1), tolerance)
            << id << " at " << n << " streams is now within " << tolerance * 100
            << " %: drop it from known_miss";
        ++misses;
      } else {
        EXPECT_LE(std::fabs(ratio - 1), tolerance)
            << id << " at " << n << " streams (tolerance " << tolerance * 100 << " %)";
        ++within;
      }
    }
  }
  // Both kinds of hardware and more than one stream are covered.
  EXPECT_GE(within, 8);
  std::printf("profile accuracy: %d points within 35 %%, %d known misses\n", within, misses);
}

}  // namespace
}  // namespace meshplan::profile_accuracy_test
