#include "solvers/parallel/host_groupings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <set>

#include "lib/core/units.hpp"
#include "solvers/problem/candidate_classes.hpp"

namespace meshplan {
namespace {

// Every grouping of `eligible` with at least one group, larger groups first, up to the cap.
class Groupings {
 public:
  Groupings(const PlanningProblem& problem, const TensorCostModel& cost,
            const std::vector<size_t>& eligible, size_t max_groupings)
      : problem_(problem),
        cost_(cost),
        eligible_(eligible),
        max_groupings_(max_groupings),
        class_of_(candidate_classes(problem, eligible)) {
    for (size_t i = 0; i < eligible_.size(); ++i)
      class_of_candidate_[eligible_[i]] = class_of_[i];
  }

  std::vector<HostGrouping> all(bool& capped) {
    std::vector<HostGroup> chosen;
    walk((1u << eligible_.size()) - 1, 0, chosen);
    capped = capped_;
    return std::move(out_);
  }

 private:
  // The fastest way the hosts of `mask` all-reduce, if any.
  const std::optional<HostGroup>& group(uint32_t mask) {
    auto it = memo_.find(mask);
    if (it != memo_.end()) return it->second;
    std::optional<HostGroup> g;
    const size_t d = static_cast<size_t>(std::popcount(mask));
    if (d >= 2 && d <= kJacclMaxRanks && cost_.divisible(d)) {
      std::vector<size_t> members;
      for (size_t i = 0; i < eligible_.size(); ++i)
        if (mask >> i & 1) members.push_back(eligible_[i]);
      const double bytes = cost_.message_bytes();
      for (CollectivePath& p : problem_.collective_paths().options(members))
        if (p.worst && (!g || p.allreduce_s(bytes) < g->path.allreduce_s(bytes)))
          g = HostGroup{p.order, p};
    }
    return memo_.emplace(mask, std::move(g)).first->second;
  }

  // Groupings of the hosts in `left`; those in `single` may join no group. Interchangeable hosts
  // give the same plan in either place, so a group takes the lowest free members of each class,
  // and once a host is left single so are the rest of its class (a grouping that groups one of
  // them is the same, swapped, as one that groups the first); what is left alike is dropped by
  // its shape.
  void walk(uint32_t left, uint32_t single, std::vector<HostGroup>& chosen) {
    if (out_.size() >= max_groupings_) {
      capped_ = true;
      return;
    }
    if (left == 0) {
      if (chosen.empty()) return;  // a plain pipeline: the pipeline strategy's
      if (!shapes_.insert(shape(chosen)).second) return;
      HostGrouping g{chosen, {}};
      for (size_t i = 0; i < eligible_.size(); ++i) {
        bool grouped = false;
        for (const HostGroup& x : chosen)
          grouped = grouped || std::count(x.members.begin(), x.members.end(), eligible_[i]);
        if (!grouped) g.singles.push_back(eligible_[i]);
      }
      out_.push_back(std::move(g));
      return;
    }
    const uint32_t first = left & -left;
    const uint32_t rest = left & ~first;
    const int first_class = class_of_[std::countr_zero(first)];
    if (!(single & first)) {
      // Groups holding the lowest host left, the most promising first (so that a capped search
      // keeps the likely ones); then that host alone.
      const uint32_t free = rest & ~single;
      std::vector<std::pair<double, uint32_t>> options;
      for (uint32_t sub = free; sub != 0; sub = (sub - 1) & free)
        if (lowest_of_each_class(sub, free))
          if (const auto& g = group(sub | first)) options.emplace_back(promise(*g), sub | first);
      std::sort(options.begin(), options.end());
      for (const auto& [t, mask] : options) {
        chosen.push_back(*group(mask));
        walk(left & ~mask, single, chosen);
        chosen.pop_back();
      }
    }
    uint32_t same = 0;
    for (size_t i = 0; i < eligible_.size(); ++i)
      if (class_of_[i] == first_class) same |= 1u << i;
    walk(rest, single | (rest & same), chosen);
  }

  // Whether `sub` holds, of each class, the lowest hosts of `free` in it.
  bool lowest_of_each_class(uint32_t sub, uint32_t free) const {
    uint64_t skipped = 0;  // classes with a free host not taken (classes < 64: hosts <= 32)
    for (uint32_t m = free; m != 0; m &= m - 1) {
      const int i = std::countr_zero(m);
      const uint64_t c = uint64_t{1} << class_of_[i];
      if (sub >> i & 1) {
        if (skipped & c) return false;
      } else {
        skipped |= c;
      }
    }
    return true;
  }

