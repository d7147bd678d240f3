#include "lib/models/safetensors.hpp"

#include <gtest/gtest.h>

#include <map>

#include "lib/core/error.hpp"
#include "tests/safetensors_writer.hpp"

namespace meshplan::safetensors_test {
namespace {

using testing::safetensors_file;
using testing::StTensor;

// Remembers how many bytes were read, to prove that only headers are read.
class CountingFileSystem : public MemoryFileSystem {
 public:
  std::string read_file(const std::string& path) const override {
    read += MemoryFileSystem::read_file(path).size();
    return MemoryFileSystem::read_file(path);
  }
  std::string read_range(const std::string& path, uint64_t offset, uint64_t length) const override {
    std::string s = MemoryFileSystem::read_file(path).substr(offset, length);
    read += s.size();
    return s;
  }
  uint64_t file_size(const std::string& path) const override { return files.at(path).size(); }
  mutable uint64_t read = 0;
};

std::string header_bytes(const std::string& json, uint64_t declared, size_t data = 0) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[static_cast<size_t>(i)] = static_cast<char>((declared >> (8 * i)) & 0xff);
  return out + json + std::string(data, '\0');
}

std::string error_of(const std::string& content) {
  try {
    parse_safetensors_header(content, content.size(), "w.safetensors");
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 2);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(safetensors_test, reads_names_dtypes_shapes_and_bytes_from_offsets) {
  std::string file = safetensors_file(
      {{"a.weight", "BF16", {4, 8}}, {"a.scales", "U32", {4, 1}}, {"norm", "F32", {8}}});
  SafetensorsHeader h = parse_safetensors_header(file, file.size(), "w.safetensors");
  ASSERT_EQ(h.tensors.size(), 3u);
  std::map<std::string, SafetensorsTensor> by_name;
  for (const auto& t : h.tensors)
    by_name[t.name] = t;
  EXPECT_EQ(by_name.at("a.weight").dtype, "BF16");
  EXPECT_EQ(by_name.at("a.weight").shape, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(by_name.at("a.weight").bytes(), 64u);
  EXPECT_EQ(by_name.at("a.scales").bytes(), 16u);
  EXPECT_EQ(by_name.at("norm").bytes(), 32u);
  EXPECT_EQ(h.file_size, file.size());
}

TEST(safetensors_test, reads_only_the_header) {
  CountingFileSystem fs;
  std::string file = safetensors_file({{"big", "BF16", {1024, 1024}}});
  fs.files["m/w.safetensors"] = file;
  SafetensorsHeader h = read_safetensors_header(fs, "m/w.safetensors");
  EXPECT_EQ(h.tensors.at(0).bytes(), 2u * 1024 * 1024);
  EXPECT_EQ(fs.read, 8 + 8 + h.header_length);  // the length twice, then the header
  EXPECT_LT(fs.read, 1000u);
}

TEST(safetensors_test, truncated_before_the_length) {
  EXPECT_NE(error_of(std::string("\x10\x00\x00", 3))
                .find("w.safetensors: truncated safetensors file: 3 bytes"),
            std::string::npos);
}

TEST(safetensors_test, header_length_larger_than_the_file) {
  std::string e = error_of(header_bytes("{}", 5000));
  EXPECT_NE(e.find("w.safetensors: header length 5000 is larger than the file (2 bytes"),
            std::string::npos)
      << e;
}

TEST(safetensors_test, absurd_header_length_is_refused_before_reading) {
  CountingFileSystem fs;
  fs.files["w.safetensors"] = header_bytes("{}", uint64_t{1} << 50, 100);
  try {
    read_safetensors_header(fs, "w.safetensors");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("exceeds the 100000000 byte limit"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(fs.read, 8u);
}

TEST(safetensors_test, malformed_header_json) {
  std::string json = "{\"a\": {\"dtype\": \"BF16\",";
  std::string e = error_of(header_bytes(json, json.size()));
  EXPECT_NE(e.find("w.safetensors:1:"), std::string::npos) << e;
  EXPECT_NE(e.find("malformed JSON"), std::string::npos) << e;
}

TEST(safetensors_test, unknown_dtype_names_the_field) {
  std::string json = R"({"t": {"dtype": "Q4", "shape": [2], "data_offsets": [0, 2]}})";
  std::string e = error_of(header_bytes(json, json.size(), 2));
  EXPECT_NE(e.find("w.safetensors (/t/dtype): unknown dtype \"Q4\""), std::string::npos) << e;
}

TEST(safetensors_test, absurd_shapes_name_the_field) {
  std::string neg = R"({"t": {"dtype": "BF16", "shape": [-2, 4], "data_offsets": [0, 16]}})";
  EXPECT_NE(error_of(header_bytes(neg, neg.size(), 16))
                .find("(/t/shape/0): expected a dimension between 0 and"),
            std::string::npos);
  std::string huge =
      R"({"t": {"dtype": "BF16", "shape": [1099511627776, 1099511627776], "data_offsets": [0, 16]}})";
  EXPECT_NE(error_of(header_bytes(huge, huge.size(), 16))
                .find("(/t/shape): the shape holds more elements"),
            std::string::npos);
  std::string rank =
      R"({"t": {"dtype": "U8", "shape": [1,1,1,1,1,1,1,1,1], "data_offsets": [0, 1]}})";
  EXPECT_NE(error_of(header_bytes(rank, rank.size(), 1)).find("expected at most 8 dimensions"),
            std::string::npos);
  std::string mismatch = R"({"t": {"dtype": "BF16", "shape": [4, 4], "data_offsets": [0, 16]}})";
  std::string e = error_of(header_bytes(mismatch, mismatch.size(), 16));
  EXPECT_NE(e.find("(/t/data_offsets): 16 bytes, but shape [4, 4] of BF16 needs 32"),
            std::string::npos)
      << e;
}

TEST(safetensors_test, offsets_beyond_the_data_name_the_field) {
  std::string json = R"({"t": {"dtype": "BF16", "shape": [4], "data_offsets": [0, 8]}})";
  std::string e = error_of(header_bytes(json, json.size(), 4));
  EXPECT_NE(e.find("(/t/data_offsets): end 8 lies beyond the data (4 bytes)"), std::string::npos)
      << e;
  std::string reversed = R"({"t": {"dtype": "BF16", "shape": [0], "data_offsets": [4, 0]}})";
  EXPECT_NE(error_of(header_bytes(reversed, reversed.size(), 4)).find("expected 0 <= begin <= end"),
            std::string::npos);
  std::string missing = R"({"t": {"dtype": "BF16", "shape": [4]}})";
  EXPECT_NE(error_of(header_bytes(missing, missing.size()))
                .find("(/t): missing required key \"data_offsets\""),
            std::string::npos);
}

}  // namespace
}  // namespace meshplan::safetensors_test
