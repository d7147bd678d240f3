#include "bench/cluster_families.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <random>

#include "lib/core/error.hpp"

namespace meshplan {
namespace {

struct Config {
  const char* chip;
  int gib;
};

// Machines people cluster, by tier.
const std::vector<Config> kBig = {{"m3-ultra-80c", 512}, {"m3-ultra-80c", 256},
                                  {"m3-ultra-60c", 256}, {"m2-ultra-76c", 192},
                                  {"m2-ultra-60c", 128}, {"m1-ultra-64c", 128}};
const std::vector<Config> kMid = {{"m4-max-40c", 128}, {"m3-max-40c", 128}, {"m4-max-40c", 64},
                                  {"m2-max-38c", 96},  {"m1-max-32c", 64},  {"m4-pro-20c", 64},
                                  {"m4-pro-20c", 48},  {"m3-pro-18c", 36}};
const std::vector<Config> kSmall = {{"m4-10c", 32}, {"m4-10c", 16},    {"m2-8c", 24},
                                    {"m2-8c", 16},  {"m1-8c", 16},     {"m1-8c", 8},
                                    {"m3-8c", 8},   {"m4-pro-16c", 24}};

class Builder {
 public:
  Builder(const Catalog& catalog, uint64_t seed, const std::string& family)
      : catalog_(catalog), rng_(seed) {
    cluster_.name = family;
  }

  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng_)];
  }
  double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng_); }
  int integer(int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng_); }

  void add_host(const Config& c, bool noise) {
    Host h;
    h.name = fmt::format("h{:02}", cluster_.hosts.size() + 1);
    h.chip = c.chip;
    h.memory = static_cast<uint64_t>(c.gib) << 30;
    h.os.kind = "macos";
    h.rdma_enabled = true;
    if (noise) {
      const ChipSpec* spec = catalog_.find_chip(c.chip);
      if (!spec) throw internal_error("benchmark chip {} is not in the catalog", c.chip);
      h.mem_bandwidth = std::round(spec->mem_bandwidth * uniform(0.9, 1.1) / 1e6) * 1e6;
    }
    cluster_.hosts.push_back(h);
  }
  void cable(size_t a, size_t b, LinkKind kind, bool rdma) {
    Cable c;
    c.a.host = cluster_.hosts[a].name;
    c.b.host = cluster_.hosts[b].name;
    c.kind = kind;
    c.rdma = rdma;
    c.speed_gbps = catalog_.default_speed_gbps(kind);
    cluster_.cables.push_back(c);
  }
  void mesh(size_t from, size_t to, LinkKind kind, bool rdma) {
    for (size_t a = from; a < to; ++a)
      for (size_t b = a + 1; b < to; ++b)
        cable(a, b, kind, rdma);
  }
  void network(LinkKind kind) {
    Network n;
    n.kind = kind;
    n.all_hosts = true;
    cluster_.networks.push_back(n);
  }
  Cluster take() { return std::move(cluster_); }

 private:
  const Catalog& catalog_;
  std::mt19937_64 rng_;
  Cluster cluster_;
};

}  // namespace

const std::vector<std::string>& cluster_family_names() {
  static const std::vector<std::string> names = {"homogeneous",  "two-tier",     "long-tail",
                                                 "fits-on-one",  "tb5-mesh",     "daisy-chain",
                                                 "10gbe-switch", "mixed-islands"};
  return names;
}

Cluster generate_cluster(const std::string& family, int hosts, uint64_t seed,
                         const Catalog& catalog) {
  if (hosts < 1) throw input_error("a benchmark cluster needs at least one host, got {}", hosts);
  Builder b(catalog, seed, family);
  const size_t n = static_cast<size_t>(hosts);
  std::vector<Config> mixed = kBig;
  mixed.insert(mixed.end(), kMid.begin(), kMid.end());
  if (family == "homogeneous") {
    Config c = b.integer(0, 1) ? b.pick(kBig) : b.pick(kMid);
    for (size_t i = 0; i < n; ++i)
      b.add_host(c, false);
    b.network(LinkKind::k10gbe);
  } else if (family == "two-tier") {
    b.add_host(b.pick(kBig), false);
    Config small = b.pick(kMid);
    for (size_t i = 1; i < n; ++i)
      b.add_host(small, false);
    b.network(LinkKind::k10gbe);
  } else if (family == "long-tail") {
    b.add_host(b.pick(kBig), true);
    for (size_t i = 1; i < n; ++i)
      b.add_host(b.pick(kSmall), true);
    b.network(LinkKind::k1gbe);
  } else if (family == "fits-on-one") {
    b.add_host({"m3-ultra-80c", 512}, false);
    for (size_t i = 1; i < n; ++i)
      b.add_host(b.pick(kMid), true);
    b.network(LinkKind::k10gbe);
  } else if (family == "tb5-mesh") {
    for (size_t i = 0; i < n; ++i)
      b.add_host(b.pick(mixed), true);
    b.mesh(0, n, LinkKind::kTb5, true);
    b.network(LinkKind::k10gbe);
  } else if (family == "daisy-chain") {
    for (size_t i = 0; i < n; ++i)
      b.add_host(b.pick(mixed), true);
    for (size_t i = 0; i + 1 < n; ++i)
      b.cable(i, i + 1, b.integer(0, 1) ? LinkKind::kTb5 : LinkKind::kTb4, false);
    b.network(LinkKind::k1gbe);
  } else if (family == "10gbe-switch") {
    for (size_t i = 0; i < n; ++i)
      b.add_host(b.pick(mixed), true);
    b.network(LinkKind::k10gbe);
  } else if (family == "mixed-islands") {
    for (size_t i = 0; i < n; ++i)
      b.add_host(b.pick(mixed), true);
    for (size_t start = 0; start < n;) {
      size_t size = std::min(n - start, static_cast<size_t>(b.integer(2, 4)));
      b.mesh(start, start + size, LinkKind::kTb5, true);
      start += size;
    }
    b.network(LinkKind::k10gbe);
  } else {
    throw input_error("unknown cluster family \"{}\"; expected one of {}", family,
                      fmt::join(cluster_family_names(), ", "));
  }
  return b.take();
}

}  // namespace meshplan
