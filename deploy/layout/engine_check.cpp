#include "deploy/layout/engine_check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <cstdio>
#include <set>

#include "deploy/layout/emit_input.hpp"
#include "deploy/layout/launch_nodes.hpp"
#include "lib/cluster/link_kind.hpp"
#include "lib/core/error.hpp"

namespace meshplan {
namespace {

// The network part of an IPv4 address under `prefix`, as "a.b.c.d/p"; "" when unreadable.
std::string network_of(const std::string& address, int prefix) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  char end = 0;
  if (prefix < 0 || prefix > 32 ||
      std::sscanf(address.c_str(), "%u.%u.%u.%u%c", &a, &b, &c, &d, &end) != 4 || a > 255 ||
      b > 255 || c > 255 || d > 255)
    return "";
  uint32_t v = a << 24 | b << 16 | c << 8 | d;
  uint32_t mask = prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
  v &= mask;
  return fmt::format("{}.{}.{}.{}/{}", v >> 24, v >> 16 & 255, v >> 8 & 255, v & 255, prefix);
}

bool infiniband(LinkKind kind) {
  return kind == LinkKind::kIbNdr || kind == LinkKind::kIbHdr;
}

std::string network_text(const Network& n) {
  return fmt::format("the {} network {}", name(n.kind), n.subnet);
}

EngineHostPath path_of(const LaunchNode& n) {
  EngineHostPath p;
  p.host = n.host->name;
  p.interface = n.data_interface;
  p.address = n.data_address;
  p.hcas = n.rdma_devices;
  p.gpus = n.cuda_gpus();
  std::set<std::string> parts;
  for (const Gpu& g : n.host->gpus)
    parts.insert(g.chip);
  if (parts.size() == 1) p.gpu_part = *parts.begin();
  return p;
}

// Every node's address on the data network, in one subnet when it is a network; Wi-Fi named.
void check_addresses(const LaunchLayout& layout, const Network* network, EngineVerdict& v) {
  std::set<std::string> subnets;
  std::vector<std::string> hosts;
  for (const LaunchNode& n : layout.nodes) {
    const NetInterface* i = n.host->find_interface(n.data_interface);
    if (n.data_address.empty()) {
      v.issues.push_back(make_issue(
          "engine-no-address", Severity::kError, v.engine, {n.host->name},
          fmt::format("{} has no address on {}{}", n.host->name,
                      network ? network_text(*network) : "the network the nodes share",
                      n.data_interface.empty() ? "" : " (" + n.data_interface + ")"),
          fmt::format("give {} an address{} and write it in the cluster file (meshplan discover "
                      "reads it)",
                      n.data_interface.empty() ? n.host->name + "'s interface on it"
                                               : n.host->name + "'s " + n.data_interface,
                      network ? " in " + network->subnet : "")));
      continue;
    }
    if (i && i->kind == "wifi")
      v.issues.push_back(make_issue(
          "engine-wifi", Severity::kWarning, v.engine, {n.host->name},
          fmt::format("{} talks over Wi-Fi ({}): NCCL and Gloo work there, slowly and with "
                      "dropped connections under load",
                      n.host->name, n.data_interface),
          "join the nodes by a wired network and list it under networks: with its subnet"));
    if (i && i->prefix > 0) {
      subnets.insert(network_of(n.data_address, i->prefix));
      hosts.push_back(fmt::format("{} {}/{}", n.host->name, n.data_address, i->prefix));
    }
  }
  // Without a recorded network the nodes' addresses may be routed between subnets; on one network
  // they must share its subnet.
  if (network && subnets.size() > 1)
    v.issues.push_back(make_issue(
        "engine-subnets-differ", Severity::kError, v.engine, {},
        fmt::format("the nodes' addresses on the data network lie in {} subnets ({}): NCCL's "
                    "bootstrap and Gloo connect only where a route exists",
                    subnets.size(), fmt::join(hosts, ", ")),
        "give every node an address in one subnet on that network"));
}

// One MTU on the data network: a node with jumbo frames talking to one without stalls NCCL's and
// Gloo's large messages (the small ones of the bootstrap pass, so the hang comes later).
void check_mtu(const LaunchLayout& layout, EngineVerdict& v) {
  std::set<int> mtus;
  std::vector<std::string> each;
  for (const LaunchNode& n : layout.nodes)
    if (const NetInterface* i = n.host->find_interface(n.data_interface); i && i->mtu > 0) {
      mtus.insert(i->mtu);
      each.push_back(fmt::format("{} {} {}", n.host->name, i->name, i->mtu));
    }
  if (mtus.size() > 1)
    v.issues.push_back(make_issue(
        "engine-mtu-differs", Severity::kError, v.engine, {},
        fmt::format("the nodes' interfaces on the data network have different MTUs ({}): NCCL's "
                    "and Gloo's large messages stall or are dropped after a start-up that works",
                    fmt::join(each, ", ")),
        fmt::format("set one MTU on every node (ip link set dev IFACE mtu {}) and on the switch "
                    "ports, and write it in the cluster file",
                    *mtus.rbegin())));
}

// RoCE v2 addresses its packets by the interface's IP: an HCA on an Ethernet interface without one
// fails NCCL's IB transport (an IPoIB port needs none for InfiniBand).
void check_roce_addresses(const LaunchLayout& layout, EngineVerdict& v) {
  for (const LaunchNode& n : layout.nodes)
    for (const std::string& hca : n.rdma_devices)
      for (const NetInterface& i : n.host->interfaces) {
        if (i.rdma_device != hca || !i.ipv4.empty() || i.kind == "infiniband") continue;
        v.issues.push_back(make_issue(
            "engine-roce-no-address", Severity::kError, v.engine, {n.host->name},
            fmt::format("{}'s RDMA device {} is on {}, which has no IPv4 address: RoCE needs one, "
                        "so NCCL_IB_HCA={} fails there",
                        n.host->name, hca, i.name, hca),
            fmt::format("give {} an address (a cable between two hosts: `meshplan setup` prints "
                        "its /30 for both ends) and write it in the cluster file",
                        i.name)));
      }
}

// RDMA devices: every node or none (NCCL runs one transport), and every node where the network
// is InfiniBand.
void check_hcas(const LaunchLayout& layout, const Network* network, EngineVerdict& v) {
  std::vector<std::string> with, without;
  for (const LaunchNode& n : layout.nodes)
    (n.rdma_devices.empty() ? without : with).push_back(n.host->name);
  v.transport = !layout.nodes.empty() && without.empty() ? "ib" : "socket";
  if (network && infiniband(network->kind) && !without.empty())
    v.issues.push_back(make_issue(
        "engine-no-hca", Severity::kError, v.engine, without,
        fmt::format("{} on {} without an RDMA device on its interface there: NCCL cannot use "
                    "InfiniBand from it",
                    fmt::join(without, ", "), network_text(*network)),
        "record the HCA of each node's InfiniBand interface (rdma_device, as discover reads "
        "/sys/class/infiniband) or check that its driver is loaded"));
  else if (!with.empty() && !without.empty())
    v.issues.push_back(make_issue(
        "engine-hca-mixed", Severity::kWarning, v.engine, without,
        fmt::format("{} {} an RDMA device on the data network and {} not: NCCL falls back to "
                    "sockets for the whole job",
                    fmt::join(with, ", "), with.size() == 1 ? "has" : "have",
                    fmt::join(without, ", ")),
        "give every node an RDMA NIC on the data network, or set NCCL_IB_DISABLE=1 to say so"));
}

// vLLM's multiprocessing launch (--nnodes) starts the same number of ranks on every node, and
// tensor parallelism wants one GPU part; torchrun takes one --nproc-per-node.
void check_gpus(const std::vector<EngineHostPath>& hosts, EngineVerdict& v, const Engine& engine) {
  std::set<int> counts;
  std::set<std::string> parts;
  for (const EngineHostPath& h : hosts) {
    counts.insert(h.gpus);
    parts.insert(h.gpu_part);
  }
  if (engine.kind != EngineKind::kVllm || hosts.size() < 2) return;
  if (counts.size() > 1)
    v.issues.push_back(make_issue(
        "engine-unequal-gpus", Severity::kWarning, v.engine, {},
        "the nodes have different numbers of GPUs: vLLM's multiprocessing launch (--nnodes) "
        "starts the same number of ranks on every node",
        "let Ray place the ranks (meshplan emit ray-cluster), or plan on nodes of one size"));
  if (parts.size() > 1)
    v.issues.push_back(make_issue(
        "engine-mixed-gpus", Severity::kWarning, v.engine, {},
        "the nodes have different GPU parts: vLLM runs every rank at the slowest one's pace",
        "plan with --hosts over one kind of node, or as replicas (plan --objective throughput)"));
}

}  // namespace

