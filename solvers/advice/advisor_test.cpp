#include "solvers/advice/advisor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/error.hpp"
#include "lib/core/file_system.hpp"
#include "lib/models/model_catalog.hpp"
#include "solvers/strategy/strategy_planner.hpp"
#include "tests/plan_fixtures.hpp"
#include "tests/test_support.hpp"

namespace meshplan::advisor_test {
namespace {

const Catalog& catalog() {
  return Catalog::builtin();
}

Cluster fixture(const std::string& name) {
  RealFileSystem fs;
  return load_cluster_file(testing::source_path("tests/fixtures/advice/" + name), fs, catalog());
}

AdviceReport advice(const Cluster& c, const std::string& model, std::vector<std::string> buy = {},
                    int jobs = 0) {
  RealFileSystem fs;
  SteadyClock clock;
  AdviseRequest r;
  r.model = model;
  r.plan.strategy = "auto";
  r.plan.engine = "";  // inferred, as `meshplan plan` does
  r.buy = std::move(buy);
  r.jobs = jobs;
  return advise(c, catalog(), r, fs, clock);
}

double planned_tps(const Cluster& c, const std::string& model) {
  SteadyClock clock;
  PlanRequest r;
  r.strategy = "auto";
  r.engine = "";
  return plan_model(c, catalog(), ModelCatalog::builtin().resolve(model, ""), r, clock)
      .predicted.decode_tokens_per_s;
}

bool fits(const Cluster& c, const std::string& model) {
  try {
    planned_tps(c, model);
    return true;
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kFailed) throw;
    return false;
  }
}

// Every listed gain is a plan faster than the baseline (or one that fits where none did).
void expect_only_gains(const AdviceReport& r) {
  for (const AdviceRow& row : r.gains) {
    EXPECT_TRUE(row.outcome.feasible);
    EXPECT_GT(row.gain, 0);
    if (r.baseline.feasible) {
      EXPECT_GT(row.outcome.score, r.baseline.score);
    }
  }
}

TEST(advisor_test, the_missing_cable_of_a_mesh_comes_first_on_free_ports) {
  Cluster ring = fixture("mini-ring-plus-one.yaml");
  AdviceReport r = advice(ring, "llama-3.3-70b-4bit");
  ASSERT_TRUE(r.baseline.feasible);
  ASSERT_FALSE(r.gains.empty());
  const AdviceRow& first = r.gains.front();
  ASSERT_EQ(first.kinds, std::vector<std::string>{"cable"});
  ASSERT_EQ(first.cables.size(), 1u);
  const AdviceCable& c = first.cables[0];
  EXPECT_EQ(std::set<std::string>({c.a_host, c.b_host}),
            std::set<std::string>({"mini-2", "mini-4"}));
  // On ports no cable of the file uses.
  for (const Cable& k : ring.cables)
    for (const Endpoint* e : {&k.a, &k.b}) {
      EXPECT_FALSE(e->host == c.a_host && e->port == c.a_port) << e->host << ":" << e->port;
      EXPECT_FALSE(e->host == c.b_host && e->port == c.b_port) << e->host << ":" << e->port;
    }
  // The gain is the difference of the two plans: the cluster as it is and with the cable in.
  const double with_cable = planned_tps(fixture("mini-mesh-complete.yaml"), "llama-3.3-70b-4bit");
  EXPECT_NEAR(first.outcome.score, with_cable, 1e-9);
  EXPECT_NEAR(first.gain, with_cable - planned_tps(ring, "llama-3.3-70b-4bit"), 1e-9);
  EXPECT_NEAR(r.baseline.score, planned_tps(ring, "llama-3.3-70b-4bit"), 1e-9);
  // It resolves the check's finding about that pair.
  ASSERT_FALSE(first.resolves.empty());
  EXPECT_NE(first.resolves[0].find("mini-2 is not connected to mini-4"), std::string::npos);
  expect_only_gains(r);
}

TEST(advisor_test, one_thread_and_many_give_the_same_advice) {
  Cluster ring = fixture("mini-ring-plus-one.yaml");
  AdviceReport one = advice(ring, "llama-3.3-70b-4bit", {}, 1);
  AdviceReport many = advice(ring, "llama-3.3-70b-4bit", {}, 4);
  ASSERT_EQ(one.gains.size(), many.gains.size());
  for (size_t i = 0; i < one.gains.size(); ++i) {
    EXPECT_EQ(one.gains[i].changes, many.gains[i].changes);
    EXPECT_EQ(one.gains[i].outcome.score, many.gains[i].outcome.score);
  }
  EXPECT_EQ(one.plans, many.plans);
}

TEST(advisor_test, a_model_that_fits_nowhere_gets_the_smallest_purchase_and_a_lower_bit_version) {
  Cluster pair = fixture("two-minis-48.yaml");
  const std::string model = "llama-3.3-70b-bf16";
  ASSERT_FALSE(fits(pair, model));
  AdviceReport r = advice(pair, model, {"mac-mini-m4-pro", "mac-studio-m3-ultra"});
  EXPECT_FALSE(r.baseline.feasible);
  EXPECT_NE(r.baseline.note.find("does not fit"), std::string::npos);
  std::set<std::string> single_buys;
  bool lower_bit = false;
  for (const AdviceRow& row : r.gains) {
    if (row.kinds == std::vector<std::string>{"buy"}) single_buys.insert(row.changes[0]);
    if (row.kinds == std::vector<std::string>{"quantization"} &&
        row.changes[0] == "the 8bit version of the model")
      lower_bit = true;
  }
  EXPECT_TRUE(lower_bit);
  // The smallest size of each machine that makes it fit, and no smaller one.
  EXPECT_TRUE(single_buys.count("buy a Mac Studio (M3 Ultra, 2025) with 96 GiB"));
  EXPECT_TRUE(single_buys.count("buy a Mac mini (M4 Pro, 2024) with 64 GiB"));
  EXPECT_FALSE(single_buys.count("buy a Mac mini (M4 Pro, 2024) with 48 GiB"));
  EXPECT_FALSE(single_buys.count("buy a Mac mini (M4 Pro, 2024) with 24 GiB"));
  // Held to the planner: a 48 GiB mini (cabled and on the switch as advised) does not make it
  // fit, a 64 GiB one does.
  for (const auto& [gib, expected] : {std::pair{48, false}, std::pair{64, true}}) {
    Cluster grown = pair;
    Host h = grown.hosts[0];
    h.name = "mini-3";
    h.memory = static_cast<uint64_t>(gib) << 30;
    grown.hosts.push_back(h);
    Cable k = grown.cables[0];
    k.a = {"mini-3", "1"};
    k.b = {"mini-1", "2"};
    grown.cables.push_back(k);
    for (Network& n : grown.networks)
      if (!n.all_hosts) n.hosts.push_back("mini-3");
    EXPECT_EQ(fits(grown, model), expected) << gib << " GiB";
  }
  expect_only_gains(r);
}

TEST(advisor_test, a_thunderbolt_4_cable_in_a_thunderbolt_5_mesh_is_replaced_first) {
  AdviceReport r = advice(fixture("studio-mesh-one-tb4.yaml"), "llama-3.1-405b-4bit");
  ASSERT_FALSE(r.gains.empty());
  const AdviceRow& first = r.gains.front();
  EXPECT_EQ(first.kinds, std::vector<std::string>{"tb5-cable"});
  EXPECT_EQ(first.outcome.strategy, "tensor");
  ASSERT_EQ(first.cables.size(), 1u);
  EXPECT_EQ(first.cables[0].kind, "tb5");
  EXPECT_EQ(std::set<std::string>({first.cables[0].a_host, first.cables[0].b_host}),
            std::set<std::string>({"studio-3", "studio-4"}));
  expect_only_gains(r);
}

TEST(advisor_test, a_cluster_with_nothing_to_gain_lists_no_gain) {
  // A complete mesh of identical Macs: no cable, setting or engine makes it faster.
  AdviceReport r = advice(testing::load_example("mac-mini-m4-pro-x4.yaml"), "llama-3.3-70b-4bit");
  ASSERT_TRUE(r.baseline.feasible);
  for (const AdviceRow& row : r.gains)
    for (const std::string& kind : row.kinds)
      EXPECT_NE(kind, "cable") << row.changes[0];
  expect_only_gains(r);
  EXPECT_EQ(r.candidates, static_cast<int>(r.no_gain + r.fixes.size()) +
                              static_cast<int>(std::count_if(
                                  r.gains.begin(), r.gains.end(),
                                  [](const AdviceRow& g) { return g.changes.size() == 1; })));
}

TEST(advisor_test, two_cables_that_only_together_complete_a_mesh_are_advised_together) {
  // A ring of four: a mesh needs both diagonals; neither alone lets JACCL's mesh run.
  Cluster ring = fixture("mini-ring-plus-one.yaml");
  ring.cables.erase(ring.cables.begin() + 4);  // mini-1 - mini-3
  AdviceReport r = advice(ring, "llama-3.3-70b-4bit");
  ASSERT_FALSE(r.gains.empty());
  const AdviceRow& first = r.gains.front();
  EXPECT_EQ(first.kinds, (std::vector<std::string>{"cable", "cable"}));
  EXPECT_NEAR(first.outcome.score,
              planned_tps(fixture("mini-mesh-complete.yaml"), "llama-3.3-70b-4bit"), 1e-9);
  expect_only_gains(r);
}

TEST(advisor_test, an_unknown_machine_to_buy_is_an_input_error_naming_the_known_ones) {
  try {
    advice(fixture("two-minis-48.yaml"), "llama-3.3-70b-4bit", {"mac-studio-m9"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_NE(std::string(e.what()).find("--buy mac-studio-m9"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("mac-studio-m3-ultra"), std::string::npos);
  }
}

}  // namespace
}  // namespace meshplan::advisor_test
