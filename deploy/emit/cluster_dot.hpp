// The `dot` artifact: which missing cables to draw for the requested backend, the title that
// says whether it is valid, and a plan's ranks on the hosts; rendered by dot_writer.
#pragma once

#include <string>

#include "deploy/layout/launch_nodes.hpp"
#include "lib/plan/advice.hpp"

namespace meshplan {

std::string write_cluster_dot_artifact(const EmitInput& input);
// With `meshplan advise`'s cables drawn dashed (dot --advice), each labelled with its advice row;
// hosts the advice buys are drawn as dashed boxes.
std::string write_cluster_dot_artifact(const EmitInput& input,
                                       const std::vector<std::pair<int, AdviceCable>>& advice);

}  // namespace meshplan
