// The engines meshplan launches, as data: where each runs and which layouts it can load, from the
// engines' own sources (README "Engines"). A plan is checked against the table to say which engine
// of its cluster runs it as planned, which runs it with a split of its own, and which cannot.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/plan/plan.hpp"

namespace meshplan {

// How an engine splits a pipeline's layers.
enum class PipelineSplit {
  kExplicit,      // takes the plan's split (llama.cpp --tensor-split, VLLM_PP_LAYER_PARTITION)
  kEvenReversed,  // its own equal split, rank 0 the last layers (mlx-lm pipeline.py)
  kOwn,           // places layers itself (exo)
  kNone,          // no pipeline across hosts
};

struct Engine {
  std::string_view name;  // as `emit` names its launch file's engine
  std::string_view title;
  bool macs = false;    // Apple silicon (Metal)
  bool nvidia = false;  // Linux with NVIDIA GPUs (CUDA)
  bool cpu = false;     // Linux without GPUs
  PipelineSplit pipeline = PipelineSplit::kNone;
  bool tensor = false;         // equal shares of every layer across hosts
  bool expert = false;         // experts spread over hosts
  bool hybrid = false;         // tensor-parallel groups as pipeline stages (TP x PP)
  bool replicas = false;       // data-parallel copies behind one endpoint of its own
  bool disaggregated = false;  // prefill and decode on different hosts, KV sent between them
  std::string_view transports;
  std::string_view source;  // where the facts come from
};

const std::vector<Engine>& engines();
const Engine* find_engine(std::string_view name);

// What a host is to an engine: a Mac, a Linux host with NVIDIA GPUs, or a Linux CPU host.
enum class Platform { kMac, kNvidia, kCpu };
Platform host_platform(const Host& host, const Catalog& catalog);

// Whether `engine` runs on every one of `hosts` (names in `cluster`).
bool runs_on(const Engine& engine, const Cluster& cluster, const Catalog& catalog,
             const std::vector<std::string>& hosts);

// The engine a launch of `hosts` uses when the plan names none: mlx-lm when all are Macs, vLLM
// when all are NVIDIA Linux hosts, else llama.cpp RPC (it runs on every platform).
std::string_view default_engine(const Cluster& cluster, const Catalog& catalog,
                                const std::vector<std::string>& hosts);

// One line per engine of the cluster, for the plan's hosts: "mlx-lm: runs it as planned",
// "exo: runs a pipeline with its own split", "vLLM: cannot (its hosts are Macs)".
std::vector<std::string> engine_verdicts(const Plan& plan, const Cluster& cluster,
                                         const Catalog& catalog);

// The plan report's line: "Engines: mlx-lm through mlx.launch runs it as planned; ...".
std::string render_engine_verdicts(const Plan& plan, const Cluster& cluster,
                                   const Catalog& catalog);

}  // namespace meshplan
