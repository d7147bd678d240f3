// Metamorphic properties of the routed search, over the Helix-like families: a change that allows
// nothing new (hosts renamed, listed in another order, identical hosts swapped) returns the same
// flow; a change that allows more (a faster table, a faster link, an idle host added, memory for
// one more layer) never returns less, but for the instances listed in kAllowingMoreMisses, which
// must still show their miss (the list only shrinks); and the search spends a budget of work, so a
// slow machine gets the plan a fast one does. A failure names the smallest instance that shows it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "bench/routed_families.hpp"
#include "solvers/routed/routed_search.hpp"

namespace meshplan::routed_metamorphic_test {
namespace {

// Small enough for the sanitized CI run, large enough that the search stops at its budget on
// most of them (so the properties are not only those of proven optima).
constexpr double kBudget = 0.1;
const std::vector<int> kHosts = {6, 10, 16};
const std::vector<uint64_t> kSeeds = {1, 2};

double flow(const RoutedInstance& in) {
  RoutedOptions options;
  options.time_limit_s = kBudget;
  return solve_routed(in, options).flow.total;
}

struct Change {
  const char* name;
  std::function<RoutedInstance(const RoutedInstance&)> apply;
};

// A clock that jumps a second every time it is read: a machine far slower than any real one.
class CrawlingClock : public Clock {
 public:
  double now_seconds() const override { return ++reads_; }

 private:
  mutable int64_t reads_ = 0;
};

const std::vector<Change>& changes() {
  static const std::vector<Change> all = {
      {"hosts renamed",
       [](const RoutedInstance& in) {
         RoutedInstance out = in;
         for (RoutedHost& h : out.hosts)
           h.name = "renamed-" + h.name;
         return out;
       }},
      {"hosts in reverse order",
       [](const RoutedInstance& in) {
         std::vector<size_t> order(in.hosts.size());
         std::iota(order.begin(), order.end(), 0);
         std::reverse(order.begin(), order.end());
         return routed_reordered(in, order);
       }},
      {"hosts in a shuffled order",
       [](const RoutedInstance& in) {
         std::vector<size_t> order(in.hosts.size());
         std::iota(order.begin(), order.end(), 0);
         // A fixed shuffle: odd positions first, then even ones, each reversed.
         std::stable_partition(order.begin(), order.end(), [](size_t i) { return i % 2 == 1; });
         std::reverse(order.begin(), order.begin() + static_cast<long>(order.size() / 2));
         return routed_reordered(in, order);
       }},
  };
  return all;
}

// Changes that allow more, tried on the 6- and 10-host instances.
const std::vector<Change>& allowing_more() {
  static const std::vector<Change> all = {
      {"a faster table",
       [](const RoutedInstance& in) {
         RoutedInstance out = in;
         for (double& t : out.hosts[0].table)
           t *= 1.1;
         return out;
       }},
      {"a faster link",
       [](const RoutedInstance& in) {
         // The slowest link, twice as fast.
         RoutedInstance out = in;
         size_t a = 0, b = 1;
         for (size_t i = 0; i < in.hosts.size(); ++i)
           for (size_t j = 0; j < in.hosts.size(); ++j)
             if (i != j && in.link[i][j] < in.link[a][b]) std::tie(a, b) = std::pair(i, j);
         out.link[a][b] *= 2;
         return out;
       }},
      {"an idle host added",
       [](const RoutedInstance& in) {
         // A twin of the first host, linked as it is and fast to it.
         RoutedInstance out = in;
         RoutedHost twin = in.hosts[0];
         twin.name += "-twin";
         out.hosts.push_back(twin);
         for (size_t i = 0; i < in.hosts.size(); ++i)
           out.link[i].push_back(in.link[i][0]);
         out.link.push_back(in.link[0]);
         out.link.back().push_back(0);
         out.link[0].back() = out.link.back()[0] = 61035;
         return out;
       }},
      {"memory for one more layer",
       [](const RoutedInstance& in) {
         // The first host's table one entry longer, at the same layer work.
         RoutedInstance out = in;
         std::vector<double>& t = out.hosts[0].table;
         t.push_back(t.back() * static_cast<double>(t.size()) / static_cast<double>(t.size() + 1));
         return out;
       }},
  };
  return all;
}

// Instances where a change allowing more still returns less at this budget ("change: family,
// hosts, seed"): the search stops at its budget on both, on another path. docs/routed-serving.md
// says where the rest of the gap lies.
const std::set<std::string> kAllowingMoreMisses = {
    "a faster table: four-regions, 10 hosts, seed 2",
};

TEST(routed_metamorphic_test, renaming_or_reordering_changes_nothing_and_allowing_more_never_less) {
  std::map<std::string, bool> failed;  // by change: only its smallest failure is reported
  std::set<std::string> misses_seen;
  for (int hosts : kHosts) {
    for (const std::string& family : routed_family_names()) {
      for (uint64_t seed : kSeeds) {
        const RoutedInstance base = generate_routed_instance(family, hosts, 40, seed);
        const double before = flow(base);
        for (const Change& change : changes()) {
          if (failed[change.name]) continue;
          const double after = flow(change.apply(base));
          EXPECT_NEAR(after, before, before * 1e-9) << fmt::format(
              "{}: family {}, {} hosts, 40 layers, seed {}: {:.6f} tokens/s, then "
              "{:.6f}",
              change.name, family, hosts, seed, before, after);
          failed[change.name] = std::abs(after - before) > before * 1e-9;
        }
        if (hosts > 10) continue;
        for (const Change& change : allowing_more()) {
          const std::string name =
              fmt::format("{}: {}, {} hosts, seed {}", change.name, family, hosts, seed);
          const double after = flow(change.apply(base));
          const bool lower = after < before * (1 - 1e-9);
          if (kAllowingMoreMisses.count(name)) {
            misses_seen.insert(name);
            EXPECT_TRUE(lower) << name << ": no longer a miss (" << after << " against " << before
                               << " tokens/s); take it off the list";
            continue;
          }
          if (failed[change.name]) continue;
          EXPECT_GE(after, before * (1 - 1e-9))
              << name << ", 40 layers: " << before << " tokens/s, then " << after;
          failed[change.name] = lower;
        }
      }
    }
  }
  EXPECT_EQ(misses_seen, kAllowingMoreMisses) << "a listed miss is not among the instances tried";
}

// The budget is work: on a machine whose clock runs a second a reading, the search visits as many
// partial layouts and returns the same layout as on this one.
TEST(routed_metamorphic_test, a_slow_machine_gets_the_same_layout) {
  for (const std::string& family : routed_family_names()) {
    const RoutedInstance in = generate_routed_instance(family, 16, 40, 3);
    RoutedOptions fast;
    fast.time_limit_s = kBudget;
    CrawlingClock crawl;
    RoutedOptions slow = fast;
    slow.clock = &crawl;
    const RoutedSolution a = solve_routed(in, fast);
    const RoutedSolution b = solve_routed(in, slow);
    EXPECT_EQ(a.layout, b.layout) << family;
    EXPECT_EQ(a.nodes, b.nodes) << family;
    EXPECT_EQ(a.flow.total, b.flow.total) << family;
    EXPECT_GE(b.solve_s, 10) << family << ": the slow clock reports its own time";
  }
}

}  // namespace
}  // namespace meshplan::routed_metamorphic_test
