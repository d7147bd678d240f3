// `meshplan advise` and `dot --advice` through the real binary: the table a user reads, the
// advice file and the drawing made from it, and the errors of bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "tests/test_support.hpp"

namespace meshplan::advise_cli_test {
namespace {

using nlohmann::json;
using testing::read_text;
using testing::run_meshplan;
using testing::source_path;
using testing::temp_dir;

std::string ring() {
  return source_path("tests/fixtures/advice/mini-ring-plus-one.yaml");
}

TEST(advise_cli_test, the_table_names_the_cable_its_ports_and_its_gain) {
  auto r = run_meshplan({"advise", "-c", ring(), "-m", "llama-3.3-70b-4bit"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find("0  none (as it stands)     7.9 tokens/s             -  tensor over 4, mlx-lm"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1  cable mini-2 - mini-4  10.8 tokens/s  +2.8 (1.36x)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1. connect mini-2 port 3 (en4) to mini-4 port 3 (en4) with a Thunderbolt "
                       "5 cable"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("every combination of up to 2 changes tried"), std::string::npos) << r.out;
}

TEST(advise_cli_test, the_advice_file_follows_its_schema_and_dot_draws_its_cables) {
  const std::string dir = temp_dir();
  const std::string file = dir + "/advice.json";
  auto r = run_meshplan({"advise", "-c", ring(), "-m", "llama-3.3-70b-4bit", "-o", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(read_text(file));
  EXPECT_EQ(j["schema"], "meshplan.advice/1");
  EXPECT_EQ(j["objective"], "latency");
  EXPECT_EQ(j["baseline"]["strategy"], "tensor");
  ASSERT_GE(j["gains"].size(), 1u);
  const json& first = j["gains"][0];
  EXPECT_EQ(first["changes"][0]["kind"], "cable");
  EXPECT_EQ(first["cables"][0]["a"]["host"], "mini-2");
  EXPECT_EQ(first["cables"][0]["a"]["port"], "3");
  EXPECT_EQ(first["cables"][0]["b"]["host"], "mini-4");
  EXPECT_NEAR(first["gain"].get<double>(),
              first["plan"]["score"].get<double>() - j["baseline"]["score"].get<double>(), 1e-5);
  EXPECT_TRUE(j["search"]["exact"].get<bool>());
  // --json prints the same document.
  auto printed = run_meshplan({"advise", "-c", ring(), "-m", "llama-3.3-70b-4bit", "--json"});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  json p = json::parse(printed.out);
  EXPECT_EQ(p["gains"], j["gains"]);

  auto dot = run_meshplan({"dot", "-c", ring(), "--advice", file, "-o", dir + "/advice.dot"});
  ASSERT_EQ(dot.exit_code, 0) << dot.err;
  std::string graph = read_text(dir + "/advice.dot");
  EXPECT_NE(graph.find("\"mini-2\" -- \"mini-4\" [label=\"advice 1: TB5\\nport 3 (en4) / port 3 "
                       "(en4)\", color=darkorange, fontcolor=darkorange, style=dashed"),
            std::string::npos)
      << graph;
  // Graphviz renders it.
  std::string cmd = "dot -Tsvg " + dir + "/advice.dot -o " + dir + "/advice.svg";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_NE(read_text(dir + "/advice.svg").find("advice 1: TB5"), std::string::npos);
}

TEST(advise_cli_test, a_purchase_is_drawn_as_a_dashed_host) {
  const std::string dir = temp_dir();
  const std::string cluster = source_path("tests/fixtures/advice/two-minis-48.yaml");
  auto r = run_meshplan({"advise", "-c", cluster, "-m", "llama-3.3-70b-bf16", "--buy",
                         "mac-studio-m3-ultra", "--changes", "1", "-o", dir + "/a.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0  none (as it stands)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("As it stands: llama-3.3-70b-bf16 does not fit"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("buy a Mac Studio (M3 Ultra, 2025) with 96 GiB"), std::string::npos)
      << r.out;
  auto dot = run_meshplan({"dot", "-c", cluster, "--advice", dir + "/a.json"});
  ASSERT_EQ(dot.exit_code, 0) << dot.err;
  EXPECT_NE(dot.out.find("\"mac-studio-m3-ultra\" [label=\"mac-studio-m3-ultra\\n(to buy)\", "
                         "shape=box, style=dashed"),
            std::string::npos)
      << dot.out;
}

// Next to one Mac, a Mac bought is cabled to it by Thunderbolt 5 on free ports (not left on the
// 1 GbE switch), and the plan over both runs over that cable.
TEST(advise_cli_test, a_mac_bought_next_to_one_mac_is_cabled_to_it) {
  const std::string cluster = source_path("tests/fixtures/advice/one-mini-48.yaml");
  auto r = run_meshplan({"advise", "-c", cluster, "-m", "llama-3.3-70b-8bit", "--buy",
                         "mac-mini-m4-pro", "--changes", "1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_GE(j["gains"].size(), 1u) << r.out;
  bool cabled = false;
  for (const json& row : j["gains"]) {
    if (row["changes"][0]["kind"] != "buy") continue;
    ASSERT_GE(row["cables"].size(), 1u) << row.dump(1);
    const json& cable = row["cables"][0];
    EXPECT_EQ(cable["kind"], "tb5") << cable.dump();
    EXPECT_TRUE(cable["a"]["host"] == "mini-1" || cable["b"]["host"] == "mini-1") << cable.dump();
    EXPECT_EQ(row["plan"]["hosts"].size(), 2u) << row["plan"].dump(1);
    cabled = true;
  }
  EXPECT_TRUE(cabled);
}

// A shorter context serves less than was asked: it is listed apart from the changes that keep
// the request, never ranked with them.
TEST(advise_cli_test, a_shorter_context_is_a_change_of_the_request_listed_apart) {
  const std::string cluster = source_path("tests/fixtures/advice/two-minis-48.yaml");
  auto r = run_meshplan(
      {"advise", "-c", cluster, "-m", "llama-3.3-70b-8bit", "--context", "128k", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_GE(j["request_changes"].size(), 1u) << r.out;
  for (const json& row : j["request_changes"]) {
    bool context = false;
    for (const json& c : row["changes"])
      context = context || c["kind"] == "context";
    EXPECT_TRUE(context) << row.dump(1);
  }
  for (const json& row : j["gains"])
    for (const json& c : row["changes"])
      EXPECT_NE(c["kind"], "context") << row.dump(1);
  auto text =
      run_meshplan({"advise", "-c", cluster, "-m", "llama-3.3-70b-8bit", "--context", "128k"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const size_t apart = text.out.find("Changes of the request (not ranked above");
  ASSERT_NE(apart, std::string::npos) << text.out;
  EXPECT_NE(text.out.find("context 65536 tokens", apart), std::string::npos) << text.out;
  EXPECT_EQ(text.out.substr(0, apart).find("context 65536 tokens"), std::string::npos) << text.out;
}

TEST(advise_cli_test, a_workload_is_ranked_by_the_workload_planners_objective) {
  const std::string cluster = source_path("examples/clusters/studio-air-fabric.yaml");
  const std::string workload = source_path("tests/fixtures/workloads/two-models.yaml");
  auto plan = run_meshplan(
      {"plan", "-c", cluster, "--workload", workload, "--objective", "throughput", "--json"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  // The least aggregate tokens/s per unit of share over the models.
  double least = 1e300;
  const json plans = json::parse(plan.out)["plans"];
  for (const json& p : plans)
    least = std::min(least, p["plan"]["serving"]["aggregate_tokens_per_s"].get<double>() /
                                p["share"].get<double>());
  auto r = run_meshplan(
      {"advise", "-c", cluster, "--workload", workload, "--objective", "throughput", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["objective"], "throughput");
  EXPECT_NEAR(j["baseline"]["score"].get<double>(), least, 1e-3 * least);
  ASSERT_GE(j["gains"].size(), 1u);
  EXPECT_EQ(j["gains"][0]["changes"][0]["kind"], "buy");
  EXPECT_GT(j["gains"][0]["plan"]["score"].get<double>(), least);
  for (const json& g : j["gains"])
    for (const json& c : g["changes"])
      EXPECT_NE(c["kind"], "quantization");  // the file sets each model's quantization
  auto both = run_meshplan({"advise", "-c", cluster, "--workload", workload, "-m", "x"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("leave out -m/--model x"), std::string::npos) << both.err;
}

// The example of docs/advise.md is the real output (but for the time the search took).
TEST(advise_cli_test, the_docs_example_is_the_real_output) {
  const std::string page = read_text(source_path("docs/advise.md"));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      page, m,
      std::regex(
          R"(<!-- example: advise -->\n[^\n]*\n\n```\n\$ meshplan ([^\n]*)\n([\s\S]*?)```\n)")));
  std::vector<std::string> args;
  std::istringstream words(m[1].str());
  for (std::string w; words >> w;)
    args.push_back(w.find("tests/fixtures/") == 0 ? source_path(w) : w);
  auto r = run_meshplan(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::regex time(R"(in [0-9.]+ s\n$)");
  EXPECT_EQ(std::regex_replace(m[2].str(), time, ""), std::regex_replace(r.out, time, ""));
}

TEST(advise_cli_test, bad_input_exits_2_with_what_was_expected) {
  auto buy =
      run_meshplan({"advise", "-c", ring(), "-m", "llama-3.3-70b-4bit", "--buy", "mac-pro-9"});
  EXPECT_EQ(buy.exit_code, 2);
  EXPECT_NE(buy.err.find("--buy mac-pro-9: not a machine of the catalog"), std::string::npos)
      << buy.err;
  auto no_model = run_meshplan({"advise", "-c", ring()});
  EXPECT_EQ(no_model.exit_code, 2);
  EXPECT_NE(no_model.err.find("--model is required"), std::string::npos) << no_model.err;

  const std::string dir = temp_dir();
  const std::string plan = dir + "/plan.json";
  ASSERT_EQ(run_meshplan({"plan", "-c", ring(), "-m", "llama-3.3-70b-4bit", "-o", plan}).exit_code,
            0);
  auto wrong = run_meshplan({"dot", "-c", ring(), "--advice", plan});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find(plan), std::string::npos) << wrong.err;
  EXPECT_NE(wrong.err.find("meshplan.advice/1"), std::string::npos) << wrong.err;
}

}  // namespace
}  // namespace meshplan::advise_cli_test
