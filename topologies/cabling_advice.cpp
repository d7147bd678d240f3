#include "topologies/cabling_advice.hpp"

#include <algorithm>
#include <cstdint>
#include <set>

namespace meshplan {
namespace {

using Matrix = std::vector<std::vector<char>>;

// Minimum-cost Hamiltonian cycle over subsets. State: (first edge new?, visited set, last host,
// edge into it new?) so that a host with one free port never gets two new cables.
RingAdvice exact(const Matrix& has, const std::vector<int>& cap) {
  const int m = static_cast<int>(has.size());
  const uint32_t full = (1u << m) - 1;
  constexpr uint8_t kInf = 255;
  auto idx = [m](int s, uint32_t mask, int v, int b) {
    return ((((static_cast<size_t>(s) << m) | mask) * static_cast<size_t>(m) +
             static_cast<size_t>(v))
            << 1) |
           static_cast<size_t>(b);
  };
  const size_t states = idx(1, full, m - 1, 1) + 1;
  std::vector<uint8_t> dp(states, kInf), prev_b(states, 0);
  std::vector<int8_t> prev_v(states, -1);
  for (int u = 1; u < m; ++u) {
    int fresh = !has[0][u];
    if (fresh && (cap[0] < 1 || cap[u] < 1)) continue;
    size_t k = idx(fresh, 1u | (1u << u), u, fresh);
    dp[k] = static_cast<uint8_t>(fresh);
    prev_v[k] = 0;
  }
  for (uint32_t mask = 1; mask <= full; mask += 2) {
    for (int s = 0; s < 2; ++s) {
      for (int v = 1; v < m; ++v) {
        if (!(mask & (1u << v))) continue;
        for (int b = 0; b < 2; ++b) {
          uint8_t cur = dp[idx(s, mask, v, b)];
          if (cur == kInf) continue;
          for (int u = 1; u < m; ++u) {
            if (mask & (1u << u)) continue;
            int fresh = !has[v][u];
            if (fresh && (cap[u] < 1 || cap[v] < 1 + b)) continue;
            size_t k = idx(s, mask | (1u << u), u, fresh);
            if (cur + fresh < dp[k]) {
              dp[k] = static_cast<uint8_t>(cur + fresh);
              prev_v[k] = static_cast<int8_t>(v);
              prev_b[k] = static_cast<uint8_t>(b);
            }
          }
        }
      }
    }
  }
  int best = kInf, bs = 0, bv = 0, bb = 0;
  for (int s = 0; s < 2; ++s)
    for (int v = 1; v < m; ++v)
      for (int b = 0; b < 2; ++b) {
        uint8_t cur = dp[idx(s, full, v, b)];
        if (cur == kInf) continue;
        int fresh = !has[v][0];
        if (fresh && (cap[v] < 1 + b || cap[0] < 1 + s)) continue;
        if (cur + fresh < best) {
          best = cur + fresh;
          bs = s, bv = v, bb = b;
        }
      }
  RingAdvice out;
  out.exact = true;
  if (best == kInf) return out;
  out.possible = true;
  uint32_t mask = full;
  int v = bv, b = bb;
  while (v != 0) {
    out.order.push_back(static_cast<size_t>(v));
    size_t k = idx(bs, mask, v, b);
    int pv = prev_v[k];
    b = prev_b[k];
    mask &= ~(1u << v);
    v = pv;
  }
  out.order.push_back(0);
  std::reverse(out.order.begin(), out.order.end());
  return out;
}

// Depth-first walk preferring cabled neighbours with the fewest onward options, bridging dead
// ends with new cables where ports allow. An upper bound, not a proof. Over adjacency lists with
// the onward counts kept up to date, so that it is O((hosts + cables) log hosts).
RingAdvice greedy(const Adjacency& adj, const std::vector<int>& cap) {
  const size_t m = adj.size();
  std::vector<char> seen(m, 0);
  std::vector<int> used(m, 0);
  std::vector<size_t> onward(m);  // unseen cabled neighbours
  for (size_t u = 0; u < m; ++u)
    onward[u] = adj[u].size();
  // Unseen hosts with a free port for a new cable, by onward count.
  std::set<std::pair<size_t, size_t>> open;
  for (size_t u = 0; u < m; ++u)
    if (cap[u] > 0) open.insert({onward[u], u});
  auto visit = [&](size_t u) {
    seen[u] = 1;
    open.erase({onward[u], u});
    for (size_t w : adj[u]) {
      if (seen[w]) continue;
      bool listed = open.erase({onward[w], w}) > 0;
      --onward[w];
      if (listed) open.insert({onward[w], w});
    }
  };
  auto cabled = [&](size_t a, size_t b) {
    return std::binary_search(adj[a].begin(), adj[a].end(), b);
  };
  RingAdvice out;
  out.order.push_back(0);
  visit(0);
  while (out.order.size() < m) {
    size_t cur = out.order.back(), pick = m;
    for (size_t u : adj[cur])
      if (!seen[u] && (pick == m || onward[u] < onward[pick])) pick = u;
    if (pick == m) {
      if (used[cur] >= cap[cur] || open.empty()) return out;
      pick = open.begin()->second;
      ++used[cur];
      ++used[pick];
      for (size_t h : {cur, pick})
        if (used[h] >= cap[h] && !seen[h]) open.erase({onward[h], h});
    }
    visit(pick);
    out.order.push_back(pick);
  }
  size_t last = out.order.back();
  if (!cabled(last, 0) && (used[last] >= cap[last] || used[0] >= cap[0])) return out;
  out.possible = true;
  return out;
}

}  // namespace

PortAllocator::PortAllocator(const TbFabric& fabric, bool tb5_only)
    : fabric_(fabric), free_(fabric.size()), next_(fabric.size(), 0) {
  for (size_t h = 0; h < fabric.size(); ++h)
    free_[h] = fabric.free_ports(h, tb5_only);
}

CablePlug PortAllocator::take(size_t host) {
  CablePlug p;
  p.host = fabric_.cluster().hosts[host].name;
  if (next_[host] < free_[host].size()) {
    const FabricPort* port = free_[host][next_[host]++];
    p.port = port->id;
    p.interface = port->interface;
  }
  return p;
}

size_t PortAllocator::remaining(size_t host) const {
  return free_[host].size() - next_[host];
}

CableToAdd new_cable(const TbFabric&, PortAllocator& ports, size_t a, size_t b, bool tb5) {
  CableToAdd c;
  c.a = ports.take(a);
  c.b = ports.take(b);
  c.kind = tb5 ? name(LinkKind::kTb5) : "thunderbolt";
  return c;
}

RingAdvice fewest_cables_for_ring(const TbFabric& fabric, const std::vector<size_t>& members,
                                  bool rdma_only) {
  const size_t m = members.size();
  const Adjacency adj = fabric.adjacency(members, rdma_only);
  auto cabled = [&](size_t a, size_t b) {
    return std::binary_search(adj[a].begin(), adj[a].end(), b);
  };
  std::vector<int> cap(m);
  for (size_t i = 0; i < m; ++i)
    cap[i] = static_cast<int>(std::min<size_t>(2, fabric.free_ports(members[i], rdma_only).size()));
  Matrix has;  // dense, for the exact search on a few hosts only
  if (m <= kExactRingAdviceHosts) {
    has.assign(m, std::vector<char>(m, 0));
    for (size_t i = 0; i < m; ++i)
      for (size_t j : adj[i])
        has[i][j] = 1;
  }
  RingAdvice local;
  if (m <= 1) {
    local.possible = local.exact = true;
    if (m == 1) local.order = {0};
  } else if (m == 2) {
    local.exact = true;
    local.possible = cabled(0, 1) || (cap[0] >= 1 && cap[1] >= 1);
    local.order = {0, 1};
  } else if (m <= kExactRingAdviceHosts) {
    local = exact(has, cap);
  } else {
    local = greedy(adj, cap);
  }
  RingAdvice out = local;
  out.order.clear();
  for (size_t k : local.order)
    out.order.push_back(members[k]);
  if (!out.possible) return out;
  for (size_t k = 0; k < local.order.size(); ++k) {
    size_t a = local.order[k], b = local.order[(k + 1) % local.order.size()];
    if (m == 2 && k == 1) break;  // two hosts: one cable is the ring
    if (!cabled(a, b)) out.new_pairs.emplace_back(members[std::min(a, b)], members[std::max(a, b)]);
  }
  return out;
}

}  // namespace meshplan
