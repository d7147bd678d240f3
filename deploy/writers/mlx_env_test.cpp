// The per-rank environment must be what mlx.launch exports for the same hostfile
// (tests/fixtures/mlx_golden/launch: env in order, temp-file contents, MLX_RANK).
#include "deploy/writers/mlx_env.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "lib/core/document.hpp"
#include "lib/core/error.hpp"
#include "tests/test_support.hpp"

namespace meshplan::mlx_env_test {
namespace {

using testing::fixture_path;
using testing::read_text;

struct GoldenRank {
  int rank = -1;
  std::string ssh;
  std::vector<std::pair<std::string, std::string>> variables;  // without MLX_RANK
  std::vector<MlxEnvFile> files;
};

struct GoldenLaunch {
  std::string hostfile;  // the input hostfile text
  std::vector<GoldenRank> ranks;
};

GoldenLaunch read_golden(const std::string& name) {
  std::istringstream in(read_text(fixture_path("mlx_golden/launch/" + name)));
  GoldenLaunch g;
  std::string line;
  std::getline(in, line);  // "# input hostfile:"
  while (std::getline(in, line) && line.rfind("# argv:", 0) != 0)
    g.hostfile += line + "\n";
  std::string pending_file;
  bool script = false;  // the remote shell line follows "# full remote shell script"
  while (std::getline(in, line)) {
    if (line.rfind("# full remote shell script", 0) == 0) {
      script = true;
    } else if (script) {
      script = false;
    } else if (line.rfind("## rank ", 0) == 0) {
      GoldenRank r;
      r.rank = std::stoi(line.substr(8));
      size_t q = line.find('\'');
      r.ssh = line.substr(q + 1, line.rfind('\'') - q - 1);
      g.ranks.push_back(r);
    } else if (line.rfind("# MLX_", 0) == 0) {
      pending_file = line.substr(2, line.find(' ', 2) - 2);
    } else if (!pending_file.empty()) {
      g.ranks.back().files.push_back({pending_file, line});
      pending_file.clear();
    } else if (!line.empty() && line[0] != '#' && line.find('=') != std::string::npos &&
               !g.ranks.empty()) {
      size_t eq = line.find('=');
      if (line.substr(0, eq) != "MLX_RANK")
        g.ranks.back().variables.emplace_back(line.substr(0, eq), line.substr(eq + 1));
    }
  }
  return g;
}

MlxHostfile parse(const std::string& text) {
  return read_mlx_hostfile(parse_json_document(text, "hostfile.json"));
}

void expect_same(const std::vector<MlxRankEnv>& got, const GoldenLaunch& g,
                 const std::string& name) {
  ASSERT_EQ(got.size(), g.ranks.size()) << name;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].rank, g.ranks[i].rank) << name;
    EXPECT_EQ(got[i].ssh, g.ranks[i].ssh) << name;
    EXPECT_EQ(got[i].variables, g.ranks[i].variables) << name << " rank " << i;
    ASSERT_EQ(got[i].files.size(), g.ranks[i].files.size()) << name;
    for (size_t k = 0; k < got[i].files.size(); ++k) {
      EXPECT_EQ(got[i].files[k].variable, g.ranks[i].files[k].variable) << name;
      EXPECT_EQ(got[i].files[k].content, g.ranks[i].files[k].content) << name;
    }
  }
}

TEST(mlx_env_test, matches_mlx_launch_for_jaccl_mesh_and_ring) {
  for (const char* name : {"jaccl_4hosts_mesh.txt", "jaccl_ring_2hosts_2cables.txt"}) {
    GoldenLaunch g = read_golden(name);
    expect_same(mlx_rank_envs(parse(g.hostfile), {}), g, name);
  }
}

TEST(mlx_env_test, matches_mlx_launch_for_tcp_rings) {
  GoldenLaunch two = read_golden("ring_2hosts_2cables_2conns.txt");
  MlxEnvOptions o;
  o.connections_per_ip = 2;
  expect_same(mlx_rank_envs(parse(two.hostfile), o), two, "ring_2hosts_2cables_2conns");
  GoldenLaunch four = read_golden("ring_4hosts_verbose.txt");
  MlxEnvOptions v;
  v.verbose = true;
  expect_same(mlx_rank_envs(parse(four.hostfile), v), four, "ring_4hosts_verbose");
}

TEST(mlx_env_test, connections_are_the_ports_each_rank_listens_on_and_who_connects) {
  // Ring: rank r listens on each entry of MLX_HOSTFILE's row r; rank r-1 connects to it.
  GoldenLaunch four = read_golden("ring_4hosts_verbose.txt");
  MlxHostfile ring = parse(four.hostfile);
  auto c = mlx_connections(ring, {});
  ASSERT_EQ(c.size(), 4u);
  std::string rows = "[";
  for (size_t i = 0; i < c.size(); ++i) {
    EXPECT_EQ(c[i].listener, i);
    EXPECT_EQ(c[i].connector, (i + 3) % 4);
    EXPECT_EQ(c[i].address, ring.hosts[i].ips.front());
    rows += fmt::format("{}[\"{}:{}\"]", i ? ", " : "", c[i].address, c[i].port);
  }
  EXPECT_EQ(rows + "]", four.ranks[0].files[0].content);

  // Two connections per ip: both ports of rank 1 are opened by rank 0, and rank 0's by rank 1.
  GoldenLaunch two = read_golden("ring_2hosts_2cables_2conns.txt");
  MlxEnvOptions o;
  o.connections_per_ip = 2;
  auto t = mlx_connections(parse(two.hostfile), o);
  ASSERT_EQ(t.size(), 8u);
  EXPECT_EQ(t[0].port, 32323);
  EXPECT_EQ(t[7].port, 32330);
  EXPECT_EQ(t[4].listener, 1u);
  EXPECT_EQ(t[4].connector, 0u);
  EXPECT_EQ(t[0].connector, 1u);

  // JACCL: every other rank connects to rank 0's coordinator address.
  GoldenLaunch mesh = read_golden("jaccl_4hosts_mesh.txt");
  MlxHostfile jaccl = parse(mesh.hostfile);
  auto j = mlx_connections(jaccl, {});
  ASSERT_EQ(j.size(), 3u);
  std::string coordinator;
  for (const auto& [k, v] : mesh.ranks[0].variables)
    if (k == "MLX_JACCL_COORDINATOR") coordinator = v;
  for (size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(j[r].listener, 0u);
    EXPECT_EQ(j[r].connector, r + 1);
    EXPECT_EQ(fmt::format("{}:{}", j[r].address, j[r].port), coordinator);
  }
  jaccl.hosts.resize(1);
  EXPECT_TRUE(mlx_connections(jaccl, {}).empty()) << "one rank opens no connection";
}

