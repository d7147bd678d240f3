// Metamorphic properties of the routed search at the budget a plan gives it, over the Helix-like
// families and Helix's own clusters: a change that allows nothing new (hosts renamed, listed in
// another order, two identical hosts swapped) returns the same flow; a change that allows more (a
// faster table for one host, a faster link, an idle host added, memory for one more layer on one
// host) never returns less. The first two of those are held by construction where the host
// improved has a copy (routed_twins.hpp); the others by the search. A failure prints the smallest
// instance that shows it. The budget is work, so a slow machine gets the plan a fast one does.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "bench/routed_families.hpp"
#include "solvers/routed/routed_search.hpp"
#include "solvers/routed/routed_stages.hpp"
#include "tests/helix_fixtures.hpp"

namespace meshplan::routed_metamorphic_test {
namespace {

struct Case {
  std::string name;
  RoutedInstance in;
};

// The instances of one test: a family's at 6 or 10 hosts ("two-regions/10": seeds 1 and 2, 40
// layers), or one of Helix's clusters. One test each, so that they run side by side.
std::vector<Case> cases(const std::string& of) {
  std::vector<Case> out;
  if (of.rfind("helix", 0) == 0) {
    out.push_back({"Helix's " + of, of == "helix-10" ? testing::helix_cluster(of, 60, 75120.19)
                                                     : testing::helix_cluster(of, 80, 61035.16)});
    return out;
  }
  const std::string family = of.substr(0, of.find('/'));
  const int hosts = std::stoi(of.substr(of.find('/') + 1));
  for (uint64_t seed : {1, 2})
    out.push_back({fmt::format("{}, {} hosts, 40 layers, seed {}", family, hosts, seed),
                   generate_routed_instance(family, hosts, 40, seed)});
  return out;
}

double flow(const RoutedInstance& in) {
  return solve_routed(in).flow.total;
}

// The instance as a reader can rebuild it: each host's table, then every distinct link.
std::string describe(const RoutedInstance& in) {
  std::string out = fmt::format("{} layers\n", in.layers);
  for (const RoutedHost& h : in.hosts)
    out += fmt::format("  {}: [{}]\n", h.name, fmt::join(h.table, ", "));
  std::map<double, std::vector<std::string>> links;
  for (size_t i = 0; i < in.hosts.size(); ++i)
    for (size_t j = 0; j < in.hosts.size(); ++j)
      if (i != j) links[in.link[i][j]].push_back(in.hosts[i].name + ">" + in.hosts[j].name);
  for (const auto& [tokens, pairs] : links)
    out += fmt::format(
        "  links of {} tokens/s: {} pairs, {}{}\n", tokens, pairs.size(),
        fmt::join(pairs.begin(), pairs.begin() + std::min<size_t>(4, pairs.size()), " "),
        pairs.size() > 4 ? " ..." : "");
  return out;
}

struct Change {
  const char* name;
  std::function<RoutedInstance(const RoutedInstance&)> apply;
};

const std::vector<Change>& alike_changes() {
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
      {"two identical hosts swapped",
       [](const RoutedInstance& in) {
         std::vector<size_t> order(in.hosts.size());
         std::iota(order.begin(), order.end(), 0);
         for (const std::vector<size_t>& g : interchangeable_hosts(in))
           if (g.size() > 1) {
             std::swap(order[g.front()], order[g.back()]);
             break;
           }
         return routed_reordered(in, order);
       }},
  };
  return all;
}

const std::vector<Change>& allowing_more() {
  static const std::vector<Change> all = {
      {"a faster table for one host",
       [](const RoutedInstance& in) {
         RoutedInstance out = in;
         for (double& t : out.hosts[0].table)
           t *= 1.1;
         return out;
       }},
      {"memory for one more layer on one host",
       [](const RoutedInstance& in) {
         // The first host's table one entry longer, at the same layer work.
         RoutedInstance out = in;
         std::vector<double>& t = out.hosts[0].table;
         t.push_back(t.back() * static_cast<double>(t.size()) / static_cast<double>(t.size() + 1));
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
  };
  return all;
}

class routed_metamorphic_test : public ::testing::TestWithParam<std::string> {};

TEST_P(routed_metamorphic_test,
       renaming_or_reordering_changes_nothing_and_allowing_more_never_less) {
  // By change: the smallest instance that fails it (cases run from the smallest seed; the 6-host
  // test runs beside the 10-host one).
  std::map<std::string, std::string> failed;
  for (const Case& c : cases(GetParam())) {
    const double before = flow(c.in);
    ASSERT_GT(before, 0) << c.name;
    auto check = [&](const Change& change, bool more) {
      if (failed.count(change.name)) return;
      const double after = flow(change.apply(c.in));
      const bool fails =
          more ? after < before * (1 - 1e-9) : std::abs(after - before) > before * 1e-9;
      if (fails)
        failed[change.name] = fmt::format("{}: {}: {:.6f} tokens/s, then {:.6f}\n{}", change.name,
                                          c.name, before, after, describe(c.in));
    };
    for (const Change& change : alike_changes())
      check(change, false);
    for (const Change& change : allowing_more())
      check(change, true);
  }
  for (const auto& [change, what] : failed)
    ADD_FAILURE() << what;
}

INSTANTIATE_TEST_SUITE_P(families_and_helix, routed_metamorphic_test,
                         ::testing::Values("one-region/6", "one-region/10", "two-regions/6",
                                           "two-regions/10", "four-regions/6", "four-regions/10",
                                           "helix-10", "helix-24", "helix-42"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string name = p.param;
                           for (char& c : name)
                             if (c == '-' || c == '/') c = '_';
                           return name;
                         });

// A clock that jumps a second every time it is read: a machine far slower than any real one.
class CrawlingClock : public Clock {
 public:
  double now_seconds() const override { return ++reads_; }

 private:
  mutable int64_t reads_ = 0;
};

// The budget is work: on a machine whose clock runs a second a reading, the search visits as many
// partial layouts and returns the same layout as on this one.
TEST(routed_metamorphic_budget_test, a_slow_machine_gets_the_same_layout) {
  for (const std::string& family : routed_family_names()) {
    const RoutedInstance in = generate_routed_instance(family, 16, 40, 3);
    RoutedOptions fast;
    CrawlingClock crawl;
    RoutedOptions slow = fast;
    slow.clock = &crawl;
    const RoutedSolution a = solve_routed(in, fast);
    const RoutedSolution b = solve_routed(in, slow);
    EXPECT_EQ(a.layout, b.layout) << family;
    EXPECT_EQ(a.nodes, b.nodes) << family;
    EXPECT_EQ(a.flow.total, b.flow.total) << family;
    // It reads the slow clock between its steps only, each read a second.
    EXPECT_GE(b.solve_s, 5) << family << ": the slow clock reports its own time";
  }
}

}  // namespace
}  // namespace meshplan::routed_metamorphic_test
