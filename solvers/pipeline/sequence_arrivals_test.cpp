// The running minima of a long sequence's rows (sequence_arrivals.hpp) give every host the same
// best arrivals, and from the same earlier hosts, as reading every earlier row does.
#include "solvers/pipeline/sequence_arrivals.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "solvers/problem/link_matrix.hpp"
#include "tests/random_pipeline.hpp"

namespace meshplan::sequence_arrivals_test {
namespace {

using testing::pick;
constexpr auto link = testing::link_figures;
using testing::random_pipeline;
using testing::RandomPipeline;

// A fleet of `n` hosts of two kinds: most on 10 GbE, some also on InfiniBand, a few on neither,
// islands of two or three joined by Thunderbolt cables, and one host cut off.
struct Fleet {
  RandomPipeline in;
  std::vector<HostFigures> hosts;
  LinkMatrix links;
};

Fleet fleet(std::mt19937_64& rng, size_t n, uint64_t seed) {
  Fleet f{random_pipeline(seed, 1, 6, false), {}, LinkMatrix(n)};
  for (size_t h = 0; h < n; ++h) {
    HostFigures x = f.in.cost->host(0);
    x.name = "h" + std::to_string(h);
    if (pick(rng, 0, 2) == 0) x.bandwidth *= 2;
    f.hosts.push_back(x);
  }
  const size_t ten = f.links.add_medium(link("10gbe", 50e-6, 1.25e9, -1), 2);
  const size_t ib = f.links.add_medium(link("ib", 5e-6, 50e9, -1), 1);
  for (size_t h = 0; h < n; ++h) {
    if (pick(rng, 0, 9) != 0) f.links.join(h, ten);
    if (pick(rng, 0, 3) == 0) f.links.join(h, ib);
  }
  int cable = 0;
  for (size_t h = 0; h + 2 < n; h += 3) {
    const size_t size = static_cast<size_t>(pick(rng, 1, 3));
    for (size_t a = h; a < h + size; ++a)
      for (size_t b = a + 1; b < h + size; ++b) {
        f.links.set(a, b, link("tb5", 10e-6, 10e9, cable));
        f.links.set(b, a, link("tb5", 10e-6, 10e9, cable++));
      }
  }
  f.links.cut(n - 1);
  return f;
}

TEST(sequence_arrivals_test, minima_per_kind_of_media_give_what_every_row_gives) {
  std::mt19937_64 rng(31);
  for (int round = 0; round < 12; ++round) {
    const size_t n = static_cast<size_t>(pick(rng, 100, 160));
    Fleet f = fleet(rng, n, 300 + static_cast<uint64_t>(round));
    PipelineCostModel cost(*f.in.model, f.hosts, f.links, 4096, 128, 2);
    SearchSpace space(cost, {});
    const int L = space.num_layers();
    std::vector<size_t> q(n);
    std::iota(q.begin(), q.end(), size_t{0});
    std::shuffle(q.begin(), q.end(), rng);
    std::optional<SequenceArrivals> arrivals = SequenceArrivals::of(space, q);
    ASSERT_TRUE(arrivals) << "round " << round;
    // Rows of whole numbers in half the rounds: many ties, which go to the lower position.
    const bool ties = round % 2 == 0;
    std::vector<std::vector<double>> rows(n, std::vector<double>(static_cast<size_t>(L) + 1));
    for (auto& row : rows)
      for (double& v : row)
        v = pick(rng, 0, 7) == 0 ? kInfinity
            : ties               ? pick(rng, 1, 3)
                                 : std::uniform_real_distribution<double>(0, 1)(rng);
    std::vector<double> G(static_cast<size_t>(L) + 1), want(G.size());
    std::vector<int> Gi(G.size(), -1), want_i(G.size(), -1);
    arrivals->add(0, rows[0].data());
    for (size_t j = 1; j < n; ++j) {
      std::fill(want.begin(), want.end(), kInfinity);
      for (size_t i = 0; i < j; ++i) {
        const double hop = space.hop(q[i], q[j]);
        if (!(hop < kInfinity)) continue;
        for (int l = 1; l < L; ++l)
          if (rows[i][static_cast<size_t>(l)] + hop < want[static_cast<size_t>(l)]) {
            want[static_cast<size_t>(l)] = rows[i][static_cast<size_t>(l)] + hop;
            want_i[static_cast<size_t>(l)] = static_cast<int>(i);
          }
      }
      std::fill(G.begin(), G.end(), kInfinity);
      arrivals->arrive(
          j, [&](size_t i) { return rows[i].data(); }, G, Gi);
      for (int l = 1; l < L; ++l) {
        ASSERT_EQ(G[static_cast<size_t>(l)], want[static_cast<size_t>(l)])
            << "round " << round << " host " << j << " layer " << l;
        if (want[static_cast<size_t>(l)] < kInfinity) {
          ASSERT_EQ(Gi[static_cast<size_t>(l)], want_i[static_cast<size_t>(l)])
              << "round " << round << " host " << j << " layer " << l;
        }
      }
      arrivals->add(j, rows[j].data());
    }
  }
}

TEST(sequence_arrivals_test, short_sequences_read_every_row) {
  std::mt19937_64 rng(5);
  Fleet f = fleet(rng, SequenceArrivals::kShortest - 1, 9);
  PipelineCostModel cost(*f.in.model, f.hosts, f.links, 4096, 128, 2);
  SearchSpace space(cost, {});
  std::vector<size_t> q(f.hosts.size());
  std::iota(q.begin(), q.end(), size_t{0});
  EXPECT_FALSE(SequenceArrivals::of(space, q));
}

}  // namespace
}  // namespace meshplan::sequence_arrivals_test
