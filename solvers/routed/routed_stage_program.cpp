#include "solvers/routed/routed_stage_program.hpp"

#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "solvers/routed/routed_lanes.hpp"

namespace meshplan {
namespace {

struct Stage {
  int length = 0;
  std::vector<int> hosts;  // per kind
  bool operator==(const Stage&) const = default;
};

// Stages with more hosts than this are left out: they waste too much to be worth a column.
constexpr int kMostHostsPerStage = 8;
constexpr size_t kMostStages = 20000;

// The stages at F: for every length, the host counts per kind whose capacities reach F and fall
// below it when any one host leaves (a larger stage only wastes hosts).
std::vector<Stage> stages_at(const std::vector<GroupLanes>& lanes,
                             const std::vector<std::vector<size_t>>& groups, int layers, double F) {
  std::vector<Stage> out;
  const size_t G = lanes.size();
  std::vector<int> m(G, 0);
  std::vector<bool> any_cap(G, false);
  int length = 0;
  auto cap = [&](size_t g, int k) { return lanes[g].capacity(k, length); };
  std::function<void(size_t, double, int)> add = [&](size_t g, double sum, int used) {
    if (out.size() >= kMostStages) return;
    if (sum >= F) {
      double smallest = std::numeric_limits<double>::infinity();
      for (size_t k = 0; k < G; ++k)
        if (m[k] > 0) smallest = std::min(smallest, cap(k, m[k]) - cap(k, m[k] - 1));
      if (sum - smallest < F) out.push_back({length, m});
      return;
    }
    if (g == G || used == kMostHostsPerStage) return;
    add(g + 1, sum, used);
    for (int k = 1;
         any_cap[g] && static_cast<size_t>(k) <= groups[g].size() && used + k <= kMostHostsPerStage;
         ++k) {
      if (cap(g, k) <= 0) continue;
      m[g] = k;
      add(g + 1, sum + cap(g, k), used + k);
      if (sum + cap(g, k) >= F) break;
    }
    m[g] = 0;
  };
  for (length = 1; length <= layers; ++length) {
    bool any = false;
    for (size_t g = 0; g < G; ++g) {
      any_cap[g] =
          cap(g, static_cast<int>(std::min<size_t>(groups[g].size(), kMostHostsPerStage))) > 0;
      any = any || any_cap[g];
    }
    if (any) add(0, 0, 0);
  }
  return out;
}

// The branch and bound stops after this many nodes, or once its calls back times the program's
// columns (each call follows a pass over the columns) pass kProgramWork: a budget of work, so
// that the answer does not depend on how busy the machine is. All the programs of one bisection
// share kProgramTotalWork: at the budget each takes a few tenths of a second on the 2-core
// machine, and a bisection of 30 of them had taken seconds.
constexpr int kProgramNodes = 200;
constexpr double kProgramWork = 3e5;
constexpr double kProgramTotalWork = 6e5;

struct ProgramBudget {
  double columns = 0;
  int64_t calls = 0;
  double* spent = nullptr;  // by every program of the bisection
};

void stop_at_work_budget(glp_tree* tree, void* info) {
  ProgramBudget& budget = *static_cast<ProgramBudget*>(info);
  *budget.spent += budget.columns;
  if (static_cast<double>(++budget.calls) * budget.columns > kProgramWork ||
      *budget.spent > kProgramTotalWork) {
    glp_ios_terminate(tree);
    return;
  }
  if (glp_ios_reason(tree) != GLP_ISELECT) return;
  int active = 0, alive = 0, total = 0;
  glp_ios_tree_size(tree, &active, &alive, &total);
  if (total > kProgramNodes) glp_ios_terminate(tree);
}

// How many of each stage reach exactly `layers` within the host counts; empty when none do (or
// the program ran out of its budget first, or `budget_left` is spent). Adds its work to `spent`.
std::vector<int> solve(const std::vector<Stage>& stages,
                       const std::vector<std::vector<size_t>>& groups, int layers,
                       double budget_left, double& spent) {
  if (stages.empty() || budget_left <= 0) return {};
  const size_t G = groups.size();
  glp_term_out(GLP_OFF);  // the library never prints
  glp_prob* P = glp_create_prob();
  glp_set_obj_dir(P, GLP_MAX);
  glp_add_rows(P, static_cast<int>(G) + 1);
  for (size_t g = 0; g < G; ++g)
    glp_set_row_bnds(P, static_cast<int>(g) + 1, GLP_UP, 0, static_cast<double>(groups[g].size()));
  glp_set_row_bnds(P, static_cast<int>(G) + 1, GLP_UP, 0, layers);
  glp_add_cols(P, static_cast<int>(stages.size()));
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0};
  for (size_t s = 0; s < stages.size(); ++s) {
    const int col = static_cast<int>(s) + 1;
    glp_set_col_kind(P, col, GLP_IV);
    glp_set_col_bnds(P, col, GLP_LO, 0, 0);
    glp_set_obj_coef(P, col, stages[s].length);
    for (size_t g = 0; g < G; ++g)
      if (stages[s].hosts[g] > 0) {
        ia.push_back(static_cast<int>(g) + 1);
        ja.push_back(col);
        ar.push_back(stages[s].hosts[g]);
      }
    ia.push_back(static_cast<int>(G) + 1);
    ja.push_back(col);
    ar.push_back(stages[s].length);
  }
  glp_load_matrix(P, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
  glp_iocp ip;
  glp_init_iocp(&ip);
  ip.presolve = GLP_ON;
  ip.msg_lev = GLP_MSG_OFF;
  ProgramBudget budget{static_cast<double>(stages.size()), 0, &spent};
  ip.cb_func = stop_at_work_budget;
  ip.cb_info = &budget;
  std::vector<int> count;
  glp_intopt(P, &ip);
  const int status = glp_mip_status(P);
  if ((status == GLP_OPT || status == GLP_FEAS) && glp_mip_obj_val(P) > layers - 0.5) {
    count.resize(stages.size());
    for (size_t s = 0; s < stages.size(); ++s)
      count[s] = static_cast<int>(std::lround(glp_mip_col_val(P, static_cast<int>(s) + 1)));
  }
  glp_delete_prob(P);
  return count;
}

}  // namespace

Chains program_stage_layout(const RoutedInstance& in,
                            const std::vector<std::vector<size_t>>& groups, double low, double high,
                            const Clock& clock, double deadline) {
  Chains out;
  out.layout.assign(in.hosts.size(), {});
  if (in.layers <= 0 || groups.empty() || !(high > low)) return out;
  std::vector<LaneTables> lane_tables;
  std::vector<GroupLanes> lanes;
  for (const std::vector<size_t>& g : groups) {
    lane_tables.emplace_back(in, g.front(), g.size(), kMostHostsPerStage);
    lanes.emplace_back(lane_tables.back(),
                       static_cast<int>(std::min<size_t>(g.size(), kMostHostsPerStage)), in.layers);
  }
  double spent = 0;
  // Targets close together often give the same stages, and so the same answer.
  std::vector<Stage> last_stages;
  bool last_answer = false;
  // A layout from the program's counts: stages end to end, hosts of a kind in group order.
  auto reaches = [&](double F) {
    const std::vector<Stage> stages = stages_at(lanes, groups, in.layers, F);
    if (!last_stages.empty() && stages == last_stages) return last_answer;
    const std::vector<int> count =
        solve(stages, groups, in.layers, deadline - clock.now_seconds(), spent);
    last_stages = stages;
    last_answer = !count.empty();
    if (count.empty()) return false;
    std::vector<size_t> picks;  // stage indices, one per stage of the layout
    for (size_t k = 0; k < stages.size(); ++k)
      picks.insert(picks.end(), static_cast<size_t>(count[k]), k);
    // The order does not matter on a switch but at the ends: the last stage pays the LM head, so
    // each stage is tried last.
    for (size_t last = 0; last < picks.size(); ++last) {
      if (last > 0 && picks[last] == picks[last - 1]) continue;
      std::vector<size_t> order = picks;
      std::rotate(order.begin() + static_cast<long>(last),
                  order.begin() + static_cast<long>(last) + 1, order.end());
      RoutedLayout layout(in.hosts.size());
      std::vector<size_t> next(groups.size(), 0);
      int at = 0;
      for (size_t k : order) {
        const int len = stages[k].length;
        for (size_t g = 0; g < groups.size(); ++g)
          for (int q : lanes[g].lanes(stages[k].hosts[g], len))
            lane_tables[g].lay(lane_position(at, len, in.layers), q, at, len, [&](int s0, int n0) {
              layout[groups[g][next[g]++]] = {s0, s0 + n0};
            });
        at += len;
      }
      keep_if_better(out, in, layout);
    }
    return true;
  };
  double lo = std::max(0.0, low), hi = high;
  if (lo <= 0) lo = hi / 2;
  for (int it = 0; it < 30 && hi - lo > 1e-4 * hi && clock.now_seconds() < deadline &&
                   spent <= kProgramTotalWork;
       ++it) {
    const double mid = (lo + hi) / 2;
    (reaches(mid) ? lo : hi) = mid;
  }
  return out;
}

}  // namespace meshplan
