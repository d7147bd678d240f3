#include "solvers/problem/candidate_classes.hpp"

#include <algorithm>

namespace meshplan {
namespace {

// Whether i and j see the same link to every other candidate, and the same one each way.
bool same_links(const LinkMatrix& m, size_t i, size_t j) {
  if (m.at(i, j) != m.at(j, i)) return false;
  for (size_t k = 0; k < m.size(); ++k) {
    if (k == i || k == j) continue;
    if (m.at(i, k) != m.at(j, k) || m.at(k, i) != m.at(k, j)) return false;
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
  HostFigures renamed = a;
  renamed.name = b.name;
  return renamed == b;
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
