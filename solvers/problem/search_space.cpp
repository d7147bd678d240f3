#include "solvers/problem/search_space.hpp"

#include <algorithm>

#include "lib/core/error.hpp"

namespace meshplan {

SearchSpace::SearchSpace(const PipelineCostModel& cost, PipelineConstraints constraints)
    : cost_(&cost),
      n_(cost.num_hosts()),
      L_(cost.num_layers()),
      stride_(static_cast<size_t>(cost.num_layers()) + 1),
      reversed_(cost.head_last()),
      head_host_(constraints.head_host) {
  const size_t L = static_cast<size_t>(L_);
  if (head_host_ && *head_host_ >= n_) throw internal_error("head host out of range");
  min_hosts_ = std::max(1, constraints.min_hosts);
  max_hosts_ = constraints.max_hosts > 0
                   ? std::min<int>(constraints.max_hosts, static_cast<int>(n_))
                   : static_cast<int>(n_);

  prefix_.resize(n_ * stride_);
  overhead_.resize(n_);
  head_time_.resize(n_);
  for (size_t h = 0; h < n_; ++h) {
    const std::vector<double>& p = cost.time_prefix(h);
    for (size_t l = 0; l <= L; ++l)
      prefix_[h * stride_ + l] = reversed_ ? p[L] - p[L - l] : p[l];
    overhead_[h] = cost.host(h).overhead_s;
    head_time_[h] = cost.head_time(h);
  }
  min_overhead_ = n_ ? *std::min_element(overhead_.begin(), overhead_.end()) : 0;

  hop_.assign(n_ * n_, kInfinity);
  min_out_.assign(n_, kInfinity);
  min_in_.assign(n_, kInfinity);
  for (size_t a = 0; a < n_; ++a) {
    for (size_t b = 0; b < n_; ++b) {
      if (a == b) continue;
      double t = reversed_ ? cost.hop_time(b, a) : cost.hop_time(a, b);
      hop_[a * n_ + b] = t;
      min_out_[a] = std::min(min_out_[a], t);
      min_in_[b] = std::min(min_in_[b], t);
    }
  }

  // Pins: which layers belong to a pinned host; an unpinned range must start after the last
  // pinned layer below its end.
  pin_.assign(n_, std::nullopt);
  std::vector<int> pin_floor(stride_, 0);
  std::vector<bool> pinned_layer(L, false);
  for (const RangePin& p : constraints.pins) {
    if (p.host >= n_ || p.start < 0 || p.end > L_ || p.start >= p.end || pin_[p.host])
      throw internal_error("malformed layer pin");
    const int start = reversed_ ? L_ - p.end : p.start, end = reversed_ ? L_ - p.start : p.end;
    pin_[p.host] = std::make_pair(start, end);
    for (int l = start; l < end; ++l) {
      if (pinned_layer[static_cast<size_t>(l)]) throw internal_error("overlapping layer pins");
      pinned_layer[static_cast<size_t>(l)] = true;
    }
    any_pins_ = true;
  }
  for (size_t e = 1; e <= L; ++e)
    pin_floor[e] = pinned_layer[e - 1] ? static_cast<int>(e) : pin_floor[e - 1];

  // Lowest start per (host, head?, end) by two pointers: memory grows with the range.
  lowest_.assign(n_ * 2 * stride_, 0);
  for (size_t h = 0; h < n_; ++h) {
    const double R = cost.host(h).usable_bytes;
    for (int head = 0; head < 2; ++head) {
      int* row = &lowest_[(h * 2 + static_cast<size_t>(head)) * stride_];
      int s = 0;
      for (int e = 1; e <= L_; ++e) {
        while (s < e && memory(s, e, head != 0) > R)
          ++s;
        row[e] = std::max(s, pin_floor[static_cast<size_t>(e)]);
      }
    }
  }

  rest_memory_.assign(stride_, 0);
  rest_time_.assign(stride_, 0);
  for (int l = L_ - 1; l >= 0; --l) {
    double fastest = kInfinity;
    for (size_t h = 0; h < n_; ++h)
      fastest = std::min(fastest, prefix(h, l + 1) - prefix(h, l));
    rest_time_[static_cast<size_t>(l)] = rest_time_[static_cast<size_t>(l) + 1] + fastest;
    rest_memory_[static_cast<size_t>(l)] = memory(l, L_, false);
  }
}

bool SearchSpace::range_ok(size_t h, int s, int e, bool head) const {
  if (s >= e || s < 0 || e > L_) return false;
  if (head && s != 0) return false;
  if (pin_[h]) {
    return s == pin_[h]->first && e == pin_[h]->second &&
           memory(s, e, head) <= cost_->host(h).usable_bytes;
  }
  return s >= lowest_start(h, e, head);
}

double SearchSpace::memory(int s, int e, bool head) const {
  return reversed_ ? cost_->stage_memory(L_ - e, L_ - s, head) : cost_->stage_memory(s, e, head);
}

PipelineAssignment SearchSpace::to_layers(const PipelineAssignment& a) const {
  if (!reversed_) return a;
  PipelineAssignment out{{a.order.rbegin(), a.order.rend()}, {}};
  for (auto it = a.cuts.rbegin(); it != a.cuts.rend(); ++it)
    out.cuts.push_back(L_ - *it);
  return out;
}

double SearchSpace::latency(const PipelineAssignment& a) const {
  const size_t m = a.order.size();
  double t = head_time_[a.order[0]];
  for (size_t j = 0; j < m; ++j) {
    t += stage(a.order[j], a.cuts[j], a.cuts[j + 1]);
    if (m >= 2) t += hop(a.order[j], a.order[(j + 1) % m]);
  }
  return t;
}

}  // namespace meshplan
