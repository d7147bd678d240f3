// Decision fidelity: a plan is judged by the choice it makes, so for every pair of layouts
// measured on the same hardware, model and stream count, the ratio the cost model predicts
// between the two must be within 10 % of the measured ratio and name the same winner.
//
// The measurements are the device runs kept in tests/data/ (each file records its GPUs, software
// and method; layouts_decode.md tabulates them):
//   layouts_decode_h200x4.json  Llama 3.1 8B and 3.3 70B layers on 4 x H200 (NV18): one GPU, TP 2,
//                               TP 4, pipelines of 2 and 4 GPUs, TP 2 x PP 2; 1, 8 and 32 streams
//   layouts_decode_h200x2.json  the same on 2 x H200: one GPU, TP 2, a pipeline of 2
//   moe_decode_h200x2.json      Qwen3-30B-A3B's shape on one and on two H200s
//   layouts_decode_h200x4_no_p2p.json  the first file's layouts with NCCL_P2P_DISABLE=1: the GPUs
//                               joined through host memory over PCIe 5
//   mac_studio_decode_geerling.json  4 x M3 Ultra: exo's tensor parallel against llama.cpp's RPC
//                               pipeline on 1, 2 and 4 Macs, three MoE models (a published run)
// Every prediction comes from the real binary: `meshplan plan --concurrency N` on one host of
// that many GPUs, `--strategy pipeline --tensor-degree D` to fix the layout inside it.
//
// What is compared, and why:
// * The measurements time every layer with a pool of distinct layers cycled, so 70B's layers run
//   on one GPU without being held by it; the hosts here get room (usable_memory) to plan that too.
// * A pipeline measured at 8 or 32 streams ran one batch through every stage, while an engine
//   (and the plan) keeps one micro-batch per stage in flight; those pairs are left out.
// * The MoE run split the experts over the two GPUs; the plan splits the layer tensor-parallel
//   (vLLM's -tp 2). Both read half the experts' bytes per GPU; the pair is compared as such.
// * Each pair is compared faster (as measured) over slower, so a tolerance means the same in
//   every pair.
// * Measured ratios within 6 % of 1 are ties (the same configuration measured on two machines
//   differed by up to 4.2 %, and a ratio carries two figures); elsewhere the winner must match.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/test_support.hpp"

