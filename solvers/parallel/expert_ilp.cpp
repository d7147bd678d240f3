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
  auto x = [&](int e, int i) { return 1 + e * H + i; };
  auto y = [&](int e, int i) { return 1 + E * H + e * H + i; };
  const int T = 1 + 2 * E * H;
  glp_add_cols(P, T);
  for (int e = 0; e < E; ++e) {
    for (int i = 0; i < H; ++i) {
      glp_set_col_kind(P, x(e, i), GLP_BV);
      glp_set_col_bnds(P, y(e, i), GLP_DB, 0.0, 1.0);
    }
  }
  glp_set_col_bnds(P, T, GLP_LO, 0.0, 0.0);
  glp_set_obj_coef(P, T, 1.0);

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
      ja.push_back(y(e, i));
      ar.push_back(1.0);
    }
    for (int i = 0; i < H; ++i) {
      add_row(GLP_UP, 0, 0, {{y(e, i), 1.0}, {x(e, i), -1.0}});
      for (int j = 0; j < H; ++j)
        if (j != i) add_row(GLP_UP, 0, 1, {{y(e, j), 1.0}, {y(e, i), -1.0}, {x(e, i), 1.0}});
    }
  }
  for (int i = 0; i < H; ++i) {
    row = glp_add_rows(P, 1);
    glp_set_row_bnds(P, row, GLP_UP, 0, std::min(inst.hosts[static_cast<size_t>(i)].capacity, E));
    for (int e = 0; e < E; ++e) {
      ia.push_back(row);
      ja.push_back(x(e, i));
      ar.push_back(1.0);
    }
    const auto& h = inst.hosts[static_cast<size_t>(i)];
    row = glp_add_rows(P, 1);
    glp_set_row_bnds(P, row, GLP_UP, 0, -h.base_s * kScale);
    for (int e = 0; e < E; ++e) {
      ia.push_back(row);
      ja.push_back(y(e, i));
      ar.push_back(inst.experts_per_token * h.expert_s * kScale *
                   inst.load[static_cast<size_t>(e)]);
    }
    ia.push_back(row);
    ja.push_back(T);
    ar.push_back(-1.0);
  }
  glp_load_matrix(P, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());

  Search search;
  search.bound = expert_lower_bound(inst) * kScale;
  if (incumbent) {
    search.start.assign(static_cast<size_t>(T) + 1, 0.0);
    std::vector<int> copies(static_cast<size_t>(E), 0);
    for (const auto& h : incumbent->experts)
      for (int e : h)
        ++copies[static_cast<size_t>(e)];
    for (int i = 0; i < H; ++i)
      for (int e : incumbent->experts[static_cast<size_t>(i)]) {
        search.start[static_cast<size_t>(x(e, i))] = 1.0;
        search.start[static_cast<size_t>(y(e, i))] = 1.0 / copies[static_cast<size_t>(e)];
      }
    search.start[static_cast<size_t>(T)] = placement_makespan(inst, incumbent->experts) * kScale;
  }

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
  out.placement.experts.assign(static_cast<size_t>(H), {});
  for (int i = 0; i < H; ++i)
    for (int e = 0; e < E; ++e)
      if (glp_mip_col_val(P, x(e, i)) > 0.5)
        out.placement.experts[static_cast<size_t>(i)].push_back(e);
  out.placement.makespan = placement_makespan(inst, out.placement.experts);
  out.placement.lower_bound = out.optimal ? out.placement.makespan
                                          : std::min(search.bound / kScale, out.placement.makespan);
  return out;
}

}  // namespace meshplan
