// The hostfile format: read in both the object and the older bare-array form, with positions in
// errors.
#include "topologies/mlx_hostfile.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"
#include "tests/test_support.hpp"

namespace meshplan::mlx_hostfile_test {
namespace {

using testing::fixture_path;
using testing::read_text;

MlxHostfile parse(const std::string& text, const std::string& name = "h.json") {
  return read_mlx_hostfile(parse_json_document(text, name));
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
}  // namespace meshplan::mlx_hostfile_test
