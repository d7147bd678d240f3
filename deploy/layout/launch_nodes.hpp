// How a launch layout is built from an emit input, and what writers derive from one: the
// address one rank serves another on, the layer counts per stage, the checks of a value that
// goes into a hostfile or a command line.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deploy/layout/emit_input.hpp"
#include "deploy/layout/launch_layout.hpp"
#include "lib/cluster/cluster.hpp"

namespace meshplan {

// The layout of the chosen (valid) backend; a failure listing its problems otherwise. Writers read
// it through EmitInput::layout(), which builds it once.
LaunchLayout build_launch_layout(const EmitInput& in);

// The network the ranks' data goes over when they talk over one: the fastest wired network with a
// subnet that holds every rank (LinkKind lists them fastest first), or nullptr.
const Network* data_network(const Cluster& cluster, const std::vector<size_t>& ranks);

// The address node `a` serves node `b` on: a's end of their first Thunderbolt cable (its /30 from
// `meshplan setup`) when the ranks talk over Thunderbolt TCP, a's address on the ranks' data
// network when they talk over one, else a's management address.
std::string link_address(const EmitInput& in, const LaunchLayout& layout, size_t a, size_t b,
                         std::string_view why);

// Whether the plan splits the model by layers: every rank has a range, each starting where the
// previous one ends, from layer 0 (tensor and expert plans give every rank every layer).
bool splits_by_layers(const LaunchLayout& layout);

// Per rank, the number of layers of its plan range; a failure naming the format when the plan
// does not split by layers.
// Layers per pipeline stage in order, a host's groups of GPUs each a stage (vLLM's
// VLLM_PP_LAYER_PARTITION); with `tp`, the one tensor-parallel degree all stages share (a
// failure naming the hosts when they differ, as vLLM and torchrun need one).
std::vector<int> stage_layer_counts(const LaunchLayout& layout, std::string_view format, int& tp);
std::vector<int> layer_counts(const LaunchLayout& layout, std::string_view format);

// Formats that need ranks' shares or layer ranges: an input error naming the format and why.
void require_plan(const EmitInput& in, std::string_view format, std::string_view why);

// An input error when `value` (from `what` of `host`) cannot be one word of a hostfile line.
const std::string& hostfile_word(const std::string& value, std::string_view what,
                                 std::string_view host);

// The port to use: the option when given, else the engine default.
int launch_port(const EmitInput& in, int engine_default);

// One shell command: `env` as KEY=VALUE assignments (values quoted), then each word quoted, so that
// no value from a file or the command line can change what the shell runs.
std::string shell_command(const std::vector<std::pair<std::string, std::string>>& env,
                          const std::vector<std::string>& words);

}  // namespace meshplan
