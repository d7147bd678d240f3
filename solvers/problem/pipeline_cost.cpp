#include "solvers/problem/pipeline_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "lib/core/error.hpp"
#include "lib/core/units.hpp"

namespace meshplan {

PipelineCostModel::PipelineCostModel(const ModelDesc& model, std::vector<HostFigures> hosts,
                                     LinkMatrix links, int64_t context, int64_t prompt,
                                     double activation_bytes_per_value, bool head_last)
    : model_(&model),
      hosts_(std::move(hosts)),
      links_(std::move(links)),
      context_(context),
      prompt_(prompt),
      num_layers_(model.num_layers()),
      activation_bytes_(activation_bytes_per_value * model.hidden_size),
      head_last_(head_last) {
  const size_t n = hosts_.size();
  const size_t L = static_cast<size_t>(num_layers_);
  weight_prefix_.assign(L + 1, 0);
  kv_prefix_.assign(L + 1, 0);
  for (size_t l = 0; l < L; ++l) {
    weight_prefix_[l + 1] = weight_prefix_[l] + static_cast<double>(model.layers[l].weight_bytes);
    kv_prefix_[l + 1] = kv_prefix_[l] + model.layers[l].kv_bytes(context_);
  }
  const double P = static_cast<double>(prompt_);
  // Hosts of the same figures share their prefix sums: a fleet of thousands has a few kinds.
  std::map<std::array<double, 10>, size_t> kinds;
  speed_kind_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const HostFigures& h = hosts_[i];
    const std::array<double, 10> key{h.flops,
                                     h.bandwidth,
                                     h.prefill_flops,
                                     h.layer_overhead_s,
                                     h.moe_layer_overhead_s,
                                     static_cast<double>(h.tp),
                                     h.gpu_link_bandwidth,
                                     h.gpu_link_latency_s,
                                     h.gpu_link_step_s,
                                     h.activation_bytes};
    auto [it, fresh] = kinds.emplace(key, time_prefix_.size());
    speed_kind_[i] = it->second;
    if (!fresh) continue;
    std::vector<double>& time = time_prefix_.emplace_back(L + 1, 0);
    std::vector<double>& prefill = prefill_prefix_.emplace_back(L + 1, 0);
    for (size_t l = 0; l < L; ++l) {
      const LayerInfo& layer = model.layers[l];
      const double moe = layer.moe ? 1 : 0;
      const double inside = layer_extra_s(h, model.hidden_size, 1, moe);
      const double inside_prefill = layer_extra_s(h, model.hidden_size, P, moe);
      double compute = layer.flops / h.flops;
      double memory =
          (static_cast<double>(layer.read_bytes) + layer.kv_bytes(context_)) / h.bandwidth;
      time[l + 1] = time[l] + std::max(compute, memory) + inside;
      // Prefill: every prompt token through the layer, plus attention over the prompt; weights are
      // read once (all experts once enough tokens route through them).
      double attn = 2.0 * model.num_heads * model.head_dim * P * P;
      double pcompute = (P * layer.flops + attn) / h.prefill_flops;
      double pmemory = (std::min(static_cast<double>(layer.weight_bytes),
                                 P * static_cast<double>(layer.read_bytes)) +
                        static_cast<double>(layer.kv_bytes_per_token) * P) /
                       h.bandwidth;
      prefill[l + 1] = prefill[l] + std::max(pcompute, pmemory) + inside_prefill;
    }
  }
}

double PipelineCostModel::layer_time(size_t host, int layer) const {
  return time_prefix_[speed_kind_[host]][static_cast<size_t>(layer) + 1] -
         time_prefix_[speed_kind_[host]][static_cast<size_t>(layer)];
}

double PipelineCostModel::stage_time(size_t host, int start, int end) const {
  if (end <= start) return 0;
  return time_prefix_[speed_kind_[host]][static_cast<size_t>(end)] -
         time_prefix_[speed_kind_[host]][static_cast<size_t>(start)] + hosts_[host].overhead_s;
}

double PipelineCostModel::weight_bytes(int start, int end) const {
  return weight_prefix_[static_cast<size_t>(end)] - weight_prefix_[static_cast<size_t>(start)];
}

