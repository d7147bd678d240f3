#include "solvers/pipeline/range_dp.hpp"

#include <algorithm>
#include <optional>

#include "solvers/pipeline/sequence_arrivals.hpp"

namespace meshplan {
namespace {

// The program's table: per (hosts counted, position j in the sequence, layers placed e) the least
// time of a ring prefix ending with the stage of q[j] at e, and the host and layer it came from.
struct Table {
  Table(int C, int m, int L)
      : m(m),
        W(static_cast<size_t>(L) + 1),
        E(static_cast<size_t>(C) * static_cast<size_t>(m) * W, kInfinity),
        from_host(E.size(), -1),
        from_layer(E.size(), -1) {}
  size_t at(int c, int j) const {
    return (static_cast<size_t>(c) * static_cast<size_t>(m) + static_cast<size_t>(j)) * W;
  }
  int m;
  size_t W;
  std::vector<double> E;
  std::vector<int> from_host, from_layer;
};

// Scratch of one transition, per layer: the best arrival (and from which host) and the
// sliding-window minimum's keys and queue.
struct Window {
  explicit Window(size_t W) : G(W), key(W), Gi(W), dq(W) {}
  std::vector<double> G, key;
  std::vector<int> Gi, dq;
};

// Fills the table's row for count index tc at position j from the rows of count index pc: the
// best arrival at each layer from an earlier host, then the stage of q[j] from each arrival.
// `arrivals`: where a long sequence keeps the earlier rows' minima (sequence_arrivals.hpp).
void fill_row(const SearchSpace& sp, const std::vector<size_t>& q, bool skip, int j, int pc, int tc,
              Table& tab, Window& w, const SequenceArrivals* arrivals) {
  const int L = sp.num_layers();
  const size_t u = q[static_cast<size_t>(j)];
  std::vector<double>& G = w.G;
  std::vector<double>& key = w.key;
  std::vector<int>& Gi = w.Gi;
  std::vector<int>& dq = w.dq;
  std::fill(G.begin(), G.end(), kInfinity);
  int i0 = skip ? 0 : j - 1;
  if (arrivals) {
    arrivals->arrive(
        static_cast<size_t>(j), [&](size_t i) { return &tab.E[tab.at(pc, static_cast<int>(i))]; },
        G, Gi);
    i0 = j;  // read from the minima, not row by row
  }
  for (int i = i0; i < j; ++i) {
    double hv = sp.hop(q[static_cast<size_t>(i)], u);
    if (!(hv < kInfinity)) continue;
    const double* D = &tab.E[tab.at(pc, i)];
    for (int l = 1; l < L; ++l) {
      double v = D[l] + hv;
      if (v < G[static_cast<size_t>(l)]) {
        G[static_cast<size_t>(l)] = v;
        Gi[static_cast<size_t>(l)] = i;
      }
    }
  }
  double* T = &tab.E[tab.at(tc, j)];
  const size_t base = tab.at(tc, j);
  const auto& pin = sp.pin(u);
  if (pin) {
    int s = pin->first, e = pin->second;
    if (s >= 1 && G[static_cast<size_t>(s)] < kInfinity && sp.range_ok(u, s, e, false)) {
      double v = G[static_cast<size_t>(s)] + sp.stage(u, s, e);
      if (v < T[e]) {
        T[e] = v;
        tab.from_host[base + static_cast<size_t>(e)] = Gi[static_cast<size_t>(s)];
        tab.from_layer[base + static_cast<size_t>(e)] = s;
      }
    }
    return;
  }
  size_t qh = 0, qt = 0;
  const double o = sp.overhead(u);
  for (int e = 2; e <= L; ++e) {
    int l = e - 1;
    if (G[static_cast<size_t>(l)] < kInfinity) {
      double kv = G[static_cast<size_t>(l)] - sp.prefix(u, l);
      while (qt > qh && key[static_cast<size_t>(dq[qt - 1])] >= kv)
        --qt;
      key[static_cast<size_t>(l)] = kv;
      dq[qt++] = l;
    }
    int a = sp.lowest_start(u, e, false);
    while (qt > qh && dq[qh] < a)
      ++qh;
    if (qt == qh) continue;
    int best = dq[qh];
    double v = sp.prefix(u, e) + o + key[static_cast<size_t>(best)];
    if (v < T[e]) {
      T[e] = v;
      tab.from_host[base + static_cast<size_t>(e)] = Gi[static_cast<size_t>(best)];
      tab.from_layer[base + static_cast<size_t>(e)] = best;
    }
  }
}

// The ring the table's entry (c, j) at every layer came from, walked back to q[0].
PipelineAssignment trace_ring(const Table& tab, const std::vector<size_t>& q, int bc, int bj, int L,
                              bool track) {
  std::vector<size_t> order;
  std::vector<int> cuts{L};
  int c = bc, j = bj, e = L;
  while (j > 0) {
    size_t idx = tab.at(c, j) + static_cast<size_t>(e);
    order.push_back(q[static_cast<size_t>(j)]);
    int l = tab.from_layer[idx];
    j = tab.from_host[idx];
    e = l;
    cuts.push_back(l);
    if (track) --c;
  }
  order.push_back(q[0]);
  cuts.push_back(0);
  std::reverse(order.begin(), order.end());
  std::reverse(cuts.begin(), cuts.end());
  return PipelineAssignment{order, cuts};
}

}  // namespace

SearchResult best_on_sequence(const SearchSpace& sp, const std::vector<size_t>& q, bool skip) {
  SearchResult res;
  res.method = skip ? "layer ranges and host selection on a fixed ring order"
                    : "layer ranges on a fixed ring order";
  const int m = static_cast<int>(q.size());
  const int L = sp.num_layers();
  if (m == 0 || !sp.can_head(q[0])) return res;
  if (!skip && (m < sp.min_hosts() || m > sp.max_hosts())) return res;
  // Count hosts only when a limit can bind.
  const bool track = skip && (sp.min_hosts() > 1 || sp.max_hosts() < m);
  const int C = track ? std::min(m, sp.max_hosts()) : 1;
  Table tab(C, m, L);
  Window window(tab.W);
  std::optional<SequenceArrivals> arrivals;
  if (skip && !track) arrivals = SequenceArrivals::of(sp, q);

  const size_t h0 = q[0];
  for (int e = 1; e <= L; ++e)
    if (sp.range_ok(h0, 0, e, true))
      tab.E[tab.at(0, 0) + static_cast<size_t>(e)] = sp.stage(h0, 0, e) + sp.head_time(h0);
  if (arrivals) arrivals->add(0, &tab.E[tab.at(0, 0)]);

  for (int j = 1; j < m; ++j) {
    for (int c = 1; c < C || (!track && c == 1); ++c) {
      // Target layer (count index) c when tracking, else 0.
      const int tc = track ? c : 0;
      const int pc = track ? c - 1 : 0;
      if (track && c > j) break;
      fill_row(sp, q, skip, j, pc, tc, tab, window, arrivals ? &*arrivals : nullptr);
      if (arrivals) arrivals->add(static_cast<size_t>(j), &tab.E[tab.at(0, j)]);
      if (!track) break;
    }
  }

  // Best completed ring.
  double best = kInfinity;
  int bc = -1, bj = -1;
  for (int c = 0; c < C; ++c) {
    for (int j = 0; j < m; ++j) {
      if (!skip && j != m - 1) continue;
      int count = track ? c + 1 : (skip ? -1 : m);
      if (track && (count < sp.min_hosts() || count > sp.max_hosts())) continue;
      if (!track && skip && j == 0 && sp.min_hosts() > 1) continue;
      double v = tab.E[tab.at(c, j) + static_cast<size_t>(L)];
      if (!(v < kInfinity)) continue;
      if (j > 0) v += sp.hop(q[static_cast<size_t>(j)], h0);
      if (v < best) {
        best = v;
        bc = c;
        bj = j;
      }
    }
  }
  ++res.states;
  if (bj < 0) return res;
  res.feasible = true;
  res.assignment = trace_ring(tab, q, bc, bj, L, track);
  res.latency_s = best;
  return res;
}

}  // namespace meshplan
