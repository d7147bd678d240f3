#include "lib/models/safetensors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <utility>

#include "lib/core/document.hpp"
#include "lib/core/error.hpp"

namespace meshplan {
namespace {

constexpr int kMaxRank = 8;
constexpr int64_t kMaxExtent = int64_t{1} << 40;

uint64_t read_le64(std::string_view bytes) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
  return v;
}

std::string dtype_list() {
  return "F64, F32, F16, BF16, F8_E4M3, F8_E5M2, F8_E8M0, I64, I32, I16, I8, U64, U32, U16, U8, "
         "BOOL";
}

}  // namespace

int safetensors_dtype_size(std::string_view dtype) {
  static constexpr std::array<std::pair<std::string_view, int>, 16> kSizes = {{{"F64", 8},
                                                                               {"F32", 4},
                                                                               {"F16", 2},
                                                                               {"BF16", 2},
                                                                               {"F8_E4M3", 1},
                                                                               {"F8_E5M2", 1},
                                                                               {"F8_E8M0", 1},
                                                                               {"I64", 8},
                                                                               {"I32", 4},
                                                                               {"I16", 2},
                                                                               {"I8", 1},
                                                                               {"U64", 8},
                                                                               {"U32", 4},
                                                                               {"U16", 2},
                                                                               {"U8", 1},
                                                                               {"BOOL", 1}}};
  for (const auto& [name, size] : kSizes) {
    if (name == dtype) return size;
  }
  return 0;
}

uint64_t SafetensorsTensor::elements() const {
  uint64_t n = 1;
  for (auto d : shape)
    n *= static_cast<uint64_t>(d);
  return n;
}

SafetensorsHeader parse_safetensors_header(std::string_view prefix, uint64_t file_size,
                                           const std::string& file) {
  SafetensorsHeader h;
  h.file = file;
  h.file_size = file_size;
  if (file_size < 8 || prefix.size() < 8)
    throw input_error(
        "{}: truncated safetensors file: {} bytes, but the header length alone takes 8", file,
        file_size);
  h.header_length = read_le64(prefix);
  if (h.header_length > kMaxSafetensorsHeader)
    throw input_error("{}: header length {} exceeds the {} byte limit; not a safetensors file?",
                      file, h.header_length, kMaxSafetensorsHeader);
  if (h.header_length > file_size - 8)
    throw input_error(
        "{}: header length {} is larger than the file ({} bytes after the length field): truncated "
        "file?",
        file, h.header_length, file_size - 8);
  if (prefix.size() < 8 + h.header_length)
    throw input_error("{}: truncated safetensors header: {} of {} bytes", file, prefix.size() - 8,
                      h.header_length);
  const uint64_t data_size = file_size - 8 - h.header_length;

  DocNode root = parse_json_document(prefix.substr(8, static_cast<size_t>(h.header_length)), file);
  root.require_object();
  h.tensors.reserve(root.fields().size());
  for (const auto& [name, entry] : root.fields()) {
    if (name == "__metadata__") continue;
    entry.require_object();
    SafetensorsTensor t;
    t.name = name;
    const DocNode& dtype = entry.at("dtype");
    t.dtype = dtype.as_string();
    const int size = safetensors_dtype_size(t.dtype);
    if (size == 0)
      dtype.fail(fmt::format("unknown dtype \"{}\"; expected one of: {}", t.dtype, dtype_list()));
    const DocNode& shape = entry.at("shape").require_array();
    if (shape.items().size() > kMaxRank)
      shape.fail(
          fmt::format("expected at most {} dimensions, got {}", kMaxRank, shape.items().size()));
    uint64_t elements = 1;
    for (const auto& d : shape.items()) {
      int64_t v = d.as_int();
      if (v < 0 || v > kMaxExtent)
        d.fail(fmt::format("expected a dimension between 0 and {}, got {}", kMaxExtent, v));
      t.shape.push_back(v);
      if (v != 0 && elements > (uint64_t{1} << 62) / static_cast<uint64_t>(v))
        shape.fail("the shape holds more elements than any file can");
      elements *= static_cast<uint64_t>(v);
    }
    const DocNode& offsets = entry.at("data_offsets").require_array();
    if (offsets.items().size() != 2)
      offsets.fail(fmt::format("expected [begin, end], got {} numbers", offsets.items().size()));
    int64_t begin = offsets.items()[0].as_int(), end = offsets.items()[1].as_int();
    if (begin < 0 || end < begin)
      offsets.fail(fmt::format("expected 0 <= begin <= end, got [{}, {}]", begin, end));
    if (static_cast<uint64_t>(end) > data_size)
      offsets.fail(
          fmt::format("end {} lies beyond the data ({} bytes): truncated file?", end, data_size));
    t.begin = static_cast<uint64_t>(begin);
    t.end = static_cast<uint64_t>(end);
    if (elements * static_cast<uint64_t>(size) != t.bytes())
      offsets.fail(fmt::format("{} bytes, but shape [{}] of {} needs {}", t.bytes(),
                               fmt::join(t.shape, ", "), t.dtype,
                               elements * static_cast<uint64_t>(size)));
    h.tensors.push_back(std::move(t));
  }
  return h;
}

SafetensorsHeader read_safetensors_header(const FileSystem& fs, const std::string& path) {
  const uint64_t size = fs.file_size(path);
  std::string head = fs.read_range(path, 0, 8);
  if (head.size() < 8) return parse_safetensors_header(head, size, path);
  const uint64_t n = read_le64(head);
  // Validate before reading: the length decides how much is allocated.
  if (n > kMaxSafetensorsHeader || n > size - 8) return parse_safetensors_header(head, size, path);
  return parse_safetensors_header(fs.read_range(path, 0, 8 + n), size, path);
}

}  // namespace meshplan
