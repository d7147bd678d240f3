// llama.cpp runs what meshplan plans: three Linux hosts (network namespaces with their own sshd,
// each management link reaching only this machine) joined in a triangle of cables, Debian sid's
// llama.cpp in a chroot (tests/llama/sid_chroot.sh). Each test goes the way a user does:
// discover, setup --apply (a /30 on every cable), calibrate, plan, emit all, then the lines of the
// emitted launch started as written, in LAUNCH.md's order, on the hosts they name; a completion
// asked of the endpoint; llama.cpp's own log read back for where every layer went. Placements and
// answers are asserted, never timings. The namespaces are removed afterwards and every process is
// stopped by its PID.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "tests/llama/llama_cluster.hpp"
#include "tests/test_support.hpp"

namespace meshplan::llama_e2e_test {
namespace {

using nlohmann::json;
using testing::EngineProcesses;
using testing::NetnsFarm;
using testing::read_text;
using testing::temp_dir;

testing::LlamaCluster* cluster = nullptr;
std::string skip_reason;
constexpr int kLayers = testing::LlamaCluster::kLayers;

class ClusterEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    skip_reason = testing::llama_unavailable_reason();
    if (skip_reason.empty()) cluster = new testing::LlamaCluster();
  }
  void TearDown() override {
    delete cluster;
    cluster = nullptr;
  }
};

const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new ClusterEnvironment);

#define REQUIRE_CLUSTER()                                  \
  do {                                                     \
    if (!skip_reason.empty()) GTEST_SKIP() << skip_reason; \
    ASSERT_NE(cluster, nullptr);                           \
  } while (0)

// Every layer and the output layer (layer kLayers in llama.cpp's log) ran on the host the plan
// gives it.
void expect_placement_as_planned(const json& plan, const testing::Launched& l) {
  const std::string log = read_text(l.main_log);
  testing::LlamaPlacement placed = testing::parse_llama_log(log);
  ASSERT_EQ(placed.layer_device.size(), static_cast<size_t>(kLayers + 1)) << log;
  auto hosts = testing::planned_hosts(plan);
  for (const auto& [layer, device] : placed.layer_device) {
    ASSERT_TRUE(placed.endpoints.count(device)) << device << " is not an RPC device\n" << log;
    const std::string& endpoint = placed.endpoints[device];
    std::string ran_on = cluster->host_of(endpoint.substr(0, endpoint.find(':')), l.main_host);
    std::string planned;
    for (const auto& [host, p] : hosts)
      if (layer < kLayers ? (layer >= p.first && layer < p.last) : p.head) planned = host;
    EXPECT_EQ(ran_on, planned) << "layer " << layer << " on " << device << " (" << endpoint << ")";
  }
}

// The main host reaches each rpc-server on a cable: no management address in --rpc.
void expect_cable_addresses(const std::string& script) {
  for (const auto& h : cluster->farm().hosts())
    EXPECT_EQ(script.find(h.address + ":"), std::string::npos) << script;
}

