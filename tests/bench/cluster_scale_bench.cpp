// Reading and checking large cluster files: 2,000, 20,000 and 200,000 hosts on one shared network
// with a Thunderbolt ring among the first eight, as YAML and as JSON. Both steps are n log n in
// the hosts; the figures go in docs/input-limits.md.
#include <benchmark/benchmark.h>

#include <string>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "topologies/backend_rules.hpp"

namespace meshplan {
namespace {

std::string address(int i) {
  return "10." + std::to_string(i >> 16) + "." + std::to_string((i >> 8) & 255) + "." +
         std::to_string(i & 255);
}

std::string cluster_yaml(int hosts) {
  std::string s = "name: scale\nhosts:\n";
  for (int i = 0; i < hosts; ++i)
    s += "  - {name: h" + std::to_string(i) +
         ", chip: m4-pro-20c, memory: 64GiB, interfaces: [{name: en0, kind: ethernet, ipv4: " +
         address(i) + ", prefix: 8}]}\n";
  s += "links:\n  - {kind: 10gbe, hosts: all, subnet: 10.0.0.0/8}\n";
  for (int i = 0; i < 8; ++i)
    s += "  - {a: h" + std::to_string(i) + ":1, b: h" + std::to_string((i + 1) % 8) +
         ":2, kind: tb5}\n";
  return s;
}

std::string cluster_json(int hosts) {
  std::string s = "{\"name\": \"scale\", \"hosts\": [";
  for (int i = 0; i < hosts; ++i)
    s += std::string(i ? "," : "") + "{\"name\": \"h" + std::to_string(i) +
         "\", \"chip\": \"m4-pro-20c\", \"memory\": \"64GiB\", \"interfaces\": [{\"name\": "
         "\"en0\", \"kind\": \"ethernet\", \"ipv4\": \"" +
         address(i) + "\", \"prefix\": 8}]}";
  s += "], \"links\": [{\"kind\": \"10gbe\", \"hosts\": \"all\", \"subnet\": \"10.0.0.0/8\"}]}";
  return s;
}

void read_and_check(benchmark::State& state, const std::string& text, const std::string& name) {
  const Catalog& catalog = Catalog::builtin();
  size_t valid = 0;
  for (auto _ : state) {
    Cluster c = load_cluster(text, name, catalog);
    TopologyContext ctx(c, catalog);
    CheckReport r = check_cluster(ctx, CheckOptions{});
    valid = r.find("ring")->valid;
    benchmark::DoNotOptimize(r);
  }
  state.counters["hosts"] = static_cast<double>(state.range(0));
  state.counters["ring_valid"] = static_cast<double>(valid);
  state.counters["file_MiB"] = static_cast<double>(text.size()) / (1 << 20);
}

void BM_read_and_check_yaml(benchmark::State& state) {
  read_and_check(state, cluster_yaml(static_cast<int>(state.range(0))), "scale.yaml");
}

void BM_read_and_check_json(benchmark::State& state) {
  read_and_check(state, cluster_json(static_cast<int>(state.range(0))), "scale.json");
}

BENCHMARK(BM_read_and_check_yaml)
    ->Arg(2000)
    ->Arg(20000)
    ->Arg(200000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_read_and_check_json)
    ->Arg(2000)
    ->Arg(20000)
    ->Arg(200000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace meshplan
