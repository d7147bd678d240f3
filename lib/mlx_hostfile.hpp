// The hostfile mlx.launch reads and mlx.distributed_config writes: {"backend", "envs", "hosts":
// [{"ssh", "ips", "rdma"}]}, index = rank. Written exactly as Python's json.dump(indent=4) does
// (4-space indent, one array element per line, [] for empty arrays, no trailing newline); read
// from that object or the older bare array of hosts, with positions in every error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/document.hpp"

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

// Python json.dump(obj, indent=4) of the object form, no trailing newline.
std::string write_mlx_hostfile(const MlxHostfile& hostfile);
// Reads either form; errors name the file and position.
MlxHostfile read_mlx_hostfile(const DocNode& root);

// A JSON string as Python's json.dumps writes it (ensure_ascii: non-ASCII as \uXXXX).
std::string python_json_string(std::string_view text);
// The rdma matrix as Python's json.dumps writes it without indent: [[null, "rdma_en2"], ...].
std::string python_rdma_matrix(const std::vector<MlxHost>& hosts);

}  // namespace meshplan
