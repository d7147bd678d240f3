#include "solvers/parallel/expert_parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>

#include "lib/core/units.hpp"
#include "solvers/parallel/expert_ilp.hpp"
#include "solvers/parallel/group_search.hpp"

namespace meshplan {
namespace {

// Each rank's share of a layer's routed tokens under a placement (copies share equally).
std::vector<double> rank_loads(const std::vector<double>& load,
                               const std::vector<std::vector<int>>& experts) {
  std::vector<int> copies(load.size(), 0);
  for (const auto& h : experts)
    for (int e : h)
      ++copies[static_cast<size_t>(e)];
  std::vector<double> out;
  for (const auto& h : experts) {
    double sum = 0;
    for (int e : h)
      sum += load[static_cast<size_t>(e)] / copies[static_cast<size_t>(e)];
    out.push_back(sum);
  }
  return out;
}

}  // namespace

ExpertCostModel::ExpertCostModel(const ModelDesc& model, const PlanInputs& inputs,
                                 const PlanRequest& request)
    : model_(&model), in_(&inputs), request_(&request), message_(inputs.message_bytes) {
  for (const LinkMatrix* m : inputs.matrices())
    least_latency_ = std::min(least_latency_, m->least_latency());
  const double P = static_cast<double>(request.prompt);
  const double attention = 2.0 * model.num_heads * model.head_dim * P * P;
  replicated_ = static_cast<double>(model.head_resident_bytes());
  std::map<std::tuple<int, int, double, double, double, double>, size_t> class_index;
  std::map<std::pair<size_t, int>, size_t> instance_index;
  for (const auto& l : model.layers) {
    const double kv = l.kv_bytes(request.context);
    kv_total_ += kv;
    if (!l.moe || l.moe->experts <= 0) {
      dense_layers_.push_back(l.index);
      replicated_ += static_cast<double>(l.weight_bytes);
      continue;
    }
    const MoeLayerInfo& m = *l.moe;
    moe_layers_.push_back(l.index);
    replicated_ += static_cast<double>(m.non_expert_bytes);
    slot_bytes_ += static_cast<double>(m.expert_bytes);
    max_experts_ = std::max(max_experts_, m.experts);
    MoeClass c;
    c.experts = m.experts;
    c.per_token = std::max(1, m.experts_per_token);
    c.expert_flops = m.expert_flops;
    c.expert_bytes = static_cast<double>(m.expert_bytes);
    c.base_flops = std::max(0.0, l.flops - m.experts_per_token * m.expert_flops);
    c.base_read = static_cast<double>(m.non_expert_bytes) + kv;
    c.prefill_base_flops = P * c.base_flops + attention;
    c.prefill_base_read =
        static_cast<double>(m.non_expert_bytes) + static_cast<double>(l.kv_bytes_per_token) * P;
    auto key = std::make_tuple(c.experts, c.per_token, c.base_flops, c.base_read, c.expert_flops,
                               c.expert_bytes);
    auto [cit, fresh_class] = class_index.emplace(key, classes_.size());
    if (fresh_class) classes_.push_back(c);
    const int dist = request.expert_load ? request.expert_load->distribution_index(l.index) : -1;
    auto [iit, fresh] =
        instance_index.emplace(std::make_pair(cit->second, dist), instances_.size());
    if (fresh) {
      Instance inst;
      inst.moe_class = cit->second;
      inst.distribution = dist;
      instances_.push_back(inst);
      if (dist < 0 && !uniform_.count(c.experts)) {
        uniform_[c.experts] = std::vector<double>(static_cast<size_t>(c.experts), 1.0 / c.experts);
      }
      Instance& fresh_inst = instances_.back();
      std::vector<double> sorted = load(fresh_inst);
      std::sort(sorted.begin(), sorted.end(), std::greater<>());
      fresh_inst.sorted_prefix.assign(sorted.size() + 1, 0);
      for (size_t e = 0; e < sorted.size(); ++e)
        fresh_inst.sorted_prefix[e + 1] = fresh_inst.sorted_prefix[e] + sorted[e];
    }
    instances_[iit->second].layers.push_back(l.index);
  }
  replicated_ += kv_total_;
}

const std::vector<double>& ExpertCostModel::load(const Instance& i) const {
  if (i.distribution >= 0)
    return request_->expert_load->distributions[static_cast<size_t>(i.distribution)];
  return uniform_.at(classes_[i.moe_class].experts);
}

long ExpertCostModel::capacity(size_t host) const {
  const double room = in_->hosts[host].usable_bytes - replicated_;
  if (room < 0) return -1;
  if (slot_bytes_ <= 0) return max_experts_;
  return static_cast<long>(std::min(std::floor(room / slot_bytes_), 1e9));
}

double ExpertCostModel::base_time(size_t host, const MoeClass& c) const {
  const HostFigures& h = in_->hosts[host];
  // A host of several GPUs splits the layer over them and all-reduces inside.
  return std::max(c.base_flops / h.flops, c.base_read / h.bandwidth) +
         layer_extra_s(h, model_->hidden_size, 1, 1);
}

double ExpertCostModel::expert_time(size_t host, const MoeClass& c) const {
  const HostFigures& h = in_->hosts[host];
  return std::max(c.expert_flops / h.flops, c.expert_bytes / h.bandwidth);
}

double ExpertCostModel::head_time(size_t host) const {
  const HostFigures& h = in_->hosts[host];
  return std::max(model_->head_flops() / h.flops,
                  static_cast<double>(model_->head_read_bytes()) / h.bandwidth);
}

std::vector<ExpertHost> ExpertCostModel::ranks_of(const std::vector<size_t>& ranks,
                                                  const MoeClass& c) const {
  std::vector<ExpertHost> out;
  for (size_t host : ranks) {
    ExpertHost h;
    h.base_s = base_time(host, c);
    h.expert_s = expert_time(host, c);
    h.capacity = static_cast<int>(std::clamp<long>(capacity(host), 0, c.experts));
    out.push_back(h);
  }
  return out;
}

ExpertInstance ExpertCostModel::instance(const std::vector<size_t>& ranks, size_t which) const {
  const Instance& inst = instances_[which];
  const MoeClass& c = classes_[inst.moe_class];
  ExpertInstance out;
  out.load = load(inst);
  out.experts_per_token = c.per_token;
  out.hosts = ranks_of(ranks, c);
  return out;
}

// Sum over the distinct MoE layers of expert_lower_bound, the ranks' figures computed once per
// layer kind; `floor_of` picks the floor from the ranks' non-expert times.
template <typename Floor>
double ExpertCostModel::moe_bound(const std::vector<size_t>& ranks, Floor floor_of) const {
  std::vector<std::vector<ExpertHost>> by_class(classes_.size());
  double total = 0;
  for (const Instance& inst : instances_) {
    auto& hosts = by_class[inst.moe_class];
    if (hosts.empty()) hosts = ranks_of(ranks, classes_[inst.moe_class]);
    total += static_cast<double>(inst.layers.size()) *
             expert_lower_bound(hosts, classes_[inst.moe_class].per_token, inst.sorted_prefix,
                                floor_of(hosts));
  }
  return total;
}

double ExpertCostModel::lower_bound(const CollectivePath& path) const {
  double total = moe_layers_.size() * path.expert_exchange_s(message_);
  double head = 0, overhead = 0;
  for (size_t host : path.order) {
    head = std::max(head, head_time(host));
    overhead = std::max(overhead, in_->hosts[host].overhead_s);
  }
  total += head + overhead;
  for (int l : dense_layers_) {
    const LayerInfo& layer = model_->layers[static_cast<size_t>(l)];
    double worst = 0;
    for (size_t host : path.order) {
      const HostFigures& h = in_->hosts[host];
      worst =
          std::max(worst, std::max(layer.flops / h.flops, (static_cast<double>(layer.read_bytes) +
                                                           layer.kv_bytes(request_->context)) /
                                                              h.bandwidth));
    }
    total += worst;
  }
  return total + moe_bound(path.order, [](const std::vector<ExpertHost>& hosts) {
           double floor = 0;
           for (const auto& h : hosts)
             floor = std::max(floor, h.base_s);
           return floor;
         });
}

double ExpertCostModel::exchange_floor(int ranks) const {
  if (ranks < 2 || !(least_latency_ < std::numeric_limits<double>::infinity())) return 0;
  const double hops = ranks <= static_cast<int>(kJacclMaxRanks) ? 2 : 2.0 * (ranks - 1);
  return static_cast<double>(moe_layers_.size()) * hops * least_latency_;
}

double ExpertCostModel::lower_bound_any_group() const {
  std::vector<size_t> all(in_->size());
  std::iota(all.begin(), all.end(), 0);
  double total = 0, head = std::numeric_limits<double>::infinity(), overhead = head;
  for (size_t host : all) {
    head = std::min(head, head_time(host));
    overhead = std::min(overhead, in_->hosts[host].overhead_s);
  }
  total += head + overhead;
  for (int l : dense_layers_) {
    const LayerInfo& layer = model_->layers[static_cast<size_t>(l)];
    double best = std::numeric_limits<double>::infinity();
    for (size_t host : all) {
      const HostFigures& h = in_->hosts[host];
      best = std::min(best, std::max(layer.flops / h.flops, (static_cast<double>(layer.read_bytes) +
                                                             layer.kv_bytes(request_->context)) /
                                                                h.bandwidth));
    }
    total += best;
  }
  return total + moe_bound(all, [](const std::vector<ExpertHost>& hosts) {
           double floor = std::numeric_limits<double>::infinity();
           for (const auto& h : hosts)
             floor = std::min(floor, h.base_s);
           return floor;
         });
}

ExpertCostModel::Evaluation ExpertCostModel::evaluate(
    const CollectivePath& path, const std::vector<ExpertPlacement>& placements) const {
  Evaluation ev;
  const size_t p = path.ranks();
  const double P = static_cast<double>(request_->prompt);
  const double attention = 2.0 * model_->num_heads * model_->head_dim * P * P;
  ev.rank_s.assign(p, 0);
  ev.kv_bytes.assign(p, kv_total_);
  ev.weight_bytes.assign(p, replicated_ - kv_total_);
  std::vector<double> compute(p, 0), memory(p, 0);
  double prefill = 0;
  for (int l : dense_layers_) {
    const LayerInfo& layer = model_->layers[static_cast<size_t>(l)];
    double worst = 0, worst_prefill = 0;
    for (size_t r = 0; r < p; ++r) {
      const HostFigures& h = in_->hosts[path.order[r]];
      const double c = layer.flops / h.flops;
      const double m =
          (static_cast<double>(layer.read_bytes) + layer.kv_bytes(request_->context)) / h.bandwidth;
      const double inside = layer_extra_s(h, model_->hidden_size, 1);
      compute[r] += c;
      memory[r] += m;
      ev.rank_s[r] += std::max(c, m) + inside;
      worst = std::max(worst, std::max(c, m) + inside);
      const double pc = (P * layer.flops + attention) / h.prefill_flops;
      const double pm = (std::min(static_cast<double>(layer.weight_bytes),
                                  P * static_cast<double>(layer.read_bytes)) +
                         static_cast<double>(layer.kv_bytes_per_token) * P) /
                        h.bandwidth;
      worst_prefill =
          std::max(worst_prefill, std::max(pc, pm) + layer_extra_s(h, model_->hidden_size, P));
    }
    ev.layers_s += worst;
    prefill += worst_prefill;
  }
  for (size_t k = 0; k < instances_.size(); ++k) {
    const Instance& inst = instances_[k];
    const MoeClass& c = classes_[inst.moe_class];
    const double count = static_cast<double>(inst.layers.size());
    const std::vector<double> loads = rank_loads(load(inst), placements[k].experts);
    double worst = 0, worst_prefill = 0;
    for (size_t r = 0; r < p; ++r) {
      const HostFigures& h = in_->hosts[path.order[r]];
      const double held = static_cast<double>(placements[k].experts[r].size());
      const double t =
          base_time(path.order[r], c) + c.per_token * loads[r] * expert_time(path.order[r], c);
      ev.rank_s[r] += count * t;
      worst = std::max(worst, t);
      compute[r] += count * (c.base_flops + c.per_token * loads[r] * c.expert_flops) / h.flops;
      memory[r] += count * (c.base_read + c.per_token * loads[r] * c.expert_bytes) / h.bandwidth;
      ev.weight_bytes[r] += count * held * c.expert_bytes;
      const double tokens = c.per_token * P * loads[r];
      const double pt =
          std::max(c.prefill_base_flops / h.prefill_flops, c.prefill_base_read / h.bandwidth) +
          layer_extra_s(h, model_->hidden_size, P, 1) +
          std::max(tokens * c.expert_flops / h.prefill_flops,
                   std::min(held * c.expert_bytes, tokens * c.expert_bytes) / h.bandwidth);
      worst_prefill = std::max(worst_prefill, pt);
    }
    ev.layers_s += count * worst;
    prefill += count * worst_prefill;
  }
  for (size_t r = 0; r < p; ++r) {
    ev.head_s = std::max(ev.head_s, head_time(path.order[r]));
    ev.overhead_s = std::max(ev.overhead_s, in_->hosts[path.order[r]].overhead_s);
    ev.rank_s[r] += head_time(path.order[r]);
    ev.memory_bytes.push_back(ev.weight_bytes[r] + ev.kv_bytes[r]);
    ev.memory_bound.push_back(memory[r] >= compute[r]);
  }
  const double n_moe = static_cast<double>(moe_layers_.size());
  ev.collective_s = n_moe * path.expert_exchange_s(message_);
  ev.token_latency_s = ev.layers_s + ev.collective_s + ev.head_s + ev.overhead_s;
  ev.ttft_s = prefill + n_moe * path.expert_exchange_s(message_ * P) + ev.head_s + ev.overhead_s;
  return ev;
}

}  // namespace meshplan