TEST(llama_e2e_test, the_readme_session_runs_every_layer_where_planned_over_three_hosts) {
  REQUIRE_CLUSTER();
  json plan = json::parse(read_text(cluster->work() + "/plan.json"));
  ASSERT_EQ(plan["ranks"].size(), 3u) << plan.dump(2);
  const std::string guide = read_text(cluster->work() + "/launch/LAUNCH.md");
  EXPECT_NE(guide.find("llama-rpc.sh"), std::string::npos) << guide;
  EngineProcesses processes;
  testing::Launched l = cluster->launch(cluster->work() + "/launch", processes);
  EXPECT_NE(l.answer.find("\"tokens_predicted\":8"), std::string::npos) << l.answer;
  expect_placement_as_planned(plan, l);
  expect_cable_addresses(read_text(cluster->work() + "/launch/llama-rpc.sh"));

  // calibrate timed each cable's round trip on the addresses setup gave them, and the plan
  // priced the rpc-servers' calls with them.
  json calibrated = json::parse(read_text(cluster->cluster_file()));
  std::string notes;
  for (const auto& n : plan["notes"])
    notes += n.get<std::string>() + "\n";
  ASSERT_EQ(calibrated["links"].size(), 3u);
  for (const auto& link : calibrated["links"]) {
    ASSERT_TRUE(link.contains("round_trip_us")) << link.dump();
    const double us = link["round_trip_us"].get<double>();
    EXPECT_GT(us, 1.0) << link.dump();
    EXPECT_LT(us, 10000.0) << link.dump();
    EXPECT_NE(notes.find(fmt::format("round trip {:.1f} us", us)), std::string::npos) << notes;
  }

  // The README's measure line against the running endpoint: both levels measured, written into
  // the cluster file, and printed by the next plan beside its prediction.
  cluster->run_readme_session("linux-measure");
  const std::string table = read_text(cluster->work() + "/session.out");
  json file = json::parse(read_text(cluster->cluster_file()));
  ASSERT_TRUE(file.contains("measured_serving")) << table;
  std::set<int> levels;
  for (const auto& m : file["measured_serving"]) {
    levels.insert(m["concurrency"].get<int>());
    EXPECT_EQ(m["engine"], "llama-rpc");
    EXPECT_EQ(m["hosts"].size(), 3u);
    EXPECT_GT(m["stream_tps"].get<double>(), 0) << m.dump();
    EXPECT_GT(m["total_tps"].get<double>(), 0) << m.dump();
    EXPECT_GT(m["ttft_ms"].get<double>(), 0) << m.dump();
  }
  EXPECT_EQ(levels, (std::set<int>{1, 2})) << file["measured_serving"].dump(2);
  auto again = testing::run_meshplan({"plan", "-c", cluster->cluster_file(), "-m",
                                      cluster->work() + "/tiny-llama", "--engine", "llama-rpc",
                                      "--strategy", "pipeline", "--min-hosts", "3"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("Measured " + file["measured_serving"][0]["date"].get<std::string>() +
                           " at concurrency 1"),
            std::string::npos)
      << again.out;
}

TEST(llama_e2e_test, a_two_host_pipeline_over_one_cable_runs_where_planned) {
  REQUIRE_CLUSTER();
  json plan = cluster->plan_and_emit(
      "two", {"--strategy", "pipeline", "--hosts", "node-1,node-2", "--min-hosts", "2"});
  ASSERT_EQ(plan["ranks"].size(), 2u) << plan.dump(2);
  EngineProcesses processes;
  testing::Launched l = cluster->launch(cluster->work() + "/two/launch", processes);
  EXPECT_NE(l.answer.find("\"tokens_predicted\":8"), std::string::npos) << l.answer;
  expect_placement_as_planned(plan, l);
  expect_cable_addresses(read_text(cluster->work() + "/two/launch/llama-rpc.sh"));
}

// The cluster without the cable between node-3 and node-1: only node-2 reaches both others
// directly, so a pipeline over the three must run its main command there.
TEST(llama_e2e_test, without_one_cable_the_main_host_is_the_one_that_reaches_every_stage) {
  REQUIRE_CLUSTER();
  json file = json::parse(read_text(cluster->cluster_file()));
  json kept = json::array();
  for (const auto& link : file["links"]) {
    const std::set<std::string> ends = {link["a"].value("host", ""), link["b"].value("host", "")};
    if (ends != std::set<std::string>{"node-1", "node-3"}) kept.push_back(link);
  }
  ASSERT_EQ(kept.size() + 1, file["links"].size()) << file["links"].dump(2);
  file["links"] = kept;
  const std::string dir = cluster->work() + "/line";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/cluster.json") << file.dump(2);
  // The hosts as setup leaves that cluster: its cables' /30s, not the triangle's.
  auto ssh = [](const std::vector<std::string>& args) { return cluster->meshplan(args); };
  ASSERT_EQ(ssh({"teardown", "-c", cluster->cluster_file(), "--apply"}).exit_code, 0);
  struct Restore {  // the triangle's setup again for the tests after this one
    std::function<void()> f;
    ~Restore() { f(); }
  } restore{[&] {
    ssh({"teardown", "-c", dir + "/cluster.json", "--apply"});
    ssh({"setup", "-c", cluster->cluster_file(), "--apply"});
  }};
  auto line = ssh({"setup", "-c", dir + "/cluster.json", "--apply"});
  ASSERT_EQ(line.exit_code, 0) << line.err;
  auto p = testing::run_meshplan(
      {"plan", "-c", dir + "/cluster.json", "-m", cluster->work() + "/tiny-llama", "--engine",
       "llama-rpc", "--strategy", "pipeline", "--min-hosts", "3", "-o", dir + "/plan.json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  json plan = json::parse(read_text(dir + "/plan.json"));
  ASSERT_EQ(plan["ranks"].size(), 3u);
  EXPECT_EQ(plan["ranks"][2]["host"], "node-2") << plan["ranks"].dump();
  auto e = testing::run_meshplan({"emit", "all", "-c", dir + "/cluster.json", "--plan",
                                  dir + "/plan.json", "--model", "tiny-llama/model.gguf", "-o",
                                  dir + "/launch"});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EngineProcesses processes;
  testing::Launched l = cluster->launch(dir + "/launch", processes);
  EXPECT_EQ(l.main_host, "node-2");
  EXPECT_NE(l.answer.find("\"tokens_predicted\":8"), std::string::npos) << l.answer;
  expect_placement_as_planned(plan, l);
}

// A copy on each host behind nginx: every replica's launch started on its host, nginx (this
// machine's, in the root namespace, which reaches every host) with the emitted nginx.conf, and
// requests through it answered by every replica.
TEST(llama_e2e_test, replicas_behind_nginx_each_answer_their_share) {
  REQUIRE_CLUSTER();
  // Three hosts of one figure, as a user states a what-if (the namespaces share this machine's
  // two cores, so their calibrated figures differ by the moment they were measured): a copy on
  // each is what serves the most.
  json file = json::parse(read_text(cluster->cluster_file()));
  for (auto& h : file["hosts"]) {
    h["mem_bandwidth"] = "10GB/s";
    h["flops"] = "3G";
    h["stage_overhead_ms"] = 0.05;
  }
  std::filesystem::create_directories(cluster->work() + "/replicas");
  const std::string equal = cluster->work() + "/replicas/cluster.json";
  std::ofstream(equal) << file.dump(2);
  json plan = cluster->plan_and_emit("replicas", {"--objective", "throughput"}, equal);
  const std::string dir = cluster->work() + "/replicas/launch";
  // Replicas, or a routed plan of whole copies: either way one launch a host behind nginx.
  size_t replicas = 0;
  while (
      std::filesystem::exists(dir + "/replica-" + std::to_string(replicas + 1) + "/llama-rpc.sh"))
    ++replicas;
  ASSERT_EQ(replicas, 3u) << plan.dump(2);
  EngineProcesses processes;
  std::vector<testing::Launched> launched;
  for (size_t i = 1; i <= replicas; ++i) {
    launched.push_back(cluster->launch(dir + "/replica-" + std::to_string(i), processes));
    EXPECT_NE(launched.back().answer.find("\"tokens_predicted\":8"), std::string::npos)
        << launched.back().answer;
  }
  // nginx listens where the conf says, moved to a free port of 127.0.0.1 here.
  std::string conf = read_text(dir + "/nginx.conf");
  const std::string listen = "listen 8100;";
  const size_t at = conf.find(listen);
  ASSERT_NE(at, std::string::npos) << conf;
  const int port = testing::free_loopback_port();
  conf.replace(at, listen.size(), "listen 127.0.0.1:" + std::to_string(port) + ";");
  const std::string nginx_dir = temp_dir();
  std::ofstream(nginx_dir + "/nginx.conf") << conf;
  testing::NginxProcess nginx(nginx_dir);
  for (int i = 0;
       i < 50 && testing::http_request("127.0.0.1", port, "GET", "/health", "", 500).code != 200;
       ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const int requests = static_cast<int>(3 * replicas);
  for (int i = 0; i < requests; ++i) {
    auto a =
        testing::http_request("127.0.0.1", port, "POST", "/completion",
                              R"({"prompt":"the a of","ignore_eos":true,"n_predict":4})", 60000);
    EXPECT_EQ(a.code, 200) << a.body << read_text(nginx_dir + "/error.log");
  }
  // Each replica's log counts the completions it served ("slot release: ... stop processing"):
  // one from launch(), the rest from nginx.
  for (const testing::Launched& l : launched) {
    const std::string log = read_text(l.main_log);
    size_t served = 0;
    for (size_t p = log.find("stop processing:"); p != std::string::npos;
         p = log.find("stop processing:", p + 1))
      ++served;
    EXPECT_GE(served, 2u) << l.main_host << " served none of nginx's requests";
  }
}

// Runs last: teardown undoes what the session's setup --apply did, and only that.
TEST(llama_e2e_test, teardown_leaves_every_namespace_as_discover_found_it) {
  REQUIRE_CLUSTER();
  auto r = cluster->meshplan({"teardown", "-c", cluster->cluster_file(), "--apply"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(cluster->network_state(), cluster->found_state());
}

}  // namespace
}  // namespace meshplan::llama_e2e_test
