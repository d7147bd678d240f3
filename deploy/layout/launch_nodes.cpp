#include "deploy/layout/launch_nodes.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

#include "deploy/layout/emit_input.hpp"
#include "lib/cluster/host_reader.hpp"
#include "lib/core/error.hpp"
#include "lib/core/shell_quote.hpp"
#include "lib/plan/engines.hpp"
#include "lib/plan/strategy_kind.hpp"
#include "topologies/backend_rules.hpp"
#include "topologies/host_networks.hpp"

namespace meshplan {
namespace {

// RDMA devices of `host` on the RDMA cables to the other ranks; for hosts on a switch (Linux
// NICs), the interfaces that name an RDMA device.
std::vector<std::string> rdma_devices(const TopologyContext& ctx, size_t host,
                                      const std::vector<size_t>& ranks) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& d) {
    if (!d.empty() && std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  };
  for (size_t other : ranks)
    if (other != host)
      for (const FabricCable* c : ctx.fabric.between(host, other, true))
        add(c->end(host).rdma_device);
  if (out.empty())
    for (const NetInterface& i : ctx.cluster.hosts[host].interfaces)
      add(i.rdma_device);
  return out;
}

// A host that reaches the others over RDMA also lists the NIC nearest each of its GPUs (NCCL
// pairs each GPU with its nearest HCA by itself, but only among those listed): listing only the
// data interface's device would send all of an HGX node's GPUs through that one NIC. "NIC3" is
// what `nvidia-smi topo -m` shows without its legend, not a device name, so it is left out.
void add_gpu_nics(const Host& h, std::vector<std::string>& devices) {
  if (devices.empty()) return;
  for (const Gpu& g : h.gpus) {
    const bool placeholder = g.nic.size() > 3 && g.nic.compare(0, 3, "NIC") == 0 &&
                             std::all_of(g.nic.begin() + 3, g.nic.end(), [](char c) {
                               return std::isdigit(static_cast<unsigned char>(c));
                             });
    if (!g.nic.empty() && !placeholder &&
        std::find(devices.begin(), devices.end(), g.nic) == devices.end())
      devices.push_back(g.nic);
  }
}

// Values end up in comments and one-line commands: a line break would end either early.
const std::string& one_line(const std::string& value, std::string_view what, const Host& host) {
  for (char c : value)
    if (std::iscntrl(static_cast<unsigned char>(c)))
      throw input_error("host {}: {} \"{}\" contains a control character", host.name, what, value);
  return value;
}

// "a.b.c.d" as a number; nullopt when it is not a dotted quad.
std::optional<uint32_t> ipv4_value(std::string_view text) {
  uint32_t value = 0;
  int parts = 0;
  size_t start = 0;
  while (parts < 4) {
    size_t dot = text.find('.', start);
    std::string_view part =
        text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty() || part.size() > 3) return std::nullopt;
    int byte = 0;
    for (char c : part) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
      byte = byte * 10 + (c - '0');
    }
    if (byte > 255) return std::nullopt;
    value = value << 8 | static_cast<uint32_t>(byte);
    ++parts;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (parts != 4) return std::nullopt;
  return value;
}

// Whether `address` lies in `cidr` ("192.168.100.0/24").
bool in_subnet(const std::string& address, const std::string& cidr) {
  size_t slash = cidr.find('/');
  if (slash == std::string::npos) return false;
  auto net = ipv4_value(std::string_view(cidr).substr(0, slash));
  auto host = ipv4_value(address);
  int prefix = std::atoi(cidr.c_str() + slash + 1);
  if (!net || !host || prefix < 0 || prefix > 32) return false;
  uint32_t mask = prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
  return (*net & mask) == (*host & mask);
}

// Values printed outside any node: a line break in one would end a comment line early.
void plain(const std::string& value, std::string_view what) {
  for (char c : value)
    if (std::iscntrl(static_cast<unsigned char>(c)))
      throw input_error("{} \"{}\" contains a control character", what, value);
}

// The size links are compared at: one token's activations of a large model (hidden size 8192,
// 2 bytes), what the planner prices a hop with.
constexpr double kPricedMessageBytes = 16384;

// One host's end of a direct network cable: its interface, its address (the file's, else the /30
// `meshplan setup` gives it) and, on an RDMA cable, the interface's RDMA device.
struct CableEnd {
  std::string interface;
  std::string address;
  std::string rdma_device;
};

