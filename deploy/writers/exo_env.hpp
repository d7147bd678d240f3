// exo 1.x on the ranks' hosts: per host, the variable and flags exo reads (exo @b5375f8):
// EXO_ZENOH_NAMESPACE (EXO_LIBP2P_NAMESPACE was removed; hosts with the same namespace find each
// other), --api-port, --zenoh-port, --discovery-port, and --force-master on rank 0. exo places
// layers itself: it cannot take the plan's split.
#pragma once

#include <string>

namespace meshplan {

struct EmitInput;

inline constexpr int kExoDefaultApiPort = 52415;  // exo --api-port default

std::string write_exo_env(const EmitInput& in);

}  // namespace meshplan
