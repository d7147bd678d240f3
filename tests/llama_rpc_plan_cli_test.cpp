// `meshplan plan --engine llama-rpc` places and prices the pipeline the way llama.cpp runs it
// (Debian's llama.cpp 0.7.0, build 11669):
// * the main host (llama-server's) is the last device, after the rpc-servers in --rpc order, and
//   with -ngl n_layer+1 holds the output layer; token_embd stays on its CPU
//   (ggml-org/llama.cpp src/llama-model.cpp load_tensors): embedding and LM head on the last rank;
// * an rpc-server never sends a tensor to another one (ggml/src/ggml-rpc/ggml-rpc.cpp): the main
//   host reads each stage's output and sends it on, so it needs a direct link to every stage.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "lib/cluster/catalog.hpp"
#include "tests/test_support.hpp"

namespace meshplan::llama_rpc_plan_cli_test {
namespace {

using nlohmann::json;
using testing::run_meshplan;
using testing::source_path;

const std::string kM3 = source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");
const std::string kStar = source_path("examples/clusters/thunderbolt4-star-3.yaml");

std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = testing::temp_dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

json plan_json(const std::vector<std::string>& extra, const std::string& engine = "llama-rpc") {
  std::vector<std::string> args = {"plan", "--json", "--strategy", "pipeline", "--engine", engine};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_meshplan(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json();
}

bool has_note(const json& plan, const std::string& text) {
  for (const auto& n : plan["notes"])
    if (n.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

TEST(llama_rpc_plan_cli_test, the_main_host_is_the_last_rank_and_holds_the_head) {
  json p = plan_json({"-c", kM3, "-m", "llama-3.1-8b", "--min-hosts", "3"});
  const json& ranks = p["ranks"];
  ASSERT_EQ(ranks.size(), 3u);
  for (size_t j = 0; j + 1 < ranks.size(); ++j)
    EXPECT_FALSE(ranks[j]["holds_head"].get<bool>()) << j;
  EXPECT_TRUE(ranks[2]["holds_head"].get<bool>());
  const std::string main = ranks[2]["host"];
  EXPECT_TRUE(has_note(p, "runs llama-server on " + main + ", the last rank")) << p["notes"];
  // Rank 0's output goes to rank 1 through the main host.
  EXPECT_NE(ranks[0]["hop_to_next"]["kind"].get<std::string>().find("via " + main),
            std::string::npos)
      << ranks[0]["hop_to_next"];
  // The table marks the head on the last rank.
  auto r = run_meshplan({"plan", "-c", kM3, "-m", "llama-3.1-8b", "--min-hosts", "3", "--strategy",
                         "pipeline", "--engine", "llama-rpc"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("over 3 hosts, engine llama-rpc, context"), std::string::npos) << r.out;
  const size_t mark = r.out.find(" +head");
  ASSERT_NE(mark, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" +head", mark + 1), std::string::npos) << r.out;
  const size_t line = r.out.rfind('\n', mark) + 1;
  EXPECT_EQ(r.out.substr(line, mark - line).find("   2  " + main + "  "), 0u) << r.out;
}

TEST(llama_rpc_plan_cli_test, hops_are_two_legs_and_a_round_trip_per_remote_stage) {
  json p = plan_json({"-c", kM3, "-m", "llama-3.1-8b", "--min-hosts", "3"});
  const json& ranks = p["ranks"];
  ASSERT_EQ(ranks.size(), 3u);
  double hops_ms = 0;
  for (const auto& r : ranks)
    hops_ms += r["hop_to_next"]["ms"].get<double>();
  EXPECT_NEAR(p["predicted"]["hops_ms"].get<double>(), hops_ms, 1e-2);
  // Every pair of these Macs has the same links: rank 0 -> 1 is two legs, 1 -> main one leg,
  // both with the main host's calls to the stage (the catalog's engine_hop_ms on the round trip
  // of the 10 GbE link the plan prices, twice its 150 us); main -> rank 0 one leg only.
  const double calls_ms = Catalog::builtin().engine_hop("llama-rpc").on(300e-6) * 1e3;
  const double leg_ms = ranks[2]["hop_to_next"]["ms"].get<double>();
  EXPECT_LT(leg_ms, 0.5);
  // The file rounds to the microsecond.
  EXPECT_NEAR(ranks[1]["hop_to_next"]["ms"].get<double>(), leg_ms + calls_ms, 2e-3);
  EXPECT_NEAR(ranks[0]["hop_to_next"]["ms"].get<double>(), 2 * leg_ms + calls_ms, 2e-3);
}

TEST(llama_rpc_plan_cli_test, other_engines_keep_the_head_on_rank_0) {
  for (const std::string engine : {"mlx-lm", "exo", "any"}) {
    // exo places every host itself: no --min-hosts.
    json p = engine == "exo"
                 ? plan_json({"-c", kM3, "-m", "llama-3.1-8b"}, engine)
                 : plan_json({"-c", kM3, "-m", "llama-3.1-8b", "--min-hosts", "3"}, engine);
    ASSERT_GE(p["ranks"].size(), 2u) << engine;
    EXPECT_TRUE(p["ranks"][0]["holds_head"].get<bool>()) << engine;
    EXPECT_FALSE(p["ranks"].back()["holds_head"].get<bool>()) << engine;
  }
}

TEST(llama_rpc_plan_cli_test, the_main_host_of_a_star_is_its_hub) {
  // Thunderbolt only: the leaves have no cable between them, the hub one to each.
  json p = plan_json({"-c", kStar, "-m", "llama-3.1-8b", "--min-hosts", "3", "--backend", "ring"});
  ASSERT_EQ(p["ranks"].size(), 3u);
  EXPECT_EQ(p["ranks"][2]["host"], "mini-hub");
  EXPECT_TRUE(p["ranks"][2]["holds_head"].get<bool>());
}

const std::string kRing = R"(hosts:
  - {name: a, chip: m4-pro-20c, memory: 64GiB}
  - {name: b, chip: m4-pro-20c, memory: 64GiB}
  - {name: c, chip: m4-pro-20c, memory: 64GiB}
  - {name: d, chip: m4-pro-20c, memory: 64GiB}
links:
  - {topology: ring, kind: tb5, hosts: all}
)";

TEST(llama_rpc_plan_cli_test, a_ring_of_cables_has_no_main_host_for_all_four) {
  const std::string ring = write_temp("ring4.yaml", kRing);
  // Three Macs of the ring: the middle one reaches both others.
  json p = plan_json({"-c", ring, "-m", "llama-3.1-8b", "--min-hosts", "3"});
  ASSERT_EQ(p["ranks"].size(), 3u);
  const std::string main = p["ranks"][2]["host"];
  for (size_t j = 0; j < 2; ++j) {
    const std::string stage = p["ranks"][j]["host"];
    EXPECT_TRUE((main == "a" || main == "c") == (stage == "b" || stage == "d"))
        << main << " has no cable to " << stage;
  }
  // All four: no Mac has a cable to the one across the ring.
  auto r = run_meshplan({"plan", "-c", ring, "-m", "llama-3.1-8b", "--min-hosts", "4", "--strategy",
                         "pipeline", "--engine", "llama-rpc"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("needs a direct link to every stage"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a has no link to c"), std::string::npos) << r.err;
  // Another engine runs the ring as it is.
  EXPECT_EQ(run_meshplan({"plan", "-c", ring, "-m", "llama-3.1-8b", "--min-hosts", "4",
                          "--strategy", "pipeline", "--engine", "mlx-lm"})
                .exit_code,
            0);
}

// A fleet of 300 minis: the main host's problem gives every pair a link of its own, so beyond 128
// candidates the split is planned over the planned pipeline's hosts, and says so; every other
// candidate is still listed with why it is left out, and the main host is still the last rank.
TEST(llama_rpc_plan_cli_test, a_fleet_plans_over_the_planned_pipelines_hosts) {
  std::string text = "schema: meshplan.cluster/1\nhosts:\n";
  for (int i = 0; i < 300; ++i)
    text += "  - {name: m" + std::to_string(i) +
            ", chip: m4-pro-20c, memory: 64GiB, interfaces: [{name: en0, kind: ethernet, ipv4: "
            "10.0." +
            std::to_string(i / 200) + "." + std::to_string(1 + i % 200) +
            ", prefix: 16, speed_gbps: 10}]}\n";
  text += "links:\n  - {topology: switch, kind: 10gbe, hosts: all, subnet: 10.0.0.0/16}\n";
  const std::string fleet = write_temp("fleet-300.yaml", text);
  json p = plan_json({"-c", fleet, "-m", "llama-3.1-405b-4bit"});
  ASSERT_TRUE(p.is_object());
  const size_t used = p["ranks"].size();
  ASSERT_GE(used, 4u);
  EXPECT_TRUE(p["ranks"][used - 1]["holds_head"].get<bool>());
  EXPECT_TRUE(has_note(p, "split is planned over the " + std::to_string(used) +
                              " hosts of the planned pipeline, not all 300 candidates"))
      << p["notes"];
  ASSERT_EQ(p["hosts"].size(), 300u);
  size_t left = 0;
  for (const auto& h : p["hosts"])
    if (!h["used"].get<bool>()) {
      ++left;
      EXPECT_FALSE(h.value("left_out", "").empty()) << h;
    }
  EXPECT_EQ(left, 300 - used);
}

}  // namespace
}  // namespace meshplan::llama_rpc_plan_cli_test