// Host a's end of the link the planner prices between hosts a and b over a network (the link
// graph's best), when that link is a direct cable whose end at a has an address to give.
std::optional<CableEnd> priced_cable_end(const TopologyContext& ctx, size_t a, size_t b) {
  const auto link = ctx.graph.best(a, b, Transport::kNetwork, kPricedMessageBytes);
  if (!link || link->cable < 0 || link->thunderbolt) return std::nullopt;
  const size_t index = static_cast<size_t>(link->cable);
  const Cable& cable = ctx.cluster.cables[index];
  const Host& host = ctx.cluster.hosts[a];
  const bool a_end = cable.a.host == host.name;
  CableEnd end;
  end.interface = (a_end ? cable.a : cable.b).interface;
  if (end.interface.empty()) return std::nullopt;
  if (const NetInterface* i = host.find_interface(end.interface)) {
    end.address = i->ipv4;
    if (cable.rdma) end.rdma_device = i->rdma_device;
  }
  for (const DirectCableAddresses& d : ctx.subnets.direct)
    if (end.address.empty() && d.cable == index) end.address = a_end ? d.a_address : d.b_address;
  if (end.address.empty()) return std::nullopt;
  return end;
}

// Per rank, its cable end when the planner prices every pair of ranks on a direct cable and each
// rank reaches all the others through one interface (two hosts on one cable): NCCL, Gloo and the
// engine's rendezvous then share that interface. Empty when any rank's data goes elsewhere.
std::vector<CableEnd> direct_cable_ends(const TopologyContext& ctx,
                                        const std::vector<size_t>& ranks) {
  std::vector<CableEnd> out;
  if (ranks.size() < 2) return out;
  for (size_t i : ranks) {
    std::optional<CableEnd> mine;
    for (size_t j : ranks) {
      if (i == j) continue;
      auto end = priced_cable_end(ctx, i, j);
      if (!end || (mine && mine->interface != end->interface)) return {};
      mine = end;
    }
    out.push_back(*mine);
  }
  return out;
}

}  // namespace

const Network* data_network(const Cluster& cluster, const std::vector<size_t>& ranks) {
  const Network* best = nullptr;
  for (const Network& net : cluster.networks) {
    if (net.kind == LinkKind::kWifi || net.subnet.empty()) continue;
    bool all = true;
    for (size_t r : ranks)
      all = all && net.contains(cluster.hosts[r].name);
    // LinkKind lists networks fastest first.
    if (all && (!best || net.kind < best->kind)) best = &net;
  }
  return best;
}

const std::string& LaunchLayout::reachable(size_t node, std::string_view why) const {
  const LaunchNode& n = nodes.at(node);
  if (n.address.empty())
    throw failure(
        "{}; {}. Run `meshplan discover`, or add en0 with its ipv4 to the host's interfaces in the "
        "cluster file",
        n.address_problem, why);
  return n.address;
}

const std::string& LaunchLayout::reachable_interface(size_t node, std::string_view why) const {
  reachable(node, why);
  return nodes.at(node).interface;
}

const LaunchLayout& EmitInput::layout() const& {
  if (!layout_slot->layout)
    layout_slot->layout = std::make_shared<const LaunchLayout>(build_launch_layout(*this));
  return *layout_slot->layout;
}

namespace {

// Ray and Ansible put the user into ssh command lines: a user name of the characters of a host
// name (the cluster file's rule), or nothing.
void require_user_name(const std::string& user) {
  if (!user.empty() && (!valid_host_name(user) || user.size() > 64))
    throw input_error(
        "--user \"{}\": expected a user name of letters, digits, '.', '_' or '-' (not starting "
        "with '-')",
        user);
}

}  // namespace