namespace meshplan::decision_fidelity_test {
namespace {

using nlohmann::json;
using testing::read_text;
using testing::run_meshplan;
using testing::source_path;
using testing::temp_dir;

constexpr double kRatioTolerance = 0.10;
constexpr double kTieBand = 0.06;

// One host of `gpus` H200s; without `link` (gpu_links) the part's own fabric (NV18) joins them,
// with "PHB" every pair crosses PCIe through the CPU.
std::string h200_host(int gpus, const std::string& link) {
  static std::map<std::pair<int, std::string>, std::string> paths;
  auto& path = paths[{gpus, link}];
  if (path.empty()) {
    path = temp_dir() + fmt::format("/h200x{}{}.yaml", gpus, link);
    std::string links;
    if (!link.empty() && gpus > 1) {
      links = "    gpu_links:\n";
      for (int i = 0; i < gpus; ++i) {
        std::vector<std::string> row(static_cast<size_t>(gpus), link);
        row[static_cast<size_t>(i)] = "X";
        links += fmt::format("      - [{}]\n", fmt::join(row, ", "));
      }
    }
    std::ofstream(path) << fmt::format(
        "hosts:\n  - name: g\n    os: {{kind: linux}}\n    memory: 2TiB\n"
        "    usable_memory: 1TiB\n    gpus: {} x h200\n{}",
        gpus, links);
  }
  return path;
}

struct Layout {
  int gpus = 1;
  int degree = 1;  // the tensor-parallel degree inside the host
  bool pipeline() const { return degree < gpus; }
};

Layout layout_of(const std::string& name) {
  static const std::map<std::string, Layout> layouts = {
      {"tp1", {1, 1}}, {"1gpu", {1, 1}}, {"tp2", {2, 2}}, {"ep2", {2, 2}},
      {"tp4", {4, 4}}, {"pp2", {2, 1}},  {"pp4", {4, 1}}, {"tp2xpp2", {4, 2}}};
  auto it = layouts.find(name);
  if (it == layouts.end()) ADD_FAILURE() << "unknown layout " << name;
  return it == layouts.end() ? Layout{} : it->second;
}

// Aggregate decode tokens/s the plan predicts for `streams` streams.
double predicted(const std::string& model, const Layout& l, int streams, const std::string& link) {
  std::vector<std::string> args = {
      "plan",  "-c", h200_host(l.gpus, link), "-m", model, "--concurrency", std::to_string(streams),
      "--json"};
  if (l.gpus > 1)
    args.insert(args.end(),
                {"--strategy", "pipeline", "--tensor-degree", std::to_string(l.degree)});
  auto r = run_meshplan(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return 0;
  return json::parse(r.out)["serving"]["aggregate_tokens_per_s"].get<double>();
}

struct Measured {
  std::string layout;
  double tokens_per_s = 0;
};

// Measured figures of one file grouped by (model, streams); of one weight format ("format" in
// measure_moe_formats.py's files) when given.
std::map<std::pair<std::string, int>, std::vector<Measured>> measured(
    const std::string& file, const std::string& format = "", const std::string& model = "") {
  std::map<std::pair<std::string, int>, std::vector<Measured>> out;
  json d = json::parse(read_text(source_path("tests/data/" + file)));
  for (const json& r : d["results"]) {
    if (!format.empty() && r.value("format", "") != format) continue;
    if (!model.empty() && r["model"] != model) continue;
    out[{r["model"].get<std::string>(), r["streams"].get<int>()}].push_back(
        {r["layout"], r["tokens_per_s"]});
  }
  return out;
}

// Checks every pair of one file on hosts whose GPUs are joined by `link` ("": the part's own);
// returns how many were compared. A pair in `misses` ("llama-3.1-8b 32 tp4/tp1", the faster first)
// is held to its winner only, and must still miss.
int check_pairs(const std::string& file, const std::string& quant, const std::string& link = "",
                std::set<std::string> misses = {}, const std::string& format = "",
                const std::string& only_model = "") {
  int pairs = 0;
  for (const auto& [key, runs] : measured(file, format, only_model)) {
    const auto& [model, streams] = key;
    std::map<std::string, double> plan;
    for (const Measured& m : runs)
      plan[m.layout] = predicted(model + "-" + quant, layout_of(m.layout), streams, link);
    for (size_t i = 0; i < runs.size(); ++i) {
      for (size_t j = i + 1; j < runs.size(); ++j) {
        if (streams > 1 &&
            (layout_of(runs[i].layout).pipeline() || layout_of(runs[j].layout).pipeline()))
          continue;
        const bool flip = runs[i].tokens_per_s < runs[j].tokens_per_s;  // the faster first
        const Measured &a = runs[flip ? j : i], &b = runs[flip ? i : j];
        const double measured_ratio = a.tokens_per_s / b.tokens_per_s;
        const double predicted_ratio = plan[a.layout] / plan[b.layout];
        const std::string what =
            fmt::format("{} {} at {} stream(s), {} / {}: measured {:.3f}, predicted {:.3f}", file,
                        model, streams, a.layout, b.layout, measured_ratio, predicted_ratio);
        if (misses.erase(fmt::format("{} {} {}/{}", model, streams, a.layout, b.layout))) {
          EXPECT_GT(std::abs(predicted_ratio / measured_ratio - 1), kRatioTolerance) << what;
        } else {
          EXPECT_NEAR(predicted_ratio / measured_ratio, 1.0, kRatioTolerance) << what;
        }
        if (std::abs(measured_ratio - 1) > kTieBand) {
          EXPECT_EQ(measured_ratio > 1, predicted_ratio > 1) << "another winner: " << what;
        }
        ++pairs;
      }
    }
  }
  EXPECT_TRUE(misses.empty()) << "known misses that are not measured pairs";
  return pairs;
}

TEST(decision_fidelity_test, dense_layouts_on_four_h200s) {
  EXPECT_EQ(check_pairs("layouts_decode_h200x4.json", "bf16"), 42);
}

// The same four H200s told not to use their NVLinks (NCCL_P2P_DISABLE=1): every all-reduce step
// goes through host memory over PCIe 5, as on GPUs without peer-to-peer access, planned as a host
// whose GPU pairs cross PCIe (PHB) with the catalog's PCIe 5 figures. At 32 streams the all-reduce
// of 256 KiB to 1 MiB over 4 GPUs takes longer than the line the catalog fits from 8 KiB to 1 MiB
// (52 and 91 us measured for 48 and 69 us), so TP 4 gains less there than predicted.
TEST(decision_fidelity_test, dense_layouts_on_four_h200s_through_host_memory) {
  EXPECT_EQ(check_pairs("layouts_decode_h200x4_no_p2p.json", "bf16", "PHB",
                        {"llama-3.1-8b 32 tp4/tp1", "llama-3.3-70b 32 tp4/tp1",
                         "llama-3.3-70b 32 tp4/tp2"}),
            42);
}

TEST(decision_fidelity_test, dense_layouts_on_two_h200s) {
  EXPECT_EQ(check_pairs("layouts_decode_h200x2.json", "bf16"), 10);
}

TEST(decision_fidelity_test, a_mixture_of_experts_on_one_and_two_h200s) {
  EXPECT_EQ(check_pairs("moe_decode_h200x2.json", "bf16"), 3);
}

// gpt-oss-120b's layers with FP8 experts (the model's bf16 does not fit one H200) and
// Qwen3-30B-A3B's in bf16 (measure_moe_formats.py, our
// own Triton kernel for FP8 and torch._grouped_mm for bf16) at 1 to 64 streams, on one H200 and
// with the experts split over two: 7 pairs each. Then two one-GPU copies sharing N requests
// against one copy over both GPUs holding all N (the two copies' figure is twice one GPU's at
// N/2): the copies win up to 8 requests and lose from 32, and the plan must say so, within 10 %.
// MXFP4 was measured too but is not held here: Hopper has no MXFP4 path, and our kernel is bound
// by decoding the 4-bit values (0.6 to 0.95 TB/s a GPU), not by the bytes it reads.
TEST(decision_fidelity_test, mixture_of_experts_formats_at_1_to_64_streams_on_h200s) {
  EXPECT_EQ(check_pairs("moe_formats_h200x2.json", "fp8", "", {}, "fp8", "gpt-oss-120b"), 7);
  EXPECT_EQ(check_pairs("moe_formats_h200x2.json", "bf16", "", {}, "bf16", "qwen3-30b-a3b"), 7);
  int pairs = 0;
  for (const auto& [format, model_name] :
       {std::pair{"fp8", "gpt-oss-120b"}, {"bf16", "qwen3-30b-a3b"}}) {
    const std::string quant = format;
    const auto runs = measured("moe_formats_h200x2.json", format, model_name);
    for (const auto& [key, at_n] : runs) {
      const auto& [model, n] = key;
      auto half = runs.find({model, n / 2});
      if (n < 2 || half == runs.end()) continue;
      double one_gpu = 0, both = 0;
      for (const Measured& m : half->second)
        if (m.layout == "1gpu") one_gpu = m.tokens_per_s;
      for (const Measured& m : at_n)
        if (m.layout == "ep2") both = m.tokens_per_s;
      ASSERT_GT(one_gpu * both, 0) << model << " " << n;
      const double measured_ratio = 2 * one_gpu / both;
      const double predicted_ratio = 2 *
                                     predicted(model + "-" + quant, layout_of("1gpu"), n / 2, "") /
                                     predicted(model + "-" + quant, layout_of("ep2"), n, "");
      const std::string what = fmt::format(
          "{} {} requests, two copies / one over two GPUs: measured {:.3f}, predicted {:.3f}",
          model, n, measured_ratio, predicted_ratio);
      EXPECT_NEAR(predicted_ratio / measured_ratio, 1.0, kRatioTolerance) << what;
      if (std::abs(measured_ratio - 1) > kTieBand) {
        EXPECT_EQ(measured_ratio > 1, predicted_ratio > 1) << "another winner: " << what;
      }
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 12);
}

// Macs: the published runs of exo's tensor parallel (RDMA, JACCL mesh) and llama.cpp's RPC
// pipeline (TCP over Thunderbolt) on the same four Mac Studios, each planned for the file it ran
// (the data file says which and why). Pairs within a chart: tensor against pipeline on as many
// Macs, and each layout against itself on the fewest Macs it was measured on. A pair the file
// lists as a known miss (with its reason) is held to its winner only.
struct MacRun {
  std::string chart, model, layout;
  int macs = 0;
  double tokens_per_s = 0;
};

double predicted_on_macs(const MacRun& run) {
  static const std::vector<std::string> hosts = {"m3-ultra-1", "m3-ultra-1,m3-ultra-2", "",
                                                 "m3-ultra-1,m3-ultra-2,m3-ultra-3,m3-ultra-4"};
  const bool tensor = run.layout == "tensor";
  auto r = run_meshplan({"plan", "-c", source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml"),
                         "-m", run.model, "--hosts", hosts.at(run.macs - 1), "--min-hosts",
                         std::to_string(run.macs), "--strategy", tensor ? "tensor" : "pipeline",
                         "--engine", tensor ? "exo" : "llama-rpc", "--backend",
                         tensor ? "jaccl" : "ring", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return 0;
  json p = json::parse(r.out);
  EXPECT_EQ(p["ranks"].size(), static_cast<size_t>(run.macs)) << run.model;
  return p["predicted"]["decode_tokens_per_s"].get<double>();
}

TEST(decision_fidelity_test, tensor_against_pipeline_on_four_mac_studios) {
  json d = json::parse(read_text(source_path("tests/data/mac_studio_decode_geerling.json")));
  std::map<std::string, std::vector<MacRun>> by_chart;
  for (const json& r : d["results"])
    by_chart[r["chart"]].push_back(
        {r["chart"], r["model"], r["layout"], r["macs"], r["tokens_per_s"]});
  std::map<std::string, std::set<std::string>> misses;
  for (const json& m : d["known_misses"])
    for (const json& pair : m["pairs"])
      misses[m["chart"]].insert(pair.get<std::string>());
  int held = 0, winners_only = 0;
  for (const auto& entry : by_chart) {
    // Named, not bound: a lambda below captures them (C++17 cannot capture a structured binding).
    const std::string& chart = entry.first;
    const std::vector<MacRun>& runs = entry.second;
    std::map<std::pair<std::string, int>, double> plan;
    std::map<std::string, int> fewest;  // by layout
    for (const MacRun& r : runs) {
      plan[{r.layout, r.macs}] = predicted_on_macs(r);
      fewest.try_emplace(r.layout, r.macs);
      fewest[r.layout] = std::min(fewest[r.layout], r.macs);
    }
    auto find = [&](const std::string& layout, int macs) -> const MacRun* {
      for (const MacRun& r : runs)
        if (r.layout == layout && r.macs == macs) return &r;
      return nullptr;
    };
    std::vector<std::pair<const MacRun*, const MacRun*>> pairs;
    for (const MacRun& r : runs) {
      if (r.layout == "tensor" && find("pipeline", r.macs))
        pairs.push_back({&r, find("pipeline", r.macs)});
      if (r.macs > fewest[r.layout]) pairs.push_back({&r, find(r.layout, fewest[r.layout])});
    }
    for (auto [a, b] : pairs) {
      if (a->tokens_per_s < b->tokens_per_s) std::swap(a, b);  // the faster first
      const std::string name = fmt::format("{} {} / {} {}", a->layout, a->macs, b->layout, b->macs);
      const double measured_ratio = a->tokens_per_s / b->tokens_per_s;
      const double predicted_ratio = plan[{a->layout, a->macs}] / plan[{b->layout, b->macs}];
      const std::string what = fmt::format("{} {}: measured {:.3f}, predicted {:.3f}", chart, name,
                                           measured_ratio, predicted_ratio);
      if (std::abs(measured_ratio - 1) > kTieBand) {
        EXPECT_EQ(measured_ratio > 1, predicted_ratio > 1) << "another winner: " << what;
      }
      if (misses[chart].erase(name)) {
        // Still a miss: when the model comes to hold it, the file's list must lose it.
        EXPECT_GT(std::abs(predicted_ratio / measured_ratio - 1), kRatioTolerance) << what;
        ++winners_only;
        continue;
      }
      EXPECT_NEAR(predicted_ratio / measured_ratio, 1.0, kRatioTolerance) << what;
      ++held;
    }
  }
  for (const auto& [chart, left] : misses)
    EXPECT_TRUE(left.empty()) << chart << " lists a miss that is not a measured pair";
  EXPECT_EQ(held, 15);
  EXPECT_EQ(winners_only, 1);
}

// Each run on its own, not only as a ratio: four M3 Ultras with exo's tensor parallel, the runs
// of mixture-of-experts models whose bytes a token and all-reduces differ the most, within 15 %.
TEST(decision_fidelity_test, exo_tensor_parallel_runs_on_mac_studios_within_15_percent) {
  json d = json::parse(read_text(source_path("tests/data/mac_studio_decode_geerling.json")));
  int runs = 0;
  for (const json& r : d["results"]) {
    if (r["layout"] != "tensor") continue;
    MacRun run{r["chart"], r["model"], r["layout"], r["macs"], r["tokens_per_s"]};
    const double predicted = predicted_on_macs(run);
    EXPECT_NEAR(predicted / run.tokens_per_s, 1.0, 0.15)
        << run.model << " on " << run.macs << " Macs: predicted " << predicted << ", measured "
        << run.tokens_per_s;
    ++runs;
  }
  EXPECT_EQ(runs, 8);
}

// The host discovery writes for the pair those measurements ran on (nvidia-smi's GPUs and
// topology, tests/fixtures/linux/*_h200x2.*): Llama 3.1 8B runs tensor-parallel over both GPUs,
// as measured (1.29x one GPU), not as a pipeline (1.00x).
TEST(decision_fidelity_test, the_discovered_two_h200_host_runs_8b_tensor_parallel) {
  const std::string path = temp_dir() + "/discovered.yaml";
  std::ofstream(path) << "hosts:\n  - name: h200\n    os: {kind: linux}\n    memory: 2TiB\n"
                         "    gpus:\n"
                         "      - {name: NVIDIA H200, chip: h200, memory: 143771MiB}\n"
                         "      - {name: NVIDIA H200, chip: h200, memory: 143771MiB}\n"
                         "    gpu_links: [[X, NV18], [NV18, X]]\n";
  auto r = run_meshplan({"plan", "-c", path, "-m", "llama-3.1-8b-bf16", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json p = json::parse(r.out);
  ASSERT_EQ(p["ranks"].size(), 1u);
  EXPECT_EQ(p["strategy"], "pipeline");
  EXPECT_EQ(p["ranks"][0]["tp"], 2) << r.out;
  EXPECT_EQ(p["ranks"][0]["gpu_stages"].size(), 1u);
}

}  // namespace
}  // namespace meshplan::decision_fidelity_test