double PipelineCostModel::kv_bytes(int start, int end) const {
  return kv_prefix_[static_cast<size_t>(end)] - kv_prefix_[static_cast<size_t>(start)];
}

double PipelineCostModel::head_memory() const {
  return static_cast<double>(model_->head_resident_bytes());
}

double PipelineCostModel::stage_memory(int start, int end, bool head) const {
  double m = end > start ? weight_bytes(start, end) + kv_bytes(start, end) : 0;
  return head ? m + head_memory() : m;
}

double PipelineCostModel::head_time(size_t host) const {
  const HostFigures& h = hosts_[host];
  return std::max(model_->head_flops() / (h.head_flops > 0 ? h.head_flops : h.flops),
                  static_cast<double>(model_->head_read_bytes()) /
                      (h.head_bandwidth > 0 ? h.head_bandwidth : h.bandwidth));
}

double PipelineCostModel::hop_time(size_t a, size_t b) const {
  const auto& l = links_[a][b];
  return l ? l->hop_time(activation_bytes_) : kInfinity;
}

std::vector<double> PipelineCostModel::least_hops(bool into) const {
  std::vector<double> out(num_hosts(), kInfinity);
  const auto& links = links_.distinct_links(into);
  for (size_t a = 0; a < out.size(); ++a)
    for (const std::optional<LinkFigures>& l : links[a])
      if (l) out[a] = std::min(out[a], l->hop_time(activation_bytes_));
  return out;
}

double PipelineCostModel::prefill_stage_time(size_t host, int start, int end) const {
  if (end <= start) return 0;
  return prefill_prefix_[speed_kind_[host]][static_cast<size_t>(end)] -
         prefill_prefix_[speed_kind_[host]][static_cast<size_t>(start)] + hosts_[host].overhead_s;
}

double PipelineCostModel::prefill_hop_time(size_t a, size_t b) const {
  const auto& l = links_[a][b];
  return l ? l->hop_time(activation_bytes_ * static_cast<double>(prompt_)) : kInfinity;
}

PipelineEvaluation PipelineCostModel::evaluate(const PipelineAssignment& a) const {
  PipelineEvaluation e;
  const size_t m = a.order.size();
  if (m == 0 || a.cuts.size() != m + 1 || a.cuts.front() != 0 || a.cuts.back() != num_layers_) {
    throw internal_error("malformed pipeline assignment");
  }
  double total = 0, ttft = 0;
  e.head_rank = head_rank(m);
  for (size_t j = 0; j < m; ++j) {
    const bool head = j == e.head_rank;
    size_t h = a.order[j];
    int s = a.cuts[j], t = a.cuts[j + 1];
    double stage = stage_time(h, s, t);
    e.stage_s.push_back(stage);
    e.weight_bytes.push_back(weight_bytes(s, t) + (head ? head_memory() : 0));
    e.kv_bytes.push_back(kv_bytes(s, t));
    e.memory_bytes.push_back(stage_memory(s, t, head));
    total += stage;
    ttft += prefill_stage_time(h, s, t);
    if (e.memory_bytes.back() > hosts_[h].usable_bytes && e.feasible) {
      e.feasible = false;
      e.shortfall =
          fmt::format("{} needs {} for layers {}-{}{} but has {} usable ({} short)", hosts_[h].name,
                      format_gib(e.memory_bytes.back()), s, t,
                      head ? " and the embedding/LM head" : "", format_gib(hosts_[h].usable_bytes),
                      format_gib(e.memory_bytes.back() - hosts_[h].usable_bytes));
    }
  }
  e.head_s = head_time(a.order[e.head_rank]);
  total += e.head_s;
  ttft += e.head_s;
  if (m >= 2) {
    for (size_t j = 0; j < m; ++j) {
      size_t from = a.order[j], to = a.order[(j + 1) % m];
      e.hops.push_back(links_[from][to]);
      double hop = hop_time(from, to);
      if (!links_[from][to] && e.feasible) {
        e.feasible = false;
        e.shortfall =
            fmt::format("{} and {} have no usable link", hosts_[from].name, hosts_[to].name);
      }
      e.hops_s += hop;
      ttft += prefill_hop_time(from, to);
    }
  }
  total += e.hops_s;
  e.token_latency_s = total;
  e.ttft_s = ttft;
  return e;
}

}  // namespace meshplan
