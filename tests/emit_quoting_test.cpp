// The network and MLX artifacts under hostile names (tests/fixtures/clusters/hostile-macs.yaml):
// `setup` and `teardown` lines and the `mlx-env` script are checked by `sh -n` and run by sh with
// a recording `sudo`, the Graphviz drawing is rendered by `dot`, and the formats whose consumers
// do not quote (.deepspeed_env) or that take a user name refuse what they cannot carry. No
// command hidden in a value may run. Launch commands: launch_quoting_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/test_support.hpp"

namespace meshplan::emit_quoting_test {
namespace {

using testing::read_text;
using testing::run_meshplan;
using testing::run_recorded;
using testing::source_path;
using testing::temp_dir;

const std::string kCluster = source_path("tests/fixtures/clusters/hostile-macs.yaml");
const std::string kPortA = "en2;touch PWNED2";
const std::string kPortB = "e n'2\"";

// The lines of `text` that are commands (setup and teardown print headers between host blocks).
std::string sudo_lines(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("sudo ", 0) == 0) out += line + "\n";
  return out;
}

void expect_nothing_ran(const std::string& dir, const std::string& what) {
  for (const auto& e : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find("PWNED"), std::string::npos)
        << what << " ran a command from a value: " << e.path();
}

// The recorded words of each `sudo` call, one call per line: "ifconfig|<iface>|inet|...".
std::vector<std::string> calls(const std::string& recorded) {
  std::vector<std::string> out;
  std::istringstream in(recorded);
  for (std::string line; std::getline(in, line);) {
    if (line == "run sudo") out.emplace_back();
    if (line.rfind("arg <", 0) != 0 || out.empty()) continue;
    if (!out.back().empty()) out.back().push_back('|');
    out.back().append(line, 5, line.size() - 6);
  }
  return out;
}

TEST(emit_quoting_test, setup_and_teardown_pass_interface_names_as_single_words) {
  for (const char* backend : {"jaccl", "ring"}) {
    std::string dir = temp_dir();
    auto a = run_meshplan({"setup", "-c", kCluster, "--backend", backend, "--host", "mac-a"});
    auto b = run_meshplan({"setup", "-c", kCluster, "--backend", backend, "--host", "mac-b"});
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    auto got = calls(run_recorded(dir, a.out + b.out, {"sudo"}));
    std::vector<std::string> want = {
        "ifconfig|bridge0|down",
        "ifconfig|" + kPortA + "|inet|192.168.0.1|netmask|255.255.255.252",
        "route|change|192.168.0.2|-interface|" + kPortA,
        "ifconfig|bridge0|down",
        "ifconfig|" + kPortB + "|inet|192.168.0.2|netmask|255.255.255.252",
        "route|change|192.168.0.1|-interface|" + kPortB};
    EXPECT_EQ(got, want) << backend;
    expect_nothing_ran(dir, std::string("setup --backend ") + backend);
  }
  std::string dir = temp_dir();
  auto t = run_meshplan({"emit", "teardown", "-c", kCluster});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  auto got = calls(run_recorded(dir, sudo_lines(t.out), {"sudo"}));
  std::vector<std::string> want = {"route|delete|192.168.0.2|-interface|" + kPortA,
                                   "ifconfig|" + kPortA + "|inet|192.168.0.1|delete",
                                   "ifconfig|bridge0|up",
                                   "route|delete|192.168.0.1|-interface|" + kPortB,
                                   "ifconfig|" + kPortB + "|inet|192.168.0.2|delete",
                                   "ifconfig|bridge0|up"};
  EXPECT_EQ(got, want);
  expect_nothing_ran(dir, "teardown");
}

// mlx-env is sourced as a whole: the RDMA device list it writes holds the hostile name verbatim.
TEST(emit_quoting_test, mlx_env_writes_device_names_as_data) {
  std::string dir = temp_dir();
  auto r = run_meshplan({"emit", "mlx-env", "-c", kCluster, "--backend", "jaccl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  run_recorded(dir, r.out + "cat \"$MLX_IBV_DEVICES\" >>\"$RECORD\"\n", {});
  std::string recorded = read_text(dir + "/record.txt");
  EXPECT_EQ(recorded, "[[null, \"rdma_$(touch PWNED3)\"], [\"rdma_en2\", null]]\n");
  expect_nothing_ran(dir, "mlx-env");
}

TEST(emit_quoting_test, graphviz_labels_are_escaped) {
  std::string dir = temp_dir();
  auto r = run_meshplan({"dot", "-c", kCluster});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ofstream(dir + "/c.dot") << r.out;
  std::string cmd = "dot -Tsvg '" + dir + "/c.dot' -o '" + dir + "/c.svg'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << r.out;
  std::string svg = read_text(dir + "/c.svg");
  EXPECT_NE(svg.find("mac&#45;a en2;touch PWNED2 / mac&#45;b e n&#39;2&quot;"), std::string::npos)
      << svg;
  EXPECT_NE(svg.find("x&#39;; touch PWNED1 #"), std::string::npos) << svg;
  expect_nothing_ran(dir, "dot");
}

TEST(emit_quoting_test, formats_that_cannot_carry_a_value_refuse_it) {
  std::string dir = temp_dir();
  auto plan = run_meshplan({"plan", "-c", kCluster, "-m", "llama-3.2-3b-4bit", "--strategy",
                            "pipeline", "-o", dir + "/plan.json"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  // DeepSpeed exports .deepspeed_env lines through a remote shell unquoted.
  auto ds = run_meshplan({"emit", "deepspeed-env", "-c", kCluster, "--plan", dir + "/plan.json"});
  EXPECT_EQ(ds.exit_code, 2);
  EXPECT_NE(ds.err.find("value \"en0 `touch PWNED4`\" is not a plain word"), std::string::npos)
      << ds.err;
  // emit all writes nothing when one of its files cannot be written (Macs get no DeepSpeed file;
  // here the ssh user that the inventory would carry is refused).
  auto all = run_meshplan({"emit", "all", "-c", kCluster, "--plan", dir + "/plan.json", "-o",
                           dir + "/out", "--user", "u;touch PWNED"});
  EXPECT_EQ(all.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
  for (const char* format : {"ray-cluster", "ansible-inventory"}) {
    auto u = run_meshplan(
        {"emit", format, "-c", kCluster, "--plan", dir + "/plan.json", "--user", "u;touch PWNED"});
    EXPECT_EQ(u.exit_code, 2) << format;
    EXPECT_NE(u.err.find("--user \"u;touch PWNED\": expected a user name"), std::string::npos)
        << u.err;
  }
  // A leading '-' or a line break cannot be an interface: refused where the file says it.
  std::string bad = dir + "/bad.yaml";
  std::ofstream(bad)
      << "hosts:\n  - name: a\n    interfaces: [{name: \"-oProxy\", kind: ethernet}]\n";
  auto b = run_meshplan({"check", "-c", bad});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.err.find("bad.yaml:3:"), std::string::npos) << b.err;
  EXPECT_NE(b.err.find("expected a device name"), std::string::npos) << b.err;
  expect_nothing_ran(dir, "emit");
}

}  // namespace
}  // namespace meshplan::emit_quoting_test
