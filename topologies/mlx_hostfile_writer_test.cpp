// The hostfile format: written exactly as Python's json.dump(indent=4).
#include "topologies/mlx_hostfile_writer.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"
#include "tests/test_support.hpp"

namespace meshplan::mlx_hostfile_writer_test {
namespace {

using testing::fixture_path;
using testing::read_text;

MlxHostfile parse(const std::string& text, const std::string& name = "h.json") {
  return read_mlx_hostfile(parse_json_document(text, name));
}

// The hostfile from the top of an mlx.launch golden file ("# input hostfile:" ... "# argv:").
std::string launch_input(const std::string& name) {
  std::string text = read_text(fixture_path("mlx_golden/launch/" + name));
  size_t a = text.find('\n') + 1, b = text.find("# argv:");
  return text.substr(a, b - a - 1);  // json.dumps(indent=4) plus the newline print() added
}

TEST(mlx_hostfile_test, round_trips_python_layout_byte_for_byte) {
  for (const char* name : {"jaccl_4hosts_mesh.txt", "jaccl_ring_2hosts_2cables.txt",
                           "ring_2hosts_2cables_2conns.txt", "ring_4hosts_verbose.txt"}) {
    std::string text = launch_input(name);
    EXPECT_EQ(write_mlx_hostfile(parse(text)), text) << name;
  }
}

TEST(mlx_hostfile_test, writes_empty_and_nested_arrays_as_python_does) {
  MlxHostfile f;
  f.backend = "jaccl-ring";
  MlxHost a;
  a.ssh = "mac-a";
  a.rdma = {RdmaCell::none(), RdmaCell::many({"rdma_en2", "rdma_en3"})};
  f.hosts.push_back(a);
  EXPECT_EQ(write_mlx_hostfile(f),
            "{\n    \"backend\": \"jaccl-ring\",\n    \"envs\": [],\n    \"hosts\": [\n        {\n "
            "           \"ssh\": "
            "\"mac-a\",\n            \"ips\": [],\n            \"rdma\": [\n                "
            "null,\n                [\n"
            "                    \"rdma_en2\",\n                    \"rdma_en3\"\n                "
            "]\n            ]\n"
            "        }\n    ]\n}");
  EXPECT_EQ(python_json_string("caf\xc3\xa9 \"x\"\n"), "\"caf\\u00e9 \\\"x\\\"\\n\"");
  EXPECT_EQ(python_rdma_matrix(f.hosts), "[[null, [\"rdma_en2\", \"rdma_en3\"]]]");
}

}  // namespace
}  // namespace meshplan::mlx_hostfile_writer_test
