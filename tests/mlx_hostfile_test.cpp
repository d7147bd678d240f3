// The hostfile format: written exactly as Python's json.dump(indent=4), read in both the object
// and the older bare-array form, with positions in errors.
#include "lib/mlx_hostfile.hpp"

#include <gtest/gtest.h>

#include "lib/error.hpp"
#include "tests/test_support.hpp"

namespace meshplan {
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

TEST(mlx_hostfile_test, reads_the_bare_list_form_and_defaults) {
  MlxHostfile f = read_mlx_hostfile(parse_json_document(
      read_text(fixture_path("launchers/mlx_legacy_list_hostfile.json")), "legacy.json"));
  EXPECT_TRUE(f.bare_array);
  EXPECT_FALSE(f.backend.has_value());
  ASSERT_EQ(f.hosts.size(), 2u);
  EXPECT_EQ(f.hosts[1].ips, (std::vector<std::string>{"123.123.1.2", "123.123.2.2"}));
  EXPECT_TRUE(f.hosts[1].rdma.empty());
  MlxHostfile g = parse(read_text(fixture_path("launchers/mlx_hostfile_jaccl_mesh4.json")));
  EXPECT_EQ(g.backend, "jaccl");
  EXPECT_EQ(g.hosts[2].rdma[3], RdmaCell::one("rdma_en5"));
  EXPECT_FALSE(g.hosts[2].rdma[2].present);
}

TEST(mlx_hostfile_test, errors_name_file_and_position) {
  struct Case {
    std::string text, expect;
  };
  std::vector<Case> cases = {
      {R"({"hosts": [{"ssh": "a", "rdma": [null, 3]}]})",
       "h.json (/hosts/0/rdma/1): expected null, a device name"},
      {R"({"hosts": [{"ips": []}]})", "h.json (/hosts/0)"},
      {R"({"hosts": [{"ssh": "a", "port": 3}]})", "unknown key \"port\""},
      {R"({"backend": "ring"})", "h.json"},
      {R"("hosts")", "expected a hostfile"},
      {R"({"hosts": []})", "expected at least one host"},
  };
  for (const auto& c : cases) {
    try {
      parse(c.text);
      ADD_FAILURE() << "accepted " << c.text;
    } catch (const Error& e) {
      EXPECT_EQ(exit_code(e.kind()), 2);
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace meshplan