  // A grouping's shape: each group's classes, in order; the groups in order.
  std::vector<std::vector<int>> shape(const std::vector<HostGroup>& chosen) const {
    std::vector<std::vector<int>> out;
    for (const HostGroup& g : chosen) {
      std::vector<int> classes;
      for (size_t m : g.members)
        classes.push_back(class_of_candidate_.at(m));
      std::sort(classes.begin(), classes.end());
      out.push_back(std::move(classes));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // What a token would take if the group held every layer: the weights over its hosts' combined
  // pace, plus two all-reduces per layer.
  double promise(const HostGroup& g) const {
    double slowest = kInfinity;
    for (size_t m : g.members)
      slowest = std::min(slowest, problem_.host(m).bandwidth);
    const double d = static_cast<double>(g.members.size());
    return cost_.sharded_bytes() / (d * slowest) +
           2 * cost_.num_layers() * g.path.allreduce_s(cost_.message_bytes());
  }

  const PlanningProblem& problem_;
  const TensorCostModel& cost_;
  const std::vector<size_t>& eligible_;
  const size_t max_groupings_;
  const std::vector<int> class_of_;           // per eligible host
  std::map<size_t, int> class_of_candidate_;  // the same by candidate index
  std::map<uint32_t, std::optional<HostGroup>> memo_;
  std::set<std::vector<std::vector<int>>> shapes_;
  std::vector<HostGrouping> out_;
  bool capped_ = false;
};

}  // namespace

HostFigures group_figures(const PlanningProblem& problem, const HostGroup& g, double replicated) {
  const double d = static_cast<double>(g.members.size());
  HostFigures f = problem.host(g.members.front());
  std::vector<std::string> names;
  for (size_t m : g.members) {
    const HostFigures& h = problem.host(m);
    names.push_back(h.name);
    f.bandwidth = std::min(f.bandwidth, h.bandwidth);
    f.flops = std::min(f.flops, h.flops);
    f.prefill_flops = std::min(f.prefill_flops, h.prefill_flops);
    f.spec_bandwidth = std::min(f.spec_bandwidth, h.spec_bandwidth);
    f.spec_flops = std::min(f.spec_flops, h.spec_flops);
    f.usable_bytes = std::min(f.usable_bytes, h.usable_bytes);
    f.overhead_s = std::max(f.overhead_s, h.overhead_s);
  }
  const double least = f.usable_bytes;
  f.name = fmt::format("{}", fmt::join(names, "+"));
  f.head_bandwidth = f.bandwidth;
  f.head_flops = f.flops;
  f.bandwidth *= d;
  f.flops *= d;
  f.prefill_flops *= d;
  f.spec_bandwidth *= d;
  f.spec_flops *= d;
  f.usable_bytes = std::max(0.0, d * least - (d - 1) * replicated);
  f.usable_rule = fmt::format(
      "{} hosts x the least usable of them ({}), less {} more copies of "
      "the embedding and head",
      g.members.size(), format_gib(least), g.members.size() - 1);
  f.default_wired_bytes = 0;
  f.gpus = 1;
  f.tp = static_cast<int>(g.members.size());
  f.gpu_stages = 1;
  f.group_links.clear();
  const LinkFigures& w = *g.path.worst;
  f.gpu_link = fmt::format("{} over {}", collective_name(g.path.kind), w.name);
  const bool mesh = g.path.kind == CollectiveKind::kJacclMesh;
  // As a GPU group's all-reduce, lambda + 2(d-1) steps: a mesh's one exchange has a step of half
  // a peer; a ring's 2(d-1) steps each pay the link's latency and their part of a peer.
  f.gpu_link_latency_s = mesh ? w.latency_s : 0;
  f.gpu_link_step_s = mesh ? g.path.peer_s / 2 : w.latency_s + g.path.peer_s / d;
  f.gpu_link_bandwidth = w.bandwidth;
  return f;
}

std::vector<HostGrouping> host_groupings(const PlanningProblem& problem,
                                         const TensorCostModel& cost,
                                         const std::vector<size_t>& eligible, size_t max_groupings,
                                         bool& capped) {
  Groupings walker(problem, cost, eligible, max_groupings);
  return walker.all(capped);
}

}  // namespace meshplan
