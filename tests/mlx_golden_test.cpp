// The shared MLX scenarios (tests/fixtures/mlx_golden): the cluster that `discover --replay` builds
// from each scenario's inputs must give, through the real binary, the backend MLX's automatic mode
// picks, its hostfiles byte for byte for every --backend, and the same setup commands.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/test_support.hpp"

namespace meshplan::mlx_golden_test {
namespace {

using testing::fixture_path;
using testing::read_text;
using testing::run_meshplan;

// MLX's stdout as recorded in a golden file (between the stdout and stderr markers).
std::string golden_stdout(const std::string& file) {
  std::string text = read_text(fixture_path("mlx_golden/" + file));
  const std::string start = "# ===== stdout =====\n";
  size_t a = text.find(start);
  size_t b = text.find("# ===== stderr");
  EXPECT_NE(a, std::string::npos) << file;
  EXPECT_NE(b, std::string::npos) << file;
  return text.substr(a + start.size(), b - a - start.size());
}

// The hostfile MLX printed after the "Hostfile" / "========" banner; print() added the newline.
std::string golden_hostfile(const std::string& file) {
  std::string out = golden_stdout(file);
  size_t banner = out.find("Hostfile\n========\n");
  EXPECT_NE(banner, std::string::npos) << file;
  out = out.substr(banner + std::string("Hostfile\n========\n").size());
  EXPECT_EQ(out.back(), '\n');
  out.pop_back();
  return out;
}

// Host -> command lines of each "Setup for <host>" block (MLX's interactive or auto-setup form).
std::map<std::string, std::vector<std::string>> setup_blocks(const std::string& stdout_text) {
  std::map<std::string, std::vector<std::string>> out;
  std::istringstream in(stdout_text);
  std::string line, host;
  bool in_block = false;
  while (std::getline(in, line)) {
    if (line.rfind("Setup for ", 0) == 0) {
      host = line.substr(10);
      std::getline(in, line);  // the rule of '='
      EXPECT_EQ(line, std::string(host.size() + 10, '='));
      in_block = true;
      out[host];
    } else if (in_block && line.empty()) {
      in_block = false;
    } else if (in_block) {
      out[host].push_back(line);
    }
  }
  return out;
}

// The commands of an --auto-setup run: ssh <host> "<cmd> ; <cmd> ; ...".
std::map<std::string, std::vector<std::string>> auto_setup_commands(const std::string& file) {
  std::string text = read_text(fixture_path("mlx_golden/" + file));
  std::map<std::string, std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line;
  const std::string prefix = "[\"ssh\", \"";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0 || line.find("sudo ifconfig bridge0 down") == std::string::npos)
      continue;
    size_t host_end = line.find('"', prefix.size());
    std::string host = line.substr(prefix.size(), host_end - prefix.size());
    size_t cmd = line.find('"', host_end + 1) + 1;
    std::string joined = line.substr(cmd, line.rfind('"') - cmd);
    std::vector<std::string> commands;
    for (size_t pos = 0;;) {
      size_t sep = joined.find(" ; ", pos);
      commands.push_back(joined.substr(pos, sep - pos));
      if (sep == std::string::npos) break;
      pos = sep + 3;
    }
    out[host] = commands;
  }
  return out;
}

// The cluster file `meshplan discover --replay <scenario>/inputs` writes (discovered once per run).
std::string replayed_cluster(const std::string& scenario) {
  static std::map<std::string, std::string> paths;
  auto it = paths.find(scenario);
  if (it != paths.end()) return it->second;
  std::string out = testing::temp_dir() + "/" + scenario + ".json";
  auto r = run_meshplan(
      {"discover", "--replay", fixture_path("mlx_golden/" + scenario + "/inputs"), "-o", out});
  EXPECT_EQ(r.exit_code, 0) << scenario << ": " << r.err;
  return paths[scenario] = out;
}

struct Scenario {
  std::string dir;
  std::string cluster;
};

const std::vector<Scenario> kScenarios = {
    {"two_hosts_one_cable", "clusters/mlx_two_hosts_one_cable.json"},
    {"two_hosts_two_cables", "clusters/mlx_two_hosts_two_cables.json"},
    {"four_hosts_full_mesh", "clusters/mlx_four_hosts_full_mesh.json"},
};

struct HostfileCase {
  std::string scenario;
  std::string golden;
  std::vector<std::string> args;
};

TEST(mlx_golden_test, hostfiles_equal_mlx_byte_for_byte) {
  const std::vector<HostfileCase> cases = {
      {"two_hosts_one_cable", "backend_jaccl.txt", {"--backend", "jaccl"}},
      {"two_hosts_one_cable", "backend_jaccl_ring.txt", {"--backend", "jaccl-ring"}},
      {"two_hosts_one_cable", "backend_ring.txt", {"--backend", "ring"}},
      {"two_hosts_one_cable", "auto_backend.txt", {}},
      {"two_hosts_one_cable", "over_ethernet.txt", {"--backend", "ethernet"}},
      {"two_hosts_two_cables", "backend_jaccl.txt", {"--backend", "jaccl"}},
      {"two_hosts_two_cables", "backend_jaccl_ring.txt", {"--backend", "jaccl-ring"}},
      {"two_hosts_two_cables", "backend_ring_auto_setup.txt", {"--backend", "ring"}},
      {"four_hosts_full_mesh", "auto_backend.txt", {"--backend", "auto"}},
      {"four_hosts_full_mesh", "backend_jaccl_ring.txt", {"--backend", "jaccl-ring"}},
      {"four_hosts_full_mesh",
       "backend_jaccl_with_env.txt",
       {"--backend", "jaccl", "--env", "MLX_METAL_FAST_SYNCH=1"}},
      {"four_hosts_full_mesh", "backend_ring_auto_setup.txt", {"--backend", "ring"}},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"emit", "mlx-hostfile", "-c", replayed_cluster(c.scenario)};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = run_meshplan(args);
    ASSERT_EQ(r.exit_code, 0) << c.scenario << "/" << c.golden << ": " << r.err;
    EXPECT_EQ(r.out, golden_hostfile(c.scenario + "/" + c.golden)) << c.scenario << "/" << c.golden;
  }
}

