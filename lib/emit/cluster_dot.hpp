// The `dot` artifact: which missing cables to draw for the requested backend, the title that
// says whether it is valid, and a plan's ranks on the hosts; rendered by dot_writer.
#pragma once

#include <string>

#include "lib/emit/emit_formats.hpp"

namespace meshplan {

std::string write_cluster_dot_artifact(const EmitInput& input);

}  // namespace meshplan
