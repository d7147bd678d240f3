#include "solvers/pipeline/exact_pipeline.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace meshplan {
namespace {

// Pruning compares a state's value plus a lower bound of its future with the incumbent; the
// bound is shrunk by this factor so that rounding can never prune a strictly better plan.
constexpr double kBoundSlack = 1 - 1e-9;
// Row offsets may be negative (offset of layer 0 of a row that starts later); this marks none.
constexpr int64_t kDead = INT64_MIN;

class SubsetDp {
 public:
  SubsetDp(const SearchSpace& sp, const HostClasses& cls, double incumbent)
      : sp_(sp),
        cls_(cls),
        K_(static_cast<int>(cls.size())),
        L_(sp.num_layers()),
        incumbent_(incumbent) {
    stride_.resize(static_cast<size_t>(K_));
    size_.resize(static_cast<size_t>(K_));
    N_ = 1;
    for (int k = 0; k < K_; ++k) {
      stride_[static_cast<size_t>(k)] = N_;
      size_[static_cast<size_t>(k)] = static_cast<int>(cls.members[static_cast<size_t>(k)].size());
      N_ *= static_cast<size_t>(size_[static_cast<size_t>(k)] + 1);
    }
    by_capacity_.resize(static_cast<size_t>(K_));
    std::iota(by_capacity_.begin(), by_capacity_.end(), 0);
    std::stable_sort(by_capacity_.begin(), by_capacity_.end(),
                     [&](int a, int b) { return capacity(a) > capacity(b); });
    const size_t Lp = static_cast<size_t>(L_) + 1;
    G_.resize(Lp);
    key_.resize(Lp);
    val_.resize(Lp);
    dq_.resize(Lp);
    counts_.resize(static_cast<size_t>(K_));
    pcounts_.resize(static_cast<size_t>(K_));
  }

  SearchResult run() {
    result_.exact = true;
    result_.method = "exact dynamic program over host subsets, ring orders and layer ranges";
    // Heads in order of speed, so that a good incumbent appears early.
    std::vector<int> heads(static_cast<size_t>(K_));
    std::iota(heads.begin(), heads.end(), 0);
    std::stable_sort(heads.begin(), heads.end(), [&](int a, int b) {
      return sp_.prefix(member(a, 0), L_) < sp_.prefix(member(b, 0), L_);
    });
    row_off_.assign(N_ * static_cast<size_t>(K_), kDead);
    row_lo_.assign(N_ * static_cast<size_t>(K_), 0);
    row_hi_.assign(N_ * static_cast<size_t>(K_), -1);
    for (int h : heads) {
      if (!sp_.can_head(member(h, 0))) continue;
      run_head(h);
    }
    return result_;
  }

 private:
  size_t member(int k, int i) const {
    return cls_.members[static_cast<size_t>(k)][static_cast<size_t>(i)];
  }
  double capacity(int k) const { return sp_.cost().host(member(k, 0)).usable_bytes; }

  void decode(size_t idx, std::vector<int>& c) const {
    for (int k = 0; k < K_; ++k)
      c[static_cast<size_t>(k)] =
          static_cast<int>((idx / stride_[static_cast<size_t>(k)]) %
                           static_cast<size_t>(size_[static_cast<size_t>(k)] + 1));
  }

  // Smallest l < L whose remaining layers [l, L) the hosts outside S (at most `slots` of them)
  // could hold; L when none.
  int lowest_open_end(const std::vector<int>& c, int slots) const {
    double cap = 0;
    for (int k : by_capacity_) {
      int free = std::min(size_[static_cast<size_t>(k)] - c[static_cast<size_t>(k)], slots);
      if (free <= 0) continue;
      cap += free * capacity(k);
      slots -= free;
      if (slots == 0) break;
    }
    // rest_memory is non-increasing in l.
    int lo = 0, hi = L_;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (sp_.rest_memory(mid) <= cap)
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  }

  void run_head(int h) {
    std::fill(row_off_.begin(), row_off_.end(), kDead);
    arena_.clear();
    head_ = member(h, 0);
    for (size_t idx = 0; idx < N_; ++idx) {
      decode(idx, counts_);
      if (counts_[static_cast<size_t>(h)] == 0) continue;
      int m = std::accumulate(counts_.begin(), counts_.end(), 0);
      if (m > sp_.max_hosts()) continue;
      open_end_ = lowest_open_end(counts_, sp_.max_hosts() - m);
      if (m == 1) {
        head_row(idx, h);
        continue;
      }
      for (int k = 0; k < K_; ++k) {
        int ck = counts_[static_cast<size_t>(k)];
        if (ck == 0 || (k == h && ck == 1)) continue;
        extend(idx, k, m, h);
      }
    }
  }

