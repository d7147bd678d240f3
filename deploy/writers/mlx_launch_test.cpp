// mlx.launch's command line (mlx python/mlx/distributed/launch.py flags) and mlx-lm 0.32.0's
// pipeline split (mlx_lm/models/pipeline.py @d78bf58): equal counts, the first len % size ranks
// one more, placed in reverse so that rank 0 holds the last layers.
#include "deploy/writers/mlx_launch.hpp"

#include <gtest/gtest.h>

#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/mlx_env.hpp"
#include "lib/core/error.hpp"
#include "tests/launch_inputs.hpp"
#include "topologies/mlx_hostfile.hpp"

namespace meshplan::mlx_launch_test {
namespace {

TEST(mlx_launch_test, mlx_lm_ranges_are_reversed_equal_shares) {
  EXPECT_EQ(mlx_lm_pipeline_range(32, 4, 0), (std::pair<int, int>{24, 32}));
  EXPECT_EQ(mlx_lm_pipeline_range(32, 4, 3), (std::pair<int, int>{0, 8}));
  // 61 over 2: rank 0 gets 31 from (2 - 0 - 1) * 31, cut at the last layer; rank 1 gets 30 from 0.
  EXPECT_EQ(mlx_lm_pipeline_range(61, 2, 0), (std::pair<int, int>{31, 61}));
  EXPECT_EQ(mlx_lm_pipeline_range(61, 2, 1), (std::pair<int, int>{0, 30}));
}

TEST(mlx_launch_test, command_uses_the_hostfile_backend_envs_and_pipeline) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->envs = {"MLX_METAL_FAST_SYNCH=1"};
  in->launch.model = "mlx-community/M";
  std::string text = write_mlx_launch(in->input());
  auto lines = testing::command_lines(text);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "mlx.launch --hostfile mlx-hostfile.json --backend ring --env MLX_METAL_FAST_SYNCH=1 "
            "-- mlx_lm.server --model mlx-community/M --pipeline --host 0.0.0.0");
  // mlx-lm's rank 0 loads the last layers: the hostfile lists the pipeline's last stage first,
  // so node-b (the plan's rank 0, [0, 10)) is MLX rank 2, where mlx-lm loads [0, 10) too; each
  // line names both numbers.
  EXPECT_NE(text.find("# MLX rank 2 (plan rank 0): node-b MLX_RANK=2; plan layers [0, 10), mlx-lm "
                      "--pipeline loads [0, 10)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# MLX rank 0 (plan rank 2): node-a MLX_RANK=0; plan layers [16, 32), mlx-lm "
                      "--pipeline loads [22, 32) (differs)"),
            std::string::npos)
      << text;
  // The middle stage keeps its number: one rank line without the plan's.
  EXPECT_NE(text.find("# rank 1: node-c MLX_RANK=1;"), std::string::npos) << text;
  // 3 ranks over 32 layers: pipeline.py's ranges leave layer 10 to no rank.
  EXPECT_NE(mlx_lm_split_note(in->input()).find("computes layer 10 on no rank"), std::string::npos);
}

TEST(mlx_launch_test, mlx_env_names_the_plan_rank_where_it_differs) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  MlxHostfile f;
  f.backend = "ring";
  for (const char* host : {"node-a", "node-c", "node-b"}) {
    MlxHost h;
    h.ssh = host;
    h.ips = {"127.0.0.1"};
    f.hosts.push_back(h);
  }
  std::vector<MlxRankEnv> ranks = mlx_rank_envs(f, {});
  mark_plan_ranks(in->input(), ranks);
  EXPECT_EQ(ranks[0].plan_rank, 2);
  EXPECT_EQ(ranks[1].plan_rank, -1);
  EXPECT_EQ(ranks[2].plan_rank, 0);
  std::string env = render_mlx_env(f, ranks);
  EXPECT_NE(env.find("# MLX rank 0 (plan rank 2): node-a\n"), std::string::npos) << env;
  EXPECT_NE(env.find("# rank 1: node-c\n"), std::string::npos) << env;
  EXPECT_NE(env.find("export MLX_RANK=0\n"), std::string::npos) << env;
}

TEST(mlx_launch_test, one_rank_runs_mlx_lm_server_without_mlx_launch) {
  auto in = testing::launch_inputs("tests/fixtures/launch/one_studio.yaml");
  in->launch.model = "mlx-community/M";
  const EmitInput input = in->input();
  const std::string text = write_mlx_launch(input);
  EXPECT_EQ(mlx_rank_count(input.layout()), 1);
  auto lines = testing::command_lines(text);
  ASSERT_EQ(lines.size(), 1u) << text;
  EXPECT_EQ(lines[0], "mlx_lm.server --model mlx-community/M --host 0.0.0.0");
  EXPECT_EQ(text.find("MLX_RANK="), std::string::npos) << text;
}

TEST(mlx_launch_test, tensor_plans_run_without_pipeline) {
  auto in =
      testing::launch_inputs(testing::kStudios, "tests/fixtures/launch/studios_tensor_plan.json");
  auto lines = testing::command_lines(write_mlx_launch(in->input()));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "mlx.launch --hostfile mlx-hostfile.json --backend jaccl -- mlx_lm.server --model "
            "MODEL --host 0.0.0.0");
  EXPECT_TRUE(mlx_lm_split_note(in->input()).empty());
}

}  // namespace
}  // namespace meshplan::mlx_launch_test
