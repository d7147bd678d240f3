#include "bench/routed_families.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "lib/core/error.hpp"

namespace meshplan {
namespace {

struct Kind {
  const char* name;
  double one_layer;  // tokens/s holding one layer (Helix's LLaMA-70B tables: 6,180 to 31,328)
  int longest;       // most layers memory allows
};

// Shaped after the kinds of Helix's 42-node cluster.
const std::vector<Kind> kKinds = {{"a100", 31000, 12}, {"l4", 9000, 7},     {"t4", 6000, 4},
                                  {"v100", 14000, 4},  {"l4x2", 17000, 14}, {"t4x2", 12000, 9},
                                  {"t4x4", 20500, 18}, {"a10", 11000, 8}};

std::vector<double> table(const Kind& kind, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> t;
  const double speed = kind.one_layer * (0.85 + 0.3 * u(rng));
  const double fall = 1.05 + 0.2 * u(rng);  // Helix's tables fall a little faster than 1/k
  for (int k = 1; k <= kind.longest; ++k) {
    double v = speed / std::pow(k, fall);
    // One entry in five rises above the one before (measured tables do: batching, kernels).
    if (k > 1 && u(rng) < 0.2) v = t.back() * (1 + 0.15 * u(rng));
    t.push_back(std::round(v * 10) / 10);
  }
  return t;
}

}  // namespace

const std::vector<std::string>& routed_family_names() {
  static const std::vector<std::string> names = {"one-region", "two-regions", "four-regions"};
  return names;
}

RoutedInstance generate_routed_instance(const std::string& family, int hosts, int layers,
                                        uint64_t seed) {
  const auto& names = routed_family_names();
  const auto it = std::find(names.begin(), names.end(), family);
  if (it == names.end())
    throw input_error("unknown routed family \"{}\"; expected one of {}", family,
                      fmt::join(names, ", "));
  if (hosts < 1 || layers < 1)
    throw input_error("a routed instance needs hosts and layers, got {} and {}", hosts, layers);
  const size_t regions = size_t{1} << (it - names.begin());  // 1, 2, 4
  std::mt19937_64 rng(seed);
  // 3 to 7 kinds, each with its one table (nodes of a kind are alike, as in Helix's files).
  std::vector<Kind> kinds = kKinds;
  std::shuffle(kinds.begin(), kinds.end(), rng);
  kinds.resize(std::uniform_int_distribution<size_t>(3, 7)(rng));
  std::vector<std::vector<double>> tables;
  for (const Kind& k : kinds)
    tables.push_back(table(k, rng));
  RoutedInstance in;
  in.layers = layers;
  std::vector<size_t> region;
  for (int i = 0; i < hosts; ++i) {
    const size_t k = std::uniform_int_distribution<size_t>(0, kinds.size() - 1)(rng);
    RoutedHost h;
    h.name = fmt::format("{}-{:02}", kinds[k].name, i);
    h.table = tables[k];
    in.hosts.push_back(std::move(h));
    region.push_back(std::uniform_int_distribution<size_t>(0, regions - 1)(rng));
  }
  // Links inside a region far above any node (Helix: 61,035 tokens/s); between regions a few
  // hundred to two thousand tokens/s, below what one fast node carries.
  const size_t n = in.hosts.size();
  in.link.assign(n, std::vector<double>(n, 0));
  std::vector<std::vector<double>> between(regions, std::vector<double>(regions, 0));
  for (size_t a = 0; a < regions; ++a)
    for (size_t b = a + 1; b < regions; ++b)
      between[a][b] = between[b][a] =
          std::round(std::uniform_real_distribution<double>(300, 2000)(rng));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j) in.link[i][j] = region[i] == region[j] ? 61035 : between[region[i]][region[j]];
  return in;
}

}  // namespace meshplan
