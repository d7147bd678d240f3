// The decode speed of one host against a pipeline over N hosts, predicted by `plan` and measured by
// `measure` against Debian's llama.cpp running the emitted launch on the namespace cluster
// (tests/llama/llama_cluster.hpp). Not a test: timings depend on the machine; it prints, per N,
// the plan's decode tokens/s, the measured one (the median of three), and the ratio one host / N
// hosts both ways.
//
//   build/tests/meshplan_llama_pipeline_bench [TOKENS [LLAMA-SERVER-ARGS...]]
//   (root, after tests/llama/sid_chroot.sh; e.g. `128 -t 1` runs llama-server on one thread)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "tests/llama/llama_cluster.hpp"

namespace meshplan::llama_pipeline_bench {
namespace {

using nlohmann::json;

struct Point {
  int hosts = 0;
  double predicted = 0;  // decode tokens/s of one stream
  double measured = 0;
};

Point run(testing::LlamaCluster& cluster, int hosts, int tokens,
          const std::vector<std::string>& main_args) {
  const std::string name = "bench-" + std::to_string(hosts);
  std::vector<std::string> args = {"--strategy",          "pipeline",    "--min-hosts",
                                   std::to_string(hosts), "--max-hosts", std::to_string(hosts)};
  json plan = cluster.plan_and_emit(name, args);
  testing::EngineProcesses processes;
  testing::Launched l =
      cluster.launch(cluster.work() + "/" + name + "/launch", processes, 8, main_args);
  if (l.answer.find("\"tokens_predicted\":8") == std::string::npos)
    throw std::runtime_error("the launch over " + std::to_string(hosts) +
                             " hosts does not answer: " + l.answer);
  const std::string dir = cluster.work() + "/" + name;
  // Three measurements of the same launch, the median kept: four processes share two cores, and
  // one slow moment moves a single figure by a third.
  std::vector<double> measured;
  for (int i = 0; i < 3; ++i) {
    auto m = testing::run_meshplan({"measure", "--plan", dir + "/plan.json", "-c",
                                    cluster.cluster_file(), "-o", dir + "/measured.json",
                                    "--concurrency", "1", "--requests", "6", "--prompt-tokens", "8",
                                    "--output-tokens", std::to_string(tokens), "--json"});
    if (m.exit_code != 0) throw std::runtime_error("measure failed: " + m.err);
    measured.push_back(json::parse(m.out)["levels"][0]["stream_tokens_per_s"].get<double>());
  }
  std::sort(measured.begin(), measured.end());
  Point p;
  p.hosts = static_cast<int>(plan["ranks"].size());
  p.predicted = plan["predicted"]["decode_tokens_per_s"].get<double>();
  p.measured = measured[1];
  return p;
}

}  // namespace
}  // namespace meshplan::llama_pipeline_bench

int main(int argc, char** argv) {
  const int tokens = argc > 1 ? std::atoi(argv[1]) : 128;
  const std::vector<std::string> main_args(argv + std::min(argc, 2), argv + argc);
  if (std::string why = meshplan::testing::llama_unavailable_reason(); !why.empty()) {
    std::fprintf(stderr, "llama_pipeline_bench: %s\n", why.c_str());
    return 2;
  }
  try {
    meshplan::testing::LlamaCluster cluster;
    // The README's session calibrated the three namespaces at once, on two shared cores; each
    // alone gives the figures three machines would.
    auto c = cluster.meshplan(
        {"calibrate", "-c", cluster.cluster_file(), "-o", cluster.cluster_file(), "--jobs", "1"});
    if (c.exit_code != 0) throw std::runtime_error("calibrate --jobs 1 failed: " + c.err);
    std::vector<meshplan::llama_pipeline_bench::Point> points;
    for (int n = 1; n <= 3; ++n)
      points.push_back(meshplan::llama_pipeline_bench::run(cluster, n, tokens, main_args));
    std::printf("%-6s %12s %12s %18s %18s %10s\n", "hosts", "predicted", "measured",
                "1/N predicted", "1/N measured", "deviation");
    for (const auto& p : points) {
      const double rp = points[0].predicted / p.predicted, rm = points[0].measured / p.measured;
      std::printf("%-6d %12.1f %12.1f %18.3f %18.3f %9.1f%%\n", p.hosts, p.predicted, p.measured,
                  rp, rm, (rp / rm - 1) * 100);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llama_pipeline_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
