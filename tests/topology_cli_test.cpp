// check, dot, emit and setup through the real binary: exit codes, JSON, Graphviz rendering of
// every example and fixture cluster, and the messages a user reads.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <cstdlib>
#include <filesystem>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_support.hpp"

namespace meshplan::topology_cli_test {
namespace {

using nlohmann::json;
using testing::fixture_path;
using testing::read_text;
using testing::run_meshplan;
using testing::source_path;

std::vector<std::string> all_clusters() {
  std::vector<std::string> out;
  for (const char* dir : {"examples/clusters", "tests/fixtures/clusters"})
    for (const auto& e : std::filesystem::directory_iterator(source_path(dir)))
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = testing::temp_dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// Runs Graphviz on the text; true when it renders an SVG.
bool renders(const std::string& dot) {
  std::string dir = testing::temp_dir();
  std::ofstream(dir + "/g.dot") << dot;
  std::string cmd = "dot -Tsvg " + dir + "/g.dot -o " + dir + "/g.svg 2>" + dir + "/err";
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << testing::read_text(dir + "/err");
    return false;
  }
  return testing::read_text(dir + "/g.svg").find("<svg") != std::string::npos;
}

const std::string kChain = R"(hosts:
  - {name: s1, chip: m3-ultra-80c, memory: 512GiB, rdma_enabled: true}
  - {name: s2, chip: m3-ultra-80c, memory: 512GiB, rdma_enabled: true}
  - {name: s3, chip: m3-ultra-80c, memory: 512GiB, rdma_enabled: true}
  - {name: s4, chip: m3-ultra-80c, memory: 512GiB, rdma_enabled: true}
links:
  - {topology: chain, kind: tb5, rdma: true, hosts: all}
)";

TEST(topology_cli_test, every_example_and_fixture_renders_with_graphviz) {
  auto clusters = all_clusters();
  ASSERT_GE(clusters.size(), 8u);
  for (const auto& c : clusters) {
    for (const char* backend : {"auto", "jaccl", "ring"}) {
      auto r = run_meshplan({"dot", "-c", c, "--backend", backend});
      ASSERT_EQ(r.exit_code, 0) << c << ": " << r.err;
      EXPECT_EQ(r.out.rfind("graph ", 0), 0u) << r.out;
      EXPECT_TRUE(renders(r.out)) << c << " --backend " << backend;
    }
  }
}

TEST(topology_cli_test, dot_draws_cables_missing_cables_and_plan_ranges) {
  auto r = run_meshplan({"dot", "-c", fixture_path("clusters/mlx_four_hosts_full_mesh.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Six cables, each with both interfaces, drawn as TB5 RDMA; nothing missing.
  size_t edges = 0;
  for (size_t p = r.out.find(" -- "); p != std::string::npos; p = r.out.find(" -- ", p + 1))
    ++edges;
  EXPECT_EQ(edges, 6u);
  EXPECT_NE(r.out.find("\"m3-ultra-1\" -- \"m3-ultra-2\" [label=\"m3-ultra-1 en2 / m3-ultra-2 "
                       "en2\\nTB5 RDMA 80 Gb/s\""),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("color=red"), std::string::npos);

  std::string chain = write_temp("chain.yaml", kChain);
  r = run_meshplan({"dot", "-c", chain, "--backend", "jaccl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t red = 0;
  for (size_t p = r.out.find("fontcolor=red"); p != std::string::npos;
       p = r.out.find("fontcolor=red", p + 1))
    ++red;
  EXPECT_EQ(red, 3u) << r.out;  // s1-s3, s1-s4, s2-s4
  EXPECT_NE(r.out.find("style=dashed"), std::string::npos);
  EXPECT_TRUE(renders(r.out));

  std::string m3 = source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");
  std::string plan = testing::temp_dir() + "/plan.json";
  r = run_meshplan(
      {"plan", "-c", m3, "-m", "llama-3.3-70b-4bit", "--strategy", "pipeline", "-o", plan});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_meshplan({"dot", "-c", m3, "--plan", plan});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rank 0: layers [0, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": pipeline plan over "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("m3-ultra-80c, 512 GiB"), std::string::npos);
  EXPECT_TRUE(renders(r.out));
}

// Tensor ranks show their share, expert ranks their experts, and the title the plan's strategy
// and backend.
TEST(topology_cli_test, dot_plan_labels_tensor_shares_and_expert_sets) {
  std::string m3 = source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");
  std::string plan = testing::temp_dir() + "/tensor.json";
  auto r = run_meshplan(
      {"plan", "-c", m3, "-m", "qwen3-235b-a22b-8bit", "--strategy", "tensor", "-o", plan});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_meshplan({"dot", "-c", m3, "--plan", plan});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("tensor plan over jaccl (rdma)"), std::string::npos) << r.out;
  for (int rank = 0; rank < 4; ++rank)
    EXPECT_NE(r.out.find(fmt::format("rank {}: 25 % of every layer", rank)), std::string::npos)
        << r.out;
  EXPECT_EQ(r.out.find("layers [0, 94)"), std::string::npos) << r.out;
  EXPECT_TRUE(renders(r.out));

  plan = testing::temp_dir() + "/expert.json";
  r = run_meshplan(
      {"plan", "-c", m3, "-m", "qwen3-235b-a22b-8bit", "--strategy", "expert", "-o", plan});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_meshplan({"dot", "-c", m3, "--plan", plan});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("expert plan over"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 0: experts 0-31\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 3: experts 96-127"), std::string::npos) << r.out;
  EXPECT_TRUE(renders(r.out));
}

TEST(topology_cli_test, dot_plan_errors_name_the_position) {
  std::string bad = write_temp(
      "plan.json",
      R"({"schema": "meshplan.plan/2", "ranks": [{"host": "m3-ultra-1", "layers": [5]}]})");
  auto r = run_meshplan(
      {"dot", "-c", source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml"), "--plan", bad});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("plan.json (/ranks/0/layers): expected layers as [start, end)"),
            std::string::npos)
      << r.err;
}

TEST(topology_cli_test, check_exit_codes_and_json) {
  auto r =
      run_meshplan({"check", "-c", source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("OK: jaccl"), std::string::npos) << r.out;

  std::string chain = write_temp("chain.yaml", kChain);
  r = run_meshplan({"check", "-c", chain, "--backend", "jaccl-ring"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("Could not find a full ring over RDMA-capable Thunderbolt 5 cables."),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("fix: add 1 cable (the fewest that close a ring): connect s1 port 2 (en3) "
                       "to s4 port 2 (en3) "
                       "with a Thunderbolt 5 cable"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("FAILED: jaccl-ring is not valid"), std::string::npos);

  r = run_meshplan({"check", "-c", chain, "--json"});
  EXPECT_EQ(r.exit_code, 1);  // no address is known, so not even ethernet
  json report = json::parse(r.out);
  EXPECT_EQ(report["schema"], "meshplan.check/1");
  EXPECT_TRUE(report["backend"].is_null());
  EXPECT_EQ(report["ok"], false);
  ASSERT_EQ(report["backends"].size(), 4u);
  EXPECT_EQ(report["backends"][0]["backend"], "jaccl");
  bool found = false;
  for (const auto& i : report["backends"][0]["issues"]) {
    if (i["code"] != "mesh-missing-cable") continue;
    found = true;
    EXPECT_EQ(i["severity"], "error");
    EXPECT_EQ(i["add_cables"].size(), 1u);
    EXPECT_FALSE(i["add_cables"][0]["a"]["port"].is_null());
    EXPECT_FALSE(i["add_cables"][0]["a"]["interface"].is_null());
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(report["links"].size(), 3u);  // the cabled pairs
  EXPECT_EQ(report["subnets"].size(), 3u);
}

TEST(topology_cli_test, emit_refuses_an_invalid_backend_and_unknown_formats) {
  std::string chain = write_temp("chain.yaml", kChain);
  auto r = run_meshplan({"emit", "mlx-hostfile", "-c", chain, "--backend", "jaccl"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("jaccl is not valid for this cabling"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Incomplete mesh, s1 is not connected to s3"), std::string::npos) << r.err;
  r = run_meshplan({"emit", "openmpi-hostfile-v9", "-c", chain});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown format"), std::string::npos);
  r = run_meshplan({"emit", "mlx-hostfile", "-c", chain, "--env", "BAD KEY=1"});
  EXPECT_EQ(r.exit_code, 2);
  // A backend that needs an address nobody recorded names the host and the fix.
  std::string mesh = write_temp("mesh.yaml", R"(schema: meshplan.cluster/1
hosts:
  - {name: mini-1, chip: m4-pro-20c, memory: 64GiB}
  - {name: mini-2, chip: m4-pro-20c, memory: 64GiB}
  - {name: mini-3, chip: m4-pro-20c, memory: 64GiB}
links:
  - {topology: full-mesh, kind: tb5, rdma: true, hosts: all}
)");
  r = run_meshplan({"emit", "mlx-hostfile", "-c", mesh, "--backend", "jaccl"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no address of mini-1 is known"), std::string::npos) << r.err;
  // ring over Thunderbolt needs no management address.
  r = run_meshplan({"emit", "mlx-hostfile", "-c", mesh, "--backend", "ring"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(topology_cli_test, emit_skips_address_ranges_in_use_and_says_why) {
  std::string c = write_temp("lan.yaml", R"(hosts:
  - {name: a, chip: m3-ultra-80c, memory: 512GiB, interfaces: [{name: en0, kind: ethernet, ipv4: 192.168.0.10, prefix: 24}]}
  - {name: b, chip: m3-ultra-80c, memory: 512GiB, interfaces: [{name: en0, kind: ethernet, ipv4: 192.168.0.11, prefix: 24}]}
links:
  - {topology: ring, kind: tb5, hosts: all}
)");
  auto r = run_meshplan({"emit", "mlx-hostfile", "-c", c, "--backend", "ring"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"192.168.1.1\""), std::string::npos) << r.out;
  EXPECT_NE(
      r.err.find("skipped 192.168.0.0-192.168.0.255: it is in use by en0 on a (192.168.0.10/24)"),
      std::string::npos)
      << r.err;
  r = run_meshplan({"setup", "-c", c, "--backend", "ring"});
  EXPECT_NE(r.out.find("sudo ifconfig en2 inet 192.168.1.1 netmask 255.255.255.252"),
            std::string::npos)
      << r.out;
  r = run_meshplan({"emit", "teardown", "-c", c});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Teardown for a\n==============\nsudo route delete 192.168.1.2 -interface "
                       "en2\nsudo ifconfig en2 "
                       "inet 192.168.1.1 delete\nsudo ifconfig bridge0 up\n"),
            std::string::npos)
      << r.out;
}

TEST(topology_cli_test, teardown_undo_refuses_a_file_that_is_not_an_undo_script_before_any_ssh) {
  const std::string two = fixture_path("clusters/mlx_two_hosts_one_cable.json");
  const std::string dir = testing::temp_dir();
  std::ofstream(dir + "/notes.sh") << "#!/bin/sh\necho hello\n";
  auto r = run_meshplan({"teardown", "-c", two, "--apply", "--undo", dir + "/notes.sh"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(dir + "/notes.sh:2: expected `ssh ... /bin/sh -s <<'MESHPLAN_UNDO'`"),
            std::string::npos)
      << r.err;
  std::ofstream(dir + "/cut.sh") << "#!/bin/sh\n\n# a\nssh a /bin/sh -s <<'MESHPLAN_UNDO'\nip x\n";
  r = run_meshplan({"teardown", "-c", two, "--apply", "--undo", dir + "/cut.sh"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(dir + "/cut.sh:4: the block for a has no closing MESHPLAN_UNDO line"),
            std::string::npos)
      << r.err;
  std::ofstream(dir + "/other.sh")
      << "# elsewhere\nssh e /bin/sh -s <<'MESHPLAN_UNDO'\nMESHPLAN_UNDO\n";
  r = run_meshplan({"teardown", "-c", two, "--apply", "--undo", dir + "/other.sh"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(dir + "/other.sh:2: host elsewhere is not in " + two), std::string::npos)
      << r.err;
  r = run_meshplan({"teardown", "-c", two, "--undo", dir + "/other.sh"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("runs only with --apply"), std::string::npos) << r.err;
}

TEST(topology_cli_test, setup_apply_refuses_unclear_requests_before_any_ssh) {
  const std::string two = fixture_path("clusters/mlx_two_hosts_one_cable.json");
  auto r = run_meshplan({"setup", "-c", two, "--apply", "--dry-run"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--apply and --dry-run cannot be combined"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  r = run_meshplan({"setup", "-c", "-", "--apply"}, read_text(two));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("say where the undo script goes (--undo FILE)"), std::string::npos) << r.err;
  r = run_meshplan({"teardown", "-c", two, "--apply", "--port", "70000"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--port 70000: expected 1-65535"), std::string::npos) << r.err;
  // Without --apply, teardown prints what `emit teardown` prints.
  auto t = run_meshplan({"teardown", "-c", two});
  auto e = run_meshplan({"emit", "teardown", "-c", two});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(t.out, e.out);
  EXPECT_NE(t.out.find("sudo ifconfig bridge0 up"), std::string::npos) << t.out;
  r = run_meshplan({"setup", "-c", write_temp("chain.yaml", kChain), "--backend", "ring"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Could not find a full ring"), std::string::npos) << r.err;
  r = run_meshplan({"setup", "-c", source_path("examples/clusters/studio-air-fabric.yaml")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("runs over the network"), std::string::npos) << r.err;
}

TEST(topology_cli_test, bundled_examples_pick_the_backend_their_cabling_allows) {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"ethernet-5-node.yaml", "ring"},      // one 10 GbE switch carries a TCP ring
      {"mac-mini-m4-pro-x4.yaml", "jaccl"},  // TB5 mesh with RDMA, 3 ports each
      {"mac-studio-m3-ultra-x4.yaml", "jaccl"}, {"studio-air-fabric.yaml", "ring"},  // 10 GbE only
      {"thunderbolt4-star-3.yaml", "ethernet"},  // a star is no ring; Wi-Fi carries no ring
  };
  for (const auto& [file, backend] : expected) {
    auto r = run_meshplan({"check", "-c", source_path("examples/clusters/" + file), "--json"});
    EXPECT_EQ(r.exit_code, 0) << file << r.err;
    EXPECT_EQ(json::parse(r.out)["backend"], backend) << file;
  }
  // The main example gets a usable hostfile: rank 0's coordinator is its en0 address.
  auto r = run_meshplan(
      {"emit", "mlx-hostfile", "-c", source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json hostfile = json::parse(r.out);
  EXPECT_EQ(hostfile["backend"], "jaccl");
  EXPECT_EQ(hostfile["hosts"][0]["ips"][0], "10.0.0.1");
  EXPECT_EQ(hostfile["hosts"][0]["rdma"][1], "rdma_en2");
  r = run_meshplan({"setup", "-c", source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Setup for m3-ultra-4\n====================\nsudo ifconfig bridge0 down\n"),
            std::string::npos);
}

TEST(topology_cli_test, help_lists_the_new_commands_with_examples) {
  for (const char* cmd : {"check", "dot", "emit", "setup", "teardown"}) {
    auto r = run_meshplan({cmd, "--help"});
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_LT(r.out.find("Examples:"), r.out.find("Options:")) << cmd;
  }
}

// A direct cable between two Linux hosts is counted by check, planned over, and addressed by setup
// (Linux `ip` commands, no Thunderbolt Bridge), and teardown undoes it.
TEST(topology_cli_test, a_direct_cable_between_linux_hosts_is_checked_planned_and_set_up) {
  std::string c = fixture_path("clusters/spark-pair-direct-cable.yaml");
  // The cable's RoCE device is what NCCL_IB_HCA names, and its ports have no address yet: vLLM's
  // launch would fail there until `setup` gives them one.
  auto r = run_meshplan({"check", "-c", c});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("2 hosts, 0 Thunderbolt cables (0 with RDMA), 1 direct network cable, "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("spark-1's RDMA device rocep1s0f0 is on enp1s0f0np0, which has no IPv4 "
                       "address"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("`meshplan setup` prints its /30"), std::string::npos) << r.out;

  r = run_meshplan({"plan", "-c", c, "-m", "llama-3.3-70b-bf16", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto plan = nlohmann::json::parse(r.out);
  EXPECT_EQ(plan["ranks"][0]["hop_to_next"]["kind"], "200gbe") << "not the 1 GbE LAN";

  r = run_meshplan({"setup", "-c", c});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "Setup for spark-1\n=================\n"
            "sudo ip link set dev enp1s0f0np0 up\n"
            "sudo ip addr replace 192.168.0.1/30 dev enp1s0f0np0\n\n"
            "Setup for spark-2\n=================\n"
            "sudo ip link set dev enp1s0f0np0 up\n"
            "sudo ip addr replace 192.168.0.2/30 dev enp1s0f0np0\n\n");
  r = run_meshplan({"setup", "-c", c, "--host", "spark-2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "sudo ip link set dev enp1s0f0np0 up\n"
            "sudo ip addr replace 192.168.0.2/30 dev enp1s0f0np0\n");
  r = run_meshplan({"emit", "teardown", "-c", c});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("sudo ip addr del 192.168.0.1/30 dev enp1s0f0np0\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("bridge0"), std::string::npos) << r.out;

  // Once both ends have addresses there is nothing left to configure.
  std::string text = testing::read_text(c);
  std::string addressed = text;
  for (const char* ip : {"192.168.100.1", "192.168.100.2"}) {
    size_t at = addressed.find("rdma_device: rocep1s0f0}");
    ASSERT_NE(at, std::string::npos);
    addressed.replace(at, 24, fmt::format("rdma_device: rocep1s0f0, ipv4: {}, prefix: 30}}", ip));
  }
  r = run_meshplan({"setup", "-c", write_temp("addressed.yaml", addressed)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("no Thunderbolt interface needs configuring"), std::string::npos) << r.err;
}

// Figures measured by `check --live --measure` replace the catalog's, and the plan says so.
TEST(topology_cli_test, measured_link_figures_are_used_and_named_by_the_plan) {
  std::string yaml = read_text(fixture_path("clusters/spark-pair-direct-cable.yaml"));
  const std::string cable = "kind: 200gbe, rdma: true}";
  ASSERT_NE(yaml.find(cable), std::string::npos);
  std::string measured = yaml;
  measured.replace(measured.find(cable), cable.size(),
                   "kind: 200gbe, rdma: true, latency_us: 3.5, measured: 2026-11-20}");
  auto r = run_meshplan(
      {"plan", "-c", write_temp("measured.yaml", measured), "-m", "llama-3.3-70b-bf16", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto plan = nlohmann::json::parse(r.out);
  std::string notes = plan["notes"].dump();
  EXPECT_NE(notes.find("measured link figures used instead of the catalog's: spark-1 - spark-2 "
                       "latency 3.5 us (measured 2026-11-20)"),
            std::string::npos)
      << notes;
  auto plain = run_meshplan({"plan", "-c", fixture_path("clusters/spark-pair-direct-cable.yaml"),
                             "-m", "llama-3.3-70b-bf16", "--json"});
  EXPECT_EQ(plain.out.find("measured link figures"), std::string::npos);

  std::string bad = yaml;
  bad.replace(bad.find(cable), cable.size(), "kind: 200gbe, latency_us: 3.5, measured: yesterday}");
  r = run_meshplan({"check", "-c", write_temp("bad.yaml", bad)});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("expected the date of the measurement, YYYY-MM-DD, got \"yesterday\""),
            std::string::npos)
      << r.err;
  r = run_meshplan({"check", "-c", fixture_path("clusters/spark-pair-direct-cable.yaml"),
                    "--measure", "-o", "x.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--measure needs --live"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace meshplan::topology_cli_test
