// ChainReach against the state-by-state program it replaces, written out here as the reference:
// the same answer at every flow and, for every host and every state reached, the same choice.
#include "solvers/routed/routed_chain_reach.hpp"

#include <gtest/gtest.h>

#include <random>

namespace meshplan::routed_chain_reach_test {
namespace {

using Role = ChainReach::Role;

// One state per (layers covered) x 4 + (first placed) + 2 (last placed); each host in turn adds
// one range to every state reached before it; the first to reach a state is its choice.
struct Reference {
  std::vector<std::vector<ChainReach::Step>> how;
  std::vector<std::vector<char>> after;  // per host: the states reached once it is considered

  bool run(const RoutedInstance& in, const std::vector<bool>& allowed, double F) {
    const int L = in.layers;
    const size_t n = in.hosts.size(), S = static_cast<size_t>(L + 1) * 4;
    how.assign(n, std::vector<ChainReach::Step>(S));
    after.assign(n, {});
    std::vector<char> reach(S, 0), next;
    reach[0] = 1;
    for (size_t i = 0; i < n; ++i) {
      next = reach;
      for (size_t st = 0; st < S; ++st)
        if (reach[st])
          how[i][st] = {static_cast<int>(st / 4), static_cast<int>(st % 4), 0, ChainReach::kSkip};
      if (allowed[i])
        for (size_t st = 0; st < S; ++st) {
          if (!reach[st]) continue;
          const int s = static_cast<int>(st / 4), mask = static_cast<int>(st % 4);
          for (int k = 1; s + k <= L; ++k) {
            auto put = [&](Role role, int m, LayerRange r) {
              if (range_capacity(in, i, r) + 1e-12 < F) return;
              const size_t to = static_cast<size_t>(s + k) * 4 + static_cast<size_t>(m);
              if (next[to]) return;
              next[to] = 1;
              how[i][to] = {s, mask, k, role};
            };
            if (mask == 0 && s == 0 && k == L) put(ChainReach::kBoth, 3, {0, L});
            if (!(mask & 1) && k < L) put(ChainReach::kFirst, mask | 1, {0, k});
            if (!(mask & 2) && k < L) put(ChainReach::kLast, mask | 2, {L - k, L});
            if (k < L - 1) put(ChainReach::kMiddle, mask, {1, 1 + k});
          }
        }
      reach = next;
      after[i] = reach;
    }
    return reach[static_cast<size_t>(L) * 4 + 3] != 0;
  }
};

RoutedInstance random_instance(std::mt19937& rng) {
  RoutedInstance in;
  in.layers = 2 + static_cast<int>(rng() % 140);  // across one, two and three words
  const size_t n = 1 + rng() % 7;
  for (size_t i = 0; i < n; ++i) {
    RoutedHost h;
    const int longest = 1 + static_cast<int>(rng() % static_cast<unsigned>(in.layers));
    for (int k = 1; k <= longest; ++k)
      h.table.push_back(rng() % 5 == 0 ? 0 : 100 + rng() % 400);  // a few of equal value
    if (rng() % 2) h.max_with_first = 1 + static_cast<int>(rng() % 40);
    if (rng() % 2) h.max_with_last = 1 + static_cast<int>(rng() % 40);
    if (rng() % 3 == 0) h.head_s = 1e-3;
    in.hosts.push_back(h);
  }
  return in;
}

TEST(routed_chain_reach_test, the_same_answer_and_choices_as_the_state_by_state_program) {
  std::mt19937 rng(11);
  int feasible = 0;
  for (int round = 0; round < 300; ++round) {
    const RoutedInstance in = random_instance(rng);
    std::vector<bool> allowed(in.hosts.size(), true);
    for (size_t i = 0; i < allowed.size(); ++i)
      allowed[i] = rng() % 4 != 0;
    ChainReach reach(in, allowed);
    for (double F : {50.0, 150.0, 250.0, 350.0, 450.0, 600.0}) {
      Reference ref;
      const bool want = ref.run(in, allowed, F);
      ASSERT_EQ(reach.feasible(F), want) << "round " << round << " F " << F;
      feasible += want;
      const size_t done = static_cast<size_t>(in.layers) * 4 + 3;  // (L, both placed)
      for (size_t i = 0; i < in.hosts.size(); ++i)
        for (size_t st = 0; st < ref.after[i].size(); ++st) {
          if (!ref.after[i][st]) continue;
          // After the host that completes a chain, only that state is asked (and answered).
          if (i > 0 && ref.after[i - 1][done] && st != done) continue;
          const ChainReach::Step a =
              reach.how(i, static_cast<int>(st / 4), static_cast<int>(st % 4));
          const ChainReach::Step& b = ref.how[i][st];
          ASSERT_TRUE(a.prev_s == b.prev_s && a.prev_mask == b.prev_mask && a.k == b.k &&
                      a.role == b.role)
              << "round " << round << " F " << F << " host " << i << " state " << st;
        }
    }
  }
  EXPECT_GT(feasible, 100);  // the comparison covered chains that exist, not only none
}

}  // namespace
}  // namespace meshplan::routed_chain_reach_test
