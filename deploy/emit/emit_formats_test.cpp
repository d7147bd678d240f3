// The format table: lookups, option validation, and the two places users read it from (the
// table of docs/emit.md and `emit --help`), which must list exactly the table's formats.
#include "deploy/emit/emit_formats.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "lib/core/error.hpp"
#include "tests/test_support.hpp"

namespace meshplan::emit_formats_test {
namespace {

using testing::read_text;
using testing::run_meshplan;
using testing::source_path;

TEST(emit_formats_test, finds_every_format_by_name_and_nothing_else) {
  for (const EmitFormat& f : emit_formats()) {
    ASSERT_NE(find_emit_format(f.name), nullptr) << f.name;
    EXPECT_EQ(find_emit_format(f.name)->name, f.name);
    EXPECT_NE(f.write, nullptr) << f.name;
  }
  EXPECT_EQ(find_emit_format("mlx_hostfile"), nullptr);
  EXPECT_EQ(find_emit_format(""), nullptr);
  EXPECT_EQ(emit_format_names(),
            "mlx-hostfile, mlx-env, mlx-launch, setup, teardown, dot, openmpi-hostfile, "
            "mpich-hostfile, deepspeed-hostfile, deepspeed-env, torchrun, nccl-env, llama-rpc, "
            "exo-env, vllm, vllm-disagg, ray-cluster, ansible-inventory, routing, nginx or slurm");
  // Every format has its own file name in `emit all`'s folder.
  std::set<std::string_view> files;
  for (const EmitFormat& f : emit_formats())
    EXPECT_TRUE(files.insert(f.file).second) << f.name;
}

TEST(emit_formats_test, docs_table_lists_exactly_the_formats) {
  // The rows of the table of docs/emit.md: | `name` | summary |
  std::istringstream section(read_text(source_path("docs/emit.md")));
  std::regex row(R"(^\| `([a-z0-9-]+)` \| (.*) \|$)");
  std::vector<std::pair<std::string, std::string>> rows;
  for (std::string line; std::getline(section, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row)) rows.emplace_back(m[1], m[2]);
  }
  ASSERT_EQ(rows.size(), emit_formats().size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].first, emit_formats()[i].name);
    EXPECT_EQ(rows[i].second, emit_formats()[i].summary) << rows[i].first;
  }
}

TEST(emit_formats_test, emit_help_lists_every_format_with_its_summary) {
  auto r = run_meshplan({"emit", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const EmitFormat& f : emit_formats()) {
    std::regex line(
        "\\n  " + std::string(f.name) + " +" +
        std::regex_replace(std::string(f.summary), std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
        "\\n");
    EXPECT_TRUE(std::regex_search(r.out, line)) << f.name << "\n" << r.out;
  }
}

TEST(emit_formats_test, rejects_env_values_engines_cannot_take) {
  MlxEnvOptions ok;
  EXPECT_NO_THROW(validate_emit_options({"MLX_METAL_FAST_SYNCH=1", "A_1="}, ok));
  for (std::string bad : {"=1", "NOEQUALS", "A-B=1", "A B=1"}) {
    try {
      validate_emit_options({bad}, ok);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(exit_code(e.kind()), 2);
      EXPECT_NE(std::string(e.what()).find("--env " + bad), std::string::npos) << e.what();
    }
  }
  MlxEnvOptions zero;
  zero.connections_per_ip = 0;
  EXPECT_THROW(validate_emit_options({}, zero), Error);
}

TEST(emit_formats_test, emit_dot_is_the_dot_command) {
  std::string cluster = source_path("examples/clusters/mac-mini-m4-pro-x4.yaml");
  for (std::string backend : {"auto", "jaccl", "ring"}) {
    auto a = run_meshplan({"emit", "dot", "-c", cluster, "--backend", backend});
    auto b = run_meshplan({"dot", "-c", cluster, "--backend", backend});
    ASSERT_EQ(a.exit_code, 0) << a.err;
    EXPECT_EQ(a.out, b.out) << backend;
    EXPECT_NE(a.out.find("graph"), std::string::npos);
  }
}

}  // namespace
}  // namespace meshplan::emit_formats_test
