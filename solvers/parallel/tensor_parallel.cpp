#include "solvers/parallel/tensor_parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

#include "lib/core/units.hpp"
#include "solvers/parallel/group_search.hpp"

namespace meshplan {
namespace {

// A cache is split by KV heads when each head holds its own keys and values (at least half a
// byte per dimension for K and V); a smaller per-head figure is a latent shared by all heads.
bool kv_is_latent(const ModelDesc& m) {
  for (const auto& l : m.layers) {
    if (l.kv_bytes_per_token == 0) continue;
    if (m.num_kv_heads <= 0 || l.kv_bytes_per_token % static_cast<uint64_t>(m.num_kv_heads) != 0)
      return true;
    if (l.kv_bytes_per_token / static_cast<uint64_t>(m.num_kv_heads) <
        static_cast<uint64_t>(std::max(1, m.head_dim)))
      return true;
  }
  return false;
}

constexpr double kNoTime = std::numeric_limits<double>::infinity();

}  // namespace

TensorCostModel::TensorCostModel(const ModelDesc& model, const PlanInputs& inputs, int64_t context,
                                 int64_t prompt)
    : model_(&model),
      in_(&inputs),
      prompt_(prompt),
      heads_(std::max(1, model.num_heads)),
      latent_kv_(kv_is_latent(model)),
      message_(inputs.message_bytes) {
  const double P = static_cast<double>(prompt);
  const double attention = 2.0 * model.num_heads * model.head_dim * P * P;
  std::map<std::tuple<double, uint64_t, uint64_t, uint64_t, int, bool>, size_t> index;
  for (const auto& l : model.layers) {
    weights_ += static_cast<double>(l.weight_bytes);
    kv_total_ += l.kv_bytes(context);
    auto key = std::make_tuple(l.flops, l.read_bytes, l.weight_bytes, l.kv_bytes_per_token,
                               l.sliding_window, l.moe.has_value());
    auto [it, fresh] = index.emplace(key, classes_.size());
    if (fresh) {
      LayerClass c;
      c.flops = l.flops;
      c.read = static_cast<double>(l.read_bytes);
      c.kv = l.kv_bytes(context);
      c.moe = l.moe ? 1 : 0;
      c.prefill_flops = P * l.flops + attention;
      c.prefill_read =
          std::min(static_cast<double>(l.weight_bytes), P * static_cast<double>(l.read_bytes));
      c.prefill_kv = static_cast<double>(l.kv_bytes_per_token) * P;
      classes_.push_back(c);
    }
    classes_[it->second].count += 1;
  }
}

bool TensorCostModel::divisible(size_t p) const {
  if (p == 1) return true;
  if (model_->num_heads <= 0) return false;
  const int n = static_cast<int>(p);
  return model_->num_heads % n == 0 && (model_->num_kv_heads <= 0 || model_->num_kv_heads % n == 0);
}

TensorShares TensorCostModel::shares_from_heads(std::vector<int> heads) const {
  TensorShares s;
  s.heads = std::move(heads);
  const int kv_heads = model_->num_kv_heads;
  const bool grouped = !latent_kv_ && kv_heads > 0 && heads_ % kv_heads == 0;
  int start = 0;
  for (int n : s.heads) {
    const double share = static_cast<double>(n) / heads_;
    s.share.push_back(share);
    if (latent_kv_) {
      s.kv_fraction.push_back(1.0);
    } else if (grouped) {
      // KV heads touched by query heads [start, start + n): a KV head whose query heads straddle
      // two ranks is held by both.
      const int group = heads_ / kv_heads;
      const int touched = (start + n + group - 1) / group - start / group;
      s.kv_fraction.push_back(static_cast<double>(touched) / kv_heads);
    } else {
      s.kv_fraction.push_back(share);
    }
    start += n;
  }
  s.uneven =
      std::adjacent_find(s.heads.begin(), s.heads.end(), std::not_equal_to<>()) != s.heads.end();
  return s;
}

TensorShares TensorCostModel::equal_shares(size_t p) const {
  return shares_from_heads(std::vector<int>(p, heads_ / static_cast<int>(p)));
}

double TensorCostModel::layer_time(size_t host, const LayerClass& c, double share,
                                   double kv) const {
  const HostFigures& h = in_->hosts[host];
  // A host of several GPUs splits its share again over them and all-reduces inside.
  return std::max(share * c.flops / h.flops, (share * c.read + kv * c.kv) / h.bandwidth) +
         layer_extra_s(h, model_->hidden_size, 1, c.moe);
}

double TensorCostModel::layers_time(const CollectivePath& path, const TensorShares& s) const {
  double total = 0;
  for (const auto& c : classes_) {
    double worst = 0;
    for (size_t r = 0; r < path.ranks(); ++r)
      worst = std::max(worst, layer_time(path.order[r], c, s.share[r], s.kv_fraction[r]));
    total += c.count * worst;
  }
  return total;
}

double TensorCostModel::replicated_bytes() const {
  return static_cast<double>(model_->head_resident_bytes());
}

std::vector<double> TensorCostModel::memory(const CollectivePath& path,
                                            const TensorShares& s) const {
  std::vector<double> out;
  for (size_t r = 0; r < path.ranks(); ++r)
    out.push_back(s.share[r] * weights_ + s.kv_fraction[r] * kv_total_ + replicated_bytes());
  return out;
}

double TensorCostModel::head_time(size_t host) const {
  const HostFigures& h = in_->hosts[host];
  return std::max(model_->head_flops() / h.flops,
                  static_cast<double>(model_->head_read_bytes()) / h.bandwidth);
}

double TensorCostModel::fixed_time(const CollectivePath& path) const {
  double head = 0, overhead = 0;
  for (size_t host : path.order) {
    head = std::max(head, head_time(host));
    overhead = std::max(overhead, in_->hosts[host].overhead_s);
  }
  return num_layers() * 2 * path.allreduce_s(message_) + head + overhead;
}

double TensorCostModel::shared_layers_bound(const std::vector<size_t>& hosts) const {
  double total = 0;
  for (const auto& c : classes_) {
    double rate = 0, latent = 0;
    for (size_t host : hosts) {
      const HostFigures& h = in_->hosts[host];
      const double unit = latent_kv_ ? std::max(c.flops / h.flops, c.read / h.bandwidth)
                                     : std::max(c.flops / h.flops, (c.read + c.kv) / h.bandwidth);
      if (unit > 0) rate += 1 / unit;
      if (latent_kv_) latent = std::max(latent, c.kv / h.bandwidth);
    }
    total += c.count * std::max(rate > 0 ? 1 / rate : 0, latent);
  }
  return total;
}

double TensorCostModel::lower_bound(const CollectivePath& path) const {
  // Every rank runs every layer, so each layer costs at least the cheapest in-host all-reduces.
  double inside = kNoTime;
  for (size_t host : path.order)
    inside = std::min(inside, layer_extra_s(in_->hosts[host], model_->hidden_size, 1));
  return fixed_time(path) + shared_layers_bound(path.order) +
         (path.order.empty() ? 0 : num_layers() * inside);
}

double TensorCostModel::lower_bound_any_group() const {
  std::vector<size_t> all(in_->size());
  std::iota(all.begin(), all.end(), 0);
  double head = kNoTime, overhead = kNoTime, inside = kNoTime;
  for (size_t host : all) {
    head = std::min(head, head_time(host));
    overhead = std::min(overhead, in_->hosts[host].overhead_s);
    inside = std::min(inside, layer_extra_s(in_->hosts[host], model_->hidden_size, 1));
  }
  // With every host sharing, a latent cache's read is bounded by the fastest host instead.
  double total = 0;
  for (const auto& c : classes_) {
    double rate = 0, latent = kNoTime;
    for (size_t host : all) {
      const HostFigures& h = in_->hosts[host];
      const double unit = latent_kv_ ? std::max(c.flops / h.flops, c.read / h.bandwidth)
                                     : std::max(c.flops / h.flops, (c.read + c.kv) / h.bandwidth);
      if (unit > 0) rate += 1 / unit;
      latent = std::min(latent, c.kv / h.bandwidth);
    }
    total += c.count * std::max(rate > 0 ? 1 / rate : 0, latent_kv_ ? latent : 0);
  }
  return total + head + overhead + (all.empty() ? 0 : num_layers() * inside);
}

std::optional<TensorShares> TensorCostModel::uneven_shares(const CollectivePath& path) const {
  const size_t p = path.ranks();
  if (p > static_cast<size_t>(heads_)) return std::nullopt;
  auto fits = [&](const TensorShares& s) {
    std::vector<double> m = memory(path, s);
    for (size_t r = 0; r < p; ++r)
      if (m[r] > in_->hosts[path.order[r]].usable_bytes) return false;
    return true;
  };
  auto own = [&](const TensorShares& s, size_t r) {
    double t = 0;
    for (const auto& c : classes_)
      t += c.count * layer_time(path.order[r], c, s.share[r], s.kv_fraction[r]);
    return t;
  };
  std::vector<int> heads(p, 1);
  if (!fits(shares_from_heads(heads))) return std::nullopt;
  // Greedy: each further head goes where the time per token grows least (then where the rank's
  // own time stays smallest), among the placements that fit in memory.
  for (int left = heads_ - static_cast<int>(p); left > 0; --left) {
    int best = -1;
    double best_total = 0, best_own = 0;
    for (size_t r = 0; r < p; ++r) {
      ++heads[r];
      TensorShares s = shares_from_heads(heads);
      if (fits(s)) {
        double total = layers_time(path, s), mine = own(s, r);
        if (best < 0 || total < best_total - 1e-15 ||
            (total <= best_total + 1e-15 && mine < best_own)) {
          best = static_cast<int>(r);
          best_total = total;
          best_own = mine;
        }
      }
      --heads[r];
    }
    if (best < 0) return std::nullopt;
    ++heads[static_cast<size_t>(best)];
  }
  // Moves of one head between ranks while the time per token falls.
  double current = layers_time(path, shares_from_heads(heads));
  for (bool improved = true; improved;) {
    improved = false;
    for (size_t a = 0; a < p && !improved; ++a) {
      for (size_t b = 0; b < p && !improved; ++b) {
        if (a == b || heads[a] <= 1) continue;
        --heads[a];
        ++heads[b];
        TensorShares s = shares_from_heads(heads);
        double t = layers_time(path, s);
        if (t < current * (1 - 1e-12) && fits(s)) {
          current = t;
          improved = true;
        } else {
          ++heads[a];
          --heads[b];
        }
      }
    }
  }
  return shares_from_heads(heads);
}

TensorEvaluation TensorCostModel::evaluate(const CollectivePath& path,
                                           const TensorShares& s) const {
  TensorEvaluation e;
  const size_t p = path.ranks();
  e.memory_bytes = memory(path, s);
  for (size_t r = 0; r < p; ++r) {
    const HostFigures& h = in_->hosts[path.order[r]];
    e.weight_bytes.push_back(s.share[r] * weights_ + replicated_bytes());
    e.kv_bytes.push_back(s.kv_fraction[r] * kv_total_);
    if (e.memory_bytes[r] > h.usable_bytes && e.feasible) {
      e.feasible = false;
      e.shortfall = fmt::format(
          "{} needs {} for a {} share of the layers and KV cache plus the embedding and LM head, "
          "but has {} usable ({} short)",
          h.name, format_gib(e.memory_bytes[r]), format_percent(s.share[r]),
          format_gib(h.usable_bytes), format_gib(e.memory_bytes[r] - h.usable_bytes));
    }
    double compute = 0, memory_time = 0, own = 0;
    for (const auto& c : classes_) {
      compute += c.count * s.share[r] * c.flops / h.flops;
      memory_time += c.count * (s.share[r] * c.read + s.kv_fraction[r] * c.kv) / h.bandwidth;
      own += c.count * layer_time(path.order[r], c, s.share[r], s.kv_fraction[r]);
    }
    e.rank_s.push_back(own + head_time(path.order[r]));
    e.memory_bound.push_back(memory_time >= compute);
    e.head_s = std::max(e.head_s, head_time(path.order[r]));
    e.overhead_s = std::max(e.overhead_s, h.overhead_s);
  }
  e.layers_s = layers_time(path, s);
  e.collective_s = num_layers() * 2 * path.allreduce_s(message_);
  e.token_latency_s = e.layers_s + e.collective_s + e.head_s + e.overhead_s;
  double prefill = 0;
  for (const auto& c : classes_) {
    double worst = 0;
    for (size_t r = 0; r < p; ++r) {
      const HostFigures& h = in_->hosts[path.order[r]];
      worst = std::max(
          worst,
          std::max(s.share[r] * c.prefill_flops / h.prefill_flops,
                   (s.share[r] * c.prefill_read + s.kv_fraction[r] * c.prefill_kv) / h.bandwidth) +
              layer_extra_s(h, model_->hidden_size, static_cast<double>(prompt_)));
    }
    prefill += c.count * worst;
  }
  e.ttft_s = prefill +
             num_layers() * 2 * path.allreduce_s(message_ * static_cast<double>(prompt_)) +
             e.head_s + e.overhead_s;
  return e;
}

}  // namespace meshplan
