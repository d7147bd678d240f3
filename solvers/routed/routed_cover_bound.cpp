#include "solvers/routed/routed_cover_bound.hpp"

#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace meshplan {
namespace {

constexpr int kUnits = 1000;      // a cover's F, in units; capacities are rounded up to them
constexpr int kMostColumns = 80;  // column generation rounds for one flow, at most
constexpr double kInf = std::numeric_limits<double>::infinity();

// Hosts alike in everything a range's capacity reads, with how many there are.
struct Kind {
  size_t host;  // one of them
  int count;
};

std::vector<Kind> kinds_of(const RoutedInstance& in) {
  using Key = std::tuple<std::vector<double>, double, int, int, int>;
  std::map<Key, size_t> index;
  std::vector<Kind> out;
  for (size_t i = 0; i < in.hosts.size(); ++i) {
    const RoutedHost& h = in.hosts[i];
    if (h.table.empty()) continue;
    const Key key{h.table, h.head_s, h.max_with_first, h.max_with_last, h.max_with_both};
    const auto [it, added] = index.emplace(key, out.size());
    if (added)
      out.push_back({i, 1});
    else
      ++out[it->second].count;
  }
  return out;
}

// The layers a cover is for: the first, the last, or one between (kMiddle). With one layer, the
// first is also the last.
enum Place { kFirst, kLast, kMiddle };

// What a kind's hosts can give one layer's cover: least[u] is the least share of hosts (a host
// holding k layers giving 1/k of itself to each) whose capacities, in units and summed (at most
// kUnits), reach exactly u; kInf where none do.
std::vector<double> kind_shares(const RoutedInstance& in, const Kind& kind, Place place, double F) {
  const int L = in.layers;
  const RoutedHost& h = in.hosts[kind.host];
  const int K = static_cast<int>(std::min<size_t>(h.table.size(), static_cast<size_t>(L)));
  std::vector<std::pair<int, double>> items;  // units, share
  for (int k = 1; k <= K; ++k) {
    // A range over a layer between may also touch an end; the middle figure is the largest.
    const double cap = place == kMiddle  ? h.table[static_cast<size_t>(k - 1)]
                       : place == kFirst ? range_capacity(in, kind.host, {0, k})
                                         : range_capacity(in, kind.host, {L - k, L});
    if (cap <= 0) continue;
    const int units = static_cast<int>(std::ceil(std::min(cap, F) / F * kUnits - 1e-9));
    items.push_back({std::clamp(units, 1, kUnits), 1.0 / k});
  }
  std::vector<double> least(kUnits + 1, kInf);
  least[0] = 0;
  // Up to `count` ranges of the kind in one cover: a knapsack over how many are taken.
  std::vector<double> cur = least;
  const int most = std::min(kind.count, kUnits);
  for (int m = 0; m < most; ++m) {
    std::vector<double> next(kUnits + 1, kInf);
    for (int u = 0; u <= kUnits; ++u) {
      if (cur[u] == kInf) continue;
      for (const auto& [units, share] : items) {
        const int v = std::min(kUnits, u + units);
        next[v] = std::min(next[v], cur[u] + share);
      }
    }
    for (int u = 0; u <= kUnits; ++u)
      least[u] = std::min(least[u], next[u]);
    cur = std::move(next);
  }
  return least;
}

// The program at one flow: covers as columns, added while one prices in.
class CoverProgram {
 public:
  CoverProgram(const RoutedInstance& in, const std::vector<Kind>& kinds, double F)
      : in_(in), kinds_(kinds) {
    const int L = in.layers;
    places_ = L == 1 ? std::vector<Place>{kFirst} : std::vector<Place>{kFirst, kLast};
    if (L > 2) places_.push_back(kMiddle);
    for (Place p : places_) {
      shares_.emplace_back();
      steps_.emplace_back();
      for (const Kind& k : kinds) {
        shares_.back().push_back(kind_shares(in, k, p, F));
        // Only the units no fewer of which cost less: a kind's share at v units matters only
        // where reaching more units would cost more.
        const std::vector<double>& share = shares_.back().back();
        std::vector<int> steps;
        double cheaper = kInf;
        for (int v = kUnits; v >= 0; --v)
          if (share[v] < cheaper) {
            cheaper = share[v];
            steps.push_back(v);
          }
        steps_.back().push_back(std::move(steps));
      }
    }
  }