  void head_row(size_t idx, int h) {
    const size_t u = head_;
    for (int e = 0; e <= L_; ++e)
      val_[static_cast<size_t>(e)] = kInfinity;
    for (int e = 1; e <= L_; ++e) {
      if (sp_.range_ok(u, 0, e, true))
        val_[static_cast<size_t>(e)] = sp_.stage(u, 0, e) + sp_.head_time(u);
    }
    store(idx, h, u, 1, 1, L_);
  }

  // D(S, u, .) from the rows of S \ u, u being class k's next member.
  void extend(size_t idx, int k, int m, int h) {
    const size_t P = idx - stride_[static_cast<size_t>(k)];
    const size_t u = member(k, counts_[static_cast<size_t>(k)] - 1);
    pcounts_ = counts_;
    --pcounts_[static_cast<size_t>(k)];
    int glo = L_, ghi = -1;
    bool any = false;
    for (int kp = 0; kp < K_; ++kp) {
      int c = pcounts_[static_cast<size_t>(kp)];
      if (c == 0) continue;
      size_t r = P * static_cast<size_t>(K_) + static_cast<size_t>(kp);
      if (row_off_[r] == kDead) continue;
      double hv = sp_.hop(member(kp, c - 1), u);
      if (!(hv < kInfinity)) continue;
      int lo = row_lo_[r], hi = row_hi_[r];
      if (!any) {
        for (int l = lo; l <= hi; ++l)
          G_[static_cast<size_t>(l)] = kInfinity;
        glo = lo;
        ghi = hi;
        any = true;
      } else {
        if (lo < glo) {
          for (int l = lo; l < glo; ++l)
            G_[static_cast<size_t>(l)] = kInfinity;
          glo = lo;
        }
        if (hi > ghi) {
          for (int l = ghi + 1; l <= hi; ++l)
            G_[static_cast<size_t>(l)] = kInfinity;
          ghi = hi;
        }
      }
      const double* D = arena_.data() + row_off_[r];
      double* G = G_.data();
      for (int l = lo; l <= hi; ++l)
        G[l] = std::min(G[l], D[l] + hv);
    }
    if (!any) return;
    ++result_.states;
    for (int e = glo; e <= L_; ++e)
      val_[static_cast<size_t>(e)] = kInfinity;
    const auto& pin = sp_.pin(u);
    if (pin) {
      int s = pin->first, e = pin->second;
      if (s >= glo && s <= ghi && G_[static_cast<size_t>(s)] < kInfinity &&
          sp_.range_ok(u, s, e, false))
        val_[static_cast<size_t>(e)] = G_[static_cast<size_t>(s)] + sp_.stage(u, s, e);
      store(idx, k, u, m, glo + 1, L_);
      (void)h;
      return;
    }
    // Sliding-window minimum of G(l) - T_u(l) over l in [lowest_start(u, e), e).
    const double o = sp_.overhead(u);
    size_t qh = 0, qt = 0;
    for (int e = glo + 1; e <= L_; ++e) {
      int l = e - 1;
      if (l <= ghi) {
        double g = G_[static_cast<size_t>(l)];
        if (g < kInfinity) {
          double kv = g - sp_.prefix(u, l);
          while (qt > qh && key_[static_cast<size_t>(dq_[qt - 1])] >= kv)
            --qt;
          key_[static_cast<size_t>(l)] = kv;
          dq_[qt++] = l;
        }
      }
      int a = sp_.lowest_start(u, e, false);
      while (qt > qh && dq_[qh] < a)
        ++qh;
      if (qt == qh) {
        if (l >= ghi) break;
        continue;
      }
      val_[static_cast<size_t>(e)] = sp_.prefix(u, e) + o + key_[static_cast<size_t>(dq_[qh])];
    }
    store(idx, k, u, m, glo + 1, L_);
  }