LaunchLayout build_launch_layout(const EmitInput& in) {
  const BackendVerdict& v = require_valid(in.report);
  plain(in.cluster.name, "the cluster name");
  plain(in.launch.program, "--program");
  plain(in.launch.model, "--model");
  require_user_name(in.launch.user);
  for (const std::string& e : in.envs)
    plain(e, "--env");
  LaunchLayout out;
  out.backend = v.backend;
  out.transport = v.transport;
  out.from_plan = in.plan.has_value();
  if (in.plan) {
    out.strategy = in.plan->strategy;
    if (!in.plan->transport.empty()) out.transport = in.plan->transport;
  }
  std::vector<size_t> ranks = in.topology.members(v.ranks);
  const Network* network = out.transport == "network" ? data_network(in.cluster, ranks) : nullptr;
  // Interfaces follow the plan: a direct cable the planner priced takes the place of the network.
  const std::vector<CableEnd> cable_ends =
      out.transport == "network" ? direct_cable_ends(in.topology, ranks) : std::vector<CableEnd>{};
  for (size_t i = 0; i < ranks.size(); ++i) {
    const Host& h = in.cluster.hosts[ranks[i]];
    LaunchNode n;
    n.rank = static_cast<int>(i);
    n.host = &h;
    n.ssh = h.ssh_target();
    size_t at = n.ssh.rfind('@');
    n.ssh_host = at == std::string::npos ? n.ssh : n.ssh.substr(at + 1);
    n.ssh_user = at == std::string::npos ? "" : n.ssh.substr(0, at);
    ManagementAddress m = management_address(h);
    n.address = m.address;
    n.interface = m.interface;
    n.address_problem = m.problem;
    n.data_interface = n.interface;
    n.data_address = n.address;
    if (network)
      for (const NetInterface& i : h.interfaces)
        if (!i.ipv4.empty() && in_subnet(i.ipv4, network->subnet)) {
          n.data_interface = i.name;
          n.data_address = i.ipv4;
          break;
        }
    n.mac = host_platform(h, in.topology.catalog) == Platform::kMac;
    n.rdma_devices = rdma_devices(in.topology, ranks[i], ranks);
    // On a switch, the RDMA device of the data interface when it has one.
    if (const NetInterface* d = h.find_interface(n.data_interface);
        network && d && !d->rdma_device.empty())
      n.rdma_devices = {d->rdma_device};
    if (!cable_ends.empty()) {
      const CableEnd& end = cable_ends[i];
      n.data_interface = end.interface;
      n.data_address = end.address;
      if (!end.rdma_device.empty()) n.rdma_devices = {end.rdma_device};
    }
    add_gpu_nics(h, n.rdma_devices);
    one_line(n.ssh, "ssh target", h);
    one_line(n.interface, "interface", h);
    one_line(n.data_interface, "interface", h);
    for (const std::string& d : n.rdma_devices)
      one_line(d, "RDMA device", h);
    if (in.plan) {
      for (const PlanRank& r : in.plan->ranks)
        if (r.host == h.name) {
          n.layers = r.layers;
          n.tp = r.tp;
          n.gpu_stages = r.gpu_stages;
          n.tp_group = r.tp_group;
        }
    }
    out.nodes.push_back(std::move(n));
  }
  return out;
}

std::string link_address(const EmitInput& in, const LaunchLayout& layout, size_t a, size_t b,
                         std::string_view why) {
  // On a network, a's end of the direct cable priced between the two, else a's address on the
  // ranks' data network (ib0 beside a 1 GbE management port).
  if (layout.transport == "network") {
    const TopologyContext& ctx = in.topology;
    const auto ha = static_cast<size_t>(ctx.cluster.host_index(layout.nodes[a].host->name));
    const auto hb = static_cast<size_t>(ctx.cluster.host_index(layout.nodes[b].host->name));
    if (auto end = priced_cable_end(ctx, ha, hb)) return end->address;
    if (!layout.nodes[a].data_address.empty()) return layout.nodes[a].data_address;
  }
  if (layout.transport == "thunderbolt") {
    const TopologyContext& ctx = in.topology;
    size_t ha = static_cast<size_t>(ctx.cluster.host_index(layout.nodes[a].host->name));
    size_t hb = static_cast<size_t>(ctx.cluster.host_index(layout.nodes[b].host->name));
    auto cables = ctx.fabric.between(ha, hb, false);
    if (!cables.empty())
      if (const CableAddresses* c = ctx.subnets.find(cables.front())) return c->address(ha);
  }
  return layout.reachable(a, why);
}

const std::string& rendezvous_address(const LaunchLayout& layout, size_t node,
                                      std::string_view why) {
  const LaunchNode& n = layout.nodes.at(node);
  return n.data_address.empty() ? layout.reachable(node, why) : n.data_address;
}

const std::string& served_address(const LaunchLayout& layout, size_t node, std::string_view why) {
  const LaunchNode& n = layout.nodes.at(node);
  return n.address.empty() ? rendezvous_address(layout, node, why) : n.address;
}

std::string direct_cable_subnet(const TopologyContext& topology, const std::string& address) {
  for (const DirectCableAddresses& d : topology.subnets.direct)
    if (d.a_address == address || d.b_address == address) return d.subnet;
  return "";
}

