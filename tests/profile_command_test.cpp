// `meshplan profile` as a user runs it: the cost model's tables for every host, read back by the
// profile reader, as YAML or JSON, on stdout or atomically to a file, and its help's examples.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lib/core/error.hpp"
#include "solvers/problem/throughput_profile.hpp"
#include "tests/test_support.hpp"

namespace meshplan::profile_command_test {
namespace {

using testing::read_text;
using testing::run_meshplan;
using testing::source_path;
using testing::temp_dir;

const std::string kFive = source_path("examples/clusters/ethernet-5-node.yaml");

TEST(profile_command_test, writes_a_table_per_host_that_the_profile_reader_reads) {
  auto r = run_meshplan({"profile", "-c", kFive, "-m", "llama-3.3-70b-4bit"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ThroughputProfile p = parse_throughput_profile(r.out, "stdout.yaml");
  EXPECT_EQ(p.model, "llama-3.3-70b-4bit");
  EXPECT_EQ(p.streams_per_host, 1);
  ASSERT_EQ(p.hosts.size(), 5u) << r.out;
  for (const auto& [host, t] : p.hosts) {
    ASSERT_FALSE(t.empty()) << host;
    EXPECT_LE(t.size(), 80u) << host;  // the model's layer count
    // One stream: more layers per step, fewer tokens per second.
    for (size_t k = 1; k < t.size(); ++k)
      EXPECT_LT(t[k], t[k - 1]) << host << " " << k;
  }
  // At 4096 tokens even the 64 GiB mini holds every layer (about 40 GB); the faster chip is faster.
  EXPECT_EQ(p.hosts.at("studio-1").size(), 80u);
  EXPECT_EQ(p.hosts.at("mini-m4-pro").size(), 80u);
  EXPECT_GT(p.hosts.at("studio-1")[0], p.hosts.at("mini-m4-pro")[0]);
  // More streams: more aggregate tokens/s, fewer layers in memory at a long context.
  r = run_meshplan({"profile", "-c", kFive, "-m", "llama-3.3-70b-4bit", "--streams", "16",
                    "--context", "32k", "--hosts", "mini-m4-pro"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ThroughputProfile busy = parse_throughput_profile(r.out, "stdout.yaml");
  EXPECT_EQ(busy.streams_per_host, 16);
  ASSERT_EQ(busy.hosts.size(), 1u);
  const auto& t16 = busy.hosts.at("mini-m4-pro");
  EXPECT_GT(t16[0], p.hosts.at("mini-m4-pro")[0]);
  EXPECT_LT(t16.size(), p.hosts.at("mini-m4-pro").size());
}

TEST(profile_command_test, json_holds_the_same_tables) {
  auto y = run_meshplan({"profile", "-c", kFive, "-m", "qwen3-32b-4bit", "--streams", "4"});
  auto j =
      run_meshplan({"profile", "-c", kFive, "-m", "qwen3-32b-4bit", "--streams", "4", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["schema"], kProfileSchema);
  EXPECT_EQ(doc["hosts"].size(), 5u);
  ThroughputProfile a = parse_throughput_profile(y.out, "p.yaml");
  ThroughputProfile b = parse_throughput_profile(j.out, "p.json");
  EXPECT_EQ(a.hosts, b.hosts);
  EXPECT_EQ(b.streams_per_host, 4);
}

TEST(profile_command_test, output_file_is_written_atomically) {
  std::string dir = temp_dir();
  std::string path = dir + "/profile.yaml";
  std::ofstream(path) << "old contents\n";
  auto r = run_meshplan({"profile", "-c", kFive, "-m", "llama-3.1-8b-4bit", "-o", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");  // the data went to the file
  auto s = run_meshplan({"profile", "-c", kFive, "-m", "llama-3.1-8b-4bit"});
  EXPECT_EQ(read_text(path), s.out);
  // Nothing but the file is left behind (no temporary file).
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1u);
  // A folder that does not exist: an error, and no partial file.
  r = run_meshplan({"profile", "-c", kFive, "-m", "llama-3.1-8b-4bit", "-o", dir + "/no/p.yaml"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(dir + "/no/p.yaml"));
}

TEST(profile_command_test, bad_arguments_exit_2) {
  for (const char* n : {"0", "-1", "-8", "4097", "many"}) {
    auto r = run_meshplan({"profile", "-c", kFive, "-m", "llama-3.1-8b-4bit", "--streams", n});
    EXPECT_EQ(r.exit_code, 2) << n << ": " << r.err;
    EXPECT_NE(r.err.find("--streams"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  auto r = run_meshplan({"profile", "-c", kFive, "-m", "llama-3.1-8b-4bit", "--context", "lots"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--context lots"), std::string::npos) << r.err;
  r = run_meshplan({"profile", "-c", kFive, "-m", "llama-3.1-8b-4bit", "--hosts", "studio-9"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("studio-9"), std::string::npos) << r.err;
  r = run_meshplan({"profile", "-c", kFive, "-m", "llama-9-4bit"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_meshplan({"profile", "-c", kFive});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--model"), std::string::npos) << r.err;
}

TEST(profile_command_test, hosts_without_room_for_a_layer_are_left_out_with_a_note) {
  // 405B at 128K tokens: a layer with the KV of 240 streams is about 122 GiB, more than the
  // laptops and the mini hold, less than a studio.
  auto r = run_meshplan({"profile", "-c", kFive, "-m", "llama-3.1-405b-4bit", "--context", "128k",
                         "--streams", "240"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ThroughputProfile p = parse_throughput_profile(r.out, "stdout.yaml");
  EXPECT_EQ(p.hosts.size(), 2u) << r.out;
  EXPECT_TRUE(p.hosts.count("studio-1"));
  EXPECT_NE(r.err.find("mini-m4-pro: left out, it cannot hold one layer"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("mini-m4-pro"), std::string::npos);
  // No host at all: exit 1 and nothing on stdout.
  r = run_meshplan({"profile", "-c", kFive, "-m", "llama-3.1-405b-4bit", "--context", "128k",
                    "--streams", "4000"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("no host can hold one layer"), std::string::npos) << r.err;
}

TEST(profile_command_test, every_help_example_runs) {
  auto help = run_meshplan({"profile", "--help"});
  ASSERT_EQ(help.exit_code, 0);
  EXPECT_LT(help.out.find("Examples:"), help.out.find("Options:")) << help.out;
  std::istringstream lines(help.out);
  std::string line, dir = temp_dir();
  int examples = 0;
  while (std::getline(lines, line)) {
    const std::string prefix = "  meshplan profile ";
    if (line.rfind(prefix, 0) != 0) continue;
    std::vector<std::string> args = {"profile"};
    std::istringstream words(line.substr(prefix.size()));
    for (std::string w; words >> w;) {
      if (w.rfind("examples/", 0) == 0) w = source_path(w);
      if (args.back() == "-o") w = dir + "/" + w;
      args.push_back(w);
    }
    auto r = run_meshplan(args);
    ASSERT_EQ(r.exit_code, 0) << line << "\n" << r.err;
    std::string text = args[args.size() - 2] == "-o" ? read_text(args.back()) : r.out;
    ThroughputProfile p = parse_throughput_profile(
        text, line.find("--json") != std::string::npos ? "p.json" : "p.yaml");
    EXPECT_FALSE(p.hosts.empty()) << line;
    ++examples;
  }
  EXPECT_GE(examples, 4) << help.out;
}

}  // namespace
}  // namespace meshplan::profile_command_test
