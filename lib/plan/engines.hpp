// The engines meshplan launches, as data: where each runs and which layouts it can load, from the
// engines' own sources (docs/engines.md). A plan is checked against the table to say which engine
// of its cluster runs it as planned, which runs it with a split of its own, and which cannot.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/plan/engine_kind.hpp"
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
  EngineKind kind = EngineKind::kMlxLm;
  std::string_view name = {};  // name(kind) and title(kind), filled in from the name table
  std::string_view title = {};
  bool macs = false;    // Apple silicon (Metal)
  bool nvidia = false;  // Linux with NVIDIA GPUs (CUDA)
  bool cpu = false;     // Linux without GPUs
  bool mixes = false;   // one job over hosts of different platforms (Macs with Linux hosts)
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
const Engine& engine(EngineKind kind);

// The pipeline solver that predicts the split an engine loads: "even" (mlx-lm's equal split),
// "proportional" (exo's memory-proportional placement), "" when it takes the plan's split.
std::string_view engine_pipeline_solver(const Engine& engine);

// mlx-lm's [start, end) for `rank` of `size` over `layers` layers, as mlx_lm/models/pipeline.py
// 0.32.0 computes it: len // size layers (one more for the first len % size ranks) in reverse,
// rank 0 the last; the end is clamped to `layers`. The start uses the rank's own count, so when
// `size` does not divide `layers` some layers fall between two ranks and no rank computes them.
std::pair<int, int> mlx_lm_pipeline_range(int layers, int size, int rank);
// The layers no rank computes under that split (empty when `size` divides `layers`).
std::vector<int> mlx_lm_orphaned_layers(int layers, int size);

// What a host is to an engine: a Mac, a Linux host with NVIDIA GPUs, or a Linux CPU host.
enum class Platform { kMac, kNvidia, kCpu };
Platform host_platform(const Host& host, const Catalog& catalog);

// Whether `engine` runs on every one of `hosts` (names in `cluster`).
bool runs_on(const Engine& engine, const Cluster& cluster, const Catalog& catalog,
             const std::vector<std::string>& hosts);

// The engine a plan over `hosts` is made for when none is asked for: all Macs, mlx-lm; Linux with
// NVIDIA GPUs, vLLM; otherwise (a mix, CPU hosts) llama.cpp RPC, which runs everywhere and takes
// the planned split. nullptr when none does; `why` says how it was chosen or why none.
const Engine* infer_engine(const Cluster& cluster, const Catalog& catalog,
                           const std::vector<std::string>& hosts, std::string& why);

// Whether `hosts` are all Macs or all NVIDIA hosts, whose engine infer_engine names outright
// (mlx-lm, vLLM); on a mix or CPU hosts the planner compares every engine that runs on them.
bool one_platform_engine(const Cluster& cluster, const Catalog& catalog,
                         const std::vector<std::string>& hosts);

// Why `engine` cannot run on every one of `hosts` ("spark is an NVIDIA host"), "" when it can.
std::string platform_refusal(const Engine& engine, const Cluster& cluster, const Catalog& catalog,
                             const std::vector<std::string>& hosts);

// Whether `engine` loads `plan`'s layout as planned: "" when it does, else why not ("no expert
// parallel across hosts", "equal tensor shares only"). A pipeline counts as planned for an engine
// that takes no split only when its solver is the engine's own (engine_pipeline_solver).
std::string layout_refusal(const Engine& engine, const Plan& plan);
// The part of layout_refusal that no split of the engine's own changes: the engine's rules
// (lib/core/engine_rules.hpp) for its degrees, heads, experts and ranks per host.
std::string rule_refusal(const Engine& engine, const Plan& plan);
// The engine a launch of `hosts` uses when the plan names none: infer_engine's, else llama.cpp RPC.
std::string_view default_engine(const Cluster& cluster, const Catalog& catalog,
                                const std::vector<std::string>& hosts);

// The hosts of a plan, each once: its ranks' and every replica's (all run the plan's engine).
std::vector<std::string> plan_hosts(const Plan& plan);

// One line per engine of the cluster, for the plan's hosts: "mlx-lm: runs it as planned",
// "exo: runs a pipeline with its own split", "vLLM: cannot (its hosts are Macs)".
std::vector<std::string> engine_verdicts(const Plan& plan, const Cluster& cluster,
                                         const Catalog& catalog);

// The plan report's line: "Engines: mlx-lm through mlx.launch runs it as planned; ...".
std::string render_engine_verdicts(const Plan& plan, const Cluster& cluster,
                                   const Catalog& catalog);

}  // namespace meshplan
