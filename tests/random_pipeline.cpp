#include "tests/random_pipeline.hpp"

#include <optional>
#include <vector>

namespace meshplan::testing {

double uniform(std::mt19937_64& rng, double a, double b) {
  return std::uniform_real_distribution<double>(a, b)(rng);
}
int pick(std::mt19937_64& rng, int a, int b) {
  return std::uniform_int_distribution<int>(a, b)(rng);
}

RandomPipeline random_pipeline(uint64_t seed, int max_hosts, int max_layers, bool constraints,
                               bool head_last) {
  std::mt19937_64 rng(seed);
  RandomPipeline in;
  in.model = std::make_unique<ModelDesc>();
  ModelDesc& m = *in.model;
  m.name = "random";
  m.hidden_size = pick(rng, 512, 8192);
  m.vocab_size = pick(rng, 1000, 150000);
  m.num_heads = 8;
  m.head_dim = 64;
  m.embedding_bytes = static_cast<uint64_t>(uniform(rng, 1e7, 2e9));
  m.head_bytes = pick(rng, 0, 1) ? static_cast<uint64_t>(uniform(rng, 1e7, 2e9)) : 0;
  m.tied_embeddings = m.head_bytes == 0;
  const int L = pick(rng, 2, max_layers);
  bool uniform_layers = pick(rng, 0, 2) == 0;
  double w0 = uniform(rng, 1e8, 5e9);
  for (int l = 0; l < L; ++l) {
    LayerInfo layer;
    layer.index = l;
    double w = uniform_layers ? w0 : uniform(rng, 1e8, 5e9);
    layer.weight_bytes = static_cast<uint64_t>(w);
    layer.read_bytes = static_cast<uint64_t>(w * (pick(rng, 0, 1) ? 1.0 : uniform(rng, 0.05, 1.0)));
    layer.flops = uniform(rng, 1e8, 5e11);
    layer.kv_bytes_per_token = static_cast<uint64_t>(uniform(rng, 0, 2e5));
    if (pick(rng, 0, 4) == 0) layer.sliding_window = pick(rng, 64, 4096);
    m.layers.push_back(layer);
  }
  const int64_t context = pick(rng, 1, 3) * 4096;
  double total = static_cast<double>(m.total_bytes()) + 1e5 * L * context;

  const int n = pick(rng, 1, max_hosts);
  std::vector<HostFigures> hosts;
  for (int i = 0; i < n; ++i) {
    if (i > 0 && pick(rng, 0, 3) == 0) {  // a copy of an earlier host
      hosts.push_back(hosts[static_cast<size_t>(pick(rng, 0, i - 1))]);
      hosts.back().name = "h" + std::to_string(i);
      continue;
    }
    HostFigures h;
    h.name = "h" + std::to_string(i);
    h.bandwidth = uniform(rng, 5e10, 8e11);
    h.flops = uniform(rng, 5e12, 3e13);
    h.prefill_flops = 1.5 * h.flops;
    h.usable_bytes = total * uniform(rng, 0.15, 1.3);
    h.overhead_s = pick(rng, 0, 3) == 0 ? uniform(rng, 1e-4, 1e-3) : 0.5e-3;
    hosts.push_back(h);
  }
  std::vector<std::vector<std::optional<LinkFigures>>> links(
      static_cast<size_t>(n), std::vector<std::optional<LinkFigures>>(static_cast<size_t>(n)));
  bool asymmetric = pick(rng, 0, 4) == 0;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (pick(rng, 0, 5) == 0) continue;  // no link
      LinkFigures l;
      l.name = "net";
      l.latency_s = uniform(rng, 5e-6, 4e-3);
      l.bandwidth = uniform(rng, 5e7, 8e9);
      l.network = 0;
      links[static_cast<size_t>(a)][static_cast<size_t>(b)] = l;
      if (asymmetric) l.latency_s = uniform(rng, 5e-6, 4e-3);
      links[static_cast<size_t>(b)][static_cast<size_t>(a)] = l;
    }
  }
  in.cost = std::make_unique<PipelineCostModel>(m, hosts, links, context, 128, 2, head_last);
  if (constraints) {
    int kind = pick(rng, 0, 3);
    if (kind == 1) in.constraints.min_hosts = pick(rng, 1, n);
    if (kind == 2) in.constraints.max_hosts = pick(rng, 1, n);
    if (kind == 3 && L >= 2) {
      int s = pick(rng, 0, L - 1);
      in.constraints.pins.push_back(
          {static_cast<size_t>(pick(rng, 0, n - 1)), s, pick(rng, s + 1, L)});
    }
  }
  in.describe = "seed " + std::to_string(seed) + ": " + std::to_string(n) + " hosts, " +
                std::to_string(L) + " layers";
  return in;
}

LinkFigures link_figures(const char* name, double latency_s, double bandwidth, int cable) {
  LinkFigures l;
  l.name = name;
  l.latency_s = latency_s;
  l.bandwidth = bandwidth;
  l.cable = cable;
  return l;
}

std::vector<std::vector<std::optional<LinkFigures>>> tb5_links(size_t n) {
  LinkFigures l;
  l.name = "tb5";
  l.latency_s = 50e-6;
  l.bandwidth = 6.5e9;
  return std::vector<std::vector<std::optional<LinkFigures>>>(
      n, std::vector<std::optional<LinkFigures>>(n, l));
}

}  // namespace meshplan::testing
