#include "solvers/routed/routed_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>

#include "solvers/routed/routed_chains.hpp"
#include "solvers/routed/routed_cover_bound.hpp"
#include "solvers/routed/routed_greedy.hpp"
#include "solvers/routed/routed_linked_stages.hpp"
#include "solvers/routed/routed_regions.hpp"
#include "solvers/routed/routed_stage_program.hpp"
#include "solvers/routed/routed_stages.hpp"
#include "solvers/routed/routed_twins.hpp"

namespace meshplan {
namespace {

struct Group {
  std::vector<size_t> members;  // hosts, placed in this order
  std::vector<int> lengths;     // candidate range lengths, most layer work first
  LayerWork work;
  size_t placed = 0;
};

class Search {
 public:
  Search(const RoutedInstance& in, const RoutedOptions& options, const Clock& clock,
         double deadline)
      : in_(in), options_(options), clock_(clock), cur_(in.hosts.size()), deadline_(deadline) {
    const size_t L = static_cast<size_t>(in.layers);
    for (std::vector<size_t>& members : interchangeable_hosts(in)) {
      Group g;
      g.members = std::move(members);
      const size_t i = g.members.front();
      const auto& t = in.hosts[i].table;
      std::vector<double> capped(t.begin(), t.begin() + std::min(t.size(), L));
      g.work = LayerWork(bound_table(in.hosts[i], in.layers));
      for (size_t k = 1; k <= capped.size(); ++k)
        g.lengths.push_back(static_cast<int>(k));
      std::stable_sort(g.lengths.begin(), g.lengths.end(), [&](int a, int b) {
        return a * capped[static_cast<size_t>(a - 1)] > b * capped[static_cast<size_t>(b - 1)];
      });
      groups_.push_back(std::move(g));
    }
  }

  void start_from(double flow, const RoutedLayout& layout) {
    if (flow > best_) {
      best_ = flow;
      best_layout_ = layout;
    }
  }
  void run() { visit(0); }
  bool stopped() const { return stopped_; }
  int64_t nodes() const { return nodes_; }
  double best() const { return best_; }
  const RoutedLayout& best_layout() const { return best_layout_; }
  int groups() const { return static_cast<int>(groups_.size()); }

 private:
  void visit(int p) {
    if (stopped_) return;
    if (p == in_.layers) {
      const double f = routed_flow_total(in_, cur_);
      if (f > best_ * kRoutedBetter || (best_layout_.empty() && f > 0)) {
        best_ = f;
        best_layout_ = cur_;
      }
      return;
    }
    choose(p, 0, 0, 0);
  }

  // Starts hosts at point p: group g's next member with a length at or after `from` in the
  // group's list (so two members of a group never swap), or moves on to the next group.
  void choose(int p, size_t g, size_t from, int started) {
    if (stopped_) return;
    if (g == groups_.size()) {
      finish_point(p, started);
      return;
    }
    Group& grp = groups_[g];
    if (grp.placed < grp.members.size()) {
      const size_t host = grp.members[grp.placed];
      for (size_t idx = from; idx < grp.lengths.size(); ++idx) {
        const int k = grp.lengths[idx];
        if (p + k > in_.layers) continue;
        const LayerRange r{p, p + k};
        if (range_capacity(in_, host, r) <= 0) continue;
        cur_[host] = r;
        ++grp.placed;
        if (work_allows(p)) choose(p, g, idx, started + 1);
        --grp.placed;
        cur_[host] = {};
        if (stopped_) return;
      }
    }
    choose(p, g + 1, 0, started);
  }

  void finish_point(int p, int started) {
    // Hosts end at p (or p is the first layer): something must start here, or they carry nothing
    // and the same layout without them is searched elsewhere.
    if (started == 0) return;
    if (++nodes_ % 256 == 0 && (clock_.now_seconds() > deadline_ || nodes_ > options_.max_nodes)) {
      stopped_ = true;
      return;
    }
    int q = in_.layers;
    for (const LayerRange& r : cur_)
      if (r.used() && r.end > p) q = std::min(q, r.end);
    bool unplaced = false;
    for (const Group& grp : groups_)
      unplaced = unplaced || grp.placed < grp.members.size();
    if (q < in_.layers && !unplaced) return;
    if (routed_flow_total(in_, cur_, p) <= best_ * kRoutedBetter) return;
    visit(q);
  }