TEST(mlx_golden_test, hostfile_written_to_a_file_has_no_trailing_newline) {
  std::string out = testing::temp_dir() + "/hosts.json";
  auto r = run_meshplan({"emit", "mlx-hostfile", "-c", replayed_cluster("two_hosts_two_cables"),
                         "--backend", "jaccl-ring", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out), golden_hostfile("two_hosts_two_cables/backend_jaccl_ring.txt"));
  EXPECT_TRUE(r.out.empty());
}

TEST(mlx_golden_test, check_picks_the_backend_mlx_auto_mode_picks) {
  for (const auto& s : {kScenarios[0], kScenarios[2]}) {
    std::string mlx = golden_hostfile(s.dir + "/auto_backend.txt");
    size_t key = mlx.find("\"backend\": \"");
    ASSERT_NE(key, std::string::npos);
    std::string expected = mlx.substr(key + 12, mlx.find('"', key + 12) - key - 12);
    auto r = run_meshplan({"check", "-c", replayed_cluster(s.dir), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    auto report = nlohmann::json::parse(r.out);
    EXPECT_EQ(report["backend"], expected) << s.dir;
    EXPECT_EQ(report["ok"], true);
  }
  // No auto run was recorded for two cables; MLX's rule (RDMA and a mesh) gives jaccl there too.
  auto r = run_meshplan({"check", "-c", replayed_cluster(kScenarios[1].dir)});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("OK: jaccl"), std::string::npos) << r.out;
}

TEST(mlx_golden_test, setup_prints_the_commands_mlx_runs) {
  const std::vector<std::pair<std::string, std::string>> interactive = {
      {"two_hosts_one_cable", "auto_backend.txt"},
      {"two_hosts_one_cable", "backend_ring.txt"},
      {"two_hosts_two_cables", "backend_jaccl.txt"},
      {"two_hosts_two_cables", "backend_jaccl_ring.txt"},
      {"four_hosts_full_mesh", "auto_backend.txt"},
      {"four_hosts_full_mesh", "backend_jaccl_ring.txt"},
  };
  for (const auto& [scenario, file] : interactive) {
    auto expected = setup_blocks(golden_stdout(scenario + "/" + file));
    ASSERT_FALSE(expected.empty()) << file;
    auto r = run_meshplan({"setup", "-c", replayed_cluster(scenario)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(setup_blocks(r.out), expected) << scenario << "/" << file << "\n" << r.out;
  }
  for (const auto& scenario : {"two_hosts_two_cables", "four_hosts_full_mesh"}) {
    auto expected = auto_setup_commands(std::string(scenario) + "/backend_ring_auto_setup.txt");
    ASSERT_FALSE(expected.empty());
    auto r = run_meshplan({"setup", "-c", replayed_cluster(scenario), "--backend", "ring"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(setup_blocks(r.out), expected) << scenario;
    // --host prints one host's commands as they are run over ssh.
    for (const auto& [host, commands] : expected) {
      auto one = run_meshplan(
          {"setup", "-c", replayed_cluster(scenario), "--backend", "ring", "--host", host});
      std::string lines;
      for (const auto& c : commands)
        lines += c + "\n";
      EXPECT_EQ(one.out, lines);
    }
  }
}

TEST(mlx_golden_test, setup_blocks_keep_mlx_layout) {
  auto r = run_meshplan({"setup", "-c", replayed_cluster("two_hosts_one_cable")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string mlx = golden_stdout("two_hosts_one_cable/backend_jaccl.txt");
  // MLX's block minus its "Enter to continue" prompt.
  std::string expected;
  std::istringstream in(mlx.substr(0, mlx.find("Hostfile\n")));
  for (std::string line; std::getline(in, line);)
    if (line != "Enter to continue") expected += line + "\n";
  EXPECT_EQ(r.out, expected);
}

// The hand-written cluster fixtures that other tests use are exactly what discovery produces from
// the same inputs (its findings aside: the inputs carry no hardware facts).
TEST(mlx_golden_test, cluster_fixtures_equal_what_discovery_replays) {
  for (const auto& s : kScenarios) {
    auto replayed = nlohmann::json::parse(read_text(replayed_cluster(s.dir)));
    auto fixture = nlohmann::json::parse(read_text(fixture_path(s.cluster)));
    replayed.erase("findings");
    fixture.erase("findings");
    EXPECT_EQ(replayed, fixture) << s.dir;
  }
}

}  // namespace
}  // namespace meshplan::mlx_golden_test
