// The format table: lookups, option validation, and the two places users read it from (the
// table of docs/emit.md and `emit --help`), which must list exactly the table's formats.
#include "deploy/emit/emit_formats.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/mlx_launch.hpp"
#include "lib/core/error.hpp"
#include "tests/launch_inputs.hpp"
#include "tests/test_support.hpp"
#include "topologies/mlx_hostfile.hpp"

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
            "exo-disagg, exo-env, vllm, vllm-disagg, ray-cluster, ansible-inventory, routing, "
            "nginx or slurm");
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

// MLX on CUDA hosts (mlx python/mlx/_distributed_utils/launch.py, launch_nccl): the nccl backend,
// a rank per GPU, NCCL_HOST_IP = rank 0's first IP, CUDA_VISIBLE_DEVICES = rank % -n; the hostfile
// lists each host once per GPU in a row (-n does not repeat hostfile hosts).
TEST(emit_formats_test, cuda_hosts_run_nccl_with_a_rank_per_gpu) {
  auto in = testing::launch_inputs("tests/fixtures/launch/two_hgx_rails.yaml",
                                   "tests/fixtures/launch/two_hgx_pipeline_plan.json");
  auto lines = testing::command_lines(write_mlx_launch(in->input()));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "mlx.launch --hostfile mlx-hostfile.json --backend nccl -n 8 -- mlx_lm.server "
            "--model MODEL --pipeline --host 0.0.0.0");
  MlxHostfile f = read_mlx_hostfile(
      parse_document(find_emit_format("mlx-hostfile")->write(in->input()), "hostfile"));
  EXPECT_EQ(f.backend, "nccl");
  ASSERT_EQ(f.hosts.size(), 16u);
  for (size_t r = 0; r < 16; ++r) {
    EXPECT_EQ(f.hosts[r].ssh, r < 8 ? "hgx-a" : "hgx-b");
    EXPECT_EQ(f.hosts[r].ips, (std::vector<std::string>{r < 8 ? "10.9.0.1" : "10.9.0.2"}));
  }
  std::string env = find_emit_format("mlx-env")->write(in->input());
  EXPECT_NE(
      env.find("# rank 11: hgx-b\nexport NCCL_HOST_IP=10.9.0.1\nexport NCCL_PORT=12345\n"
               "export MLX_WORLD_SIZE=16\nexport CUDA_VISIBLE_DEVICES=3\nexport MLX_RANK=11\n"),
      std::string::npos)
      << env;
  EXPECT_EQ(env.find("MLX_HOSTFILE"), std::string::npos);  // no ring file
}

// Macs and NVIDIA hosts in one plan: MLX runs one backend for all ranks, so no MLX file is written.
TEST(emit_formats_test, a_plan_mixing_macs_and_cuda_hosts_gets_no_mlx_launch) {
  auto in = testing::launch_inputs("tests/fixtures/launch/mac_and_gpu.yaml");
  ASSERT_EQ(build_launch_layout(in->input()).nodes.size(), 2u);
  EXPECT_THROW(write_mlx_launch(in->input()), Error);
  EXPECT_THROW(find_emit_format("mlx-hostfile")->write(in->input()), Error);
  EXPECT_FALSE(find_emit_format("mlx-launch")->applies(in->input()));
}

}  // namespace
}  // namespace meshplan::emit_formats_test
