// Test helper: writes real .safetensors files (header + zero-filled data) and model folders, so
// that readers are tested on the format itself.
#pragma once

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace meshplan::testing {

struct StTensor {
  std::string name;
  std::string dtype;  // "BF16", "U32", ...
  std::vector<int64_t> shape;
};

inline int st_dtype_size(const std::string& dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "BF16" || dtype == "F16" || dtype == "I16" || dtype == "U16") return 2;
  return 1;
}

inline uint64_t st_bytes(const StTensor& t) {
  uint64_t n = static_cast<uint64_t>(st_dtype_size(t.dtype));
  for (auto d : t.shape)
    n *= static_cast<uint64_t>(d);
  return n;
}

// 8-byte little-endian length, the JSON header, then the data.
inline std::string safetensors_file(const std::vector<StTensor>& tensors) {
  nlohmann::ordered_json h;
  h["__metadata__"] = {{"format", "mlx"}};
  uint64_t offset = 0;
  for (const auto& t : tensors) {
    h[t.name] = {
        {"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + st_bytes(t)}}};
    offset += st_bytes(t);
  }
  std::string json = h.dump();
  std::string out(8, '\0');
  uint64_t n = json.size();
  for (int i = 0; i < 8; ++i)
    out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  out += json;
  out.append(static_cast<size_t>(offset), '\0');
  return out;
}

inline void write_bytes(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
}

// A linear weight [out, in] stored in bf16, or MLX-quantized at `bits` with `group` (uint32 packed
// values, bf16 scales and biases).
inline std::vector<StTensor> linear(const std::string& name, int64_t out, int64_t in, int bits = 16,
                                    int group = 64) {
  if (bits == 16) return {{name + ".weight", "BF16", {out, in}}};
  return {{name + ".weight", "U32", {out, in * bits / 32}},
          {name + ".scales", "BF16", {out, in / group}},
          {name + ".biases", "BF16", {out, in / group}}};
}

// Bytes the same weight takes, by the format's definition.
inline uint64_t linear_bytes(int64_t out, int64_t in, int bits = 16, int group = 64) {
  uint64_t p = static_cast<uint64_t>(out * in);
  if (bits == 16) return p * 2;
  return p * static_cast<uint64_t>(bits) / 8 + p / static_cast<uint64_t>(group) * 4;
}

}  // namespace meshplan::testing
