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

// Over Thunderbolt TCP each rpc-server listens on its end of the cable to the main host: the
// address `setup` puts on that host's port, whose peer `setup` configures on the main host.
TEST(llama_rpc_test, thunderbolt_ring_workers_listen_on_the_cable_to_the_main_host) {
  auto in = testing::launch_inputs("examples/clusters/mac-mini-m4-pro-x4.yaml",
                                   "tests/fixtures/launch/minis_ring_plan.json");
  auto lines = testing::command_lines(write_llama_rpc(in->input()));
  ASSERT_EQ(lines.size(), 3u);
  std::string setup = find_emit_format("setup")->write(in->input());
  auto block = [&](const std::string& host) {
    size_t a = setup.find("Setup for " + host + "\n");
    size_t b = setup.find("Setup for ", a + 1);
    return setup.substr(a, b == std::string::npos ? std::string::npos : b - a);
  };
  std::smatch m;
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(std::regex_match(lines[i], m, std::regex(R"(rpc-server -H (\S+) -p 50052)")))
        << lines[i];
    std::string addr = m[1];
    std::string host = i == 0 ? "mini-1" : "mini-2";
    EXPECT_NE(block(host).find(" inet " + addr + " netmask 255.255.255.252\n"), std::string::npos)
        << addr << "\n"
        << setup;
    // mini-3 routes this address over its own port on the same cable.
    EXPECT_NE(block("mini-3").find("sudo route change " + addr + " -interface "), std::string::npos)
        << addr << "\n"
        << setup;
  }
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
