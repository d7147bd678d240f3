// Prefill on one host and decode on another with vLLM (docs/features/nixl_connector_usage.md,
// v0.11+): each host runs `vllm serve` with the NixlConnector (kv_role kv_both), its side channel
// on its data-network address (VLLM_NIXL_SIDE_CHANNEL_HOST/PORT) and UCX on the NIC the KV cache
// crosses; vllm-router (vllm-project/router) in --pd-disaggregation mode sends each request to
// the prefill instance, then to the decode instance, which pulls the KV cache.
#pragma once

#include <optional>
#include <string>

#include "lib/plan/engine_kind.hpp"
#include "lib/plan/plan_file_reader.hpp"
#include "topologies/check_report.hpp"

namespace meshplan {

struct EmitInput;

// The prefill and decode hosts as a plan of their own for `engine` (prefill hosts first), checked
// over those hosts: their addresses, data interfaces and GPUs come from the launch layout every
// engine's file uses.
struct PairLaunch {
  std::optional<PlanRanks> plan;
  CheckReport report;
};
PairLaunch pair_launch(const EmitInput& in, EngineKind engine);

inline constexpr int kVllmPrefillPort = 8100;
inline constexpr int kVllmDecodePort = 8200;
inline constexpr int kVllmNixlSideChannelPort = 5600;  // VLLM_NIXL_SIDE_CHANNEL_PORT default
inline constexpr int kVllmRouterPort = 8000;

// `emit vllm-disagg`: the prefill and decode instances and the router, per host; an input error
// for a plan whose chosen shape is not prefill on one host and decode on another.
std::string write_vllm_disaggregated(const EmitInput& in);

// Whether the plan's chosen shape is prefill on some hosts and decode on others.
bool plan_disaggregates(const EmitInput& in);

}  // namespace meshplan
