// `meshplan discover --replay` through the real binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "tests/dock_pair.hpp"
#include "tests/test_support.hpp"

namespace meshplan::discover_cli_test {
namespace {

using nlohmann::json;
using testing::fixture_path;
using testing::read_text;
using testing::run_meshplan;
using testing::source_path;
using testing::temp_dir;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

const json* host_of(const json& cluster, const std::string& name) {
  for (const auto& h : cluster["hosts"]) {
    if (h["name"] == name) return &h;
  }
  return nullptr;
}

const json* port_of(const json& host, const std::string& id) {
  for (const auto& p : host["ports"]) {
    if (p["id"] == id) return &p;
  }
  return nullptr;
}

TEST(discover_cli_test, mlx_golden_full_mesh_gives_six_cables_with_interfaces_and_rdma_devices) {
  auto r =
      run_meshplan({"discover", "--replay", fixture_path("mlx_golden/four_hosts_full_mesh/inputs"),
                    "--hosts", "m3-ultra-1,m3-ultra-2,m3-ultra-3,m3-ultra-4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json c = json::parse(r.out);
  EXPECT_EQ(c["schema"], "meshplan.cluster/1");
  ASSERT_EQ(c["hosts"].size(), 4u);
  // The dot output of mlx.distributed_config for the same inputs: a-b en2/en2, a-c en3/en2, a-d
  // en4/en2, b-c en3/en3, b-d en4/en3, c-d en4/en4.
  std::vector<std::tuple<std::string, std::string, std::string, std::string>> expected = {
      {"m3-ultra-1", "en2", "m3-ultra-2", "en2"}, {"m3-ultra-1", "en3", "m3-ultra-3", "en2"},
      {"m3-ultra-1", "en4", "m3-ultra-4", "en2"}, {"m3-ultra-2", "en3", "m3-ultra-3", "en3"},
      {"m3-ultra-2", "en4", "m3-ultra-4", "en3"}, {"m3-ultra-3", "en4", "m3-ultra-4", "en4"}};
  ASSERT_EQ(c["links"].size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const json& l = c["links"][i];
    auto [ha, ia, hb, ib] = expected[i];
    EXPECT_EQ(l["a"]["host"], ha) << i;
    EXPECT_EQ(l["b"]["host"], hb) << i;
    EXPECT_EQ(l["kind"], "tb5");
    EXPECT_EQ(l["speed_gbps"], 80);
    EXPECT_EQ(l["rdma"], true);
    const json* pa = port_of(*host_of(c, ha), l["a"]["port"]);
    const json* pb = port_of(*host_of(c, hb), l["b"]["port"]);
    ASSERT_TRUE(pa && pb);
    EXPECT_EQ((*pa)["interface"], ia) << i;
    EXPECT_EQ((*pb)["interface"], ib) << i;
    EXPECT_EQ((*pa)["rdma_device"], "rdma_" + ia);
    EXPECT_EQ((*pb)["rdma_device"], "rdma_" + ib);
  }
  EXPECT_EQ((*host_of(c, "m3-ultra-2"))["interfaces"][0]["ipv4"], "10.0.0.2");
  // The file loads as a cluster.
  Cluster loaded = load_cluster(r.out, "discovered.json", Catalog::builtin());
  EXPECT_EQ(loaded.cables.size(), 6u);
}

TEST(discover_cli_test, hosts_come_from_file_names_and_can_be_a_subset) {
  auto r = run_meshplan(
      {"discover", "--replay", fixture_path("mlx_golden/two_hosts_two_cables/inputs")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json c = json::parse(r.out);
  EXPECT_EQ(c["hosts"][0]["name"], "mac-a");
  EXPECT_EQ(c["hosts"][1]["name"], "mac-b");
  EXPECT_EQ(c["links"].size(), 2u);

  r = run_meshplan({"discover", "--replay", fixture_path("mlx_golden/four_hosts_full_mesh/inputs"),
                    "m3-ultra-3", "m3-ultra-1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  c = json::parse(r.out);
  EXPECT_EQ(c["hosts"][0]["name"], "m3-ultra-3") << "the order given is the file's order";
  ASSERT_EQ(c["links"].size(), 1u);
  EXPECT_EQ(c["links"][0]["a"]["host"], "m3-ultra-3");
  int unknown = 0;
  for (const auto& f : c["findings"])
    unknown += f["kind"] == "unknown-peer";
  EXPECT_EQ(unknown, 4) << "cables to the two hosts left out are kept as findings";
  EXPECT_NE(r.err.find("unknown-peer"), std::string::npos);
}

TEST(discover_cli_test, real_tb5_samples_give_one_cable_and_the_dock_peer_is_found) {
  std::string dir = temp_dir();
  write_file(dir + "/mbp.system_profiler.json",
             read_text(fixture_path("tb_sample_1_macbookpro_m5max_tb5.json")));
  write_file(dir + "/mbp.networksetup.txt",
             read_text(fixture_path("networksetup_m5max_macbookpro_macos26_5.txt")));
  write_file(dir + "/studio.system_profiler.json",
             read_text(fixture_path("tb_sample_2_macstudio_m3ultra_tb5.json")));
  write_file(dir + "/studio.networksetup.txt",
             read_text(fixture_path("networksetup_m3ultra_macstudio_trimmed.txt")));
  auto r = run_meshplan({"discover", "--replay", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json c = json::parse(r.out);
  ASSERT_EQ(c["links"].size(), 1u);
  EXPECT_EQ(c["links"][0]["a"], json::parse(R"({"host": "mbp", "port": "1"})"));
  EXPECT_EQ(c["links"][0]["b"], json::parse(R"({"host": "studio", "port": "2"})"));
  EXPECT_EQ(c["links"][0]["kind"], "tb5");

  std::string dock = temp_dir();
  auto [studio, mbp] = testing::dock_pair();
  write_file(dock + "/studio.system_profiler.json", studio);
  write_file(dock + "/studio.networksetup.txt",
             read_text(fixture_path("networksetup_m3ultra_macstudio_trimmed.txt")));
  write_file(dock + "/mbp.system_profiler.json", mbp);
  write_file(dock + "/mbp.networksetup.txt",
             read_text(fixture_path("networksetup_m4max_macbookpro_trimmed.txt")));
  r = run_meshplan({"discover", "--replay", dock, "--hosts", "studio,mbp"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  c = json::parse(r.out);
  ASSERT_EQ(c["links"].size(), 2u);
  EXPECT_EQ(c["links"][0]["a"], json::parse(R"({"host": "studio", "port": "3"})"));
  EXPECT_EQ(c["links"][0]["b"], json::parse(R"({"host": "mbp", "port": "3"})"));
  EXPECT_EQ(c["links"][0]["speed_gbps"], 40);
  EXPECT_EQ(c["links"][0]["kind"], "tb3");
  EXPECT_EQ(c["links"][1]["kind"], "tb5");
}

TEST(discover_cli_test, complete_replay_can_be_planned) {
  std::string out = temp_dir() + "/cluster.json";
  auto r = run_meshplan({"discover", "--replay", source_path("tests/replays/mesh4"), "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  json c = json::parse(read_text(out));
  EXPECT_EQ(c["hosts"][0]["chip"], "m3-ultra-80c");
  EXPECT_FALSE(c.contains("findings")) << c["findings"].dump();
  // The memory-proportional split uses every host, so every discovered host must be plannable.
  auto plan = run_meshplan(
      {"plan", "-c", out, "-m", "llama-3.3-70b-4bit", "--solver", "proportional", "--json"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_EQ(json::parse(plan.out)["ranks"].size(), 4u);
}

TEST(discover_cli_test, failed_host_exits_3_and_writes_only_with_ignore_unreachable) {
  std::string dir = temp_dir();
  for (const auto& e : std::filesystem::directory_iterator(source_path("tests/replays/mesh4")))
    std::filesystem::copy_file(e.path(), dir + "/" + e.path().filename().string());
  std::filesystem::permissions(dir + "/m3-ultra-4.system_profiler.json",
                               std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  write_file(dir + "/m3-ultra-4.system_profiler.json", "Thunderbolt/USB4:\n  garbage\n");
  std::string out = temp_dir() + "/cluster.json";
  write_file(out, "previous\n");
  auto r = run_meshplan({"discover", "--replay", dir, "-o", out});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("1 of 4 hosts could not be probed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(
                "m3-ultra-4: output not understood: `system_profiler SPThunderboltDataType -json`"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("nothing written"), std::string::npos);
  EXPECT_EQ(read_text(out), "previous\n") << "a failed run leaves the file alone";

  r = run_meshplan({"discover", "--replay", dir, "-o", out, "--ignore-unreachable"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  json c = json::parse(read_text(out));
  ASSERT_EQ(c["hosts"].size(), 3u);
  EXPECT_EQ(c["links"].size(), 3u + 1u) << "the triangle of the others, plus their 10 GbE network";
  int unknown = 0;
  for (const auto& f : c["findings"])
    unknown += f["kind"] == "unknown-peer";
  EXPECT_EQ(unknown, 3);
}

TEST(discover_cli_test, usage_errors_exit_2) {
  std::string mesh = fixture_path("mlx_golden/four_hosts_full_mesh/inputs");
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  for (const Case& c : std::vector<Case>{
           {{"discover"}, "no hosts given"},
           {{"discover", "--replay", mesh, "m3-ultra-9"}, "no files for host m3-ultra-9"},
           {{"discover", "--replay", mesh, "--record", temp_dir()}, "cannot be combined"},
           {{"discover", "--", "-oProxyCommand=touch /tmp/x"}, "bad host"},
           {{"discover", "--hosts", "mac;reboot"}, "bad host"},
           {{"discover", "--hosts", "a,a", "--replay", mesh}, "listed twice"},
           {{"discover", "--replay", "/nonexistent"}, "not a directory"},
           {{"discover", "--jobs", "0", "mac-1"}, "--jobs"},
           {{"discover", "--user", "-oProxyCommand=x", "mac-1"}, "--user"},
           {{"discover", "--host-key-policy", "yes", "mac-1"}, "host-key-policy"},
           {{"discover", "--identity", "/nonexistent/key", "mac-1"}, "cannot read"},
           {{"discover", "-i", "/nonexistent/inventory"}, "/nonexistent/inventory"},
       }) {
    auto r = run_meshplan(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args.back() << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(discover_cli_test, help_shows_examples_first) {
  auto r = run_meshplan({"discover", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  size_t examples = r.out.find("Examples:");
  ASSERT_NE(examples, std::string::npos) << r.out;
  EXPECT_LT(examples, r.out.find("--host-key-policy"));
  EXPECT_NE(r.out.find("meshplan discover --replay"), std::string::npos);
}

}  // namespace
}  // namespace meshplan::discover_cli_test
