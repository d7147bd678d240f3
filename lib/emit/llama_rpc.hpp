// llama.cpp over RPC: an `rpc-server -H ADDR -p PORT` line for every rank but the last, and the
// main command on the last rank with `--rpc` in rank order and `--tensor-split` from the plan's
// layer counts. llama.cpp puts RPC devices first, in --rpc order, and its own device after them
// (src/llama.cpp: "add RPC servers at the front of the list"), so the last rank runs the main
// command and the plan's first layers land on rank 0. Needs a pipeline plan.
#pragma once

#include <string>

namespace meshplan {

struct EmitInput;

inline constexpr int kRpcServerDefaultPort = 50052;  // rpc-server -p default

std::string write_llama_rpc(const EmitInput& in);

}  // namespace meshplan
