#include "solvers/problem/allreduce_paths.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "lib/cluster/mlx_backend.hpp"
#include "lib/core/error.hpp"

namespace meshplan {
namespace {

constexpr float kNoPath = std::numeric_limits<float>::infinity();
constexpr long kSearchSteps = 200000;

// Depth-first search for a Hamiltonian cycle through `group` using edges with cost <= limit.
struct CycleSearch {
  const std::vector<std::vector<double>>& cost;  // group-local
  double limit;
  std::vector<size_t> path;
  std::vector<bool> used;
  long steps = 0;

  bool extend() {
    const size_t n = cost.size();
    if (path.size() == n) return n < 3 || cost[path.back()][path.front()] <= limit;
    if (++steps > kSearchSteps) return false;
    size_t at = path.back();
    // Fewest onward edges first (Warnsdorff's rule).
    std::vector<std::pair<int, size_t>> next;
    for (size_t v = 0; v < n; ++v) {
      if (used[v] || cost[at][v] > limit) continue;
      int degree = 0;
      for (size_t w = 0; w < n; ++w)
        degree += !used[w] && w != v && cost[v][w] <= limit;
      next.push_back({degree, v});
    }
    std::sort(next.begin(), next.end());
    for (auto [degree, v] : next) {
      used[v] = true;
      path.push_back(v);
      if (extend()) return true;
      path.pop_back();
      used[v] = false;
    }
    return false;
  }
};

}  // namespace

const char* collective_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kSingle:
      return "single host";
    case CollectiveKind::kJacclMesh:
      return "JACCL mesh";
    case CollectiveKind::kJacclRing:
      return "JACCL ring";
    case CollectiveKind::kTcpRing:
      return "TCP ring";
  }
  return "single host";
}

double CollectivePath::allreduce_s(double bytes) const {
  const double p = static_cast<double>(ranks());
  if (ranks() < 2 || !worst) return 0;
  if (kind == CollectiveKind::kJacclMesh)
    return mesh_exchange_latency_s() + 2 * bytes * (p - 1) / (p * worst->bandwidth);
  return 2 * (p - 1) * (worst->latency_s + peer_s / p + bytes / (p * worst->bandwidth));
}

double CollectivePath::mesh_exchange_latency_s() const {
  if (ranks() < 2 || !worst) return 0;
  return worst->latency_s + static_cast<double>(ranks() - 1) * peer_s;
}

double CollectivePath::expert_exchange_s(double bytes) const {
  if (ranks() < 2 || !worst) return 0;
  if (kind == CollectiveKind::kJacclMesh)
    return 2 * (mesh_exchange_latency_s() + bytes / worst->bandwidth);
  return allreduce_s(bytes);
}

CollectivePaths::CollectivePaths(const PlanInputs& inputs, std::string_view backend)
    : in_(&inputs) {
  switch (parse_mlx_backend(backend)) {
    case MlxBackend::kAuto:
      mesh_ = rdma_ring_ = tcp_ring_ = true;
      break;
    case MlxBackend::kJaccl:
      mesh_ = true;
      break;
    case MlxBackend::kJacclRing:
      rdma_ring_ = true;
      break;
    case MlxBackend::kRing:
      tcp_ring_ = true;
      tcp_transport_ = Transport::kThunderbolt;
      break;
    case MlxBackend::kEthernet:
      tcp_ring_ = true;
      tcp_transport_ = Transport::kNetwork;
      break;
    default:
      throw input_error("--backend {}: not a backend to plan for", backend);
  }
  if (in_->size() <= kExactPathHosts) {
    if (rdma_ring_) build(rdma_table_, in_->rdma);
    if (tcp_ring_) build(tcp_table_, in_->links(tcp_transport_));
    return;
  }
  // A host without any link is on no ring: a fleet without RDMA cables asks this of every group.
  auto any_link = [](const LinkMatrix& links) {
    std::vector<bool> out;
    for (const auto& from : links.distinct_links(false))
      out.push_back(
          std::any_of(from.begin(), from.end(), [](const auto& l) { return l.has_value(); }));
    return out;
  };
  if (rdma_ring_) rdma_linked_ = any_link(in_->rdma);
  if (tcp_ring_) tcp_linked_ = any_link(in_->links(tcp_transport_));
}

double CollectivePaths::cost(const LinkMatrix& links, size_t a, size_t b) const {
  const auto& l = links[a][b];
  return l ? l->hop_time(in_->message_bytes) : kNoPath;
}

void CollectivePaths::build(RingTable& t, const LinkMatrix& links) const {
  const size_t n = in_->size();
  // Each hop's cost read once: the table visits every pair 2^n times.
  std::vector<double> hop(n * n, kNoPath);
  for (size_t v = 0; v < n; ++v)
    for (size_t u = 0; u < n; ++u)
      if (u != v) hop[v * n + u] = cost(links, v, u);
  t = bottleneck_ring_table(hop, n);
}

