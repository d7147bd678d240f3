// `calibrate`: a bounded micro-benchmark on each host over SSH, with what the host has (torch with
// CUDA, MLX, numpy, torch on the CPU): a large copy (memory bandwidth), a square matrix product
// (FLOP/s), a one-token NCCL all-reduce over a host's GPUs (with two or more) and one empty
// pipeline step (stage overhead). The figures go into the cluster file as the host's overrides,
// with the date, for `plan` to use instead of the catalog's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/cluster/cluster.hpp"
#include "lib/remote/remote_executor.hpp"

namespace meshplan {

// What one host's benchmark printed, per device (one GPU, or the CPU).
struct HostCalibration {
  std::string host;
  std::string backend;  // "torch-cuda", "mlx", "numpy", "torch-cpu"; "none" without any
  std::string device;   // the GPU's name, where the backend says
  int devices = 0;      // CUDA devices torch sees (torch-cuda only)
  int64_t copy_bytes = 0;
  int matmul_n = 0;
  std::string dtype;                    // of the product: "fp16" or "fp32"
  std::optional<double> mem_bandwidth;  // bytes/s of one device: 2 x bytes copied / time
  std::optional<double> flops;          // FLOP/s of one device: 2 n^3 / time
  std::optional<double> allreduce_us;   // median one-token all-reduce over allreduce_gpus
  int allreduce_gpus = 0;
  std::string allreduce_method;    // "graph" or "loop"
  std::optional<double> stage_ms;  // median empty step
  std::vector<std::string> notes;  // what the script could not do
  bool measured() const { return mem_bandwidth && flops; }
};

struct CalibrateFailure {
  std::string host;
  HostFailureKind kind = HostFailureKind::kNone;
  std::string message;
};

struct CalibrateReport {
  std::vector<HostCalibration> hosts;  // the hosts that answered, in the order of the targets
  std::vector<CalibrateFailure> failures;
  std::vector<std::string> notes;  // hosts without the tools, figures not measured
};

struct CalibrateOptions {
  int timeout_s = 120;  // per host: the remote `timeout` and the script's own alarm
  int jobs = 16;        // hosts at the same time
};

// The script a host runs under `/bin/sh -s`: python3 under `timeout` (where the host has it),
// the program on its standard input; nothing it starts outlives it.
std::string calibrate_script(int timeout_s);

// The script's standard output -> figures. Every line must be "meshplan-calibrate KEY=VALUE" of
// a known key with a sane value, and the last "end=1"; anything else throws ProbeParseError
// naming the line.
HostCalibration parse_calibration(const std::string& host, const std::string& output);

CalibrateReport run_calibrate(const std::vector<HostTarget>& targets, RemoteExecutor& executor,
                              const CalibrateOptions& options);

// The cluster with each measured host's overrides set: mem_bandwidth and flops (one device's
// figure times the host's GPUs), gpu_link_latency_us from the all-reduce, stage_overhead_ms, and
// `measured: date`. Other hosts keep what the file says.
Cluster with_calibration(const Cluster& cluster, const CalibrateReport& report,
                         const std::string& date);

// "gpu-1: torch-cuda on 8 x NVIDIA H100 80GB HBM3: memory 3.01 TB/s, 712 TFLOP/s (fp16 8192),
// all-reduce 28.4 us (graph, 8 GPUs), stage 0.031 ms" for the report a user reads.
std::string calibration_summary(const HostCalibration& h);

}  // namespace meshplan