bool splits_by_layers(const LaunchLayout& layout) {
  if (!layout.from_plan || is_strategy(layout.strategy, StrategyKind::kTensor) ||
      is_strategy(layout.strategy, StrategyKind::kExpert))
    return false;
  int next = 0;
  for (const LaunchNode& n : layout.nodes) {
    if (!n.layers || n.layers->first != next) return false;
    next = n.layers->second;
  }
  return true;
}

std::vector<int> layer_counts(const LaunchLayout& layout, std::string_view format) {
  if (!splits_by_layers(layout))
    throw failure(
        "{} splits the model by layers, but this {} plan gives no consecutive layer "
        "range per rank; plan with --strategy pipeline",
        format, layout.strategy.empty() ? std::string("unnamed") : layout.strategy);
  std::vector<int> out;
  for (const LaunchNode& n : layout.nodes)
    out.push_back(n.layers->second - n.layers->first);
  return out;
}

// A hybrid plan's stages: each group of hosts once (its first host), and the single hosts; their
// layer ranges must follow one another.
std::vector<size_t> hybrid_stages(const LaunchLayout& layout, std::string_view format) {
  std::vector<size_t> out;
  int next = 0;
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    const LaunchNode& n = layout.nodes[i];
    if (i > 0 && !n.tp_group.empty() && n.tp_group == layout.nodes[i - 1].tp_group) {
      if (n.layers != layout.nodes[i - 1].layers)
        throw failure("{}: the hybrid plan gives {} other layers than the rest of its group",
                      format, n.host->name);
      continue;
    }
    if (!n.layers || n.layers->first != next)
      throw failure("{}: the hybrid plan's stages do not hold consecutive layers (at {})", format,
                    n.host->name);
    next = n.layers->second;
    out.push_back(i);
  }
  return out;
}

std::vector<int> stage_layer_counts(const LaunchLayout& layout, std::string_view format, int& tp) {
  const bool hybrid = is_strategy(layout.strategy, StrategyKind::kHybrid);
  std::vector<int> counts;
  std::vector<size_t> stages;
  if (hybrid) {
    stages = hybrid_stages(layout, format);
    counts.assign(layout.nodes.size(), 0);
    for (size_t i : stages)
      counts[i] = layout.nodes[i].layers->second - layout.nodes[i].layers->first;
  } else {
    counts = layer_counts(layout, format);
    for (size_t i = 0; i < layout.nodes.size(); ++i)
      stages.push_back(i);
  }
  std::vector<int> out;
  tp = 0;
  std::string first;
  for (size_t i : stages) {
    const LaunchNode& n = layout.nodes[i];
    const int node_tp = !n.tp_group.empty()    ? static_cast<int>(n.tp_group.size())
                        : n.gpu_stages.empty() ? n.processes()
                                               : n.tp;
    if (tp == 0) {
      tp = node_tp;
      first = n.host->name;
    } else if (node_tp != tp) {
      throw failure(
          "{} runs one tensor-parallel degree in every stage, but the plan splits layers over {} "
          "GPUs on {} and {} on {}; plan hosts of one kind together (--hosts)",
          format, tp, first, node_tp, n.host->name);
    }
    if (n.gpu_stages.empty()) {
      out.push_back(counts[i]);
      continue;
    }
    for (const auto& [a, b] : n.gpu_stages)
      out.push_back(b - a);
  }
  return out;
}

void require_plan(const EmitInput& in, std::string_view format, std::string_view why) {
  if (!in.plan)
    throw input_error(
        "{} needs --plan PLAN: {}; make one with `meshplan plan -c CLUSTER -m MODEL "
        "-o plan.json`",
        format, why);
}

const std::string& hostfile_word(const std::string& value, std::string_view what,
                                 std::string_view host) {
  bool ok = !value.empty() && value.front() != '-';
  for (char c : value)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) ||
                std::string_view("._-@").find(c) != std::string_view::npos);
  if (!ok)
    throw input_error(
        "host {}: {} \"{}\" cannot be written into a hostfile; expected letters, digits, '.', "
        "'_', '-' or '@' (not starting with '-')",
        host, what, value);
  return value;
}

int launch_port(const EmitInput& in, int engine_default) {
  return in.launch.port > 0 ? in.launch.port : engine_default;
}

std::string shell_command(const std::vector<std::pair<std::string, std::string>>& env,
                          const std::vector<std::string>& words) {
  std::string out;
  for (const auto& [key, value] : env) {
    out.append(key).append("=").append(shell_quote(value)).append(" ");
  }
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out.append(" ");
    out.append(shell_quote(words[i]));
  }
  return out;
}

}  // namespace meshplan