  // Whether a flow above the best can still cover layers [p, L): the open hosts' layers past p
  // and the unplaced hosts' best layer work at that flow.
  bool work_allows(int p) const {
    const double f = best_ * kRoutedBetter;
    if (f <= 0) return true;
    double passes = 0;
    for (size_t i = 0; i < cur_.size(); ++i)
      if (cur_[i].used() && cur_[i].end > p)
        passes += (cur_[i].end - p) * std::min(range_capacity(in_, i, cur_[i]) / f, 1.0);
    for (const Group& grp : groups_)
      passes += static_cast<double>(grp.members.size() - grp.placed) * grp.work.per_flow(f);
    return passes >= (in_.layers - p) * (1 - 1e-12);
  }

  const RoutedInstance& in_;
  const RoutedOptions& options_;
  const Clock& clock_;
  std::vector<Group> groups_;
  RoutedLayout cur_;
  double best_ = 0;
  RoutedLayout best_layout_;
  int64_t nodes_ = 0;
  bool stopped_ = false;
  double deadline_;
};

// Records each step's seconds in the solution, in order: lap(name) ends the step `name`.
class PhaseTimer {
 public:
  PhaseTimer(const Clock& clock, RoutedSolution& out, double started)
      : clock_(clock), out_(out), mark_(started) {}
  void lap(const char* name) {
    const double now = clock_.now_seconds();
    out_.phases.push_back({name, now - mark_});
    mark_ = now;
  }

