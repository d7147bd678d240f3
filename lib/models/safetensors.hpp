// The header of a .safetensors file: 8 bytes little-endian header length N, then N bytes of JSON
// {"tensor name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}}, then
// the data. Only the header is read: byte sizes come from the offsets, and everything is checked
// (header length against a limit and the file size, offsets inside the data, dtype known, shape
// consistent with the byte count) before it is trusted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/file_system.hpp"

namespace meshplan {

struct SafetensorsTensor {
  std::string name;
  std::string dtype;  // as written: "BF16", "U32", "F8_E4M3", ...
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // data offsets, relative to the end of the header
  uint64_t end = 0;
  uint64_t bytes() const { return end - begin; }
  uint64_t elements() const;
};

struct SafetensorsHeader {
  std::string file;
  uint64_t header_length = 0;
  uint64_t file_size = 0;
  std::vector<SafetensorsTensor> tensors;
};

// Headers longer than this are refused before anything is allocated for them.
constexpr uint64_t kMaxSafetensorsHeader = 100ull * 1000 * 1000;

// Bytes per element of a safetensors dtype; 0 when unknown. Sub-byte types are not in the format.
int safetensors_dtype_size(std::string_view dtype);

// Parses a header from the first bytes of a file (`prefix` must hold at least 8 + N bytes, or the
// whole file when shorter) whose total size is `file_size`. Errors name `file` and the field.
SafetensorsHeader parse_safetensors_header(std::string_view prefix, uint64_t file_size,
                                           const std::string& file);

// Reads only the header of `path`.
SafetensorsHeader read_safetensors_header(const FileSystem& fs, const std::string& path);

}  // namespace meshplan
