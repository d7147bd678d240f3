#include "bench/fleet_families.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "lib/cluster/generators.hpp"
#include "lib/cluster/host_reader.hpp"
#include "lib/core/error.hpp"

namespace meshplan {
namespace {

// One kind of host: a Mac (machine, chip, memory) or a Linux node of GPUs.
struct FleetKind {
  const char* prefix;  // host names: "<prefix>-0001"
  const char* machine = "";
  const char* chip = "";
  int gib = 0;
  const char* gpu = "";
  int gpus = 0;
  bool mac() const { return gpus == 0; }
};

const FleetKind kMini{"mini", "mac-mini-m4-pro", "m4-pro-20c", 64, "", 0};
const FleetKind kUltra{"ultra", "mac-studio-m3-ultra", "m3-ultra-80c", 512, "", 0};
const FleetKind kMax{"max", "mac-studio-m4-max", "m4-max-40c", 128, "", 0};
const FleetKind kH200{"h200", "", "", 0, "h200", 1};
const FleetKind kA100{"a100", "", "", 0, "a100-80gb", 4};
const FleetKind kH100{"h100", "", "", 0, "h100-sxm", 8};

struct Family {
  std::string name;
  std::vector<FleetKind> kinds;
  bool islands;  // its Macs in Thunderbolt 5 islands
};

const std::vector<Family>& families() {
  static const std::vector<Family> table = {
      {"minis", {kMini}, false},
      {"h100-nodes", {kH100}, false},
      {"macs-islands", {kMini, kUltra, kMax}, true},
      {"mixed-6", {kMini, kUltra, kMax, kH200, kA100, kH100}, true},
  };
  return table;
}

// Addresses 10.<net>.0.1 upwards in a /16: host i (from 0) is 10.<net>.<(i+1)/256>.<(i+1)%256>.
std::string address(int net, size_t i) {
  return fmt::format("10.{}.{}.{}", net, (i + 1) >> 8, (i + 1) & 255);
}

// Hosts per kind: one each, the rest in proportion to weights drawn from [1, 4) (largest
// remainder), so that every kind is present and no two seeds need give the same mix.
std::vector<size_t> kind_counts(size_t kinds, size_t hosts, std::mt19937_64& rng) {
  std::vector<double> weight(kinds);
  for (double& w : weight)
    w = std::uniform_real_distribution<double>(1, 4)(rng);
  double total = 0;
  for (double w : weight)
    total += w;
  const size_t spare = hosts - kinds;
  std::vector<size_t> count(kinds, 1);
  std::vector<std::pair<double, size_t>> remainder;
  size_t given = 0;
  for (size_t k = 0; k < kinds; ++k) {
    const double share = static_cast<double>(spare) * weight[k] / total;
    count[k] += static_cast<size_t>(share);
    given += static_cast<size_t>(share);
    remainder.push_back({share - std::floor(share), k});
  }
  std::sort(remainder.rbegin(), remainder.rend());
  for (size_t r = 0; given < spare; ++r, ++given)
    ++count[remainder[r].second];
  return count;
}

Host make_host(const FleetKind& kind, int number, size_t index, const Catalog& catalog) {
  Host h;
  h.name = fmt::format("{}-{:04}", kind.prefix, number);
  NetInterface management;
  management.kind = "ethernet";
  management.ipv4 = address(0, index);
  management.prefix = 16;
  management.speed_gbps = 10;
  if (kind.mac()) {
    h.os.kind = "macos";
    h.machine = kind.machine;
    h.chip = kind.chip;
    h.memory = static_cast<uint64_t>(kind.gib) << 30;
    h.rdma_enabled = true;
    const MachineSpec* machine = host_machine(h, catalog);
    if (!machine) throw internal_error("fleet machine {} is not in the catalog", kind.machine);
    h.ports = default_ports(*machine);
    management.name = "en0";
    h.interfaces.push_back(management);
  } else {
    if (!catalog.find_chip(kind.gpu))
      throw internal_error("fleet GPU {} is not in the catalog", kind.gpu);
    h.os.kind = "linux";
    Gpu gpu;
    gpu.chip = kind.gpu;
    h.gpus.assign(static_cast<size_t>(kind.gpus), gpu);
    management.name = "eno1";
    h.interfaces.push_back(management);
    NetInterface ib;
    ib.name = "ib0";
    ib.kind = "infiniband";
    ib.ipv4 = address(9, index);
    ib.prefix = 16;
    ib.speed_gbps = catalog.default_speed_gbps(LinkKind::kIbNdr);
    ib.rdma_device = "mlx5_0";
    h.interfaces.push_back(ib);
  }
  return h;
}

// Thunderbolt 5 islands of 2-4 hosts over `macs` (indices into the hosts, in order), each a
// full mesh with RDMA; the last islands are sized so that none is left with one host (unless
// there is only one Mac).
void islands(Cluster& cluster, const std::vector<size_t>& macs, std::mt19937_64& rng,
             const Catalog& catalog) {
  for (size_t start = 0; start < macs.size();) {
    const size_t left = macs.size() - start;
    const size_t size =
        left <= 4 ? left
                  : std::uniform_int_distribution<size_t>(2, std::min<size_t>(4, left - 2))(rng);
    for (size_t a = start; a < start + size; ++a) {
      for (size_t b = a + 1; b < start + size; ++b) {
        Cable c;
        c.a.host = cluster.hosts[macs[a]].name;
        c.b.host = cluster.hosts[macs[b]].name;
        c.kind = LinkKind::kTb5;
        c.rdma = true;
        c.speed_gbps = catalog.default_speed_gbps(LinkKind::kTb5);
        cluster.cables.push_back(c);
      }
    }
    start += size;
  }
}

}  // namespace

const std::vector<std::string>& fleet_family_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Family& f : families())
      out.push_back(f.name);
    return out;
  }();
  return names;
}

