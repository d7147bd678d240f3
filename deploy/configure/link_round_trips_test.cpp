#include "deploy/configure/link_round_trips.hpp"

#include <gtest/gtest.h>

#include "lib/cluster/cluster_loader.hpp"
#include "tests/fake_mac.hpp"
#include "tests/test_support.hpp"

namespace meshplan::link_round_trips_test {
namespace {

std::vector<HostTarget> hosts_a_and_b() {
  return {HostTarget{std::string("a"), "", "", 0}, HostTarget{std::string("b"), "", "", 0}};
}

// Two cables between a and b, each seen from both ends as live_links lists them: the first on
// loopback addresses this machine holds (127.0.0.0/8), the second on one it does not.
std::vector<LiveLink> two_cables() {
  return {{0, "a", "eth1", "127.0.0.1", "b", "eth1", "127.0.0.2", ""},
          {0, "b", "eth1", "127.0.0.2", "a", "eth1", "127.0.0.1", ""},
          {1, "a", "eth2", "203.0.113.1", "b", "eth2", "203.0.113.2", ""},
          {1, "b", "eth2", "203.0.113.2", "a", "eth2", "203.0.113.1", ""}};
}

TEST(link_round_trips_test, each_cable_is_timed_once_and_one_without_its_address_is_named) {
  testing::LocalShellExecutor ex(testing::temp_dir());
  LinkRoundTripReport r = measure_link_round_trips(two_cables(), hosts_a_and_b(), ex, 4, 50);
  ASSERT_EQ(r.measured.size(), 1u);
  EXPECT_EQ(r.measured[0].cable, 0u);
  EXPECT_EQ(r.measured[0].name, "a:eth1 - b:eth1");
  EXPECT_GT(r.measured[0].us, 1.0);
  EXPECT_LT(r.measured[0].us, 50000.0);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0].rfind(
                "a:eth2 - b:eth2: round trip not measured (cannot listen on 203.0.113.2 (", 0),
            0u)
      << r.notes[0];
  EXPECT_NE(r.notes[0].find("meshplan setup --apply"), std::string::npos) << r.notes[0];
  EXPECT_TRUE(r.failures.empty());
}

TEST(link_round_trips_test, a_cable_to_a_host_not_calibrated_is_left_alone) {
  testing::LocalShellExecutor ex(testing::temp_dir());
  LinkRoundTripReport r =
      measure_link_round_trips(two_cables(), {HostTarget{std::string("a"), "", "", 0}}, ex, 4, 50);
  EXPECT_TRUE(r.measured.empty());
  EXPECT_TRUE(r.notes.empty());
}

TEST(link_round_trips_test, measured_cables_get_their_round_trip_and_date) {
  Cluster c = load_cluster(
      "hosts:\n  - {name: a, os: linux}\n  - {name: b, os: linux}\nlinks:\n"
      "  - {a: a, b: b, kind: 10gbe}\n  - {a: a, b: b, kind: 1gbe, latency_us: 200, "
      "measured: 2026-11-01}\n",
      "c.yaml", Catalog::builtin());
  LinkRoundTripReport r;
  r.measured.push_back({0, "a - b", 41.5});
  Cluster out = with_link_round_trips(c, r, "2026-11-27");
  EXPECT_EQ(out.cables[0].round_trip_us, 41.5);
  EXPECT_EQ(out.cables[0].measured, "2026-11-27");
  EXPECT_EQ(out.cables[1], c.cables[1]) << "a cable not timed keeps what it had";
}

}  // namespace
}  // namespace meshplan::link_round_trips_test