  // Whether the covers may reach every layer: false only when a dual solution proves they cannot.
  bool allows() {
    const size_t G = kinds_.size(), P = places_.size();
    glp_prob* lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MAX);
    // Rows: per place, (layers of that place) x lambda - its covers <= 0; per kind, its hosts.
    glp_add_rows(lp, static_cast<int>(P + G));
    for (size_t p = 0; p < P; ++p)
      glp_set_row_bnds(lp, static_cast<int>(p) + 1, GLP_UP, 0, 0);
    for (size_t g = 0; g < G; ++g)
      glp_set_row_bnds(lp, static_cast<int>(P + g) + 1, GLP_UP, 0, kinds_[g].count);
    glp_add_cols(lp, 1);  // lambda, at most 1: reaching 1 is all that is asked
    glp_set_col_bnds(lp, 1, GLP_DB, 0, 1);
    glp_set_obj_coef(lp, 1, 1);
    {
      std::vector<int> ind{0};
      std::vector<double> val{0};
      for (size_t p = 0; p < P; ++p) {
        ind.push_back(static_cast<int>(p) + 1);
        val.push_back(places_[p] == kMiddle ? in_.layers - 2 : 1);
      }
      glp_set_mat_col(lp, 1, static_cast<int>(P), ind.data(), val.data());
    }
    glp_smcp sm;
    glp_init_smcp(&sm);
    sm.msg_lev = GLP_MSG_OFF;
    std::vector<double> pi(G, 1.0);  // the first covers priced by hosts alone
    std::vector<double> alpha(P, kInf);
    bool answer = true;
    for (int round = 0; round < kMostColumns; ++round) {
      bool added = false;
      double weighted = 0;  // sum over places of layers x the cheapest cover's price
      for (size_t p = 0; p < P; ++p) {
        std::vector<double> use;
        const double price = cheapest(p, pi, use);
        if (price == kInf) {  // no cover of this place at all
          glp_delete_prob(lp);
          return false;
        }
        weighted += (places_[p] == kMiddle ? in_.layers - 2 : 1) * price;
        if (alpha[p] - price > 1e-9) {
          const int col = glp_add_cols(lp, 1);
          glp_set_col_bnds(lp, col, GLP_LO, 0, 0);
          std::vector<int> ind{0, static_cast<int>(p) + 1};
          std::vector<double> val{0, -1};
          for (size_t g = 0; g < G; ++g)
            if (use[g] > 0) {
              ind.push_back(static_cast<int>(P + g) + 1);
              val.push_back(use[g]);
            }
          glp_set_mat_col(lp, col, static_cast<int>(ind.size()) - 1, ind.data(), val.data());
          added = true;
        }
      }
      // A dual bound on lambda from these prices: the hosts' worth over what the covers cost.
      if (weighted > 0) {
        double worth = 0;
        for (size_t g = 0; g < G; ++g)
          worth += kinds_[g].count * pi[g];
        if (worth / weighted < 1 - 1e-7) {
          answer = false;
          break;
        }
      }
      if (!added) break;
      if (glp_simplex(lp, &sm) != 0 || glp_get_status(lp) != GLP_OPT) break;
      if (glp_get_obj_val(lp) >= 1 - 1e-9) break;  // every layer covered
      for (size_t p = 0; p < P; ++p)
        alpha[p] = std::max(0.0, glp_get_row_dual(lp, static_cast<int>(p) + 1));
      for (size_t g = 0; g < G; ++g)
        pi[g] = std::max(0.0, glp_get_row_dual(lp, static_cast<int>(P + g) + 1));
    }
    glp_delete_prob(lp);
    return answer;
  }

 private:
  // The cover of place p with the least price at host prices `pi`; `use` gets each kind's share.
  double cheapest(size_t p, const std::vector<double>& pi, std::vector<double>& use) const {
    const size_t G = kinds_.size();
    // best[g][u]: least price reaching u units with the first g kinds; from[g][u] the units the
    // g-th kind gave, prev[g][u] the units before it.
    std::vector<std::vector<double>> best(G + 1, std::vector<double>(kUnits + 1, kInf));
    std::vector<std::vector<int>> from(G + 1, std::vector<int>(kUnits + 1, 0)),
        prev(G + 1, std::vector<int>(kUnits + 1, 0));
    best[0][0] = 0;
    for (size_t g = 0; g < G; ++g) {
      const std::vector<double>& share = shares_[p][g];
      const std::vector<int>& steps = steps_[p][g];
      for (int u = 0; u <= kUnits; ++u) {
        if (best[g][u] == kInf) continue;
        for (int v : steps) {
          const int w = std::min(kUnits, u + v);
          const double c = best[g][u] + pi[g] * share[v];
          if (c < best[g + 1][w]) {
            best[g + 1][w] = c;
            from[g + 1][w] = v;
            prev[g + 1][w] = u;
          }
        }
      }
    }
    use.assign(G, 0);
    if (best[G][kUnits] == kInf) return kInf;
    for (size_t g = G, u = kUnits; g-- > 0;) {
      use[g] = shares_[p][g][static_cast<size_t>(from[g + 1][u])];
      u = static_cast<size_t>(prev[g + 1][u]);
    }
    return best[G][kUnits];
  }

  const RoutedInstance& in_;
  const std::vector<Kind>& kinds_;
  std::vector<Place> places_;
  std::vector<std::vector<std::vector<double>>> shares_;  // per place, per kind
  std::vector<std::vector<std::vector<int>>> steps_;      // per place, per kind: units worth it
};

}  // namespace

double layer_cover_bound(const RoutedInstance& in, double high) {
  if (!(high > 0) || in.layers <= 0) return 0;
  const std::vector<Kind> kinds = kinds_of(in);
  if (kinds.empty()) return 0;
  auto allows = [&](double F) { return CoverProgram(in, kinds, F).allows(); };
  if (allows(high)) return high;
  // Fewer flows only admit more covers: the flows allowed are an interval from 0.
  double lo = 0, hi = high;
  for (int it = 0; it < 40 && hi - lo > 5e-4 * high; ++it) {
    const double mid = (lo + hi) / 2;
    (allows(mid) ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace meshplan
