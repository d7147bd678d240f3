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

// Interfaces follow the plan: the data each engine moves goes over the link the plan priced.
// build_launch_layout decides each node's data_interface, data_address and rdma_devices by it: on
// a network, the direct cable the planner prices between the ranks (two hosts on one cable; its
// /30 from `meshplan setup` when its ends have no address yet), else the fastest network that
// holds them all; over Thunderbolt, the cables. Writers read those fields and the two functions
// below; the management address stays for ssh and what every host must reach (an HTTP API).

// The address node `a` serves node `b` on: a's end of their first Thunderbolt cable (its /30 from
// `meshplan setup`) when the ranks talk over Thunderbolt TCP; over a network, a's end of the
// direct cable priced between them (llama.cpp's main host and each rpc-server), else a's address
// on the ranks' data network; else a's management address.
std::string link_address(const EmitInput& in, const LaunchLayout& layout, size_t a, size_t b,
                         std::string_view why);

// Where node `node` meets the others to start an engine (--master-addr, VLLM_HOST_IP): its
// address on the interface NCCL and Gloo use (data_address), so that the rendezvous and the
// sockets agree; its management address when it has none there (a failure naming `why` when it
// has neither).
const std::string& rendezvous_address(const LaunchLayout& layout, size_t node,
                                      std::string_view why);

// Where a server of node `node` that listens on every interface (an HTTP API) is reached: its
// management address, else its data address (a host known only by its data network).
const std::string& served_address(const LaunchLayout& layout, size_t node, std::string_view why);

// The /30 "192.168.0.0/30" `meshplan setup` gives the direct cable that `address` is an end of;
// "" when it is none of those.
std::string direct_cable_subnet(const TopologyContext& topology, const std::string& address);

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
