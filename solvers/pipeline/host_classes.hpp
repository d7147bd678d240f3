// Interchangeable hosts: two hosts are interchangeable when swapping them changes no figure of the
// search (same usable bytes, bandwidth, FLOP/s and overhead, same links to every other host and
// to each other, neither pinned). Swapping is then an automorphism of the instance, so a search
// may use the members of a class in index order only, which removes the symmetric duplicates.
#pragma once

#include <vector>

#include "solvers/problem/search_space.hpp"

namespace meshplan {

struct HostClasses {
  std::vector<std::vector<size_t>> members;  // each class's hosts, ascending
  std::vector<int> class_of;                 // per host; -1 when the host takes no part

  size_t size() const { return members.size(); }
  // Number of distinct host subsets up to symmetry: the product of (class size + 1).
  double subset_count() const;
};

HostClasses host_classes(const SearchSpace& space);

// Every host in a class of its own (no symmetry used), e.g. for tests.
HostClasses singleton_classes(size_t hosts);

}  // namespace meshplan