Cluster generate_fleet(const std::string& family, int hosts, uint64_t seed,
                       const Catalog& catalog) {
  auto found = std::find_if(families().begin(), families().end(),
                            [&](const Family& f) { return f.name == family; });
  if (found == families().end())
    throw input_error("unknown fleet family \"{}\"; expected one of {}", family,
                      fmt::join(fleet_family_names(), ", "));
  const std::vector<FleetKind>& kinds = found->kinds;
  if (hosts < static_cast<int>(kinds.size()) || hosts > kMaxFleetHosts)
    throw input_error(
        "fleet family {} takes {} to {} hosts (one of each of its kinds at least), got {}", family,
        kinds.size(), kMaxFleetHosts, hosts);
  std::mt19937_64 rng(seed);
  const std::vector<size_t> counts = kind_counts(kinds.size(), static_cast<size_t>(hosts), rng);
  Cluster cluster;
  cluster.name = family;
  std::vector<size_t> macs, gpu_nodes;
  for (size_t k = 0; k < kinds.size(); ++k) {
    for (size_t n = 1; n <= counts[k]; ++n) {
      (kinds[k].mac() ? macs : gpu_nodes).push_back(cluster.hosts.size());
      cluster.hosts.push_back(
          make_host(kinds[k], static_cast<int>(n), cluster.hosts.size(), catalog));
    }
  }
  if (found->islands) islands(cluster, macs, rng, catalog);
  Network management;
  management.kind = LinkKind::k10gbe;
  management.all_hosts = true;
  management.subnet = "10.0.0.0/16";
  cluster.networks.push_back(management);
  if (!gpu_nodes.empty()) {
    Network ib;
    ib.kind = LinkKind::kIbNdr;
    ib.rdma = true;
    ib.subnet = "10.9.0.0/16";
    if (gpu_nodes.size() == cluster.hosts.size()) {
      ib.all_hosts = true;
    } else {
      for (size_t i : gpu_nodes)
        ib.hosts.push_back(cluster.hosts[i].name);
    }
    cluster.networks.push_back(ib);
  }
  // The Thunderbolt cables get the lowest free receptacle at each end, as when a file is loaded.
  expand_generators(cluster, catalog);
  return cluster;
}

}  // namespace meshplan
