// Exact layer ranges for a fixed host sequence. The ring visits the hosts of `sequence` in that
// order, starting with sequence[0] (rank 0, which holds embedding and LM head); with `skip` it may
// leave any other host of the sequence out. Dynamic program over (last host used, layers placed)
// — plus the number of hosts used when --min-hosts/--max-hosts bind — with a sliding-window
// minimum per transition: O(m^2 L) for m hosts and L layers (times the host count when tracked);
// a long sequence that may skip hosts reads the earlier hosts' rows as running minima per kind of
// media membership (sequence_arrivals.hpp). It is exact for the sequence; the heuristic search
// builds on it for large clusters.
#pragma once

#include <vector>

#include "solvers/problem/search_space.hpp"

namespace meshplan {

SearchResult best_on_sequence(const SearchSpace& space, const std::vector<size_t>& sequence,
                              bool skip);

}  // namespace meshplan