  // Prunes val_[from..to], records a completed ring, and stores the row of open states.
  void store(size_t idx, int k, size_t u, int m, int from, int to) {
    if (to >= L_ && val_[static_cast<size_t>(L_)] < kInfinity && m >= sp_.min_hosts()) {
      double total = val_[static_cast<size_t>(L_)] + (m >= 2 ? sp_.hop(u, head_) : 0.0);
      if (total < incumbent_) {
        incumbent_ = total;
        reconstruct(idx, k, total);
      }
    }
    int lo = L_, hi = -1;
    const int last_open = std::min(to, L_ - 1);
    if (m < sp_.max_hosts()) {
      const double tail = sp_.min_overhead() + sp_.min_hop_out(u) + sp_.min_hop_in(head_);
      for (int e = std::max(from, open_end_); e <= last_open; ++e) {
        double& v = val_[static_cast<size_t>(e)];
        if (!(v < kInfinity)) continue;
        if (v + (sp_.rest_time(e) + tail) * kBoundSlack > incumbent_) {
          v = kInfinity;
          continue;
        }
        lo = std::min(lo, e);
        hi = e;
      }
    }
    size_t r = idx * static_cast<size_t>(K_) + static_cast<size_t>(k);
    if (hi < lo) {
      row_off_[r] = kDead;
      return;
    }
    int64_t off = static_cast<int64_t>(arena_.size()) - lo;
    arena_.insert(arena_.end(), val_.begin() + lo, val_.begin() + hi + 1);
    row_off_[r] = off;
    row_lo_[r] = lo;
    row_hi_[r] = hi;
  }

  void reconstruct(size_t idx, int k, double total) {
    std::vector<size_t> order;
    std::vector<int> cuts{L_};
    std::vector<int> c(static_cast<size_t>(K_));
    decode(idx, c);
    int e = L_;
    for (;;) {
      size_t u = member(k, c[static_cast<size_t>(k)] - 1);
      order.push_back(u);
      int m = std::accumulate(c.begin(), c.end(), 0);
      if (m == 1) {
        cuts.push_back(0);
        break;
      }
      size_t P = idx - stride_[static_cast<size_t>(k)];
      --c[static_cast<size_t>(k)];
      double best = kInfinity;
      int best_k = -1, best_l = -1;
      for (int kp = 0; kp < K_; ++kp) {
        int ck = c[static_cast<size_t>(kp)];
        if (ck == 0) continue;
        size_t r = P * static_cast<size_t>(K_) + static_cast<size_t>(kp);
        if (row_off_[r] == kDead) continue;
        double hv = sp_.hop(member(kp, ck - 1), u);
        const double* D = arena_.data() + row_off_[r];
        for (int l = row_lo_[r]; l <= std::min(row_hi_[r], e - 1); ++l) {
          if (!sp_.range_ok(u, l, e, false)) continue;
          double cand = D[l] + hv + sp_.stage(u, l, e);
          if (cand < best) {
            best = cand;
            best_k = kp;
            best_l = l;
          }
        }
      }
      if (best_k < 0) return;  // cannot happen: the state was reached from one of these rows
      cuts.push_back(best_l);
      idx = P;
      k = best_k;
      e = best_l;
    }
    std::reverse(order.begin(), order.end());
    std::reverse(cuts.begin(), cuts.end());
    result_.feasible = true;
    result_.assignment = PipelineAssignment{order, cuts};
    result_.latency_s = total;
  }

  const SearchSpace& sp_;
  const HostClasses& cls_;
  int K_;
  int L_;
  double incumbent_;
  size_t N_ = 1;
  std::vector<size_t> stride_;
  std::vector<int> size_;
  std::vector<int> by_capacity_;
  std::vector<int64_t> row_off_;
  std::vector<int> row_lo_, row_hi_;
  std::vector<double> arena_;
  std::vector<double> G_, key_, val_;
  std::vector<int> dq_;
  std::vector<int> counts_, pcounts_;
  size_t head_ = 0;
  int open_end_ = 0;
  SearchResult result_;
};

}  // namespace

std::optional<SearchResult> exact_pipeline_search(const SearchSpace& space,
                                                  const HostClasses& classes, double incumbent,
                                                  double max_subsets) {
  if (classes.size() == 0 || classes.subset_count() > max_subsets) return std::nullopt;
  SubsetDp dp(space, classes, incumbent);
  return dp.run();
}

}  // namespace meshplan
