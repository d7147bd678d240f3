// LAUNCH.md, the guide `emit all` writes beside the artifacts: the ranks and their hosts, then for
// each engine which file to use and which command to run on which host, in order, and where an
// engine cannot take the plan's layer split.
#pragma once

#include <map>
#include <string>

namespace meshplan {

struct EmitInput;

// `files`: the artifacts written (file name -> content), to mention only those.
std::string render_launch_guide(const EmitInput& in,
                                const std::map<std::string, std::string>& files);

}  // namespace meshplan
