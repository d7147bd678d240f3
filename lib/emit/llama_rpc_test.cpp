// llama.cpp RPC (tools/rpc/README.md): `rpc-server -H HOST -p PORT` per worker, the main command
// with --rpc HOST:PORT,... and --tensor-split with one proportion per device. llama.cpp orders its
// devices RPC first (in --rpc order), then its own, so the last rank runs the main command and the
// split lists the ranks' layer counts in rank order.
#include "lib/emit/llama_rpc.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <regex>

#include "lib/core/error.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan {
namespace {

TEST(llama_rpc_test, workers_then_main_with_rpc_in_rank_order_and_the_layer_split) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->launch.model = "/models/m.gguf";
  auto lines = testing::command_lines(write_llama_rpc(in->input()));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "rpc-server -H 127.0.0.2 -p 50052");  // rank 0: node-b
  EXPECT_EQ(lines[1], "rpc-server -H 127.0.0.3 -p 50052");  // rank 1: node-c
  std::smatch m;
  ASSERT_TRUE(std::regex_match(lines[2], m,
                               std::regex(R"(llama-server -m (\S+) -ngl 99 --rpc (\S+) )"
                                          R"(--tensor-split (\d+),(\d+),(\d+))")))
      << lines[2];
  EXPECT_EQ(m[1], "/models/m.gguf");
  EXPECT_EQ(m[2], "127.0.0.2:50052,127.0.0.3:50052");
  EXPECT_EQ(std::stoi(m[3]) + std::stoi(m[4]) + std::stoi(m[5]), 32);  // every layer once
  EXPECT_EQ(m[3], "10");
  EXPECT_EQ(m[5], "16");  // the main host's own device comes last
}

TEST(llama_rpc_test, refuses_without_a_plan_and_for_a_plan_that_does_not_split_layers) {
  auto no_plan = testing::launch_inputs(testing::kLoopback);
  try {
    write_llama_rpc(no_plan->input());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 2);
  }
  auto tensor =
      testing::launch_inputs(testing::kStudios, "tests/fixtures/launch/studios_tensor_plan.json");
  try {
    write_llama_rpc(tensor->input());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 1);
    EXPECT_NE(std::string(e.what()).find("tensor plan"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace meshplan
