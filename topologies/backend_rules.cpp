#include "topologies/backend_rules.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "lib/cluster/cluster_reader.hpp"
#include "lib/core/error.hpp"
#include "topologies/cabling_advice.hpp"
#include "topologies/host_networks.hpp"
#include "topologies/ring_search.hpp"

namespace meshplan {
namespace {

std::string host_name(const TopologyContext& ctx, size_t h) {
  return ctx.cluster.hosts[h].name;
}

std::string machine_label(const TopologyContext& ctx, size_t h) {
  const MachineSpec* m = host_machine(ctx.cluster.hosts[h], ctx.catalog);
  return m ? fmt::format("{} ({})", host_name(ctx, h), m->name) : host_name(ctx, h);
}

// Whether a Thunderbolt cable may be advised for host h: it has Thunderbolt ports, or it is a Mac
// whose ports the file does not list. Linux hosts and NVIDIA machines have none to plug.
bool takes_thunderbolt(const TopologyContext& ctx, size_t h) {
  if (!ctx.fabric.ports(h).empty()) return true;
  const Host& host = ctx.cluster.hosts[h];
  if (host.os.kind == "macos") return true;
  if (host.os.kind == "linux" || !host.gpus.empty()) return false;
  const ChipSpec* chip = host.chip.empty() ? nullptr : ctx.catalog.find_chip(host.chip);
  return !chip || chip->vendor == "apple";
}

std::string cables_fix(const std::vector<CableToAdd>& cables) {
  std::string out;
  for (const auto& c : cables)
    out += (out.empty() ? "" : "; ") + c.describe();
  return out;
}

std::string ring_text(const TopologyContext& ctx, const std::vector<size_t>& ring) {
  std::string out;
  for (size_t h : ring)
    out += (out.empty() ? "" : " > ") + host_name(ctx, h);
  return out;
}

// Parallel cables used per hop: the fewest any pair of neighbours has (MLX's rule).
int ring_count(const TbFabric& fabric, const std::vector<size_t>& ring, bool rdma_only,
               std::vector<size_t>* per_hop) {
  if (ring.size() < 2) return 0;
  size_t hops = ring.size() == 2 ? 1 : ring.size();
  size_t least = SIZE_MAX;
  for (size_t k = 0; k < hops; ++k) {
    size_t c = fabric.count(ring[k], ring[(k + 1) % ring.size()], rdma_only);
    if (per_hop) per_hop->push_back(c);
    least = std::min(least, c);
  }
  return static_cast<int>(least);
}

CheckIssue ring_missing(const TopologyContext& ctx, const std::vector<size_t>& members,
                        bool rdma_only, const std::string& backend) {
  std::vector<std::string> names;
  for (size_t h : members)
    names.push_back(host_name(ctx, h));
  CheckIssue issue =
      make_issue("ring-missing", Severity::kError, backend, names,
                 rdma_only ? "Could not find a full ring over RDMA-capable Thunderbolt 5 cables."
                           : "Could not find a full ring over the Thunderbolt cables.");
  std::vector<std::string> portless;
  for (size_t h : members)
    if ((rdma_only ? ctx.fabric.tb5_port_count(h) : ctx.fabric.ports(h).size()) == 0)
      portless.push_back(host_name(ctx, h));
  if (!portless.empty()) {
    issue.fix = fmt::format(
        "{} no {}port, so no cable can join {} into the ring; leave {} out, "
        "or use the ring over a network (ethernet)",
        join_names(portless) + (portless.size() == 1 ? " has" : " have"),
        rdma_only ? "Thunderbolt 5 " : "Thunderbolt ", portless.size() == 1 ? "it" : "them",
        portless.size() == 1 ? "it" : "them");
    return issue;
  }
  RingAdvice advice = fewest_cables_for_ring(ctx.fabric, members, rdma_only);
  if (!advice.possible) {
    std::vector<std::string> short_of;
    for (size_t h : members)
      if (ctx.fabric.free_ports(h, rdma_only).size() < 2) short_of.push_back(host_name(ctx, h));
    issue.fix = fmt::format(
        "no ring fits the free {}ports{}: free ports by unplugging cables that no ring uses, or "
        "leave hosts out",
        rdma_only ? "Thunderbolt 5 " : "Thunderbolt ",
        short_of.empty() ? "" : " (" + join_names(short_of) + " have fewer than 2 free)");
    return issue;
  }
  PortAllocator ports(ctx.fabric, rdma_only);
  for (auto [a, b] : advice.new_pairs)
    issue.add_cables.push_back(new_cable(ctx.fabric, ports, a, b, rdma_only));
  size_t n = issue.add_cables.size();
  issue.fix = fmt::format("add {} cable{} ({}): {}; the ring is then {}", n, n == 1 ? "" : "s",
                          advice.exact ? "the fewest that close a ring"
                                       : "found greedily, not proven minimal above 12 hosts",
                          cables_fix(issue.add_cables), ring_text(ctx, advice.order));
  return issue;
}

// The cables a mesh pair lacks, or why the ones it has carry no RDMA.
void mesh_pair_issue(const TopologyContext& ctx, size_t i, size_t j, PortAllocator& ports,
                     BackendVerdict& v) {
  const TbFabric& f = ctx.fabric;
  std::vector<const FabricCable*> all = f.between(i, j);
  std::vector<std::string> hosts = {host_name(ctx, i), host_name(ctx, j)};
  if (all.empty()) {
    CheckIssue issue =
        make_issue("mesh-missing-cable", Severity::kError, v.backend, hosts,
                   fmt::format("Incomplete mesh, {} is not connected to {}", hosts[0], hosts[1]));
    // Advice only where it can be followed: a host with no Thunderbolt 5 port takes no cable.
    std::vector<std::string> portless;
    for (size_t h : {i, j})
      if (f.tb5_port_count(h) == 0) portless.push_back(host_name(ctx, h));
    if (!portless.empty()) {
      issue.fix = fmt::format(
          "{} no Thunderbolt 5 port, so no cable can join them for RDMA; leave "
          "{} out of the mesh or use a backend over the network",
          join_names(portless) + (portless.size() == 1 ? " has" : " have"),
          portless.size() == 1 ? "it" : "them");
      v.issues.push_back(std::move(issue));
      return;
    }
    issue.add_cables.push_back(new_cable(f, ports, i, j, true));
    issue.fix = issue.add_cables.back().describe();
    v.issues.push_back(std::move(issue));
    return;
  }
  const FabricCable& c = *all.front();
  std::string where = end_text(ctx.cluster, c.lo) + " - " + end_text(ctx.cluster, c.hi);
  CheckIssue issue =
      make_issue(c.kind == LinkKind::kTb5 ? "mesh-cable-without-rdma" : "tb4-cable-for-rdma",
                 Severity::kError, v.backend, hosts,
                 fmt::format("{} and {} are joined only by cable{} without RDMA ({}): {}", hosts[0],
                             hosts[1], all.size() == 1 ? "" : "s", where, c.no_rdma_reason));
  bool ports_ok =
      c.lo.generation != 4 && c.lo.generation != 3 && c.hi.generation != 4 && c.hi.generation != 3;
  if (c.kind != LinkKind::kTb5 && ports_ok) {
    CableToAdd swap;
    swap.a = {hosts[0], c.lo.port, c.lo.interface};
    swap.b = {hosts[1], c.hi.port, c.hi.interface};
    swap.kind = name(LinkKind::kTb5);
    issue.add_cables.push_back(swap);
    issue.fix = fmt::format("replace it with a Thunderbolt 5 cable on the same ports ({})", where);
  } else if (c.kind == LinkKind::kTb5 && ports_ok) {
    issue.fix =
        "enable RDMA on both Macs (see the RDMA problems below) and run `meshplan discover` again; "
        "if it "
        "stays, reseat or replace the cable";
  } else {
    issue.add_cables.push_back(new_cable(f, ports, i, j, true));
    issue.fix = issue.add_cables.back().describe();
  }
  v.issues.push_back(std::move(issue));
}

BackendVerdict check_jaccl(const TopologyContext& ctx, const std::vector<size_t>& members) {
  BackendVerdict v;
  v.backend = name(MlxBackend::kJaccl);
  v.transport = "rdma";
  const size_t n = members.size();
  if (n > kJacclMaxRanks) {
    v.issues.push_back(make_issue(
        "jaccl-max-ranks", Severity::kError, v.backend, {},
        fmt::format("JACCL's mesh supports at most {} ranks; this has {}", kJacclMaxRanks, n),
        "use jaccl-ring or ring, or plan on at most 8 hosts (--max-hosts 8)"));
  }
  // Beyond the mesh's rank limit, per-host port budgets and per-pair cables would only repeat
  // that limit (n² of them on a large cluster).
  const bool too_many = n > kJacclMaxRanks;
  for (size_t h : too_many ? std::vector<size_t>{} : members) {
    if (ctx.cluster.hosts[h].ports.empty()) continue;  // unknown ports: nothing to count
    size_t have = ctx.fabric.tb5_port_count(h);
    if (have + 1 < n) {
      v.issues.push_back(make_issue(
          "port-budget", Severity::kError, v.backend, {host_name(ctx, h)},
          fmt::format("a full mesh of {} needs {} Thunderbolt 5 ports per host; {} has {}{}", n,
                      n - 1, machine_label(ctx, h), have,
                      have < ctx.cluster.hosts[h].ports.size()
                          ? fmt::format(" (its other {} are older Thunderbolt)",
                                        ctx.cluster.hosts[h].ports.size() - have)
                          : ""),
          "use jaccl-ring or ring (a ring needs 2 ports per host), or leave hosts out of the "
          "mesh"));
    }
  }
  PortAllocator ports(ctx.fabric, true);
  for (size_t a = 0; a < (too_many ? 0 : n); ++a)
    for (size_t b = a + 1; b < n; ++b)
      if (ctx.fabric.count(members[a], members[b], true) == 0)
        mesh_pair_issue(ctx, members[a], members[b], ports, v);
  for (auto& i : rdma_host_issues(ctx, members, v.backend))
    v.issues.push_back(std::move(i));
  if (!members.empty())
    for (auto& i : coordinator_issues(ctx, members.front(), v.backend))
      v.issues.push_back(std::move(i));
  v.valid = !v.has_errors();
  if (v.valid)
    for (size_t h : members)
      v.ranks.push_back(host_name(ctx, h));
  return v;
}

// The ring over `members`: searched, or the given order checked (a plan fixes the ranks).
std::optional<std::vector<size_t>> find_member_ring(const TopologyContext& ctx,
                                                    const std::vector<size_t>& members,
                                                    bool rdma_only, bool fixed_order,
                                                    BackendVerdict& v) {
  if (!fixed_order) {
    auto ring = find_ring(ctx.fabric.adjacency(members, rdma_only), nullptr,
                          default_ring_order(members.size()));
    if (!ring) return std::nullopt;
    std::vector<size_t> hosts;
    for (size_t k : *ring)
      hosts.push_back(members[k]);
    return hosts;
  }
  // Hosts without Thunderbolt ports (a DGX Spark, a Linux server) form no Thunderbolt ring: as
  // with no plan, the ring runs over their network, and no cable is advised for them.
  if (std::none_of(members.begin(), members.end(),
                   [&](size_t h) { return takes_thunderbolt(ctx, h); }))
    return std::nullopt;
  PortAllocator ports(ctx.fabric, rdma_only);
  CheckIssue issue = make_issue(
      "plan-order-not-ring", Severity::kError, v.backend, {},
      fmt::format("the ranks in the plan's order ({}) do not form a ring over the {}cables:",
                  ring_text(ctx, members), rdma_only ? "RDMA " : "Thunderbolt "));
  size_t hops = members.size() <= 2 ? members.size() - 1 : members.size();
  bool missing = false;
  for (size_t k = 0; k < hops; ++k) {
    size_t a = members[k], b = members[(k + 1) % members.size()];
    if (ctx.fabric.count(a, b, rdma_only) > 0) continue;
    missing = true;
    issue.message += fmt::format(" {} - {} not cabled;", host_name(ctx, a), host_name(ctx, b));
    if (takes_thunderbolt(ctx, a) && takes_thunderbolt(ctx, b))
      issue.add_cables.push_back(new_cable(ctx.fabric, ports, a, b, rdma_only));
  }
  if (!missing) return members;
  issue.message.pop_back();
  issue.fix = "plan again with this backend so that the ranks follow the cables";
  if (!issue.add_cables.empty()) issue.fix += ", or " + cables_fix(issue.add_cables);
  v.issues.push_back(std::move(issue));
  return std::nullopt;
}

BackendVerdict check_ring(const TopologyContext& ctx, const std::vector<size_t>& members, bool rdma,
                          bool fixed_order) {
  BackendVerdict v;
  v.backend = name(rdma ? MlxBackend::kJacclRing : MlxBackend::kRing);
  v.transport = rdma ? "rdma" : "thunderbolt";
  size_t before = v.issues.size();
  auto ring = members.size() == 1 ? std::optional<std::vector<size_t>>(members)
                                  : find_member_ring(ctx, members, rdma, fixed_order, v);
  bool plan_rejected = v.issues.size() > before;
  if (ring) {
    std::vector<size_t> per_hop;
    v.cables_per_hop = ring_count(ctx.fabric, *ring, rdma, &per_hop);
    for (size_t h : *ring)
      v.ranks.push_back(host_name(ctx, h));
    if (!per_hop.empty() &&
        *std::max_element(per_hop.begin(), per_hop.end()) > static_cast<size_t>(v.cables_per_hop)) {
      v.issues.push_back(make_issue(
          "ring-uneven-cables", Severity::kWarning, v.backend, v.ranks,
          fmt::format("neighbours are joined by different numbers of cables; every hop uses "
                      "{}, the extra cables stay idle",
                      v.cables_per_hop),
          "give every pair of ring neighbours the same number of cables"));
    }
    if (rdma && v.cables_per_hop > kJacclRingMaxCables) {
      v.issues.push_back(make_issue(
          "jaccl-ring-max-cables", Severity::kWarning, v.backend, {},
          fmt::format("JACCL's ring uses at most {} cables per hop; {} of each hop's {} are used",
                      kJacclRingMaxCables, kJacclRingMaxCables, v.cables_per_hop)));
      v.cables_per_hop = kJacclRingMaxCables;
    }
  } else if (!rdma && shared_network(ctx.cluster, members, false) >= 0) {
    // No Thunderbolt ring, but one Ethernet network holds every host: a TCP ring over it.
    const Network& net =
        ctx.cluster.networks[static_cast<size_t>(shared_network(ctx.cluster, members, false))];
    v.transport = "network";
    for (size_t h : members)
      v.ranks.push_back(host_name(ctx, h));
    v.cables_per_hop = 1;
    if (!plan_rejected) {
      CheckIssue note = ring_missing(ctx, members, false, v.backend);
      note.severity = Severity::kNote;
      note.code = "ring-over-network";
      bool any_port = false;
      for (size_t h : members)
        any_port = any_port || !ctx.fabric.ports(h).empty();
      // Hosts without Thunderbolt ports (Linux servers) are not told about Thunderbolt rings.
      note.message = fmt::format("{}the ring runs over the {} network",
                                 any_port ? "no Thunderbolt ring: " : "", link_kind_name(net.kind));
      if (!any_port) note.fix.clear();
      if (note.add_cables.empty()) note.fix.clear();  // no cable would make one
      v.issues.push_back(std::move(note));
    } else {
      for (auto& i : v.issues)
        i.severity = Severity::kNote;
    }
    for (size_t h : members) {
      ManagementAddress m = management_address(ctx.cluster.hosts[h]);
      if (m.address.empty())
        v.issues.push_back(make_issue(
            "no-address", Severity::kWarning, v.backend, {host_name(ctx, h)},
            m.problem + "; the hostfile needs it",
            "run `meshplan discover`, or add en0 with its ipv4 to the host's interfaces"));
    }
  } else if (!plan_rejected) {
    v.issues.push_back(ring_missing(ctx, members, rdma, v.backend));
  }
  if (rdma) {
    for (auto& i : rdma_host_issues(ctx, members, v.backend))
      v.issues.push_back(std::move(i));
    if (!members.empty())
      for (auto& i : coordinator_issues(ctx, ring ? ring->front() : members.front(), v.backend))
        v.issues.push_back(std::move(i));
  }
  if (!ctx.subnet_error.empty() && v.transport != "network")
    v.issues.push_back(
        make_issue("subnets-exhausted", Severity::kError, v.backend, {}, ctx.subnet_error));
  v.valid = !v.has_errors();
  if (!v.valid) v.ranks.clear();
  return v;
}

BackendVerdict check_ethernet(const TopologyContext& ctx, const std::vector<size_t>& members) {
  BackendVerdict v;
  v.backend = name(MlxBackend::kEthernet);
  v.transport = "network";
  bool shared = shared_network(ctx.cluster, members, true) >= 0;
  std::vector<std::string> missing;
  for (size_t h : members)
    if (management_address(ctx.cluster.hosts[h]).address.empty())
      missing.push_back(host_name(ctx, h));
  if (!shared && !missing.empty()) {
    v.issues.push_back(make_issue(
        "no-network", Severity::kError, v.backend, missing,
        fmt::format("{} {} no known address and no network is recorded that holds every host",
                    join_names(missing), missing.size() == 1 ? "has" : "have"),
        "connect every host to one switch and record it (links: [{kind: 10gbe, hosts: all}]), or "
        "run `meshplan "
        "discover` to record each host's en0 address"));
  } else if (!missing.empty()) {
    v.issues.push_back(
        make_issue("no-address", Severity::kWarning, v.backend, missing,
                   fmt::format("no address is known for {}; the hostfile needs one per host",
                               join_names(missing)),
                   "run `meshplan discover`, or add en0 with its ipv4 to each host's interfaces"));
  } else if (!shared && members.size() > 1) {
    v.issues.push_back(make_issue(
        "network-assumed", Severity::kNote, v.backend, {},
        "no shared network is recorded; the hosts' addresses are assumed to reach each other"));
  }
  v.valid = !v.has_errors();
  if (v.valid)
    for (size_t h : members)
      v.ranks.push_back(host_name(ctx, h));
  return v;
}

// JACCL over hosts of which some run Linux: it runs on Macs only, so the verdict is that alone,
// without cabling advice (a Linux server takes no Thunderbolt cable for it); nullopt when every
// host may be a Mac.
std::optional<BackendVerdict> jaccl_on_linux(const TopologyContext& ctx,
                                             const std::vector<size_t>& members,
                                             std::string_view backend) {
  bool linux_host = false;
  for (size_t h : members)
    linux_host = linux_host || ctx.cluster.hosts[h].os.kind == "linux";
  if (!linux_host) return std::nullopt;
  BackendVerdict v;
  v.backend = std::string(backend);
  v.transport = "rdma";
  for (auto& i : rdma_host_issues(ctx, members, v.backend))
    if (i.code == "not-a-mac") v.issues.push_back(std::move(i));
  v.valid = false;
  return v;
}

}  // namespace

BackendVerdict check_backend(const TopologyContext& ctx, std::string_view backend,
                             const std::vector<size_t>& members, bool fixed_order) {
  const MlxBackend b = parse_mlx_backend(backend);
  if (is_jaccl(backend))
    if (auto v = jaccl_on_linux(ctx, members, backend)) return *v;
  switch (b) {
    case MlxBackend::kJaccl:
      return check_jaccl(ctx, members);
    case MlxBackend::kJacclRing:
      return check_ring(ctx, members, true, fixed_order);
    case MlxBackend::kRing:
      return check_ring(ctx, members, false, fixed_order);
    case MlxBackend::kEthernet:
      return check_ethernet(ctx, members);
    default:
      throw input_error("check_backend: {} is not one backend", backend);
  }
}

}  // namespace meshplan
