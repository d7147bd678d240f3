#include "solvers/problem/candidate_classes.hpp"

#include <algorithm>

namespace meshplan {
namespace {

bool same_link(const std::optional<LinkFigures>& x, const std::optional<LinkFigures>& y) {
  if (x.has_value() != y.has_value()) return false;
  if (!x) return true;
  return x->name == y->name && x->kind == y->kind && x->rdma == y->rdma &&
         x->thunderbolt == y->thunderbolt && x->latency_s == y->latency_s &&
         x->bandwidth == y->bandwidth && x->tcp_latency_s == y->tcp_latency_s &&
         x->tcp_bandwidth == y->tcp_bandwidth && x->round_trip_s == y->round_trip_s &&
         x->cable == y->cable && x->network == y->network && x->speed_gbps == y->speed_gbps &&
         x->generation == y->generation && x->rdma_cable == y->rdma_cable &&
         x->fabric_rdma == y->fabric_rdma;
}

bool same_group_links(const std::vector<HostFigures::GroupLink>& a,
                      const std::vector<HostFigures::GroupLink>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.tp == y.tp && x.link == y.link && x.latency_s == y.latency_s && x.step_s == y.step_s &&
           x.bandwidth == y.bandwidth;
  });
}

// Whether i and j see the same link to every other candidate, and the same one each way.
bool same_links(const LinkMatrix& m, size_t i, size_t j) {
  if (!same_link(m.at(i, j), m.at(j, i))) return false;
  for (size_t k = 0; k < m.size(); ++k) {
    if (k == i || k == j) continue;
    if (!same_link(m.at(i, k), m.at(j, k)) || !same_link(m.at(k, i), m.at(k, j))) return false;
  }
  return true;
}

bool fixed(const PlanningProblem& p, size_t i) {
  if (p.head_host() && *p.head_host() == i) return true;
  return std::any_of(p.pins().begin(), p.pins().end(),
                     [&](const RangePin& pin) { return pin.host == i; });
}

}  // namespace

bool interchangeable(const PlanningProblem& p, size_t i, size_t j) {
  if (fixed(p, i) || fixed(p, j) || !same_figures(p.host(i), p.host(j))) return false;
  const PlanInputs& in = p.inputs();
  for (const LinkMatrix* m : {&in.rdma, &in.tcp, &in.thunderbolt, &in.network, &in.any})
    if (!same_links(*m, i, j)) return false;
  return true;
}

bool same_figures(const HostFigures& a, const HostFigures& b) {
  return a.usable_bytes == b.usable_bytes && a.usable_rule == b.usable_rule &&
         a.bandwidth == b.bandwidth && a.flops == b.flops && a.prefill_flops == b.prefill_flops &&
         a.overhead_s == b.overhead_s && a.cpu_only == b.cpu_only &&
         a.layer_overhead_s == b.layer_overhead_s &&
         a.moe_layer_overhead_s == b.moe_layer_overhead_s && a.spec_bandwidth == b.spec_bandwidth &&
         a.spec_flops == b.spec_flops && a.bandwidth_efficiency == b.bandwidth_efficiency &&
         a.flops_efficiency == b.flops_efficiency &&
         a.default_wired_bytes == b.default_wired_bytes && a.gpus == b.gpus && a.tp == b.tp &&
         a.gpu_stages == b.gpu_stages && a.gpu_link == b.gpu_link &&
         a.gpu_link_latency_s == b.gpu_link_latency_s && a.gpu_link_step_s == b.gpu_link_step_s &&
         a.gpu_link_bandwidth == b.gpu_link_bandwidth && a.activation_bytes == b.activation_bytes &&
         same_group_links(a.group_links, b.group_links) && a.head_bandwidth == b.head_bandwidth &&
         a.head_flops == b.head_flops;
}

std::vector<int> candidate_classes(const PlanningProblem& problem,
                                   const std::vector<size_t>& among) {
  std::vector<int> class_of(among.size(), -1);
  std::vector<size_t> first_of;  // a member of each class
  for (size_t x = 0; x < among.size(); ++x) {
    for (size_t c = 0; c < first_of.size() && class_of[x] < 0; ++c)
      if (interchangeable(problem, among[first_of[c]], among[x])) class_of[x] = static_cast<int>(c);
    if (class_of[x] < 0) {
      class_of[x] = static_cast<int>(first_of.size());
      first_of.push_back(x);
    }
  }
  return class_of;
}

}  // namespace meshplan
