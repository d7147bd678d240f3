// A second statement of each engine's launch rules, written apart from deploy/: it reads the files
// `emit all` writes (file name -> content) the way each engine or launcher would, and says what
// would start: the hosts in rank order, the processes (GPUs) on each, the parallel degrees, the
// layers and experts each host would hold, and every rule of the engine the files break. It reads
// the cluster and the model only for facts the engine itself sees on the hosts (addresses,
// interfaces, RDMA devices, GPU counts, head counts).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lib/cluster/cluster.hpp"
#include "lib/models/model.hpp"

namespace meshplan::oracle {

struct Violation {
  std::string rule;    // short key, e.g. "vllm-tp-divides-heads"
  std::string detail;  // what the files say that breaks it
};

struct EngineHost {
  std::string host;
  int processes = 1;                          // ranks (GPUs) the engine starts on it
  std::optional<std::pair<int, int>> layers;  // [start, end) it computes, when the files fix it
  std::optional<std::set<int>> experts;       // routed experts of each MoE layer it holds
};

struct LaunchReading {
  std::string file;               // the file read, with its replica folder ("replica-1/vllm.sh")
  std::vector<EngineHost> hosts;  // in rank (node) order
  int tp = 1, pp = 1, dp = 1, ep = 1;
};

struct OracleReading {
  std::vector<LaunchReading> launches;
  std::vector<Violation> violations;
};

// Reads every launch among `files` (as emit_all returns them) over `cluster` for `model`.
OracleReading read_launches(const std::map<std::string, std::string>& files, const Cluster& cluster,
                            const ModelDesc& model);

// Shell words of one line: whitespace-separated, single and double quotes kept together (without
// the quotes), backslash escapes inside double quotes.
std::vector<std::string> shell_words(const std::string& line);

// vLLM's layer split of `layers` over `pp` stages without VLLM_PP_LAYER_PARTITION
// (vllm/distributed/utils.py get_pp_indices): layers // pp each, the remainder one each to the
// stages before the last, from the second-to-last backwards.
std::vector<int> vllm_even_partition(int layers, int pp);

// mlx-lm's [start, end) of `rank` of `size` (mlx_lm/models/pipeline.py PipelineMixin.pipeline):
// layers // size each, one more for the first layers % size ranks, rank 0 the last layers, the
// start from the rank's own count, the end clamped to the model.
std::pair<int, int> mlx_pipeline_range(int layers, int size, int rank);

// llama.cpp's device of each layer 0..layers (the last is the output layer) for a tensor split
// over devices with -ngl covering them all (llama-model.cpp load_tensors: the cumulative split
// normalised, a layer to the first device whose bound exceeds layer / (layers + 1)).
std::vector<int> llama_layer_devices(int layers, const std::vector<double>& split);

}  // namespace meshplan::oracle
