// llama.cpp over RPC: an `rpc-server -H ADDR -p PORT` line for every rank but the last, and the
// main command on the last rank with `--rpc` in rank order and `--tensor-split` from the plan's
// layer counts. llama.cpp puts RPC devices first, in --rpc order, and its own device after them
// (src/llama.cpp: "add RPC servers at the front of the list"), so the last rank runs the main
// command and the plan's first layers land on rank 0. Needs a pipeline plan.
#pragma once

#include <string>
#include <vector>

namespace meshplan {

struct EmitInput;
struct LaunchLayout;

// The commands of a llama.cpp RPC launch, as words: rank i's rpc-server (every rank but the last),
// the main host's own rpc-server when it has no accelerator (else empty), then its llama-server.
struct LlamaRpcLaunch {
  std::vector<std::vector<std::string>> servers;
  std::vector<std::string> local_server;
  std::vector<std::string> main;
  std::vector<std::string> endpoints;  // --rpc's HOST:PORT entries, in order
};
LlamaRpcLaunch llama_rpc_launch(const EmitInput& in, const LaunchLayout& layout);

inline constexpr int kLlamaServerPort = 8080;        // llama-server --port, upstream's default
inline constexpr int kRpcServerDefaultPort = 50052;  // rpc-server -p default

std::string write_llama_rpc(const EmitInput& in);

}  // namespace meshplan