std::optional<std::vector<size_t>> CollectivePaths::ring_order(const std::vector<size_t>& group,
                                                               const LinkMatrix& links,
                                                               const RingTable& t) const {
  const size_t p = group.size();
  if (p == 2) {
    if (!links[group[0]][group[1]]) return std::nullopt;
    return group;
  }
  if (t.built) return ring_through(t, group);
  // Beyond the exact table: the smallest worst link for which a bounded search finds a cycle.
  std::vector<std::vector<double>> local(p, std::vector<double>(p, kNoPath));
  std::vector<double> levels;
  bool uniform = true;  // every pair linked, all at one cost (hosts on one switch)
  for (size_t a = 0; a < p; ++a)
    for (size_t b = 0; b < p; ++b)
      if (a != b) {
        local[a][b] = cost(links, group[a], group[b]);
        uniform = uniform && local[a][b] != kNoPath && local[a][b] == local[0][1];
        if (local[a][b] != kNoPath) levels.push_back(local[a][b]);
      }
  // One level, every pair within it: the group's own order, as below.
  if (uniform && p >= 3) return group;
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  for (double limit : levels) {
    // Every pair within the limit (hosts on one switch): the search would take the group's own
    // order (Warnsdorff's rule ties go to the lowest index), in p^3 steps; take it in p^2.
    bool complete = true;
    for (size_t a = 0; a < p && complete; ++a)
      for (size_t b = 0; b < p && complete; ++b)
        complete = a == b || local[a][b] <= limit;
    if (complete) return group;
    CycleSearch search{local, limit, {0}, std::vector<bool>(p, false)};
    search.used[0] = true;
    if (search.extend()) {
      std::vector<size_t> order;
      for (size_t i : search.path)
        order.push_back(group[i]);
      return order;
    }
  }
  return std::nullopt;
}

std::optional<CollectivePath> CollectivePaths::mesh(const std::vector<size_t>& group) const {
  if (group.size() > kJacclMaxRanks) return std::nullopt;
  CollectivePath path;
  path.kind = CollectiveKind::kJacclMesh;
  path.backend = name(MlxBackend::kJaccl);
  path.peer_s = in_->mesh_peer_s;
  path.order = group;
  for (size_t a = 0; a < group.size(); ++a) {
    for (size_t b = a + 1; b < group.size(); ++b) {
      const auto& l = in_->rdma[group[a]][group[b]];
      if (!l) return std::nullopt;
      if (!path.worst ||
          l->hop_time(in_->message_bytes) > path.worst->hop_time(in_->message_bytes)) {
        path.worst = l;
      }
    }
  }
  for (size_t r = 0; r < group.size(); ++r)
    path.next.push_back(in_->rdma[group[r]][group[(r + 1) % group.size()]]);
  return path;
}

std::optional<CollectivePath> CollectivePaths::ring(const std::vector<size_t>& group,
                                                    CollectiveKind kind) const {
  const bool rdma = kind == CollectiveKind::kJacclRing;
  const LinkMatrix& links = rdma ? in_->rdma : in_->links(tcp_transport_);
  const std::vector<bool>& linked = rdma ? rdma_linked_ : tcp_linked_;
  if (!linked.empty() &&
      std::any_of(group.begin(), group.end(), [&](size_t g) { return !linked[g]; }))
    return std::nullopt;
  auto order = ring_order(group, links, rdma ? rdma_table_ : tcp_table_);
  if (!order) return std::nullopt;
  CollectivePath path;
  path.kind = kind;
  path.order = *order;
  // JACCL's ring pays what its mesh pays a peer, for the part of the message each step sends.
  if (rdma) path.peer_s = in_->mesh_peer_s;
  bool network = false;
  const std::optional<LinkFigures>* worst = nullptr;  // copied once, at the end
  double worst_s = 0;
  path.next.reserve(path.order.size());
  for (size_t r = 0; r < path.order.size(); ++r) {
    const auto& l = links[path.order[r]][path.order[(r + 1) % path.order.size()]];
    if (!l) throw internal_error("ring through a missing link");
    path.next.push_back(l);
    network = network || l->network >= 0;
    const double s = l->hop_time(in_->message_bytes);
    if (!worst || s > worst_s) {
      worst = &l;
      worst_s = s;
    }
  }
  if (worst) path.worst = *worst;
  path.backend = name(rdma      ? MlxBackend::kJacclRing
                      : network ? MlxBackend::kEthernet
                                : MlxBackend::kRing);
  return path;
}

std::vector<CollectivePath> CollectivePaths::options(const std::vector<size_t>& group) const {
  std::vector<CollectivePath> out;
  if (group.size() == 1) {
    CollectivePath single;
    single.order = group;
    single.next.push_back(std::nullopt);
    out.push_back(single);
    return out;
  }
  if (mesh_) {
    if (auto p = mesh(group)) out.push_back(std::move(*p));
  }
  if (rdma_ring_) {
    if (auto p = ring(group, CollectiveKind::kJacclRing)) out.push_back(std::move(*p));
  }
  if (tcp_ring_) {
    if (auto p = ring(group, CollectiveKind::kTcpRing)) out.push_back(std::move(*p));
  }
  return out;
}

std::string CollectivePaths::why_none(const std::vector<size_t>& group) const {
  std::vector<std::string> parts;
  auto names = [&] {
    std::string s;
    for (size_t g : group)
      s += (s.empty() ? "" : ", ") + in_->hosts[g].name;
    return s;
  };
  if (mesh_) {
    if (group.size() > kJacclMaxRanks) {
      parts.push_back(fmt::format("a JACCL mesh has at most {} ranks", kJacclMaxRanks));
    } else {
      for (size_t a = 0; a < group.size() && parts.empty(); ++a)
        for (size_t b = a + 1; b < group.size(); ++b)
          if (!in_->rdma[group[a]][group[b]]) {
            parts.push_back(fmt::format("{} and {} have no RDMA cable for a JACCL mesh",
                                        in_->hosts[group[a]].name, in_->hosts[group[b]].name));
            break;
          }
    }
  }
  if (rdma_ring_) parts.push_back("no cycle of RDMA cables passes through every host");
  if (tcp_ring_) {
    parts.push_back(tcp_transport_ == Transport::kNetwork
                        ? "no shared network joins every host in a ring"
                        : "no cycle of Thunderbolt or network links passes through every host");
  }
  std::string why;
  for (const auto& p : parts)
    why += (why.empty() ? "" : "; ") + p;
  return fmt::format("no all-reduce path for {}: {}", names(), why);
}

}  // namespace meshplan
