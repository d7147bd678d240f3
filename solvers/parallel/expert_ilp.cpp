#include "solvers/parallel/expert_ilp.hpp"

#include <glpk.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "lib/core/error.hpp"

namespace meshplan {
namespace {

// Times enter the program in microseconds: GLPK's tolerances are absolute near 1, and layer
// times are around 1e-4 s.
constexpr double kScale = 1e6;

struct Problem {
  glp_prob* p = glp_create_prob();
  ~Problem() { glp_delete_prob(p); }
};

struct Search {
  std::vector<double> start;  // the incumbent, 1-based column values (empty: none)
  bool offered = false;
  double bound = 0;
};

void callback(glp_tree* tree, void* info) {
  auto* s = static_cast<Search*>(info);
  if (glp_ios_reason(tree) == GLP_IHEUR && !s->offered && !s->start.empty()) {
    s->offered = true;
    glp_ios_heur_sol(tree, s->start.data());
  }
  if (int node = glp_ios_best_node(tree))
    s->bound = std::max(s->bound, glp_ios_node_bound(tree, node));
}

// The program's columns, 1-based: x(e, i) whether rank i holds expert e, y(e, i) the share of
// expert e's tokens rank i serves, and T the makespan.
struct Columns {
  int E, H;
  int x(int e, int i) const { return 1 + e * H + i; }
  int y(int e, int i) const { return 1 + E * H + e * H + i; }
  int T() const { return 1 + 2 * E * H; }
};

// Binary holdings, shares in [0, 1], and the makespan as the objective.
void add_columns(glp_prob* P, const Columns& c) {
  const int E = c.E, H = c.H;
  glp_add_cols(P, c.T());
  for (int e = 0; e < E; ++e) {
    for (int i = 0; i < H; ++i) {
      glp_set_col_kind(P, c.x(e, i), GLP_BV);
      glp_set_col_bnds(P, c.y(e, i), GLP_DB, 0.0, 1.0);
    }
  }
  glp_set_col_bnds(P, c.T(), GLP_LO, 0.0, 0.0);
  glp_set_obj_coef(P, c.T(), 1.0);
}

// Each expert's tokens shared out over the ranks that hold it (evenly: a holder serves as much as
// any other), each rank's capacity, and each rank's time under the makespan.
void add_rows(glp_prob* P, const ExpertInstance& inst, const Columns& c) {
  const int E = c.E, H = c.H;
  std::vector<int> ia = {0}, ja = {0};
  std::vector<double> ar = {0};
  int row = 0;
  auto add_row = [&](int type, double lo, double hi,
                     std::initializer_list<std::pair<int, double>> terms) {
    row = glp_add_rows(P, 1);
    glp_set_row_bnds(P, row, type, lo, hi);
    for (auto [col, v] : terms) {
      ia.push_back(row);
      ja.push_back(col);
      ar.push_back(v);
    }
  };
  for (int e = 0; e < E; ++e) {
    row = glp_add_rows(P, 1);
    glp_set_row_bnds(P, row, GLP_FX, 1.0, 1.0);
    for (int i = 0; i < H; ++i) {
      ia.push_back(row);
      ja.push_back(c.y(e, i));
      ar.push_back(1.0);
    }
    for (int i = 0; i < H; ++i) {
      add_row(GLP_UP, 0, 0, {{c.y(e, i), 1.0}, {c.x(e, i), -1.0}});
      for (int j = 0; j < H; ++j)
        if (j != i) add_row(GLP_UP, 0, 1, {{c.y(e, j), 1.0}, {c.y(e, i), -1.0}, {c.x(e, i), 1.0}});
    }
  }
  for (int i = 0; i < H; ++i) {
    row = glp_add_rows(P, 1);
    glp_set_row_bnds(P, row, GLP_UP, 0, std::min(inst.hosts[static_cast<size_t>(i)].capacity, E));
    for (int e = 0; e < E; ++e) {
      ia.push_back(row);
      ja.push_back(c.x(e, i));
      ar.push_back(1.0);
    }
    const auto& h = inst.hosts[static_cast<size_t>(i)];
    row = glp_add_rows(P, 1);
    glp_set_row_bnds(P, row, GLP_UP, 0, -h.base_s * kScale);
    for (int e = 0; e < E; ++e) {
      ia.push_back(row);
      ja.push_back(c.y(e, i));
      ar.push_back(inst.experts_per_token * h.expert_s * kScale *
                   inst.load[static_cast<size_t>(e)]);
    }
    ia.push_back(row);
    ja.push_back(c.T());
    ar.push_back(-1.0);
  }
  glp_load_matrix(P, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
}

// The incumbent placement as column values, each copy serving an equal share of its expert.
std::vector<double> incumbent_start(const ExpertInstance& inst, const ExpertPlacement& incumbent,
                                    const Columns& c) {
  const int E = c.E, H = c.H;
  std::vector<double> start;
  start.assign(static_cast<size_t>(c.T()) + 1, 0.0);
  std::vector<int> copies(static_cast<size_t>(E), 0);
  for (const auto& h : incumbent.experts)
    for (int e : h)
      ++copies[static_cast<size_t>(e)];
  for (int i = 0; i < H; ++i)
    for (int e : incumbent.experts[static_cast<size_t>(i)]) {
      start[static_cast<size_t>(c.x(e, i))] = 1.0;
      start[static_cast<size_t>(c.y(e, i))] = 1.0 / copies[static_cast<size_t>(e)];
    }
  start[static_cast<size_t>(c.T())] = placement_makespan(inst, incumbent.experts) * kScale;
  return start;
}

// The placement the integer solution makes: the experts each rank holds.
std::vector<std::vector<int>> solved_experts(glp_prob* P, const Columns& c) {
  const int E = c.E, H = c.H;
  std::vector<std::vector<int>> experts(static_cast<size_t>(H));
  for (int i = 0; i < H; ++i)
    for (int e = 0; e < E; ++e)
      if (glp_mip_col_val(P, c.x(e, i)) > 0.5) experts[static_cast<size_t>(i)].push_back(e);
  return experts;
}

}  // namespace

std::optional<ExpertIlpResult> solve_expert_ilp(const ExpertInstance& inst,
                                                const ExpertPlacement* incumbent,
                                                double time_limit_s) {
  const int E = static_cast<int>(inst.load.size());
  const int H = static_cast<int>(inst.hosts.size());
  if (static_cast<size_t>(E) * static_cast<size_t>(H) > kExpertIlpMaxBinaries) {
    throw input_error(
        "--solver ilp: {} experts on {} ranks is {} assignment variables; the integer program "
        "handles at most {} (use the default solver)",
        E, H, E * H, kExpertIlpMaxBinaries);
  }
  int capacity = 0;
  for (const auto& h : inst.hosts)
    capacity += std::min(std::max(0, h.capacity), E);
  if (H == 0 || capacity < E) return std::nullopt;

  glp_term_out(GLP_OFF);
  Problem prob;
  glp_prob* P = prob.p;
  glp_set_obj_dir(P, GLP_MIN);
  const Columns cols{E, H};
  add_columns(P, cols);
  add_rows(P, inst, cols);

  Search search;
  search.bound = expert_lower_bound(inst) * kScale;
  if (incumbent) search.start = incumbent_start(inst, *incumbent, cols);

  glp_smcp lp;
  glp_init_smcp(&lp);
  lp.msg_lev = GLP_MSG_OFF;
  if (glp_simplex(P, &lp) != 0 || glp_get_status(P) != GLP_OPT) {
    throw internal_error("the expert placement's linear relaxation did not solve");
  }
  glp_iocp ip;
  glp_init_iocp(&ip);
  ip.msg_lev = GLP_MSG_OFF;
  ip.tm_lim = static_cast<int>(std::max(1.0, time_limit_s * 1e3));
  ip.cb_func = callback;
  ip.cb_info = &search;
  ip.gmi_cuts = GLP_ON;
  ip.mir_cuts = GLP_ON;
  const int rc = glp_intopt(P, &ip);
  const int status = glp_mip_status(P);
  if (status != GLP_OPT && status != GLP_FEAS) {
    if (rc == GLP_ETMLIM)
      throw failure("--solver ilp: no placement found within {:.0f} s", time_limit_s);
    return std::nullopt;
  }
  ExpertIlpResult out;
  out.optimal = status == GLP_OPT && rc == 0;
  out.placement.experts = solved_experts(P, cols);
  out.placement.makespan = placement_makespan(inst, out.placement.experts);
  out.placement.lower_bound = out.optimal ? out.placement.makespan
                                          : std::min(search.bound / kScale, out.placement.makespan);
  return out;
}

}  // namespace meshplan
