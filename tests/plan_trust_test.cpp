// Plans a user can get: one backend from check to plan to emit, the memory the engine really has,
// units and limits people get wrong, advice that can be followed, and the CLI's guidance. Each
// runs the real binary on bundled examples or small clusters written here.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/test_support.hpp"

namespace meshplan::plan_trust_test {
namespace {

using nlohmann::json;
using testing::run_meshplan;
using testing::source_path;

const std::string kM3 = source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");
const std::string kEth = source_path("examples/clusters/ethernet-5-node.yaml");
const std::string kMini = source_path("examples/clusters/mac-mini-m4-pro-x4.yaml");

std::string write_file(const std::string& name, const std::string& text) {
  std::string path = testing::temp_dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// The 4 x M3 Ultra example with its last host replaced by `last` (a YAML host entry).
std::string m3_with_last_host(const std::string& last) {
  std::string text = testing::read_text(kM3);
  size_t at = text.find("  - name: m3-ultra-4");
  size_t end = text.find("links:");
  return write_file("cluster.yaml", text.substr(0, at) + last + text.substr(end));
}

json plan_json(const std::vector<std::string>& args) {
  std::vector<std::string> full = {"plan"};
  full.insert(full.end(), args.begin(), args.end());
  full.push_back("--json");
  auto r = run_meshplan(full);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

std::set<std::string> rank_hosts(const json& plan) {
  std::set<std::string> out;
  for (const auto& r : plan["ranks"])
    out.insert(r["host"].get<std::string>());
  return out;
}

const std::string kOldMacos = R"(  - name: m3-ultra-4
    chip: m3-ultra-80c
    memory: 256GiB
    os: {kind: macos, version: "15.5", build: 24F74}
    interfaces: [{name: en0, kind: ethernet, ipv4: 10.0.0.4, prefix: 24, speed_gbps: 10}]
)";

TEST(plan_trust_test, plans_only_over_a_backend_check_accepts_for_their_hosts) {
  std::string cluster = m3_with_last_host(kOldMacos);
  auto check = run_meshplan({"check", "-c", cluster, "--json"});
  json c = json::parse(check.out);
  for (const auto& strategy : {"tensor", "expert", "auto"}) {
    json p = plan_json({"-c", cluster, "-m", "qwen3-235b-a22b-8bit", "--strategy", strategy});
    std::string backend = p["backend"];
    if (backend == "jaccl" || backend == "jaccl-ring") {
      // RDMA plans leave out the host on macOS 15.5 and say why.
      EXPECT_EQ(rank_hosts(p).count("m3-ultra-4"), 0u) << strategy;
      for (const auto& h : p["hosts"])
        if (h["name"] == "m3-ultra-4") {
          EXPECT_FALSE(h["used"].get<bool>());
          EXPECT_NE(h["left_out"].get<std::string>().find("26.2"), std::string::npos) << h;
        }
    }
    EXPECT_EQ(p["transport"], backend == "jaccl" || backend == "jaccl-ring" ? "rdma"
                              : backend == "ethernet"                       ? "network"
                                                                            : p["transport"]);
    // emit uses the plan's backend.
    std::string plan_file = write_file("plan.json", p.dump());
    auto e = run_meshplan({"emit", "mlx-hostfile", "-c", cluster, "--plan", plan_file});
    ASSERT_EQ(e.exit_code, 0) << e.err;
    json hostfile = json::parse(e.out);
    std::string expected = backend == "ethernet" || backend == "ring" ? "ring" : backend;
    EXPECT_EQ(hostfile.value("backend", "ring"), expected) << strategy;
  }
  // An explicit backend that check rejects for every host set the plan needs is refused.
  auto r = run_meshplan({"plan", "-c", cluster, "-m", "qwen3-235b-a22b-8bit", "--strategy",
                         "tensor", "--backend", "jaccl", "--hosts",
                         "m3-ultra-1,m3-ultra-2,m3-ultra-3,m3-ultra-4", "--min-hosts", "4"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
}

TEST(plan_trust_test, the_plan_backend_is_the_one_asked_for_and_emit_follows_it) {
  json ring = plan_json({"-c", kM3, "-m", "llama-3.3-70b-8bit", "--strategy", "pipeline",
                         "--backend", "jaccl-ring", "--min-hosts", "3"});
  EXPECT_EQ(ring["backend"], "jaccl-ring");
  std::string plan_file = write_file("plan.json", ring.dump());
  auto e = run_meshplan({"emit", "mlx-hostfile", "-c", kM3, "--plan", plan_file});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_EQ(json::parse(e.out)["backend"], "jaccl-ring");
  // Another --backend than the plan's is refused, naming both.
  e = run_meshplan({"emit", "mlx-hostfile", "-c", kM3, "--plan", plan_file, "--backend", "jaccl"});
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_NE(e.err.find("predicted for jaccl-ring"), std::string::npos) << e.err;

  // --backend ring on an Ethernet-only cluster is a ring (over the network), not "ethernet".
  json eth = plan_json({"-c", kEth, "-m", "llama-3.3-70b-8bit", "--strategy", "pipeline",
                        "--backend", "ring", "--min-hosts", "2"});
  EXPECT_EQ(eth["backend"], "ring");
  EXPECT_EQ(eth["transport"], "network");
}

TEST(plan_trust_test, emit_refuses_a_plan_made_for_other_hardware) {
  json p = plan_json(
      {"-c", kM3, "-m", "kimi-k2-4bit", "--strategy", "pipeline", "--engine", "llama-rpc"});
  std::string plan_file = write_file("plan.json", p.dump());
  ASSERT_TRUE(p.contains("made_for"));
  // Same names, but m3-ultra-2 now has 256 GiB.
  std::string text = testing::read_text(kM3);
  size_t at = text.find("memory: 512GiB", text.find("name: m3-ultra-2"));
  text.replace(at, 14, "memory: 256GiB");
  std::string changed = write_file("changed.yaml", text);
  for (const auto& cmd :
       {std::vector<std::string>{"emit", "mlx-hostfile"}, std::vector<std::string>{"dot"}}) {
    std::vector<std::string> args = cmd;
    for (const auto& a : {"-c", changed.c_str(), "--plan", plan_file.c_str()})
      args.push_back(a);
    auto r = run_meshplan(args);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("m3-ultra-2: memory"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  // The cluster it was made for is accepted.
  EXPECT_EQ(run_meshplan({"emit", "mlx-hostfile", "-c", kM3, "--plan", plan_file}).exit_code, 0);
}

TEST(plan_trust_test, identical_hosts_get_balanced_memory_and_the_wired_limit_is_named) {
  json p = plan_json(
      {"-c", kM3, "-m", "kimi-k2-4bit", "--strategy", "pipeline", "--engine", "llama-rpc"});
  ASSERT_EQ(p["ranks"].size(), 2u);
  int a = p["ranks"][0]["layers"][1].get<int>() - p["ranks"][0]["layers"][0].get<int>();
  int b = p["ranks"][1]["layers"][1].get<int>() - p["ranks"][1]["layers"][0].get<int>();
  EXPECT_LE(std::abs(a - b), 1) << p["ranks"];

  // 405B at 8 bits on the Ethernet cluster fills the Studios past macOS's default 75 %.
  json big = plan_json(
      {"-c", kEth, "-m", "llama-3.1-405b-8bit", "--context", "128k", "--engine", "llama-rpc"});
  int marked = 0;
  for (const auto& r : big["ranks"]) {
    double total = r["total_bytes"].get<double>();
    if (r.contains("wired_limit_mb")) {
      ++marked;
      EXPECT_GE(r["wired_limit_mb"].get<double>() * 1024 * 1024, total);
    }
  }
  EXPECT_GE(marked, 1);
  std::string plan_file = write_file("big.json", big.dump());
  auto s = run_meshplan({"setup", "-c", kEth, "--plan", plan_file});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  std::regex line("sudo sysctl iogpu\\.wired_limit_mb=[0-9]+");
  auto n =
      std::distance(std::sregex_iterator(s.out.begin(), s.out.end(), line), std::sregex_iterator());
  EXPECT_EQ(n, marked) << s.out;

  // --headroom takes a fraction or bytes off every host's usable memory.
  json plain = plan_json({"-c", kEth, "-m", "llama-3.3-70b-4bit"});
  json kept = plan_json({"-c", kEth, "-m", "llama-3.3-70b-4bit", "--headroom", "20%"});
  json bytes = plan_json({"-c", kEth, "-m", "llama-3.3-70b-4bit", "--headroom", "8GiB"});
  for (size_t i = 0; i < plain["hosts"].size(); ++i) {
    double u = plain["hosts"][i]["usable_bytes"];
    EXPECT_NEAR(kept["hosts"][i]["usable_bytes"].get<double>(), 0.8 * u, 2);
    EXPECT_NEAR(bytes["hosts"][i]["usable_bytes"].get<double>(), u - 8.0 * (1 << 30), 2);
  }
  EXPECT_EQ(
      run_meshplan({"plan", "-c", kEth, "-m", "llama-3.3-70b-4bit", "--headroom", "1.5"}).exit_code,
      2);
}

TEST(plan_trust_test, memory_units_and_limits) {
  auto host = [](const std::string& memory) {
    return "  - name: m3-ultra-4\n    chip: m3-ultra-80c\n    memory: " + memory +
           "\n    interfaces: [{name: en0, kind: ethernet, ipv4: 10.0.0.4, prefix: 24}]\n";
  };
  auto r = run_meshplan({"check", "-c", m3_with_last_host(host("512GB"))});
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("512GiB"), std::string::npos) << r.err;
  r = run_meshplan({"check", "-c", m3_with_last_host(host("512"))});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("add a unit"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("usable_memory"), std::string::npos) << r.err;
  r = run_meshplan({"check", "-c", m3_with_last_host(host("1024GiB"))});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at most 512.0 GiB"), std::string::npos) << r.err;

  r = run_meshplan({"plan", "-c", kM3, "-m", "llama-3.3-70b-4bit", "--context", "10000000"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at most 131072 tokens"), std::string::npos) << r.err;
  EXPECT_EQ(plan_json({"-c", kM3, "-m", "llama-3.3-70b-4bit", "--context", "32k"})["context"],
            32768);
  EXPECT_EQ(plan_json({"-c", kM3, "-m", "llama-3.3-70b-4bit", "--context", "128K"})["context"],
            131072);
  r = run_meshplan({"plan", "-c", kM3, "-m", "llama-3.3-70b-4bit", "--context", "32kb"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("32k or 128K"), std::string::npos) << r.err;
}

TEST(plan_trust_test, no_cabling_advice_for_hosts_without_the_port) {
  auto r = run_meshplan({"check", "-c", kEth, "--json"});
  json c = json::parse(r.out);
  // The M2 Ultra Studios and the M3 Max have no Thunderbolt 5 port: no RDMA cable to them.
  for (const auto& b : c["backends"]) {
    if (b["backend"] != "jaccl" && b["backend"] != "jaccl-ring") continue;
    for (const auto& i : b["issues"])
      for (const auto& add : i.value("add_cables", json::array()))
        for (const auto& end : {add["a"], add["b"]})
          EXPECT_TRUE(end["host"] == "mbp-m4-max" || end["host"] == "mini-m4-pro") << add;
  }
  auto dot = run_meshplan({"dot", "-c", kEth, "--backend", "jaccl"});
  EXPECT_EQ(dot.out.find("no free port"), std::string::npos) << dot.out;

  // Linux hosts on a network: no Thunderbolt advice at all.
  std::string linux_cluster = write_file("linux.yaml", R"(schema: meshplan.cluster/1
hosts:
  - {name: gpu-1, os: {kind: linux}, memory: 256GiB, gpus: [{chip: h100-sxm, memory: 80GiB}]}
  - {name: gpu-2, os: {kind: linux}, memory: 256GiB, gpus: [{chip: h100-sxm, memory: 80GiB}]}
links:
  - {kind: 100gbe, hosts: all}
)");
  r = run_meshplan({"check", "-c", linux_cluster, "--json"});
  ASSERT_NE(r.out.find("backends"), std::string::npos) << r.err;
  const json report = json::parse(r.out);
  for (const auto& b : report["backends"])
    for (const auto& i : b["issues"]) {
      EXPECT_TRUE(i.value("add_cables", json::array()).empty()) << i;
      // `fix` is null when there is nothing to do.
      std::string fix =
          i.contains("fix") && i["fix"].is_string() ? i["fix"].get<std::string>() : "";
      EXPECT_EQ(fix.find("connect"), std::string::npos) << i;
    }
  // No Mac: vLLM's launch is checked, not MLX's backends.
  EXPECT_EQ(report["engine"]["engine"], "vllm") << r.out;
  EXPECT_EQ(report["mlx_backends_checked"], false);
  // Asked for, JACCL says why it does not apply.
  r = run_meshplan({"check", "-c", linux_cluster, "--backend", "jaccl", "--json"});
  EXPECT_NE(r.out.find("runs on Macs only"), std::string::npos) << r.out;
  EXPECT_EQ(json::parse(r.out)["mlx_backends_checked"], true);
}

TEST(plan_trust_test, small_hosts_are_left_out_and_flags_that_do_not_apply_are_refused) {
  std::string cluster = m3_with_last_host(
      "  - name: m3-ultra-4\n    chip: m4-pro-20c\n    memory: 6GiB\n"
      "    interfaces: [{name: en0, kind: ethernet, ipv4: 10.0.0.4, prefix: 24}]\n");
  json p = plan_json({"-c", cluster, "-m", "llama-3.3-70b-4bit"});
  bool named = false;
  for (const auto& h : p["hosts"])
    if (h["name"] == "m3-ultra-4") {
      EXPECT_FALSE(h["used"].get<bool>());
      EXPECT_NE(h["left_out"].get<std::string>().find("too small"), std::string::npos);
      named = true;
    }
  EXPECT_TRUE(named);

  auto r = run_meshplan({"plan", "-c", kM3, "-m", "llama-3.3-70b-4bit", "--solver", "ilp"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("dense model"), std::string::npos) << r.err;
  r = run_meshplan({"plan", "-c", kM3, "-m", "llama-3.3-70b-4bit", "--strategy", "tensor",
                    "--solver", "proportional"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--solver proportional"), std::string::npos) << r.err;

  // --json on an infeasible plan still prints an object on stdout.
  r = run_meshplan({"plan", "-c", kMini, "-m", "llama-3.1-405b-bf16", "--json"});
  EXPECT_EQ(r.exit_code, 1);
  json err = json::parse(r.out);
  EXPECT_FALSE(err["feasible"].get<bool>());
  EXPECT_NE(err["error"].get<std::string>().find("does not fit"), std::string::npos);

  // A plan file given as the cluster is named as such.
  std::string plan_file =
      write_file("plan.json", plan_json({"-c", kM3, "-m", "llama-3.3-70b-4bit"}).dump());
  r = run_meshplan({"check", "-c", plan_file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("this is a plan file"), std::string::npos) << r.err;
}

TEST(plan_trust_test, left_out_hosts_are_named_for_every_strategy_citing_only_given_flags) {
  std::string cluster = m3_with_last_host(kOldMacos);
  auto r =
      run_meshplan({"plan", "-c", cluster, "-m", "qwen3-235b-a22b-8bit", "--strategy", "expert"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("left out: m3-ultra-4 (cannot use RDMA"), std::string::npos) << r.out;
  json p = plan_json({"-c", kM3, "-m", "llama-3.3-70b-4bit", "--strategy", "pipeline", "--pin",
                      "m3-ultra-2=0-79"});
  for (const auto& h : p["hosts"]) {
    if (h["used"].get<bool>()) continue;
    std::string why = h["left_out"];
    EXPECT_EQ(why.find("--max-hosts"), std::string::npos) << why;
    EXPECT_NE(why.find("the pins"), std::string::npos) << why;
  }
}

TEST(plan_trust_test, the_cli_suggests_and_stays_short) {
  auto r = run_meshplan({"plna"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean \"plan\""), std::string::npos) << r.err;
  r = run_meshplan({"plan", "-c", kM3, "-m", "deepseek-v3-4bit"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean \"deepseek-v3.1-4bit\""), std::string::npos) << r.err;
  r = run_meshplan({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_LT(std::count(r.out.begin(), r.out.end(), '\n'), 45) << r.out;
  for (const char* command : {"plan", "check", "emit", "setup", "discover", "dot"})
    EXPECT_NE(r.out.find(std::string("  ") + command + " "), std::string::npos) << command;
  // -v shows the figures behind a plan; without it they stay out of the way.
  r = run_meshplan({"-v", "plan", "-c", kM3, "-m", "llama-3.3-70b-4bit"});
  EXPECT_NE(r.err.find("m3-ultra-1: usable 435.2 GiB"), std::string::npos) << r.err;
  r = run_meshplan({"plan", "-c", kM3, "-m", "llama-3.3-70b-4bit"});
  EXPECT_EQ(r.err.find("m3-ultra-1: usable"), std::string::npos) << r.err;
}

TEST(plan_trust_test, every_example_emits_its_hostfile_and_macbooks_have_their_ports) {
  for (const char* name : {"ethernet-5-node", "mac-mini-m4-pro-x4", "mac-studio-m3-ultra-x4",
                           "studio-air-fabric", "thunderbolt4-star-3"}) {
    std::string cluster = source_path(std::string("examples/clusters/") + name + ".yaml");
    auto r = run_meshplan({"emit", "mlx-hostfile", "-c", cluster});
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("\"ips\""), std::string::npos) << name;
  }
  // A MacBook Pro's Thunderbolt ports are en1-en3, not a Mac Studio's en2-en5.
  auto r = run_meshplan({"dot", "-c", source_path("examples/clusters/thunderbolt4-star-3.yaml")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  std::regex edge("mbp-m4-max[^\\n]*?(en[0-9])");
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("\"mini-hub\" -- \"mbp-m4-max\"[^\\n]*")))
      << r.out;
  EXPECT_NE(m.str().find("en1"), std::string::npos) << m.str();
}

}  // namespace
}  // namespace meshplan::plan_trust_test