EngineVerdict check_engine_launch(const TopologyContext& topology, const CheckReport& report,
                                  const std::optional<PlanRanks>& plan, const Engine& engine) {
  EngineVerdict v;
  v.engine = std::string(engine.name);
  v.title = std::string(engine.title);
  std::vector<std::string> names;
  for (size_t h : topology.members({}))
    names.push_back(topology.cluster.hosts[h].name);
  if (std::string why = platform_refusal(engine, topology.cluster, topology.catalog,
                                         plan ? plan->hosts() : names);
      !why.empty()) {
    v.issues.push_back(make_issue("engine-platform", Severity::kError, v.engine, {},
                                  fmt::format("{} does not run here: {}", engine.title, why),
                                  "check --engine NAME with an engine of these hosts"));
    return v;
  }
  const EmitInput in{topology.cluster, topology, report, plan, "auto", {}, {}, {}};
  try {
    const LaunchLayout& layout = in.layout();
    std::vector<size_t> ranks;
    for (const LaunchNode& n : layout.nodes)
      ranks.push_back(static_cast<size_t>(topology.cluster.host_index(n.host->name)));
    const Network* network =
        layout.transport == "network" ? data_network(topology.cluster, ranks) : nullptr;
    if (network)
      v.network = network_text(*network);
    else if (layout.nodes.size() == 1)
      v.network = "one host (no network)";
    else
      v.network = "each node's management address";
    for (const LaunchNode& n : layout.nodes)
      v.hosts.push_back(path_of(n));
    if (layout.nodes.size() > 1) {
      check_addresses(layout, network, v);
      check_hcas(layout, network, v);
      check_roce_addresses(layout, v);
      check_mtu(layout, v);
    } else {
      v.transport = "socket";
    }
    check_gpus(v.hosts, v, engine);
  } catch (const Error& e) {
    v.transport = "socket";
    v.issues.push_back(make_issue(
        "engine-no-network", Severity::kError, v.engine, {},
        fmt::format("the launch cannot reach every node: {}", e.what()),
        "put every node on one wired network and list it under networks: with its subnet and "
        "each node's address on it"));
  }
  return v;
}

const Engine* engine_to_check(const Cluster& cluster, const Catalog& catalog,
                              const std::vector<std::string>& hosts,
                              const std::optional<PlanRanks>& plan) {
  std::vector<std::string> names = hosts;
  if (names.empty())
    for (const Host& h : cluster.hosts)
      names.push_back(h.name);
  for (const std::string& n : names) {
    int i = cluster.host_index(n);
    if (i >= 0 && host_platform(cluster.hosts[static_cast<size_t>(i)], catalog) == Platform::kMac)
      return nullptr;
  }
  if (plan && !plan->engine.empty()) return find_engine(plan->engine);
  std::string why;
  return infer_engine(cluster, catalog, names, why);
}

}  // namespace meshplan
