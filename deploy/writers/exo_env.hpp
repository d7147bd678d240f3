// exo 1.x on the ranks' hosts: per host, the variable and flags exo reads (exo @b5375f8):
// EXO_ZENOH_NAMESPACE (EXO_LIBP2P_NAMESPACE was removed; hosts with the same namespace find each
// other), --api-port, --zenoh-port, --discovery-port, and --force-master on rank 0. exo places
// layers itself: it cannot take the plan's split.
#pragma once

#include <string>
#include <vector>

namespace meshplan {

struct EmitInput;

inline constexpr int kExoDefaultApiPort = 52415;  // exo --api-port default

std::string write_exo_env(const EmitInput& in);

// The discovery namespace: --namespace, else the cluster's name, else "meshplan".
std::string exo_namespace(const EmitInput& in);
// One host's exo command: the API port and the two below it, the namespace, and --force-master
// on the host the others join.
std::vector<std::string> exo_words(const EmitInput& in, bool master);

}  // namespace meshplan
