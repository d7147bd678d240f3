// The "If start-up hangs" section of LAUNCH.md. Launches across hosts that hang at start-up are
// most often a closed port, the wrong interface or versions that differ, so for each engine of the
// launch that starts over the network (vLLM, Ray, torchrun, DeepSpeed, MPI, llama.cpp RPC,
// mlx.launch) it names the connections the engine opens (which host connects to which address and
// port, as the launch files name them), the firewall rule that lets them and the ephemeral ports
// through, what NCCL_DEBUG=INFO must print on each host (the interface and HCAs of nccl_variables)
// and how a hang at rendezvous differs from one at the first all-reduce. Every port and address
// comes from the writers' own functions and constants.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace meshplan {

struct EmitInput;

// The engines' subsections ("### ...") for one launch: `files` holds what `emit all` writes, the
// launch's files under `folder` ("replica-1/", "" for the main launch); `heading` goes in front of
// each title ("Replica 1: "). "" for a launch on one host or with no engine that starts over the
// network.
std::string troubleshooting_sections(const EmitInput& in,
                                     const std::map<std::string, std::string>& files,
                                     std::string_view folder = "", std::string_view heading = "");

// "## If start-up hangs" with its introduction, then `sections`; "" when `sections` is empty.
std::string troubleshooting_section(const std::string& sections);

// Both, for one launch.
std::string render_launch_troubleshooting(const EmitInput& in,
                                          const std::map<std::string, std::string>& files);

}  // namespace meshplan
