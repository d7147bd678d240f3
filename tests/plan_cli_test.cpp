// `meshplan plan` with the optimal solver, as a user runs it: host selection, pins, host-count
// limits, baselines and the infeasible cases (exit 1 with the fix, exit 2 for bad options).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_support.hpp"

namespace meshplan::plan_cli_test {
namespace {

using nlohmann::json;
using testing::read_text;
using testing::run_meshplan;
using testing::source_path;

const std::string kM3 = source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");
const std::string kEth = source_path("examples/clusters/ethernet-5-node.yaml");

// For llama.cpp RPC, which takes the planned split (mlx-lm, inferred for Macs, loads its own).
json plan_json(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"plan",     "--json",   "--strategy",
                                   "pipeline", "--engine", "llama-rpc"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_meshplan(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json();
}

TEST(plan_cli_test, optimal_is_default_for_a_split_taking_engine_and_beats_proportional) {
  json p = plan_json({"-c", kEth, "-m", "llama-3.3-70b-4bit"});
  EXPECT_EQ(p["solver"]["name"], "optimal");
  EXPECT_TRUE(p["solver"]["optimal"].get<bool>());
  // 37 GiB fit on one M2 Ultra: the fastest single host, the others left out.
  ASSERT_EQ(p["ranks"].size(), 1u);
  EXPECT_EQ(p["baselines"][0]["solver"], "proportional");
  EXPECT_EQ(p["baselines"][0]["hosts"].size(), 5u);
  EXPECT_GT(p["baselines"][0]["speedup"].get<double>(), 1.0);
  EXPECT_EQ(p["baselines"][1]["solver"], "single-host");
  EXPECT_NEAR(p["baselines"][1]["speedup"].get<double>(), 1.0, 1e-9);
  int used = 0;
  for (const auto& h : p["hosts"])
    used += h["used"].get<bool>();
  EXPECT_EQ(used, 1);
  EXPECT_EQ(p["hosts"].size(), 5u);
  EXPECT_LE(p["bound"]["token_latency_ms"].get<double>(),
            p["predicted"]["token_latency_ms"].get<double>());
  // The proportional solver is still there and is never faster.
  json q = plan_json({"-c", kEth, "-m", "llama-3.3-70b-4bit", "--solver", "proportional"});
  EXPECT_EQ(q["ranks"].size(), 5u);
  EXPECT_GE(q["predicted"]["token_latency_ms"].get<double>(),
            p["predicted"]["token_latency_ms"].get<double>());
  EXPECT_FALSE(q["solver"]["optimal"].get<bool>());
}

TEST(plan_cli_test, table_shows_bound_baselines_and_proof) {
  auto r = run_meshplan({"plan", "-c", kEth, "-m", "deepseek-v3.1-4bit", "--strategy", "pipeline",
                         "--engine", "llama-rpc"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Lower bound:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Baseline proportional:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Baseline single-host: not feasible (no host holds the whole model"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(proven optimal)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("left out:"), std::string::npos) << r.out;
}

TEST(plan_cli_test, pins_and_host_limits_are_honoured) {
  json p = plan_json({"-c", kEth, "-m", "llama-3.3-70b-4bit", "--pin", "mini-m4-pro=10-20"});
  bool found = false;
  for (const auto& r : p["ranks"]) {
    if (r["host"] != "mini-m4-pro") continue;
    found = true;
    EXPECT_EQ(r["layers"][0], 10);
    EXPECT_EQ(r["layers"][1], 21);
  }
  EXPECT_TRUE(found);
  json q = plan_json({"-c", kM3, "-m", "deepseek-v3.1-4bit", "--min-hosts", "3"});
  EXPECT_EQ(q["ranks"].size(), 3u);
  json s = plan_json({"-c", kEth, "-m", "deepseek-v3.1-4bit", "--max-hosts", "3", "--hosts",
                      "mini-m4-pro,mbp-m3-max,mbp-m4-max,studio-1,studio-2"});
  EXPECT_LE(s["ranks"].size(), 3u);
}

TEST(plan_cli_test, infeasible_requests_exit_1_with_the_fix) {
  auto r = run_meshplan({"plan", "-c", kEth, "-m", "deepseek-v3.1-4bit", "--max-hosts", "2"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("allow --max-hosts 3"), std::string::npos) << r.err;
  r = run_meshplan({"plan", "-c", kEth, "-m", "deepseek-v3.1-4bit", "--pin", "mini-m4-pro=0-20"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("mini-m4-pro needs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GiB short"), std::string::npos) << r.err;
  r = run_meshplan({"plan", "-c", kEth, "-m", "llama-3.1-405b-8bit", "--hosts",
                    "studio-1,studio-2,mbp-m3-max", "--context", "128k"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("a context of at most"), std::string::npos) << r.err;
}

TEST(plan_cli_test, bad_pins_and_limits_exit_2) {
  for (std::vector<std::string> extra : std::vector<std::vector<std::string>>{
           {"--pin", "nobody=0-3"},
           {"--pin", "studio-1=0-200"},
           {"--pin", "studio-1=0-10", "--pin", "studio-2=5-20"},
           {"--min-hosts", "4", "--max-hosts", "2"},
           {"--min-hosts", "9"},
           {"--pin", "studio-1=0-10", "--solver", "proportional"}}) {
    std::vector<std::string> args = {"plan", "-c", kEth, "-m", "llama-3.3-70b-4bit"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_meshplan(args);
    EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(extra) << ": " << r.err;
  }
}

// A typo in the model or an option is reported before the cluster file is read: it does not wait
// for a large cluster, and is the error the user sees even when the cluster is broken too.
TEST(plan_cli_test, cheap_arguments_are_checked_before_the_cluster_is_read) {
  std::string broken = testing::temp_dir() + "/broken.yaml";
  { std::ofstream(broken) << "hosts: [\n"; }
  auto r = run_meshplan({"plan", "-c", broken, "-m", "lama-3.3-70b-4bit"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown model \"lama-3.3-70b-4bit\""), std::string::npos) << r.err;
  r = run_meshplan({"plan", "-c", broken, "-m", "llama-3.3-70b-4bit", "--context", "lots"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--context"), std::string::npos) << r.err;
  r = run_meshplan({"plan", "-c", broken, "-m", "llama-3.3-70b-4bit"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("broken.yaml:"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace meshplan::plan_cli_test

namespace meshplan::plan_cli_test {
namespace {

// A host of 2 x H200 joined by NV18: its second GPU splits every layer and adds two NVLink
// all-reduces per layer, so at batch 1 it gains far less than 2x for an 8B model (the figures
// summed into one device predicted 355 tokens/s), and more for a 70B one, whose layers take
// longer against the same all-reduces.
TEST(plan_cli_test, a_second_gpu_splits_layers_and_pays_for_its_all_reduces) {
  const std::string dir = testing::temp_dir();
  auto cluster = [&](int gpus) {
    std::string path = dir + "/h200x" + std::to_string(gpus) + ".yaml";
    std::string text = "hosts:\n  - name: g\n    os: {kind: linux}\n    memory: 2TiB\n    gpus: [";
    for (int g = 0; g < gpus; ++g)
      text += g ? ", {chip: h200}" : "{chip: h200}";
    text += "]\n";
    if (gpus > 1) text += "    nvlink: 18\n";
    std::ofstream(path) << text;
    return path;
  };
  auto tps = [&](int gpus, const std::string& model) {
    json p = plan_json({"-c", cluster(gpus), "-m", model, "--context", "4096"});
    return p["predicted"]["decode_tokens_per_s"].get<double>();
  };
  const double one = tps(1, "llama-3.1-8b-bf16"), two = tps(2, "llama-3.1-8b-bf16");
  EXPECT_GT(two, one);
  EXPECT_LT(two, 1.5 * one);
  // The measured pair (tests/data/tp_decode_h100x2.json, H100s): 1.28x for 8B, 1.71x for 70B.
  const double big_one = tps(1, "llama-3.3-70b-8bit"), big_two = tps(2, "llama-3.3-70b-8bit");
  EXPECT_GT(big_two / big_one, two / one);
  EXPECT_LT(big_two / big_one, 2.0);
}

// An 8-GPU host as nvidia-smi topo -m would show it: NV18 between every pair (NVSwitch), or two
// sockets of four PCIe GPUs.
std::string gpu_host(const std::string& name, const std::string& chip, bool nvswitch) {
  std::string text = "  - name: " + name +
                     "\n    os: {kind: linux}\n    memory: 2TiB\n    gpus: 8 x " + chip + "\n";
  if (nvswitch) return text + "    nvlink: 18\n";
  text += "    gpu_links:\n";
  for (int i = 0; i < 8; ++i) {
    text += "      - [";
    for (int j = 0; j < 8; ++j)
      text += std::string(j ? ", " : "") + (i == j ? "X" : i / 4 == j / 4 ? "PIX" : "SYS");
    text += "]\n";
  }
  return text;
}

TEST(plan_cli_test, the_tensor_parallel_degree_follows_the_gpu_fabric) {
  const std::string dir = testing::temp_dir();
  const std::string hgx = dir + "/hgx.yaml", pcie = dir + "/pcie.yaml";
  std::ofstream(hgx) << "hosts:\n" << gpu_host("hgx", "h100-sxm", true);
  std::ofstream(pcie) << "hosts:\n" << gpu_host("box", "l40s", false);

  // NVSwitch: every layer over all eight GPUs, each holding an eighth.
  json p = plan_json({"-c", hgx, "-m", "llama-3.3-70b-bf16"});
  ASSERT_EQ(p["ranks"].size(), 1u);
  const json& r = p["ranks"][0];
  EXPECT_EQ(r["tp"], 8);
  ASSERT_EQ(r["gpu_stages"].size(), 1u);
  EXPECT_EQ(r["gpu_stages"][0]["devices"].size(), 8u);
  EXPECT_EQ(r["gpu_stages"][0]["devices"][7], "hgx/gpu7");
  EXPECT_NEAR(r["gpu_stages"][0]["bytes_per_gpu"].get<double>(), r["total_bytes"].get<double>() / 8,
              1.0);
  EXPECT_LE(r["gpu_stages"][0]["bytes_per_gpu"].get<double>(),
            r["gpu_stages"][0]["usable_per_gpu"].get<double>());
  EXPECT_TRUE(p["solver"]["optimal"].get<bool>());
  EXPECT_LE(p["bound"]["token_latency_ms"].get<double>(),
            p["predicted"]["token_latency_ms"].get<double>());

  // PCIe across two sockets: groups of four inside a socket, two of them in a pipeline, rather
  // than all-reducing across the sockets; each GPU holds its group's layers, a quarter each.
  json q = plan_json({"-c", pcie, "-m", "llama-3.3-70b-bf16"});
  const json& s = q["ranks"][0];
  EXPECT_EQ(s["tp"], 4);
  ASSERT_EQ(s["gpu_stages"].size(), 2u);
  EXPECT_EQ(s["gpu_stages"][0]["devices"],
            json::array({"box/gpu0", "box/gpu1", "box/gpu2", "box/gpu3"}));
  EXPECT_EQ(s["gpu_stages"][1]["devices"][0], "box/gpu4");
  EXPECT_EQ(s["gpu_stages"][0]["layers"][0], 0);
  EXPECT_EQ(s["gpu_stages"][0]["layers"][1], s["gpu_stages"][1]["layers"][0]);
  EXPECT_EQ(s["gpu_stages"][1]["layers"][1], 80);
  double held = 0;
  for (const json& g : s["gpu_stages"]) {
    EXPECT_LE(g["bytes_per_gpu"].get<double>(), g["usable_per_gpu"].get<double>());
    held += 4 * g["bytes_per_gpu"].get<double>();
  }
  EXPECT_NEAR(held, s["total_bytes"].get<double>(), 8.0);
  // The chosen degree is the fastest of those tried, and the notes say what each gave.
  const std::string notes = q["notes"].dump();
  EXPECT_NE(notes.find("box tp 4 x 2 stages"), std::string::npos) << notes;
  EXPECT_NE(notes.find("box tp 8:"), std::string::npos) << notes;
  EXPECT_EQ(q["hosts"][0]["tp"], 4);
  EXPECT_EQ(q["hosts"][0]["gpu_link"], "PIX");  // the link inside a group of four

  // The table names each group's GPUs and their memory.
  std::string table = run_meshplan({"plan", "-c", pcie, "-m", "llama-3.3-70b-bf16"}).out;
  EXPECT_NE(table.find("rank 0 box/gpu0-gpu3 (tp 4): layers 0-"), std::string::npos) << table;
}

json pipeline_plan_json_of(const std::string& cluster) {
  auto r = run_meshplan({"plan", "-c", cluster, "-m", "llama-3.3-70b-bf16", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json();
}

// Without gpu_links an SXM part sits on NVSwitch by construction (its catalog fabric, NV18), a
// PCIe part on PCIe; the plan says which it priced the all-reduces over and where it came from.
TEST(plan_cli_test, a_gpu_part_without_gpu_links_gets_its_own_fabric_and_says_so) {
  const std::string dir = testing::temp_dir();
  auto box = [&](const std::string& chip) {
    std::string path = dir + "/" + chip + ".yaml";
    std::ofstream(path) << "hosts:\n  - name: box\n    os: {kind: linux}\n    memory: 2TiB\n"
                        << "    gpus: 8 x " << chip << "\n";
    return path;
  };
  auto sxm = run_meshplan({"plan", "-c", box("h100-sxm"), "-m", "llama-3.3-70b-bf16"});
  ASSERT_EQ(sxm.exit_code, 0) << sxm.err;
  EXPECT_NE(sxm.out.find("(tp 8)"), std::string::npos) << sxm.out;
  EXPECT_NE(sxm.out.find("box: all-reduces over NV18 (the h100-sxm's fabric: no gpu_links given)"),
            std::string::npos)
      << sxm.out;
  auto pcie = run_meshplan({"plan", "-c", box("h100-pcie"), "-m", "llama-3.3-70b-bf16"});
  ASSERT_EQ(pcie.exit_code, 0) << pcie.err;
  EXPECT_NE(pcie.out.find("all-reduces over PHB (assumed: no gpu_links)"), std::string::npos)
      << pcie.out;
  // The SXM box is faster than the two parts' memory bandwidths alone make it (3.35 against
  // 2.0 TB/s): its all-reduces cross NVSwitch.
  json a = pipeline_plan_json_of(box("h100-sxm")), b = pipeline_plan_json_of(box("h100-pcie"));
  EXPECT_GT(a["predicted"]["decode_tokens_per_s"].get<double>(),
            3.35 / 2.0 * b["predicted"]["decode_tokens_per_s"].get<double>());
}

// --tensor-degree fixes the pipeline's groups inside a host: TP 2 x 2 stages on four GPUs.
TEST(plan_cli_test, tensor_degree_fixes_the_groups_of_gpus_inside_a_host) {
  const std::string path = testing::temp_dir() + "/four.yaml";
  std::ofstream(path) << "hosts:\n  - name: g\n    os: {kind: linux}\n    memory: 2TiB\n"
                         "    gpus: 4 x h200\n";
  auto r = run_meshplan({"plan", "-c", path, "-m", "llama-3.1-8b-bf16", "--strategy", "pipeline",
                         "--tensor-degree", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json p = json::parse(r.out);
  EXPECT_EQ(p["ranks"][0]["tp"], 2);
  EXPECT_EQ(p["ranks"][0]["gpu_stages"].size(), 2u);
  auto free = run_meshplan({"plan", "-c", path, "-m", "llama-3.1-8b-bf16", "--json"});
  ASSERT_EQ(free.exit_code, 0) << free.err;
  EXPECT_EQ(json::parse(free.out)["ranks"][0]["tp"], 4);  // the fastest, unasked
  // A degree the host cannot run, or without the pipeline strategy, is refused with the reason.
  auto odd = run_meshplan({"plan", "-c", path, "-m", "llama-3.1-8b-bf16", "--strategy", "pipeline",
                           "--tensor-degree", "3"});
  EXPECT_EQ(odd.exit_code, 2);
  EXPECT_NE(odd.err.find("--tensor-degree 3: host g can split a layer of llama-3.1-8b-bf16 over "
                         "4, 2, 1 of its 4 GPUs"),
            std::string::npos)
      << odd.err;
  auto tensor =
      run_meshplan({"plan", "-c", path, "-m", "llama-3.1-8b-bf16", "--tensor-degree", "2"});
  EXPECT_EQ(tensor.exit_code, 2);
  EXPECT_NE(tensor.err.find("give --strategy pipeline with it"), std::string::npos) << tensor.err;
  auto mac = run_meshplan(
      {"plan", "-c", testing::source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml"), "-m",
       "llama-3.1-8b-bf16", "--strategy", "pipeline", "--tensor-degree", "2"});
  EXPECT_EQ(mac.exit_code, 2);
  EXPECT_NE(mac.err.find("no candidate host has more than one GPU"), std::string::npos) << mac.err;
}

TEST(plan_cli_test, under_the_throughput_objective_the_streams_together_choose_the_degree) {
  const std::string dir = testing::temp_dir();
  const std::string pcie = dir + "/pcie-serving.yaml";
  std::ofstream(pcie) << "hosts:\n" << gpu_host("box", "l40s", false);
  auto r = run_meshplan({"plan", "--json", "-c", pcie, "-m", "llama-3.1-8b-bf16", "--objective",
                         "throughput", "--concurrency", "32"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json p = json::parse(r.out);
  // Every combination is listed with the tokens/s of its 32 streams; the chosen one is the best.
  double best = 0, chosen = 0;
  int listed = 0;
  for (const json& n : p["notes"]) {
    const std::string s = n.get<std::string>();
    const size_t at = s.find(" tokens/s of the streams together");
    if (at == std::string::npos) continue;
    ++listed;
    const double v = std::stod(s.substr(s.rfind(' ', at - 1) + 1));
    best = std::max(best, v);
    if (s.find("(chosen)") != std::string::npos) chosen = v;
  }
  EXPECT_EQ(listed, 4) << p["notes"].dump();
  EXPECT_EQ(chosen, best);
  EXPECT_NEAR(p["serving"]["aggregate_tokens_per_s"].get<double>(), chosen, 0.06 * chosen);
  EXPECT_LT(p["ranks"][0]["tp"].get<int>(), 8);  // not all-reducing across the sockets
}

TEST(plan_cli_test, two_hgx_nodes_over_infiniband_get_tensor_inside_and_pipeline_across) {
  const std::string dir = testing::temp_dir();
  const std::string path = dir + "/two-hgx.yaml";
  std::ofstream(path) << "hosts:\n"
                      << gpu_host("node-a", "h100-sxm", true)
                      << gpu_host("node-b", "h100-sxm", true)
                      << "links:\n  - {topology: switch, kind: ib-ndr, hosts: all}\n";
  // 756 GiB of weights do not fit in one node's 8 x 80 GB: two stages, eight-way TP in each.
  json p = plan_json({"-c", path, "-m", "llama-3.1-405b-bf16", "--context", "4096"});
  ASSERT_EQ(p["ranks"].size(), 2u);
  int layers = 0;
  for (const json& r : p["ranks"]) {
    EXPECT_EQ(r["tp"], 8);
    ASSERT_EQ(r["gpu_stages"].size(), 1u);
    EXPECT_LE(r["gpu_stages"][0]["bytes_per_gpu"].get<double>(),
              r["gpu_stages"][0]["usable_per_gpu"].get<double>());
    layers += r["layers"][1].get<int>() - r["layers"][0].get<int>();
  }
  EXPECT_EQ(layers, 126);
  EXPECT_NE(p["ranks"][0]["hop_to_next"].dump().find("ib-ndr"), std::string::npos)
      << p["ranks"][0]["hop_to_next"].dump();
  EXPECT_TRUE(p["solver"]["optimal"].get<bool>());
}

TEST(plan_cli_test, gpus_given_as_a_count_of_one_chip) {
  const std::string dir = testing::temp_dir();
  const std::string bad = dir + "/bad-gpus.yaml";
  std::ofstream(bad) << "hosts:\n  - name: g\n    os: {kind: linux}\n    gpus: eight h100s\n";
  auto r = run_meshplan({"plan", "-c", bad, "-m", "llama-3.1-8b-bf16"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad-gpus.yaml:4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"<count> x <chip>\""), std::string::npos) << r.err;
  std::ofstream(bad) << "hosts:\n  - name: g\n    os: {kind: linux}\n    gpus: 2 x h300\n";
  r = run_meshplan({"plan", "-c", bad, "-m", "llama-3.1-8b-bf16"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("h300"), std::string::npos) << r.err;
  // A GB10 shares its DGX Spark's memory: one to a machine.
  std::ofstream(bad) << "hosts:\n  - name: g\n    os: {kind: linux}\n    gpus: 2 x gb10\n";
  r = run_meshplan({"plan", "-c", bad, "-m", "llama-3.1-8b-bf16"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad-gpus.yaml:4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a gb10 is the only GPU of its machine"), std::string::npos) << r.err;
}

// The Grace parts' GPUs reach one another through NVLink switches (GH200 NVL32, GB200 NVL72):
// without gpu_links a tray of four GB200 GPUs all-reduces over NV18 on NVLink 5 and says so, and
// runs DeepSeek V3.1 at TP 4 faster than the same GPUs joined across PCIe would.
TEST(plan_cli_test, grace_parts_get_their_nvlink_switch_fabric) {
  const std::string dir = testing::temp_dir();
  auto tray = [&](const std::string& chip, const std::string& links) {
    const std::string path = dir + "/" + chip + links + ".yaml";
    std::ofstream(path) << "hosts:\n  - name: tray\n    os: {kind: linux}\n    memory: 1TiB\n"
                        << "    gpus: 4 x " << chip << "\n"
                        << links;
    return path;
  };
  auto r = run_meshplan({"plan", "-c", tray("gb200", ""), "-m", "deepseek-v3.1-fp8"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("tray: all-reduces over NV18 (the gb200's fabric: no gpu_links given)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(tp 4)"), std::string::npos) << r.out;
  auto gh = run_meshplan({"plan", "-c", tray("gh200", ""), "-m", "llama-3.3-70b-bf16"});
  ASSERT_EQ(gh.exit_code, 0) << gh.err;
  EXPECT_NE(gh.out.find("all-reduces over NV18 (the gh200's fabric"), std::string::npos) << gh.out;
  // The same GPUs told to cross PCIe instead are priced slower.
  const std::string pcie =
      "    gpu_links: [[X, PHB, PHB, PHB], [PHB, X, PHB, PHB], "
      "[PHB, PHB, X, PHB], [PHB, PHB, PHB, X]]\n";
  auto tps = [&](const std::string& path) {
    auto q = run_meshplan({"plan", "-c", path, "-m", "deepseek-v3.1-fp8", "--json"});
    EXPECT_EQ(q.exit_code, 0) << q.err;
    return q.exit_code == 0 ? json::parse(q.out)["predicted"]["decode_tokens_per_s"].get<double>()
                            : 0;
  };
  EXPECT_GT(tps(tray("gb200", "")), tps(tray("gb200", pcie)) * 1.05);
}

TEST(plan_cli_test, vllm_and_torchrun_follow_the_groups_of_gpus) {
  const std::string dir = testing::temp_dir();
  const std::string pcie = dir + "/pcie-emit.yaml", two = dir + "/two-hgx-emit.yaml";
  auto with_nic = [](const std::string& host, int i) {
    return host + "    interfaces: [{name: ib0, kind: ethernet, ipv4: 10.9.0." + std::to_string(i) +
           ", prefix: 24}]\n";
  };
  std::ofstream(pcie) << "hosts:\n" << with_nic(gpu_host("box", "l40s", false), 1);
  std::ofstream(two) << "hosts:\n"
                     << with_nic(gpu_host("node-a", "h100-sxm", true), 1)
                     << with_nic(gpu_host("node-b", "h100-sxm", true), 2)
                     << "links:\n  - {topology: switch, kind: ib-ndr, hosts: all, subnet: "
                        "10.9.0.0/24}\n";

  // One PCIe box: TP 4 inside a socket, its two groups the pipeline's two stages.
  const std::string plan1 = dir + "/pcie-plan.json";
  auto r = run_meshplan({"plan", "-c", pcie, "-m", "llama-3.3-70b-bf16", "-o", plan1});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json p1 = json::parse(read_text(plan1));
  const json& g = p1["ranks"][0]["gpu_stages"];
  const std::string split = std::to_string(g[0]["layers"][1].get<int>()) + "," +
                            std::to_string(80 - g[0]["layers"][1].get<int>());
  r = run_meshplan({"emit", "vllm", "-c", pcie, "--plan", plan1});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One node: vLLM starts its workers itself, with no master to meet.
  EXPECT_NE(r.out.find("VLLM_PP_LAYER_PARTITION=" + split + " vllm serve MODEL -tp 4 -pp 2\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("--nnodes"), std::string::npos) << r.out;
  // dot draws the host as a box of its GPUs, each with its group and layers, the PIX pairs as
  // edges (two sockets of six) and SYS named for the rest; Graphviz renders it.
  r = run_meshplan({"dot", "-c", pcie, "--plan", plan1});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string cut = split.substr(0, split.find(','));
  EXPECT_NE(r.out.find("subgraph \"cluster_box\" {\n    label=\"box: SYS between the GPUs "
                       "without an edge\""),
            std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find("\"box/gpu3\" [label=\"gpu3\\nl40s\\ntp 4 group 1: layers [0, " + cut + ")\""),
      std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find("\"box/gpu4\" [label=\"gpu4\\nl40s\\ntp 4 group 2: layers [" + cut + ", 80)\""),
      std::string::npos)
      << r.out;
  size_t pix = 0;
  for (size_t at = r.out.find("[label=\"PIX\""); at != std::string::npos;
       at = r.out.find("[label=\"PIX\"", at + 1))
    ++pix;
  EXPECT_EQ(pix, 12u);
  EXPECT_EQ(r.out.find("\"box/gpu3\" -- \"box/gpu4\""), std::string::npos) << r.out;
  const std::string dot_file = dir + "/pcie.dot";
  std::ofstream(dot_file) << r.out;
  EXPECT_EQ(std::system(("dot -Tsvg -o " + dir + "/pcie.svg " + dot_file).c_str()), 0);
  EXPECT_NE(read_text(dir + "/pcie.svg").find("tp 4 group 2"), std::string::npos);
  r = run_meshplan({"emit", "torchrun", "-c", pcie, "--plan", plan1});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("--nproc_per_node=8"), std::string::npos) << r.out;

  // Two HGX nodes: TP 8 in each, a pipeline of two over InfiniBand.
  const std::string plan2 = dir + "/two-hgx-plan.json";
  r = run_meshplan(
      {"plan", "-c", two, "-m", "llama-3.1-405b-bf16", "--strategy", "pipeline", "-o", plan2});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_meshplan({"emit", "vllm", "-c", two, "--plan", plan2});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" -tp 8 -pp 2 --nnodes 2 --node-rank 1 --master-addr 10.9.0."),
            std::string::npos)
      << r.out;

  // Tensor parallel over both nodes splits every layer over all sixteen GPUs.
  const std::string plan4 = dir + "/two-hgx-tensor.json";
  r = run_meshplan(
      {"plan", "-c", two, "-m", "llama-3.1-405b-bf16", "--strategy", "tensor", "-o", plan4});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_meshplan({"emit", "vllm", "-c", two, "--plan", plan4});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" -tp 16 -pp 1 --nnodes 2 "), std::string::npos) << r.out;

  // A plan file whose groups do not cover the rank's layers is refused with the position.
  json bad = json::parse(read_text(plan1));
  bad["ranks"][0]["gpu_stages"][1]["layers"][0] = 3;
  const std::string plan3 = dir + "/bad-gpu-stages.json";
  std::ofstream(plan3) << bad.dump(1);
  r = run_meshplan({"emit", "vllm", "-c", pcie, "--plan", plan3});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad-gpu-stages.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the groups of GPUs hold the rank's layers in order"), std::string::npos)
      << r.err;
}

// Four single-GPU Linux boxes (two H100 PCIe, two L40S) on a 100 GbE switch: Llama 3.1 405B 4-bit
// needs all four, an equal tensor split overflows an L40S, so the planner pairs them into two
// tensor-parallel groups in a pipeline, and vLLM runs it as -tp 2 -pp 2.
TEST(plan_cli_test, hybrid_plans_reach_vllm_dot_and_the_plan_reader) {
  const std::string dir = testing::temp_dir();
  const std::string cluster = dir + "/four-boxes.yaml", plan = dir + "/hybrid.json";
  std::ofstream out(cluster);
  out << "hosts:\n";
  for (int i = 1; i <= 4; ++i)
    out << "  - {name: box-" << i << ", os: {kind: linux}, memory: 256GiB, gpus: \"1 x "
        << (i <= 2 ? "h100-pcie" : "l40s") << "\", interfaces: [{name: eth0, kind: ethernet, "
        << "ipv4: 10.0.0." << i << ", prefix: 24, speed_gbps: 100}]}\n";
  out << "links:\n  - {topology: switch, kind: 100gbe, hosts: all, subnet: 10.0.0.0/24}\n";
  out.close();
  auto r = run_meshplan({"plan", "-c", cluster, "-m", "llama-3.1-405b-4bit", "-o", plan});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("as a pipeline of tensor-parallel groups over 4 hosts"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Alternative pipeline:"), std::string::npos) << r.out;
  json p = json::parse(read_text(plan));
  ASSERT_EQ(p["strategy"], "hybrid");
  ASSERT_EQ(p["ranks"].size(), 4u);
  EXPECT_EQ(p["ranks"][0]["tp_group"], p["ranks"][1]["tp_group"]);
  EXPECT_EQ(p["ranks"][2]["tp_group"], p["ranks"][3]["tp_group"]);
  const int cut = p["ranks"][0]["layers"][1];
  const std::string partition = std::to_string(cut) + "," + std::to_string(126 - cut);

  r = run_meshplan({"emit", "vllm", "-c", cluster, "--plan", plan});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("VLLM_PP_LAYER_PARTITION=" + partition +
                       " vllm serve MODEL -tp 2 -pp 2 --nnodes 4 --node-rank 3 "),
            std::string::npos)
      << r.out;
  // mlx_lm cannot run a group per stage: refused with the reason, nothing printed.
  r = run_meshplan({"emit", "mlx-launch", "-c", cluster, "--plan", plan});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("Group.split"), std::string::npos) << r.err;
  r = run_meshplan({"dot", "-c", cluster, "--plan", plan});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("50 % of each, tensor-parallel with " +
                       p["ranks"][0]["tp_group"][0].get<std::string>() + " + " +
                       p["ranks"][0]["tp_group"][1].get<std::string>()),
            std::string::npos)
      << r.out;

  // A tp_group that leaves out the rank's own host is refused with its position.
  json bad = p;
  bad["ranks"][0]["tp_group"] = json::array({"box-9", "box-8"});
  const std::string bad_plan = dir + "/bad-hybrid.json";
  std::ofstream(bad_plan) << bad.dump(1);
  r = run_meshplan({"emit", "vllm", "-c", cluster, "--plan", bad_plan});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad-hybrid.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the hosts this rank's layers are split over"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace meshplan::plan_cli_test

namespace meshplan::plan_cli_test {
namespace {

// The README's first command plans the bundled Mac Studios; its answer ends with the command that
// launches it, and that command, run as printed, writes an mlx.launch line that runs the plan (a
// tensor plan over the four hosts: mlx-lm without --pipeline, the JACCL hostfile of all four).
TEST(plan_cli_test, the_main_job_ends_with_a_launch_command_that_works_as_printed) {
  std::string dir = testing::temp_dir();
  std::string plan = dir + "/plan.json";
  auto r = run_meshplan({"plan", "-c", kM3, "-m", "deepseek-v3.1-4bit", "-o", plan});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string launch = "Launch: meshplan emit all -c " + kM3 + " --plan " + plan + " -o launch/\n";
  ASSERT_GE(r.out.size(), launch.size());
  EXPECT_EQ(r.out.substr(r.out.size() - launch.size()), launch) << r.out;
  EXPECT_EQ(
      r.out.rfind("deepseek-v3.1-4bit (61 layers, 351.7 GiB) as tensor parallel over 4 hosts", 0),
      0u)
      << r.out;
  auto e = run_meshplan({"emit", "all", "-c", kM3, "--plan", plan, "-o", dir + "/launch"});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  std::string mlx = read_text(dir + "/launch/mlx-launch.sh");
  EXPECT_NE(mlx.find("mlx.launch --hostfile mlx-hostfile.json --backend jaccl -- mlx_lm.server "
                     "--model MODEL --host 0.0.0.0\n"),
            std::string::npos)
      << mlx;
  auto hostfile = json::parse(read_text(dir + "/launch/mlx-hostfile.json"));
  EXPECT_EQ(hostfile["hosts"].size(), 4u);
  // Without -o the line says to save the plan first.
  auto unsaved = run_meshplan({"plan", "-c", kM3, "-m", "llama-3.1-8b-4bit"});
  ASSERT_EQ(unsaved.exit_code, 0) << unsaved.err;
  EXPECT_NE(unsaved.out.find("Launch: save the plan (-o plan.json), then meshplan emit all -c " +
                             kM3 + " --plan plan.json -o launch/\n"),
            std::string::npos)
      << unsaved.out;
}

}  // namespace
}  // namespace meshplan::plan_cli_test

namespace meshplan::plan_cli_test {
namespace {

// Two unequal Macs and Qwen3 235B at 8 bits: mlx-lm's equal split does not fit (the Ultra cannot
// hold 94 layers, the mini not 47), exo's placement by memory does and is planned; the planned
// split, which llama.cpp RPC takes, is faster even with RPC's cost per hop, and the note's
// figures are those of the plan made with --engine llama-rpc (that cost included).
TEST(plan_cli_test, a_faster_layout_another_engine_runs_is_named_with_its_figures) {
  const std::string pair = testing::source_path("tests/fixtures/clusters/ultra-and-mini.yaml");
  const std::vector<std::string> base = {
      "plan",       "-c",       pair,        "-m",  "qwen3-235b-a22b-8bit",
      "--strategy", "pipeline", "--context", "32k", "--json"};
  auto r = testing::run_meshplan(base);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json exo = json::parse(r.out);
  EXPECT_EQ(exo["engine"], "exo");
  EXPECT_EQ(exo["solver"]["name"], "proportional");
  EXPECT_NE(
      exo["engine_reason"].get<std::string>().find("mlx-lm through mlx.launch runs no layout"),
      std::string::npos);
  std::string note;
  for (const auto& n : exo["notes"])
    if (n.get<std::string>().rfind("the planned split is ", 0) == 0) note = n;
  ASSERT_FALSE(note.empty()) << exo["notes"];
  EXPECT_NE(note.find("llama.cpp RPC runs it (--engine llama-rpc)"), std::string::npos) << note;
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--engine", "llama-rpc"});
  auto q = testing::run_meshplan(args);
  ASSERT_EQ(q.exit_code, 0) << q.err;
  const json llama = json::parse(q.out);
  EXPECT_EQ(llama["solver"]["name"], "optimal");
  bool hop_named = false;
  for (const auto& n : llama["notes"])
    hop_named |= n.get<std::string>().find(
                     "every hop between stages goes through it, and its "
                     "round trips to the remote stage add 4.0 ms") != std::string::npos;
  EXPECT_TRUE(hop_named) << llama["notes"];
  // The remote stage's hop into the main host costs the link's latency and RPC's 4 ms.
  EXPECT_GT(llama["ranks"][0]["hop_to_next"]["latency_us"].get<double>(), 4000) << q.out;
  const double fast = llama["predicted"]["decode_tokens_per_s"].get<double>();
  const double slow = exo["predicted"]["decode_tokens_per_s"].get<double>();
  EXPECT_GT(fast, slow);
  EXPECT_NE(note.find(fmt::format("is {:.2f}x faster ({:.1f} tokens/s against {:.1f})", fast / slow,
                                  fast, slow)),
            std::string::npos)
      << note;
}

}  // namespace
}  // namespace meshplan::plan_cli_test
