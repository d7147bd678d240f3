// The seed case with exo as the engine: a DGX Spark prefills and a Mac Studio decodes Llama 3.1 8B
// for 8192-token prompts. `plan --engine exo` chooses that shape, `emit all` writes exo's launch
// with disaggregation enabled, and the script that creates and links the two instances runs
// against exo's HTTP API as exo @b5375f8 answers it (tests/fixtures/exo/fake_exo_api.py).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_support.hpp"

namespace meshplan::exo_disaggregation_cli_test {
namespace {

using nlohmann::json;
using testing::read_text;
using testing::run_meshplan;
using testing::source_path;
using testing::temp_dir;

const std::string kSeed = source_path("tests/fixtures/clusters/spark-m3-ultra-10gbe.yaml");

// The launch of the seed case, written by `emit all`.
std::string seed_launch(const std::string& dir) {
  const std::string plan = dir + "/plan.json";
  auto p = run_meshplan({"plan", "-c", kSeed, "-m", "llama-3.1-8b-fp16", "--prompt", "8192",
                         "--output-tokens", "32", "--engine", "exo", "-o", plan});
  EXPECT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out.rfind("llama-3.1-8b-fp16 served with prefill on spark and decode on studio", 0),
            0u)
      << p.out;
  EXPECT_EQ(p.out.find("it is not chosen"), std::string::npos) << p.out;
  auto e = run_meshplan({"emit", "all", "-c", kSeed, "--plan", plan, "-o", dir + "/launch"});
  EXPECT_EQ(e.exit_code, 0) << e.err;
  return dir + "/launch";
}

// What the fake exo API saw and what the script said, run on the script's python part.
json run_link_script(const std::string& sh, const std::string& dir, bool fail) {
  const size_t begin = sh.find("<<'EOF'\n");
  const size_t end = sh.rfind("EOF\n");
  EXPECT_NE(begin, std::string::npos);
  EXPECT_GT(end, begin);
  const std::string script = dir + "/link.py";
  std::ofstream(script) << sh.substr(begin + 8, end - begin - 8);
  const std::string cmd = "python3 " + source_path("tests/fixtures/exo/fake_exo_api.py") + " " +
                          script + " mlx-community/Meta-Llama-3.1-8B-Instruct-bf16" +
                          (fail ? " --fail" : "") + " > " + dir + "/api.json";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return json::parse(read_text(dir + "/api.json"));
}

TEST(exo_disaggregation_cli_test, the_seed_case_launches_with_exo_as_chosen) {
  const std::string dir = temp_dir();
  const std::string launch = seed_launch(dir);
  EXPECT_FALSE(std::filesystem::exists(launch + "/exo.sh"))
      << "exo over the ranks is not the shape";
  const std::string sh = read_text(launch + "/exo-disaggregated.sh");
  EXPECT_NE(sh.find("# prefill on spark:\nENABLE_DISAGGREGATION=true exo --api-port 52415 "
                    "--zenoh-port 52414 --discovery-port 52413 --namespace spark-m3-ultra-10gbe "
                    "--force-master\n"),
            std::string::npos)
      << sh;
  EXPECT_NE(sh.find("# decode on studio:\nENABLE_DISAGGREGATION=true exo --api-port 52415 "),
            std::string::npos)
      << sh;
  EXPECT_EQ(std::system(("bash -n " + launch + "/exo-disaggregated.sh").c_str()), 0);
  EXPECT_NE(read_text(launch + "/LAUNCH.md").find("exo, prefill and decode apart"),
            std::string::npos);

  // The script: each node's id from its own API, the one-node pipeline instance of each, both
  // ready, then one link from the prefill instance to the decode instance.
  json api = run_link_script(sh, dir, false);
  ASSERT_EQ(api["exit"], 0) << api["err"];
  std::vector<std::string> posted;
  for (const json& c : api["calls"]) {
    if (c[0] != "POST" || c[1] != "/instance") continue;
    const json& body = c[2]["instance"]["MlxRingInstance"];
    const json& nodes = body["shardAssignments"]["nodeToRunner"];
    EXPECT_EQ(nodes.size(), 1u) << body.dump();
    posted.push_back(body["instanceId"]);
  }
  ASSERT_EQ(posted.size(), 2u);
  EXPECT_EQ(posted[0].rfind("inst-prefillnode-", 0), 0u);
  EXPECT_EQ(posted[1].rfind("inst-decodenode-", 0), 0u);
  ASSERT_EQ(api["links"].size(), 1u);
  EXPECT_EQ(api["links"][0]["prefillInstances"], json::array({posted[0]}));
  EXPECT_EQ(api["links"][0]["decodeInstances"], json::array({posted[1]}));
  EXPECT_NE(api["out"].get<std::string>().find(": linked"), std::string::npos);
  // No link before both runners are ready.
  bool ready_polled = false;
  for (const json& c : api["calls"]) {
    if (c[1].get<std::string>().rfind("/state/runners/", 0) == 0) ready_polled = true;
    if (c[0] == "POST" && c[1] == "/v1/instance-links") {
      EXPECT_TRUE(ready_polled);
    }
  }
}

TEST(exo_disaggregation_cli_test, a_runner_that_fails_stops_the_script_with_its_message) {
  const std::string dir = temp_dir();
  const std::string sh = read_text(seed_launch(dir) + "/exo-disaggregated.sh");
  json api = run_link_script(sh, dir, true);
  EXPECT_NE(api["exit"], 0);
  EXPECT_NE(api["err"].get<std::string>().find("the prefill instance failed: out of memory"),
            std::string::npos)
      << api["err"];
  EXPECT_TRUE(api["links"].empty());
}

TEST(exo_disaggregation_cli_test, a_plan_that_keeps_prefill_and_decode_together_is_refused) {
  const std::string plan = temp_dir() + "/together.json";
  ASSERT_EQ(
      run_meshplan({"plan", "-c", kSeed, "-m", "llama-3.1-8b-fp16", "--engine", "exo", "-o", plan})
          .exit_code,
      0);
  auto r = run_meshplan({"emit", "exo-disagg", "-c", kSeed, "--plan", plan});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("exo-disagg: the plan does not choose prefill on one host"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace meshplan::exo_disaggregation_cli_test
