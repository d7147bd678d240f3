#include "solvers/routed/routed_streams.hpp"

#include <gtest/gtest.h>

namespace meshplan::routed_streams_test {
namespace {

// Three hosts over 6 layers; each count of streams scales the tables by `speed` and holds at most
// `room` layers a host.
StreamCount count(int streams, double speed, int room) {
  StreamCount c;
  c.streams = streams;
  c.instance.layers = 6;
  for (int i = 0; i < 3; ++i) {
    RoutedHost h;
    h.name = "h" + std::to_string(i);
    for (int k = 1; k <= room; ++k)
      h.table.push_back(speed * 60 / k);
    c.instance.hosts.push_back(h);
  }
  c.instance.link.assign(3, std::vector<double>(3, 1e6));
  return c;
}

TEST(routed_streams_test, a_count_that_allows_no_more_than_another_is_not_searched) {
  // The same tables with less room at more streams: the fewest streams allow everything.
  const StreamChoice c = choose_stream_count({count(1, 1, 6), count(2, 1, 4), count(4, 1, 2)}, {});
  EXPECT_EQ(c.index, 0u);
  EXPECT_EQ(c.searched, 1);
  EXPECT_TRUE(routed_dominated(count(2, 1, 4).instance, count(1, 1, 6).instance));
  EXPECT_FALSE(routed_dominated(count(1, 1, 6).instance, count(2, 1, 4).instance));
  EXPECT_FALSE(routed_dominated(count(2, 1.5, 4).instance, count(1, 1, 6).instance));
}

TEST(routed_streams_test, the_count_that_serves_most_wins_and_a_bound_below_it_is_not_searched) {
  // Faster tables at more streams, but room for fewer layers: 2 streams serve the most. 8
  // streams' hosts hold one layer each: 3 hosts cannot hold 6 layers, so its bound is 0.
  const std::vector<StreamCount> counts = {count(1, 1, 6), count(2, 1.6, 3), count(4, 1.5, 2),
                                           count(8, 2, 1)};
  const StreamChoice c = choose_stream_count(counts, {});
  EXPECT_EQ(counts[c.index].streams, 2);
  EXPECT_NEAR(c.solution.flow.total, 1.6 * 60 / 2, 1e-9);  // three hosts of two layers in a chain
  // 1 stream: 60 / 6 a host holding all, 30 in all; 4: 1.5 x 60 / 2 = 45.
  EXPECT_LE(c.searched, 3);
  // Told that a count serves less than its flow, the choice follows what it serves.
  const StreamChoice halved =
      choose_stream_count(counts, {}, [](const StreamCount& s, const RoutedSolution& t) {
        return s.streams >= 2 ? t.flow.total / 4 : t.flow.total;
      });
  EXPECT_EQ(counts[halved.index].streams, 1);
}

TEST(routed_streams_test, ties_go_to_the_fewer_streams) {
  const StreamChoice c = choose_stream_count({count(4, 1, 6), count(2, 1, 6)}, {});
  EXPECT_EQ(c.index, 1u);
}

}  // namespace
}  // namespace meshplan::routed_streams_test
