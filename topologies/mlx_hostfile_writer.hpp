// The MLX hostfile written exactly as Python's json.dump(indent=4) does (4-space indent, one
// array element per line, [] for empty arrays, no trailing newline), and the Python JSON forms
// mlx.launch exports to each rank.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topologies/mlx_hostfile.hpp"

namespace meshplan {

// Python json.dump(obj, indent=4) of the object form, no trailing newline.
std::string write_mlx_hostfile(const MlxHostfile& hostfile);
// A JSON string as Python's json.dumps writes it (ensure_ascii: non-ASCII as \uXXXX).
std::string python_json_string(std::string_view text);
// The rdma matrix as Python's json.dumps writes it without indent: [[null, "rdma_en2"], ...].
std::string python_rdma_matrix(const std::vector<MlxHost>& hosts);

}  // namespace meshplan
