#include "topologies/mlx_hostfile_builder.hpp"

#include "lib/cluster/mlx_backend.hpp"
#include "lib/core/error.hpp"
#include "topologies/host_networks.hpp"

namespace meshplan {
namespace {

std::vector<size_t> rank_hosts(const TopologyContext& ctx, const BackendVerdict& v) {
  std::vector<size_t> out;
  for (const auto& name : v.ranks) {
    int i = ctx.cluster.host_index(name);
    if (i < 0) throw internal_error("rank host {} is not in the cluster", name);
    out.push_back(static_cast<size_t>(i));
  }
  return out;
}

std::string management_ip(const TopologyContext& ctx, size_t h, bool required,
                          const std::string& why) {
  ManagementAddress m = management_address(ctx.cluster.hosts[h]);
  if (m.address.empty() && required) {
    throw failure(
        "{}; {}. Run `meshplan discover`, or add en0 with its ipv4 to the host's interfaces in the "
        "cluster "
        "file",
        m.problem, why);
  }
  return m.address;
}

std::string device(const TopologyContext& ctx, const FabricCable& c, size_t host) {
  const FabricEnd& e = c.end(host);
  if (e.rdma_device.empty()) {
    throw input_error(
        "the interface of {} is not known, so its RDMA device cannot be named; run `meshplan "
        "discover` "
        "or add `interface` to the port",
        end_text(ctx.cluster, e));
  }
  return e.rdma_device;
}

// The first `count` cables between a and b (RDMA-capable ones when rdma), in MLX order.
std::vector<const FabricCable*> first_cables(const TopologyContext& ctx, size_t a, size_t b,
                                             bool rdma, int count) {
  std::vector<const FabricCable*> all = ctx.fabric.between(a, b, rdma);
  if (static_cast<int>(all.size()) < count)
    throw internal_error("fewer cables than the ring count");
  all.resize(static_cast<size_t>(count));
  return all;
}

}  // namespace

MlxHostfile build_mlx_hostfile(const TopologyContext& ctx, const BackendVerdict& v,
                               const std::vector<std::string>& envs) {
  if (!v.valid) throw internal_error("hostfile for a backend that is not valid");
  std::vector<size_t> ranks = rank_hosts(ctx, v);
  const size_t n = ranks.size();
  MlxHostfile f;
  f.backend = is_backend(v.backend, MlxBackend::kEthernet) ? "" : v.backend;
  f.envs = envs;
  for (size_t i = 0; i < n; ++i) {
    MlxHost h;
    h.ssh = ctx.cluster.hosts[ranks[i]].ssh_target();
    f.hosts.push_back(std::move(h));
  }
  if (is_jaccl(v.backend)) {
    for (size_t i = 0; i < n; ++i) {
      std::string ip =
          management_ip(ctx, ranks[i], i == 0,
                        "JACCL's coordinator (rank 0) needs an address every rank reaches");
      if (!ip.empty()) f.hosts[i].ips.push_back(ip);
      f.hosts[i].rdma.assign(n, RdmaCell::none());
    }
    for (size_t i = 0; i < n; ++i) {
      if (is_backend(v.backend, MlxBackend::kJaccl)) {
        for (size_t j = 0; j < n; ++j)
          if (i != j)
            f.hosts[i].rdma[j] = RdmaCell::one(
                device(ctx, *ctx.fabric.between(ranks[i], ranks[j], true).front(), ranks[i]));
        continue;
      }
      if (n < 2) continue;
      for (size_t j : {(i + n - 1) % n, (i + 1) % n}) {
        std::vector<std::string> names;
        for (const FabricCable* c : first_cables(ctx, ranks[i], ranks[j], true, v.cables_per_hop))
          names.push_back(device(ctx, *c, ranks[i]));
        f.hosts[i].rdma[j] =
            names.size() == 1 ? RdmaCell::one(names.front()) : RdmaCell::many(names);
      }
    }
    return f;
  }
  bool over_network = v.transport == "network";
  for (size_t i = 0; i < n; ++i) {
    if (over_network || n == 1) {
      std::string ip =
          management_ip(ctx, ranks[i], n > 1, "the hostfile lists one address per host");
      if (!ip.empty()) f.hosts[i].ips.push_back(ip);
      continue;
    }
    size_t left = ranks[(i + n - 1) % n];
    for (const FabricCable* c : first_cables(ctx, ranks[i], left, false, v.cables_per_hop)) {
      const CableAddresses* a = ctx.subnets.find(c);
      if (!a)
        throw failure("no address could be planned for the Thunderbolt cables: {}",
                      ctx.subnet_error);
      f.hosts[i].ips.push_back(a->address(ranks[i]));
    }
  }
  return f;
}

}  // namespace meshplan
