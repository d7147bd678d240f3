#include "bench/routed_exact.hpp"

#include <glpk.h>

#include <vector>

namespace meshplan {
namespace {

// Rows and columns are added as they are named; the matrix is kept in triplets until loaded.
class Program {
 public:
  Program() {
    glp_term_out(GLP_OFF);
    p_ = glp_create_prob();
    glp_set_obj_dir(p_, GLP_MAX);
  }
  ~Program() { glp_delete_prob(p_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  int column(double objective, bool binary) {
    const int c = glp_add_cols(p_, 1);
    if (binary) {
      glp_set_col_kind(p_, c, GLP_BV);
    } else {
      glp_set_col_bnds(p_, c, GLP_LO, 0, 0);
    }
    glp_set_obj_coef(p_, c, objective);
    return c;
  }
  // A row sum(coef * column) <= upper (or == upper when `equal`).
  int row(double upper, bool equal = false) {
    const int r = glp_add_rows(p_, 1);
    glp_set_row_bnds(p_, r, equal ? GLP_FX : GLP_UP, upper, upper);
    return r;
  }
  void add(int row, int column, double coef) {
    ia_.push_back(row);
    ja_.push_back(column);
    ar_.push_back(coef);
  }
  glp_prob* load() {
    glp_load_matrix(p_, static_cast<int>(ia_.size()) - 1, ia_.data(), ja_.data(), ar_.data());
    return p_;
  }

 private:
  glp_prob* p_;
  std::vector<int> ia_{0}, ja_{0};
  std::vector<double> ar_{0};
};

struct NodeLimit {
  int limit;
};

void stop_at_node_limit(glp_tree* tree, void* info) {
  if (glp_ios_reason(tree) != GLP_ISELECT) return;
  int active = 0, alive = 0, total = 0;
  glp_ios_tree_size(tree, &active, &alive, &total);
  if (total > static_cast<NodeLimit*>(info)->limit) glp_ios_terminate(tree);
}

}  // namespace

RoutedExact solve_routed_exactly(const RoutedInstance& in, int node_limit) {
  RoutedExact out;
  const size_t n = in.hosts.size();
  const int L = in.layers;
  out.layout.assign(n, {});
  if (n == 0 || L <= 0) return out;
  Program prog;
  // Per host, each range with a capacity: whether the host holds it (binary) and the flow it
  // carries there, at most its capacity and only when held.
  struct Held {
    LayerRange range;
    int x, f;
  };
  std::vector<std::vector<Held>> ranges(n);
  // Per host and layer boundary: the flow its ranges starting there take in (0: the entry) and
  // the flow its ranges ending there give out (L: the exit), rows balanced by the links.
  std::vector<std::vector<int>> in_at(n, std::vector<int>(static_cast<size_t>(L), 0));
  std::vector<std::vector<int>> out_at(n, std::vector<int>(static_cast<size_t>(L) + 1, 0));
  std::vector<int> exits;
  for (size_t i = 0; i < n; ++i) {
    const int one = prog.row(1);
    for (int s = 0; s < L; ++s)
      for (int e = s + 1; e <= L; ++e) {
        const double cap = range_capacity(in, i, {s, e});
        if (cap <= 0) continue;
        Held h{{s, e}, prog.column(0, true), prog.column(0, false)};
        prog.add(one, h.x, 1);
        const int within = prog.row(0);
        prog.add(within, h.f, 1);
        prog.add(within, h.x, -cap);
        int& at = in_at[i][static_cast<size_t>(s)];
        if (!at) at = prog.row(0, true);
        prog.add(at, h.f, 1);
        int& end = out_at[i][static_cast<size_t>(e)];
        if (!end) end = prog.row(0, true);
        prog.add(end, h.f, 1);
        ranges[i].push_back(h);
      }
    // The entry feeds the ranges starting at layer 0; the exit takes what those ending at L give.
    if (const int at = in_at[i][0]) prog.add(at, prog.column(0, false), -1);
    if (const int end = out_at[i][static_cast<size_t>(L)]) {
      exits.push_back(prog.column(1, false));
      prog.add(end, exits.back(), -1);
    }
  }
  // No host carries more than the whole flow (each token passes it once at most): without this
  // the relaxation lets a host serve several short ranges at their full capacity each.
  for (size_t i = 0; i < n; ++i) {
    const int row = prog.row(0);
    for (const Held& h : ranges[i])
      prog.add(row, h.f, 1);
    for (int z : exits)
      prog.add(row, z, -1);
  }
  // Flow from i to j at each inner boundary where i may end and j may start, within the link.
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      if (i == j || in.link_at(i, j) <= 0) continue;
      int link_row = 0;
      for (int b = 1; b < L; ++b) {
        const int end = out_at[i][static_cast<size_t>(b)], start = in_at[j][static_cast<size_t>(b)];
        if (!end || !start) continue;
        if (!link_row) link_row = prog.row(in.link_at(i, j));
        const int y = prog.column(0, false);
        prog.add(link_row, y, 1);
        prog.add(end, y, -1);
        prog.add(start, y, -1);
      }
    }
  glp_prob* P = prog.load();
  glp_smcp lp;
  glp_init_smcp(&lp);
  lp.msg_lev = GLP_MSG_OFF;
  if (glp_simplex(P, &lp) != 0 || glp_get_status(P) != GLP_OPT) return out;
  out.bound = glp_get_obj_val(P);
  if (node_limit <= 0) return out;
  glp_iocp ip;
  glp_init_iocp(&ip);
  ip.msg_lev = GLP_MSG_OFF;
  NodeLimit limit{node_limit};
  ip.cb_func = stop_at_node_limit;
  ip.cb_info = &limit;
  const int rc = glp_intopt(P, &ip);
  const int status = glp_mip_status(P);
  if (status != GLP_OPT && status != GLP_FEAS) return out;
  out.tokens_per_s = glp_mip_obj_val(P);
  out.optimal = rc == 0 && status == GLP_OPT;
  if (out.optimal) out.bound = out.tokens_per_s;
  for (size_t i = 0; i < n; ++i)
    for (const Held& h : ranges[i])
      if (glp_mip_col_val(P, h.x) > 0.5) out.layout[i] = h.range;
  return out;
}

}  // namespace meshplan
