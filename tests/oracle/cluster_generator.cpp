#include "tests/oracle/cluster_generator.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "lib/cluster/cluster_loader.hpp"

namespace meshplan::oracle {
namespace {

using Rng = std::mt19937_64;

int pick(Rng& rng, int lo, int hi) {  // [lo, hi]
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}
template <class T>
const T& pick_of(Rng& rng, const std::vector<T>& v) {
  return v[static_cast<size_t>(pick(rng, 0, static_cast<int>(v.size()) - 1))];
}

struct MacKind {
  std::string chip, machine;
  int tb_generation, ports;
  std::vector<int> memory_gib;
};
const std::vector<MacKind>& mac_kinds() {
  static const std::vector<MacKind> kinds = {
      {"m4-pro-20c", "mac-mini-m4-pro", 5, 3, {24, 48, 64}},
      {"m4-pro-16c", "macbook-pro-m4-pro", 5, 3, {24, 48}},
      {"m3-ultra-80c", "mac-studio-m3-ultra", 5, 6, {96, 256, 512}},
      {"m3-ultra-60c", "mac-studio-m3-ultra", 5, 6, {96, 256}},
      {"m4-max-40c", "mac-studio-m4-max", 5, 4, {64, 128}},
      {"m4-max-40c", "macbook-pro-m4-max", 5, 3, {48, 128}},
      {"m5-max-40c", "macbook-pro-m5-max", 5, 3, {64, 128}},
      {"m2-ultra-76c", "mac-studio-m2-ultra", 4, 6, {64, 128, 192}},
      {"m2-ultra-76c", "mac-pro-m2-ultra", 4, 8, {192}},
      {"m2-pro-19c", "mac-mini-m2-pro", 4, 4, {16, 32}},
      {"m2-10c", "mac-mini-m2", 4, 2, {16, 24}},
      {"m1-8c", "macbook-air-m1", 3, 2, {8, 16}},
  };
  return kinds;
}

struct GpuKind {
  std::string chip;
  double memory_gib;
};
const std::vector<GpuKind>& gpu_kinds() {
  static const std::vector<GpuKind> kinds = {
      {"h100-sxm", 80},  {"h100-pcie", 80}, {"h200", 141},    {"a100-40gb", 40},
      {"a100-80gb", 80}, {"l40s", 48},      {"rtx-4090", 24}, {"rtx-pro-6000", 96},
      {"b200", 180},     {"gh200", 96},
  };
  return kinds;
}

// Dense, GQA, MLA and MoE models of the catalog, small to very large.
const std::vector<std::string>& model_names() {
  static const std::vector<std::string> names = {
      "llama-3.2-3b-4bit",    "llama-3.1-8b-bf16",    "llama-3.3-70b-4bit",
      "llama-3.3-70b-8bit",   "llama-3.3-70b-bf16",   "llama-3.1-405b-4bit",
      "qwen3-32b-8bit",       "qwen3-30b-a3b-4bit",   "qwen3-235b-a22b-4bit",
      "qwen3-235b-a22b-8bit", "deepseek-v3.1-4bit",   "deepseek-v3.1-fp8",
      "kimi-k2-4bit",         "gpt-oss-20b-mxfp4-q8", "gpt-oss-120b-mxfp4-q8",
      "gpt-oss-120b-bf16",    "mixtral-8x7b-4bit",    "dbrx-4bit",
  };
  return names;
}
// Rough sizes (GiB) of model_names(), to pick a model that may fit more often than not.
const std::vector<double>& model_sizes_gib() {
  static const std::vector<double> sizes = {1.7, 15,  37,  70,  131, 213, 32,  16, 123,
                                            233, 352, 627, 538, 11,  59,  218, 25, 69};
  return sizes;
}

// The network of kind `kind` over `members`, each given an interface named `iface` on subnet
// 10.<net>.0.0/24.
void add_network(GenCase& c, const std::vector<size_t>& members, const std::string& kind, bool rdma,
                 const std::string& iface, const std::string& iface_kind, double speed_gbps,
                 const std::string& rdma_device) {
  const int net = static_cast<int>(c.links.size()) + 1;
  GenLink link;
  link.kind = kind;
  link.rdma = rdma;
  link.subnet = fmt::format("10.{}.0.0/24", net);
  for (size_t i : members) {
    GenHost& h = c.hosts[i];
    link.hosts.push_back(h.name);
    h.interfaces.push_back(
        {iface, iface_kind, fmt::format("10.{}.0.{}", net, i + 1), 24, speed_gbps, rdma_device});
  }
  c.links.push_back(link);
}

void add_macs(GenCase& c, Rng& rng, int count) {
  for (int i = 0; i < count; ++i) {
    const MacKind& k = pick_of(rng, mac_kinds());
    GenHost h;
    h.name = fmt::format("mac-{}", c.hosts.size() + 1);
    h.chip = k.chip;
    h.machine = k.machine;
    const int gib = pick_of(rng, k.memory_gib);
    h.memory = fmt::format("{}GiB", gib);
    h.capacity_gib = gib * 0.8;
    c.hosts.push_back(h);
  }
}

// Thunderbolt among the Macs: the fastest generation all of them have, a topology their ports
// allow.
void add_thunderbolt(GenCase& c, Rng& rng, const std::vector<size_t>& macs) {
  if (macs.size() < 2) return;
  int generation = 5, ports = 8;
  for (size_t i : macs)
    for (const MacKind& k : mac_kinds())
      if (k.machine == c.hosts[i].machine) {
        generation = std::min(generation, k.tb_generation);
        ports = std::min(ports, k.ports);
      }
  const int n = static_cast<int>(macs.size());
  std::vector<std::string> topologies = {"chain"};
  if (ports >= n - 1) topologies.push_back("full-mesh");
  if (ports >= 2 && n >= 3) topologies.push_back("ring");
  GenLink link;
  link.topology = pick_of(rng, topologies);
  link.kind = fmt::format("tb{}", generation);
  link.rdma = generation == 5 && pick(rng, 0, 3) > 0;
  for (size_t i : macs)
    link.hosts.push_back(c.hosts[i].name);
  c.links.push_back(link);
}

void add_gpu_nodes(GenCase& c, Rng& rng, int count) {
  const bool alike = pick(rng, 0, 1) == 0;  // equal nodes, as vLLM's --nnodes launch wants
  const GpuKind& first = pick_of(rng, gpu_kinds());
  const int first_count = pick_of(rng, std::vector<int>{1, 2, 4, 8});
  for (int i = 0; i < count; ++i) {
    const GpuKind& k = alike ? first : pick_of(rng, gpu_kinds());
    const int n = alike ? first_count : pick(rng, 1, 8);
    GenHost h;
    h.name = fmt::format("gpu-{}", c.hosts.size() + 1);
    h.linux = true;
    h.gpus = fmt::format("{} x {}", n, k.chip);
    h.capacity_gib = n * k.memory_gib * 0.9;
    c.hosts.push_back(h);
  }
}

void add_sparks(GenCase& c, int count) {
  for (int i = 0; i < count; ++i) {
    GenHost h;
    h.name = fmt::format("spark-{}", c.hosts.size() + 1);
    h.linux = true;
    h.chip = "gb10";
    h.memory = "128GiB";
    h.capacity_gib = 110;
    c.hosts.push_back(h);
  }
}

// Direct 200 GbE (RoCE) cables along the Sparks, each end an addressed QSFP port.
void add_spark_cables(GenCase& c, const std::vector<size_t>& sparks) {
  const std::vector<std::string> ports = {"enp1s0f0np0", "enP2p1s0f1np1"};
  const std::vector<std::string> devices = {"rocep1s0f0", "roceP2p1s0f1"};
  for (size_t j = 0; j + 1 < sparks.size(); ++j) {
    GenHost& a = c.hosts[sparks[j]];
    GenHost& b = c.hosts[sparks[j + 1]];
    const size_t pa = j == 0 ? 0 : 1;  // the first port of a Spark faces the previous one
    const int net = 200 + static_cast<int>(j);
    a.interfaces.push_back(
        {ports[pa], "ethernet", fmt::format("10.{}.0.1", net), 24, 200, devices[pa]});
    b.interfaces.push_back(
        {ports[0], "ethernet", fmt::format("10.{}.0.2", net), 24, 200, devices[0]});
    GenLink link;
    link.kind = "200gbe";
    link.rdma = true;
    link.a_host = a.name;
    link.a_interface = ports[pa];
    link.b_host = b.name;
    link.b_interface = ports[0];
    c.links.push_back(link);
  }
}

std::vector<size_t> indices_where(const GenCase& c, bool linux_hosts) {
  std::vector<size_t> out;
  for (size_t i = 0; i < c.hosts.size(); ++i)
    if (c.hosts[i].linux == linux_hosts) out.push_back(i);
  return out;
}

std::vector<size_t> all_indices(const GenCase& c) {
  std::vector<size_t> out(c.hosts.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = i;
  return out;
}

// The data networks of GPU nodes: InfiniBand, RoCE or plain Ethernet, sometimes two.
void add_gpu_fabric(GenCase& c, Rng& rng, const std::vector<size_t>& nodes) {
  const int choice = pick(rng, 0, 4);
  if (choice == 0 || choice == 4)
    add_network(c, nodes, "ib-ndr", true, "ib0", "infiniband", 400, "mlx5_0");
  if (choice == 1 || choice == 4) {
    const bool fast = pick(rng, 0, 1) == 0;
    add_network(c, nodes, fast ? "400gbe" : "100gbe", true, "ens1f0np0", "ethernet",
                fast ? 400 : 100, "mlx5_1");
  }
  if (choice == 2) add_network(c, nodes, "25gbe", false, "ens2f0", "ethernet", 25, "");
}

void add_model(GenCase& c, Rng& rng) {
  double capacity = 0;
  for (const GenHost& h : c.hosts)
    capacity += h.capacity_gib;
  std::vector<std::string> fitting;
  for (size_t i = 0; i < model_names().size(); ++i)
    if (model_sizes_gib()[i] < capacity * 0.85) fitting.push_back(model_names()[i]);
  // Mostly a model that may fit; sometimes any, for the infeasible path.
  c.model =
      fitting.empty() || pick(rng, 0, 9) == 0 ? pick_of(rng, model_names()) : pick_of(rng, fitting);
}

}  // namespace

GenCase generate_case(uint64_t seed, const std::string& objective) {
  Rng rng(seed);
  GenCase c;
  c.seed = seed;
  c.objective = objective;
  const int family = pick(rng, 0, 4);
  // Sizes the planner covers in milliseconds: its work grows with the hosts and the tensor
  // degrees of each GPU node, and for throughput with the replica and routed searches.
  const int most = objective.empty() ? 5 : 3;
  if (family == 0) add_macs(c, rng, pick(rng, 1, most));
  if (family == 1) add_gpu_nodes(c, rng, pick(rng, 1, most - 1));
  if (family == 3) {
    add_macs(c, rng, pick(rng, 1, most - 2));
    add_gpu_nodes(c, rng, pick(rng, 1, std::max(1, most - 3)));
  }
  if (family == 2) add_sparks(c, pick(rng, 2, 3));
  if (family == 4) {
    add_sparks(c, 1);
    add_gpu_nodes(c, rng, pick(rng, 1, 2));
  }
  const std::vector<size_t> macs = indices_where(c, false);
  const std::vector<size_t> linux_hosts = indices_where(c, true);
  // Management: every host on one switch (en0 on a Mac, eno1 on Linux), 1 GbE or 10 GbE.
  const bool ten = pick(rng, 0, 1) == 0;
  {
    const int net = static_cast<int>(c.links.size()) + 1;
    GenLink link;
    link.kind = ten ? "10gbe" : "1gbe";
    link.subnet = fmt::format("10.{}.0.0/24", net);
    for (size_t i = 0; i < c.hosts.size(); ++i) {
      GenHost& h = c.hosts[i];
      link.hosts.push_back(h.name);
      h.interfaces.push_back({h.linux ? "eno1" : "en0", "ethernet",
                              fmt::format("10.{}.0.{}", net, i + 1), 24, ten ? 10.0 : 1.0, ""});
    }
    c.links.push_back(link);
  }
  if (macs.size() >= 2 && pick(rng, 0, 4) == 0)
    add_network(c, macs, "wifi", false, "en1", "wifi", 1, "");
  if (pick(rng, 0, 5) > 0) add_thunderbolt(c, rng, macs);
  std::vector<size_t> sparks;
  for (size_t i : linux_hosts)
    if (c.hosts[i].chip == "gb10") sparks.push_back(i);
  if (sparks.size() >= 2) add_spark_cables(c, sparks);
  std::vector<size_t> gpu_nodes;
  for (size_t i : linux_hosts)
    if (c.hosts[i].chip.empty()) gpu_nodes.push_back(i);
  if (gpu_nodes.size() >= 2 || (family == 4 && linux_hosts.size() >= 2))
    add_gpu_fabric(c, rng, family == 4 ? linux_hosts : gpu_nodes);
  if (family == 3 && pick(rng, 0, 2) == 0)
    add_network(c, all_indices(c), "10gbe", false, "en8", "ethernet", 10, "");
  add_model(c, rng);
  return c;
}

namespace {

std::string hosts_list(const std::vector<std::string>& hosts) {
  return fmt::format("[{}]", fmt::join(hosts, ", "));
}

void write_host(std::ostringstream& out, const GenHost& h) {
  out << "  - name: " << h.name << "\n";
  if (h.linux) out << "    os: linux\n";
  if (!h.chip.empty()) out << "    chip: " << h.chip << "\n";
  if (!h.machine.empty()) out << "    machine: " << h.machine << "\n";
  if (!h.memory.empty()) out << "    memory: " << h.memory << "\n";
  if (!h.gpus.empty()) out << "    gpus: \"" << h.gpus << "\"\n";
  if (h.interfaces.empty()) return;
  out << "    interfaces:\n";
  for (const GenInterface& i : h.interfaces) {
    out << fmt::format("      - {{name: {}, kind: {}, ipv4: {}, prefix: {}, speed_gbps: {}", i.name,
                       i.kind, i.ipv4, i.prefix, i.speed_gbps);
    if (!i.rdma_device.empty()) out << ", rdma_device: " << i.rdma_device;
    out << "}\n";
  }
}

}  // namespace

std::string to_yaml(const GenCase& c) {
  std::ostringstream out;
  out << "# model: " << c.model << "\n";
  out << "# options: " << (c.objective.empty() ? "" : "--objective " + c.objective) << "\n";
  out << "# seed: " << c.seed << "\n";
  out << "schema: meshplan.cluster/1\nhosts:\n";
  for (const GenHost& h : c.hosts)
    write_host(out, h);
  out << (c.links.empty() ? "links: []\n" : "links:\n");
  for (const GenLink& l : c.links) {
    const std::string rdma = l.rdma ? ", rdma: true" : "";
    if (!l.a_host.empty())
      out << fmt::format(
          "  - {{a: {{host: {}, interface: {}}}, b: {{host: {}, interface: {}}}, kind: {}{}}}\n",
          l.a_host, l.a_interface, l.b_host, l.b_interface, l.kind, rdma);
    else if (!l.topology.empty())
      out << fmt::format("  - {{topology: {}, kind: {}{}, hosts: {}}}\n", l.topology, l.kind, rdma,
                         hosts_list(l.hosts));
    else
      out << fmt::format("  - {{kind: {}{}, hosts: {}, subnet: {}}}\n", l.kind, rdma,
                         hosts_list(l.hosts), l.subnet);
  }
  return out.str();
}

FixtureCase read_fixture(const std::string& text) {
  FixtureCase f;
  f.yaml = text;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# model: ", 0) == 0) f.model = line.substr(9);
    if (line.rfind("# options: ", 0) == 0 &&
        line.find("--objective throughput") != std::string::npos)
      f.objective = "throughput";
  }
  return f;
}

Cluster load_case_cluster(const std::string& yaml, const Catalog& catalog) {
  return load_cluster(yaml, "generated.yaml", catalog);
}

std::vector<GenCase> shrink_candidates(const GenCase& c) {
  std::vector<GenCase> out;
  for (size_t i = 0; i < c.hosts.size() && c.hosts.size() > 1; ++i) {
    GenCase s = c;
    const std::string gone = c.hosts[i].name;
    s.hosts.erase(s.hosts.begin() + static_cast<long>(i));
    std::vector<GenLink> links;
    for (GenLink l : s.links) {
      if (l.a_host == gone || l.b_host == gone) continue;
      std::erase(l.hosts, gone);
      if (l.a_host.empty() && l.hosts.size() < (l.topology.empty() ? 1u : 2u)) continue;
      links.push_back(l);
    }
    s.links = links;
    out.push_back(s);
  }
  for (size_t j = 0; j < c.links.size(); ++j) {
    GenCase s = c;
    s.links.erase(s.links.begin() + static_cast<long>(j));
    out.push_back(s);
  }
  for (size_t i = 0; i < c.hosts.size(); ++i)
    for (size_t k = 0; k < c.hosts[i].interfaces.size(); ++k) {
      // The interface goes with the host's place on its network and with its cable, so that
      // every smaller case is a cluster a user could have.
      GenCase s = c;
      const GenHost& h = c.hosts[i];
      const GenInterface& gone = h.interfaces[k];
      const std::string net = gone.ipv4.substr(0, gone.ipv4.rfind('.')) + ".0/24";
      std::vector<GenLink> links;
      for (GenLink l : s.links) {
        const bool cable_end = (l.a_host == h.name && l.a_interface == gone.name) ||
                               (l.b_host == h.name && l.b_interface == gone.name);
        if (cable_end) continue;
        if (l.subnet == net) std::erase(l.hosts, h.name);
        if (l.a_host.empty() && l.hosts.empty()) continue;
        links.push_back(l);
      }
      s.links = links;
      auto& ifs = s.hosts[i].interfaces;
      ifs.erase(ifs.begin() + static_cast<long>(k));
      out.push_back(s);
    }
  return out;
}

}  // namespace meshplan::oracle
