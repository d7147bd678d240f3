// Nothing in a cluster or plan file, nor in --model / --program, changes what an emitted command
// runs: every command line of every shell-bearing format is checked by `sh -n`, then run by sh
// with stand-ins for the engines that record the words and variables they receive. The words must
// be exactly the hostile values, and none of the commands hidden in them may have run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/test_support.hpp"

namespace meshplan::launch_quoting_test {
namespace {

using testing::read_text;
using testing::run_meshplan;
using testing::run_recorded;
using testing::source_path;
using testing::temp_dir;

const std::string kIface0 = "lo;touch PWNED $(touch PWNED2) 'q\" `touch PWNED5`";
const std::string kIface1 = "e n'0";
const std::string kRdma0 = "$(touch PWNED3)";
const std::string kName = "x'; touch PWNED4 #";
const std::string kModel = "/m o/$(touch PWNED6)'.gguf";
const std::string kProgram = "/p q/\"x\"; touch PWNED7.py";

std::string commands_of(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out += line + "\n";
  return out;
}

TEST(launch_quoting_test, hostile_values_reach_the_engines_as_data) {
  struct Case {
    std::string format;
    std::vector<std::string> must_record;
  };
  std::vector<Case> cases = {
      {"torchrun",
       {"run torchrun", "arg <" + kProgram + ">", "env NCCL_SOCKET_IFNAME <=" + kIface0 + ">",
        "env GLOO_SOCKET_IFNAME <" + kIface0 + ">", "env NCCL_IB_HCA <=" + kRdma0 + ":1>",
        "env NCCL_SOCKET_IFNAME <=" + kIface1 + ">", "arg <--master_addr=127.0.0.1>"}},
      {"vllm",
       {"run vllm", "arg <" + kModel + ">", "env GLOO_SOCKET_IFNAME <" + kIface1 + ">",
        "arg <--headless>"}},
      {"exo-env", {"run exo", "arg <--namespace>", "arg <" + kName + ">", "arg <--force-master>"}},
      {"llama-rpc",
       {"run rpc-server", "arg <127.0.0.1>", "run llama-server", "arg <" + kModel + ">",
        "arg <3,6>"}},  // 5 layers and the output layer's slot
      {"mlx-launch", {"run mlx.launch", "arg <" + kModel + ">", "arg <--pipeline>"}},
      {"nccl-env", {}},
  };
  for (const Case& c : cases) {
    std::string dir = temp_dir();
    auto r =
        run_meshplan({"emit", c.format, "-c", source_path("tests/fixtures/launch/hostile.yaml"),
                      "--plan", source_path("tests/fixtures/launch/hostile_plan.json"), "--model",
                      kModel, "--program", kProgram});
    ASSERT_EQ(r.exit_code, 0) << c.format << ": " << r.err;
    std::string script = commands_of(r.out);
    if (c.format == "nccl-env")  // export lines: what a shell that sources them then holds
      script += "torchrun\n";
    std::string recorded = run_recorded(
        dir, script,
        {"torchrun", "vllm", "exo", "rpc-server", "llama-server", "mlx.launch", "ray"});
    for (const std::string& want : c.must_record)
      EXPECT_NE(recorded.find(want + "\n"), std::string::npos)
          << c.format << " lacks " << want << "\n"
          << recorded;
    if (c.format == "nccl-env") {  // the last block sourced is rank 1's
      EXPECT_NE(recorded.find("env NCCL_SOCKET_IFNAME <=" + kIface1 + ">\n"), std::string::npos)
          << recorded;
      EXPECT_NE(recorded.find("env NCCL_IB_HCA <=" + kRdma0 + ":1>\n"), std::string::npos)
          << recorded;
    }
    for (const auto& e : std::filesystem::directory_iterator(dir))
      EXPECT_EQ(e.path().filename().string().find("PWNED"), std::string::npos)
          << c.format << " ran a command from a value: " << e.path();
  }
}

TEST(launch_quoting_test, hostfiles_refuse_a_host_that_is_not_one_word) {
  for (const char* format : {"openmpi-hostfile", "mpich-hostfile", "deepspeed-hostfile"}) {
    std::string out = temp_dir() + "/hostfile";
    auto r =
        run_meshplan({"emit", format, "-c", source_path("tests/fixtures/launch/hostile.yaml"),
                      "--plan", source_path("tests/fixtures/launch/hostile_plan.json"), "-o", out});
    EXPECT_EQ(r.exit_code, 2) << format;
    EXPECT_NE(r.err.find("host node-a: ssh target \"a;touch PWNED\""), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

}  // namespace
}  // namespace meshplan::launch_quoting_test