 private:
  const Clock& clock_;
  RoutedSolution& out_;
  double mark_;
};

// Shares of the work budget, each step's own (so that one step's use never changes another's).
constexpr double kSweepShare = 0.15;    // perturbed sweeps after the bisections
constexpr double kProgramShare = 0.10;  // the stage program, on one region
constexpr double kChainShare = 0.25;    // regions side by side and in series
constexpr double kMoveShare = 0.25;     // local moves from the best start
constexpr double kSearchShare = 0.25;   // the branch and bound

// A step's budget: a clock of its own that advances a step each time it is read, and its limit.
struct StepBudget {
  StepBudget(size_t hosts, double budget_s, double share)
      : clock(routed_read_step_s(hosts)), deadline(budget_s * share) {}
  WorkClock clock;
  double deadline;
};

// The best of the starts so far (the greedy slot keeps the best of sweeps, program and regions).
double best_start(const RoutedSolution& out) {
  return std::max({out.pipeline.tokens_per_s, out.replicas.tokens_per_s, out.stages.tokens_per_s,
                   out.greedy.tokens_per_s});
}

bool meets_bound(const RoutedSolution& out, double flow) {
  return flow >= out.bound.tokens_per_s * (1 - 1e-9);
}

// The upper bound and the starting layouts: baselines, stage layouts, sweeps, the stage program
// and regions, each within its share of the budget. Stops once a start meets the bound.
// `borrowed_s`: the work the stages that weigh their links took, out of the branch and bound's
// share.
void bound_and_start(const RoutedInstance& in, const RoutedOptions& options, RoutedSolution& out,
                     PhaseTimer& phase, const RoutedBound* known, double& borrowed_s) {
  out.bound = known ? *known : routed_upper_bound(in);
  if (options.covers)
    if (const double c = layer_cover_bound(link_capped(in), out.bound.tokens_per_s);
        c < out.bound.tokens_per_s * (1 - 1e-9)) {
      out.bound.tokens_per_s = c;
      out.bound.method =
          "covers of the layers: at that flow, no way of covering the first layer, the last and "
          "those between with whole hosts (each counted at most the flow, a host holding k "
          "layers giving 1/k of itself to each) fits the hosts there are";
    }
  phase.lap("upper bound");
  out.pipeline = best_pipeline(in, std::vector<bool>(in.hosts.size(), true));
  phase.lap("single pipeline");
  out.replicas = greedy_replicas(in);
  phase.lap("disjoint replicas");
  const auto groups = interchangeable_hosts(in);
  out.stages = best_stage_layout(in, groups);
  const double low = std::max(out.pipeline.tokens_per_s, out.replicas.tokens_per_s);
  if (out.stages.tokens_per_s <= 0)
    out.stages = best_kind_stages(in, groups, low, out.bound.tokens_per_s);
  phase.lap("stage layouts");
  if (meets_bound(out, best_start(out))) return;
  const size_t n = in.hosts.size();
  const double budget = options.time_limit_s;
  {
    // The bisections from 0, as the plain sweep runs them (so the result is never below that),
    // then perturbed sweeps within their share.
    const StepBudget b(n, budget, kSweepShare);
    out.greedy = greedy_stage_layout(in, groups, 0, out.bound.tokens_per_s, b.clock, b.deadline);
  }
  phase.lap("sweep over shared boundaries");
  if (meets_bound(out, best_start(out))) return;
  // Where slow links join regions, a stage layout of the whole cluster ignores them: the regions
  // side by side and in series instead (each region's own stage program among them).
  if (routed_regions(in).size() < 2) {
    const StepBudget b(n, budget, kProgramShare);
    Chains p = program_stage_layout(in, groups, best_start(out), out.bound.tokens_per_s, b.clock,
                                    b.deadline);
    if (p.tokens_per_s > out.greedy.tokens_per_s) out.greedy = std::move(p);
    phase.lap("stage program");
  } else {
    const StepBudget b(n, budget, kChainShare);
    Chains r = region_chains_layout(in, b.clock, b.deadline);
    if (r.tokens_per_s > out.greedy.tokens_per_s) out.greedy = std::move(r);
    phase.lap("regions side by side and in series");
    if (meets_bound(out, best_start(out))) return;
    // Stages that mix the regions' hosts where the tokens cross (routed_linked_stages.hpp); only
    // a layout above every start comes back.
    // Its steps come out of the branch and bound's share, so it never takes more than that.
    const double share_s = options.time_limit_s * kSearchShare;
    const int64_t most = std::min(kMostLinkedSteps, static_cast<int64_t>(share_s / kLinkedStepS));
    int64_t steps = 0;
    Chains s = linked_stage_layout(in, groups, best_start(out), most, &steps);
    borrowed_s = static_cast<double>(steps) * kLinkedStepS;
    if (s.tokens_per_s > out.stages.tokens_per_s) out.stages = std::move(s);
    phase.lap("stages weighing their links");
  }
}

// Whether the layout found is optimal, and how that was shown (or how far from the bound it is).
void state_proof(RoutedSolution& out, bool stopped) {
  if (out.flow.total >= out.bound.tokens_per_s * (1 - 1e-9)) {
    out.optimal = true;
    out.proof = "meets the upper bound";
  } else if (!stopped) {
    out.optimal = true;
    out.proof = fmt::format(
        "branch and bound searched every layout ({} partial layouts visited, {} groups of "
        "interchangeable hosts)",
        out.nodes, out.groups);
  } else {
    out.proof = fmt::format(
        "search stopped at its work budget, after {} partial layouts ({:.1f} s); the best found "
        "is within {:.3g} % of the upper bound",
        out.nodes, out.solve_s,
        out.flow.total > 0 ? (out.bound.tokens_per_s / out.flow.total - 1) * 100 : 100.0);
  }
}

}  // namespace

// Links to the others are compared as sorted lists (a fleet's: its distinct links), which no
// order of the hosts changes.
std::vector<size_t> routed_canonical_order(const RoutedInstance& in) {
  const size_t n = in.hosts.size();
  struct Key {
    std::vector<double> table;
    int first, last, both;
    double head_s;
    std::vector<double> out, into;
    auto tie() const { return std::tie(table, first, last, both, head_s, out, into); }
  };
  std::vector<Key> keys(n);
  // A fleet's links held as the planner holds them: each host's distinct links, not one a pair.
  const LinkMatrix::Distinct none;
  const bool fleet = in.link.empty() && in.links;
  const LinkMatrix::Distinct& out_links = fleet ? in.links->distinct_links(false) : none;
  const LinkMatrix::Distinct& into_links = fleet ? in.links->distinct_links(true) : none;
  auto tokens = [&](const std::optional<LinkFigures>& l) {
    return l && in.message_bytes > 0 ? l->bandwidth / in.message_bytes : 0.0;
  };
  for (size_t i = 0; i < n; ++i) {
    const RoutedHost& h = in.hosts[i];
    Key& k = keys[i];
    k.table = h.table;
    k.first = h.max_with_first;
    k.last = h.max_with_last;
    k.both = h.max_with_both;
    k.head_s = h.head_s;
    if (!out_links.empty()) {
      for (const auto& l : out_links[i])
        k.out.push_back(tokens(l));
      for (const auto& l : into_links[i])
        k.into.push_back(tokens(l));
    } else if (!in.link.empty()) {
      for (size_t j = 0; j < n; ++j)
        if (j != i) {
          k.out.push_back(in.link[i][j]);
          k.into.push_back(in.link[j][i]);
        }
    }
    std::sort(k.out.begin(), k.out.end());
    std::sort(k.into.begin(), k.into.end());
  }
  std::vector<std::vector<size_t>> regions = routed_regions(in);
  std::vector<std::vector<std::vector<double>>> region_tables;
  for (std::vector<size_t>& r : regions) {
    std::stable_sort(r.begin(), r.end(),
                     [&](size_t a, size_t b) { return keys[a].tie() > keys[b].tie(); });
    region_tables.emplace_back();
    for (size_t i : r)
      region_tables.back().push_back(keys[i].table);
  }
  std::vector<size_t> by(regions.size());
  std::iota(by.begin(), by.end(), 0);
  std::stable_sort(by.begin(), by.end(), [&](size_t a, size_t b) {
    if (regions[a].size() != regions[b].size()) return regions[a].size() > regions[b].size();
    return region_tables[a] > region_tables[b];
  });
  std::vector<size_t> order;
  for (size_t k : by)
    order.insert(order.end(), regions[k].begin(), regions[k].end());
  return order;
}

namespace {

RoutedLayout in_callers_order(const RoutedLayout& layout, const std::vector<size_t>& order) {
  if (layout.size() != order.size()) return layout;
  RoutedLayout out(layout.size());
  for (size_t a = 0; a < order.size(); ++a)
    out[order[a]] = layout[a];
  return out;
}

// `known`: the instance's upper bound, where the caller has worked it out already.
RoutedSolution solve_in_order(const RoutedInstance& in, const RoutedOptions& options,
                              const RoutedBound* known);

}  // namespace

double routed_read_step_s(size_t hosts) {
  return 0.005 * static_cast<double>(std::max<size_t>(hosts, 4)) / 42.0;
}

namespace {

bool same_instance(const RoutedInstance& a, const RoutedInstance& b) {
  if (a.hosts.size() != b.hosts.size() || a.link != b.link) return false;
  for (size_t i = 0; i < a.hosts.size(); ++i) {
    const RoutedHost &x = a.hosts[i], &y = b.hosts[i];
    if (x.table != y.table || x.head_s != y.head_s || x.max_with_first != y.max_with_first ||
        x.max_with_last != y.max_with_last || x.max_with_both != y.max_with_both)
      return false;
  }
  return true;
}

// The search over the hosts in their canonical order, its layouts in the caller's.
RoutedSolution solve_canonically(const RoutedInstance& in, const RoutedOptions& options,
                                 const RoutedBound* known = nullptr) {
  const std::vector<size_t> order = routed_canonical_order(in);
  RoutedSolution s = solve_in_order(routed_reordered(in, order), options, known);
  s.layout = in_callers_order(s.layout, order);
  for (Chains* c : {&s.pipeline, &s.replicas, &s.stages, &s.greedy})
    c->layout = in_callers_order(c->layout, order);
  return s;
}

}  // namespace

RoutedSolution solve_routed(const RoutedInstance& given, const RoutedOptions& options,
                            const RoutedBound* known) {
  // The bound of the real figures, worked out once: it also says which links cannot bind.
  const RoutedBound bound = known ? *known : routed_upper_bound(given);
  const RoutedInstance in = routed_unbound_links(given, bound.tokens_per_s);
  RoutedSolution s = solve_canonically(in, options, &bound);
  s.flow = routed_max_flow(given, s.layout);
  // Hosts that improve a little on others are also planned as their copies (routed_twins.hpp);
  // the better layout on the real figures is kept, against the bound of the real ones.
  const RoutedInstance copies = routed_without_variants(in, bound.tokens_per_s);
  if (!same_instance(copies, in)) {
    SteadyClock steady;
    const Clock& clock = options.clock ? *options.clock : steady;
    const double started = clock.now_seconds();
    RoutedSolution t = solve_canonically(copies, options);
    const RoutedFlow f = routed_max_flow(given, t.layout);
    s.nodes += t.nodes;
    if (f.total > s.flow.total * kRoutedBetter) {
      s.layout = std::move(t.layout);
      s.flow = f;
      s.greedy.tokens_per_s = std::max(s.greedy.tokens_per_s, f.total);
      s.optimal = s.flow.total >= s.bound.tokens_per_s * (1 - 1e-9);
      s.proof = s.optimal ? "meets the upper bound"
                          : fmt::format(
                                "search stopped at its work budget; the best found, with hosts "
                                "that improve a little on others planned as their copies, is "
                                "within {:.3g} % of the upper bound",
                                (s.bound.tokens_per_s / s.flow.total - 1) * 100);
    }
    const double took = clock.now_seconds() - started;
    s.phases.push_back({"hosts planned as copies of those they improve on", took});
    s.solve_s += took;
  }
  return s;
}

namespace {

RoutedSolution solve_in_order(const RoutedInstance& in, const RoutedOptions& options,
                              const RoutedBound* known) {
  SteadyClock steady;
  const Clock& clock = options.clock ? *options.clock : steady;
  const double started = clock.now_seconds();
  // Every limit is read on a step's own work clock (StepBudget); `clock` only reports.
  RoutedSolution out;
  PhaseTimer phase(clock, out, started);
  double borrowed_s = 0;
  bound_and_start(in, options, out, phase, known, borrowed_s);

  StepBudget search_budget(in.hosts.size(), options.time_limit_s, kSearchShare);
  search_budget.deadline = std::max(0.0, search_budget.deadline - borrowed_s);
  Search search(in, options, search_budget.clock, search_budget.deadline);
  // Local moves from the best starting layout; the branch and bound starts from what they reach.
  Chains seed = out.greedy;
  for (const Chains* c : {&out.pipeline, &out.replicas, &out.stages})
    if (c->tokens_per_s > seed.tokens_per_s) seed = *c;
  search.start_from(out.pipeline.tokens_per_s, out.pipeline.layout);
  search.start_from(out.replicas.tokens_per_s, out.replicas.layout);
  search.start_from(out.stages.tokens_per_s, out.stages.layout);
  search.start_from(out.greedy.tokens_per_s, out.greedy.layout);
  if (seed.tokens_per_s > 0 && !meets_bound(out, seed.tokens_per_s)) {
    const StepBudget b(in.hosts.size(), options.time_limit_s, kMoveShare);
    out.moves = improve_by_moves(in, seed, b.clock, b.deadline);
    search.start_from(seed.tokens_per_s, seed.layout);
  }
  phase.lap("local moves");
  if (!meets_bound(out, search.best()) && in.layers > 0 && !in.hosts.empty()) search.run();
  phase.lap("branch and bound");
  out.layout = search.best_layout();
  if (out.layout.empty()) out.layout.assign(in.hosts.size(), {});
  out.flow = routed_max_flow(in, out.layout);
  out.nodes = search.nodes();
  out.groups = search.groups();
  out.solve_s = clock.now_seconds() - started;
  state_proof(out, search.stopped());
  return out;
}

}  // namespace

}  // namespace meshplan