TEST(mlx_env_test, refuses_hostfiles_the_backend_cannot_run) {
  MlxHostfile f =
      parse(R"({"backend": "jaccl", "hosts": [{"ssh": "a", "ips": [], "rdma": [null, "rdma_en2"]},
                                                        {"ssh": "b", "ips": [], "rdma": ["rdma_en2", null]}]})");
  try {
    mlx_rank_envs(f, {});
    FAIL() << "rank 0 without an IP was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0 (a) has no IP"), std::string::npos) << e.what();
  }
  f = parse(
      R"({"backend": "jaccl", "hosts": [{"ssh": "a", "ips": ["10.0.0.1"], "rdma": ["rdma_en2"]},
                                             {"ssh": "b", "ips": [], "rdma": ["rdma_en2", null]}]})");
  EXPECT_THROW(mlx_rank_envs(f, {}), Error);
  f = parse(R"([{"ssh": "a", "ips": ["10.0.0.1"]}, {"ssh": "b"}])");
  EXPECT_THROW(mlx_rank_envs(f, {}), Error);  // ring needs IPs on every rank
}

TEST(mlx_env_test, one_rank_exports_nothing) {
  // A single rank has no peer: no hostfile, MLX_RANK or coordinator to export.
  MlxHostfile f = parse(R"([{"ssh": "studio", "ips": ["10.0.0.1"]}])");
  std::string env = render_mlx_env(f, mlx_rank_envs(f, {}));
  EXPECT_EQ(env.find("\nexport "), std::string::npos) << env;
  EXPECT_EQ(env.find("MLX_HOSTFILE"), std::string::npos) << env;
  EXPECT_NE(env.find("One rank (studio)"), std::string::npos) << env;
}

TEST(mlx_env_test, cli_prints_each_rank_for_the_cluster) {
  GoldenLaunch g = read_golden("jaccl_4hosts_mesh.txt");
  auto r = testing::run_meshplan({"emit", "mlx-env", "-c",
                                  fixture_path("clusters/mlx_four_hosts_full_mesh.json"),
                                  "--backend", "jaccl", "--env", "MLX_METAL_FAST_SYNCH=1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t pos = 0;
  for (const auto& rank : g.ranks) {
    pos = r.out.find("# rank " + std::to_string(rank.rank) + ": " + rank.ssh + "\n", pos);
    ASSERT_NE(pos, std::string::npos) << r.out;
    for (const auto& [k, v] : rank.variables) {
      pos = r.out.find("export " + k + "=" + v + "\n", pos);
      ASSERT_NE(pos, std::string::npos) << k << "\n" << r.out;
    }
    pos = r.out.find("\n" + rank.files[0].content + "\n", pos);
    ASSERT_NE(pos, std::string::npos) << r.out;
    pos = r.out.find("export MLX_RANK=" + std::to_string(rank.rank) + "\n", pos);
    ASSERT_NE(pos, std::string::npos) << r.out;
  }
  // The two-cable jaccl-ring of the shared scenario, as mlx.launch would run it.
  GoldenLaunch ring = read_golden("jaccl_ring_2hosts_2cables.txt");
  r = testing::run_meshplan({"emit", "mlx-env", "-c",
                             fixture_path("clusters/mlx_two_hosts_two_cables.json"), "--backend",
                             "jaccl-ring"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("export MLX_JACCL_RING=1\n"), std::string::npos);
  EXPECT_NE(r.out.find("\n" + ring.ranks[1].files[0].content + "\n"), std::string::npos) << r.out;
}

TEST(mlx_env_test, env_script_runs_in_a_shell) {
  auto r = testing::run_meshplan({"emit", "mlx-env", "-c",
                                  fixture_path("clusters/mlx_two_hosts_two_cables.json"),
                                  "--backend", "ring", "--connections-per-ip", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Take rank 1's block, run it, and read back what a rank would see.
  std::string block = r.out.substr(r.out.find("# rank 1"));
  std::string dir = testing::temp_dir();
  std::string script = dir + "/rank1.sh";
  {
    std::ofstream(script) << "export TMPDIR=" << dir << "\n"
                          << block << "printf '%s|%s' \"$MLX_RANK\" \"$(cat \"$MLX_HOSTFILE\")\" > "
                          << dir << "/out\n";
  }
  ASSERT_EQ(std::system(("sh " + script).c_str()), 0);
  GoldenLaunch g = read_golden("ring_2hosts_2cables_2conns.txt");
  EXPECT_EQ(read_text(dir + "/out"), "1|" + g.ranks[1].files[0].content);
}

}  // namespace
}  // namespace meshplan::mlx_env_test
