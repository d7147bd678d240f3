// The hostfile mlx.launch reads and mlx.distributed_config writes: {"backend", "envs", "hosts":
// [{"ssh", "ips", "rdma"}]}, index = rank: MLX's own description of a topology. Read from that
// object or the older bare array of hosts, with positions in every error (`check --hostfile`);
// written by topologies/mlx_hostfile_writer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/core/document.hpp"

namespace meshplan {

// One cell of a host's rdma row: null, one device name, or a list (cable k at index k).
struct RdmaCell {
  bool present = false;  // false: null
  bool list = false;     // written as an array even with one name
  std::vector<std::string> devices;

  static RdmaCell none() { return {}; }
  static RdmaCell one(std::string device) { return {true, false, {std::move(device)}}; }
  static RdmaCell many(std::vector<std::string> devices) {
    return {true, true, std::move(devices)};
  }
  bool operator==(const RdmaCell&) const = default;
};

struct MlxHost {
  std::string ssh;
  std::vector<std::string> ips;
  std::vector<RdmaCell> rdma;
  SourceLocation where;  // when read from a file
};

struct MlxHostfile {
  std::optional<std::string> backend;  // "" is ethernet (mlx.launch then defaults to ring)
  std::vector<std::string> envs;       // "KEY=VALUE"
  std::vector<MlxHost> hosts;
  bool bare_array = false;  // read from the pre-0.30.6 list form
};

// Reads either form; errors name the file and position.
MlxHostfile read_mlx_hostfile(const DocNode& root);

}  // namespace meshplan
