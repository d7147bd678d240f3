// Throughput on a fleet through the real binary, as a user plans one: 200 hosts of six kinds
// (the benchmark's mixed-6 family, written to a cluster file). The replicas are each of one kind
// of machine, the plan says per kind how many hosts they use and why not more, and the routed
// alternative, searched as shards, stays within its own bound.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "bench/fleet_families.hpp"
#include "lib/cluster/cluster_writer.hpp"
#include "tests/test_support.hpp"

namespace meshplan::fleet_throughput_cli_test {
namespace {

using nlohmann::json;
using testing::run_meshplan;

// The kind of a fleet host: its name without the number ("mini-0007" -> "mini").
std::string kind_of(const std::string& host) {
  return host.substr(0, host.find('-'));
}

// The fleet's cluster file; `kinds`, when given, gets its hosts per kind.
std::string fleet_file(int hosts, std::map<std::string, size_t>* kinds = nullptr) {
  const Cluster fleet = generate_fleet("mixed-6", hosts, 3, Catalog::builtin());
  const std::string path = testing::temp_dir() + "/mixed-6.json";
  std::ofstream(path) << write_cluster_json(fleet);
  for (const Host& h : fleet.hosts)
    if (kinds) ++(*kinds)[kind_of(h.name)];
  return path;
}

json plan(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"plan", "--json", "--objective", "throughput"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_meshplan(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json();
}

TEST(fleet_throughput_cli_test, replicas_are_of_one_kind_and_the_plan_says_how_many_of_each) {
  std::map<std::string, size_t> hosts, used;  // per kind
  const std::string fleet = fleet_file(200, &hosts);
  ASSERT_EQ(hosts.size(), 6u);
  const json p = plan({"-c", fleet, "-m", "llama-3.1-405b-4bit"});
  ASSERT_TRUE(p.is_object());
  ASSERT_GE(p["replicas"].size(), 2u);
  for (const auto& r : p["replicas"]) {
    const std::string kind = kind_of(r["hosts"][0].get<std::string>());
    for (const auto& h : r["hosts"])
      EXPECT_EQ(kind_of(h.get<std::string>()), kind) << r["hosts"];
  }
  // The ranks of each replica, per kind (a group's plan may leave some of its hosts unused).
  for (const auto& r : p["replicas"])
    for (const auto& rank : r["ranks"])
      ++used[kind_of(rank["host"].get<std::string>())];
  size_t notes = 0;
  for (const auto& n : p["notes"]) {
    const std::string note = n.get<std::string>();
    if (note.rfind("hosts like ", 0) != 0) continue;
    ++notes;
    const std::string kind = kind_of(note.substr(11));
    EXPECT_NE(note.find(fmt::format(" of {} used", hosts[kind])), std::string::npos) << note;
    if (note.find(fmt::format(": {} of", hosts[kind])) == std::string::npos) {
      // Some of the kind idle: the note says why.
      EXPECT_TRUE(note.find("left over") != std::string::npos ||
                  note.find("left idle") != std::string::npos ||
                  note.find("holds a copy") != std::string::npos)
          << note;
    }
    // The hosts the note counts: every rank of the kind's replicas at least, at most the kind's.
    const size_t colon = note.find(": ");
    const size_t counted = std::stoul(note.substr(colon + 2));
    EXPECT_GE(counted, used[kind]) << note;
    EXPECT_LE(counted, hosts[kind]) << note;
    EXPECT_GT(counted, 0u) << note;
  }
  EXPECT_EQ(notes, 6u) << p["notes"];
  // One copy of the latency plan is weighed against the replicas, which serve more.
  bool weighed = false;
  for (const auto& b : p["baselines"])
    if (b["solver"] == "latency-plan") {
      weighed = true;
      EXPECT_GT(p["serving"]["aggregate_tokens_per_s"].get<double>(),
                b["decode_tokens_per_s"].get<double>());
    }
  EXPECT_TRUE(weighed) << p["baselines"];
}

TEST(fleet_throughput_cli_test, a_routed_fleet_is_searched_in_shards_within_its_bound) {
  const std::string fleet = fleet_file(200);
  const json p = plan({"-c", fleet, "-m", "llama-3.1-405b-4bit", "--strategy", "routed"});
  ASSERT_TRUE(p.is_object());
  const std::string note = p["solver"]["note"].get<std::string>();
  if (!p["solver"]["optimal"].get<bool>()) {
    EXPECT_NE(note.find("200 hosts searched as 4 shards of up to 64"), std::string::npos) << note;
    EXPECT_NE(note.find("of the fleet's upper bound"), std::string::npos) << note;
  }
  EXPECT_GT(p["routing"]["hosts"].size(), 4u);
  // The layouts side by side carry at least the best single pipeline and at most the bound.
  const double flow = p["serving"]["aggregate_tokens_per_s"].get<double>();
  EXPECT_LE(flow, p["serving"]["bound"]["aggregate_tokens_per_s"].get<double>() * (1 + 1e-6))
      << p["serving"];
  for (const auto& b : p["baselines"])
    if (b["solver"] == "routed-single-pipeline") {
      EXPECT_GE(flow, b["decode_tokens_per_s"].get<double>() * (1 - 1e-6)) << b;
    }
}

}  // namespace
}  // namespace meshplan::fleet_throughput_cli_test
