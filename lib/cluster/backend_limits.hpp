// Limits of the MLX distributed backends that both the cabling checks and the planners respect.
#pragma once

#include <cstddef>

namespace meshplan {

inline constexpr size_t kJacclMaxRanks = 8;  // MESH_MAX_PEERS in JACCL

}  // namespace meshplan
