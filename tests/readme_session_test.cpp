// The README's typical session runs as written: every line of its block, under sh, in a folder
// where cluster.json is the bundled four Mac Studios (the `discover` line probes real Macs over
// SSH, which tests/ssh does against a real sshd; here its output file stands in for it). Each
// line must exit 0 and leave what the next one reads; the launch must be mlx-lm's, for the plan's
// hosts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lib/cluster/cluster_writer.hpp"
#include "lib/topologies/cluster_loader.hpp"
#include "tests/test_support.hpp"

namespace meshplan {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::source_path;

std::vector<std::string> session_lines() {
  const std::string readme = read_text(source_path("README.md"));
  const size_t at = readme.find("A typical session");
  EXPECT_NE(at, std::string::npos);
  const size_t begin = readme.find("```sh\n", at) + 6;
  const size_t end = readme.find("```", begin);
  std::vector<std::string> lines;
  std::istringstream in(readme.substr(begin, end - begin));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

TEST(readme_session_test, the_typical_session_runs_as_written) {
  const std::string dir = testing::temp_dir();
  // What `discover` writes: the cluster file, JSON.
  const std::string example = source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");
  std::ofstream(dir + "/cluster.json")
      << write_cluster_json(load_cluster(read_text(example), example, Catalog::builtin()));
  const std::string bin = fs::path(MESHPLAN_BINARY).parent_path().string();
  const auto lines = session_lines();
  ASSERT_GE(lines.size(), 5u);
  int ran = 0;
  for (const std::string& line : lines) {
    if (line.rfind("meshplan discover", 0) == 0) continue;
    ASSERT_EQ(line.rfind("meshplan ", 0), 0u) << line;
    const std::string command = "cd '" + dir + "' && export PATH='" + bin + "':\"$PATH\" && { " +
                                line + "\n} >/dev/null 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << line;
    ++ran;
  }
  EXPECT_GE(ran, 5);
  EXPECT_GT(fs::file_size(dir + "/cluster.svg"), 0u);
  const nlohmann::json plan = nlohmann::json::parse(read_text(dir + "/plan.json"));
  EXPECT_EQ(plan["engine"], "mlx-lm");
  // The launch is mlx-lm's, for the plan's hosts, with its checklist.
  const std::string hostfile = read_text(dir + "/launch/mlx-hostfile.json");
  const nlohmann::json hosts = nlohmann::json::parse(hostfile)["hosts"];
  EXPECT_EQ(hosts.size(), plan["ranks"].size());
  EXPECT_TRUE(fs::exists(dir + "/launch/mlx-launch.sh"));
  EXPECT_FALSE(fs::exists(dir + "/launch/vllm.sh"));
  EXPECT_NE(read_text(dir + "/launch/LAUNCH.md").find("Check that it answers"), std::string::npos);
}

}  // namespace
}  // namespace meshplan
