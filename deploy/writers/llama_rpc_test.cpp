// llama.cpp RPC against llama.cpp's own rules:
// * tools/rpc/README.md: `rpc-server -H HOST -p PORT` exposes every accelerator of its host (one
//   CPU device when it has none); the main command takes --rpc HOST:PORT,... and --tensor-split
//   with one proportion per device.
// * src/llama-model.cpp (llama_model_load_from_file_impl): RPC devices come first, in --rpc order,
//   then the main host's own accelerators.
// * src/llama-model.cpp (load_tensors): i_gpu_start = max(n_layer + 1 - ngl, 0) and
//   act = min(ngl, n_layer + 1); slot il (0..n_layer, the output layer last) below i_gpu_start
//   stays on the CPU, else goes to upper_bound(splits, float(il - i_gpu_start) / act), where
//   splits are the cumulative --tensor-split shares divided by their sum, in float.
// The tests compute the layers each host gets from the emitted flags that way and compare them
// with the plan's ranges.
#include "deploy/writers/llama_rpc.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

#include "lib/core/error.hpp"
#include "tests/launch_inputs.hpp"
#include "topologies/setup_commands.hpp"

namespace meshplan::llama_rpc_test {
namespace {

// llama.cpp's device of each of the n_layer + 1 slots; -1 is the CPU.
std::vector<int> llama_cpp_slot_devices(int n_layer, int ngl, const std::vector<float>& split) {
  std::vector<float> splits = split;
  float sum = 0.0f;
  for (float& s : splits) {
    sum += s;
    s = sum;
  }
  for (float& s : splits)
    s /= sum;
  const int i_gpu_start = std::max(n_layer + 1 - ngl, 0);
  const int act = std::min(ngl, n_layer + 1);
  std::vector<int> out;
  for (int il = 0; il <= n_layer; ++il) {
    if (il < i_gpu_start || il - i_gpu_start >= act) {
      out.push_back(-1);
      continue;
    }
    float at = float(il - i_gpu_start) / act;
    out.push_back(
        static_cast<int>(std::upper_bound(splits.begin(), splits.end(), at) - splits.begin()));
  }
  return out;
}

struct Parsed {
  std::vector<std::string> servers;  // -H of each rpc-server line, in order
  std::vector<std::string> rpc;      // --rpc endpoints
  int ngl = 0;
  std::vector<float> split;
  std::string bind;  // llama-server --host
  int port = 0;      // llama-server --port
};

Parsed parse(const std::string& text) {
  Parsed p;
  for (const std::string& line : testing::command_lines(text)) {
    std::istringstream words(line);
    std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
    for (size_t i = 0; i + 1 < w.size(); ++i) {
      if (w[0] == "rpc-server" && w[i] == "-H") p.servers.push_back(w[i + 1]);
      if (w[0] != "llama-server") continue;
      if (w[i] == "-ngl") p.ngl = std::stoi(w[i + 1]);
      if (w[i] == "--host") p.bind = w[i + 1];
      if (w[i] == "--port") p.port = std::stoi(w[i + 1]);
      std::istringstream list(w[i + 1]);
      for (std::string item; std::getline(list, item, ',');) {
        if (w[i] == "--rpc") p.rpc.push_back(item);
        if (w[i] == "--tensor-split") p.split.push_back(std::stof(item));
      }
    }
  }
  return p;
}

// The [first, last + 1) slots of each host, given how many devices each host has in device order.
std::vector<std::pair<int, int>> host_ranges(const std::vector<int>& slots,
                                             const std::vector<int>& devices_per_host) {
  std::vector<int> host_of;
  for (size_t h = 0; h < devices_per_host.size(); ++h)
    host_of.insert(host_of.end(), static_cast<size_t>(devices_per_host[h]), static_cast<int>(h));
  std::vector<std::pair<int, int>> out(devices_per_host.size(), {-1, -1});
  for (int il = 0; il < static_cast<int>(slots.size()); ++il) {
    EXPECT_GE(slots[static_cast<size_t>(il)], 0) << "slot " << il << " stays on the CPU";
    if (slots[static_cast<size_t>(il)] < 0) continue;
    auto& r =
        out[static_cast<size_t>(host_of.at(static_cast<size_t>(slots[static_cast<size_t>(il)])))];
    if (r.first < 0) r.first = il;
    EXPECT_EQ(r.second < 0 || r.second == il, true) << "host ranges are not contiguous at " << il;
    r.second = il + 1;
  }
  return out;
}

TEST(llama_rpc_test, flags_load_exactly_the_planned_ranges_as_llama_cpp_computes_them) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->launch.model = "/models/m.gguf";
  std::string text = write_llama_rpc(in->input());
  Parsed p = parse(text);
  // Ranks 0 and 1 (node-b, node-c) serve their CPUs; node-a, the main host, has no accelerator,
  // so its CPU joins through a local rpc-server listed last.
  EXPECT_EQ(p.servers, (std::vector<std::string>{"127.0.0.2", "127.0.0.3", "127.0.0.1"}));
  EXPECT_EQ(p.rpc,
            (std::vector<std::string>{"127.0.0.2:50052", "127.0.0.3:50052", "127.0.0.1:50052"}));
  EXPECT_EQ(p.ngl, 33);  // all 32 layers and the output layer
  ASSERT_EQ(p.split.size(), 3u);
  auto ranges = host_ranges(llama_cpp_slot_devices(32, p.ngl, p.split), {1, 1, 1});
  // The plan: node-b [0, 10), node-c [10, 16), node-a [16, 32) and the output layer.
  EXPECT_EQ(ranges, (std::vector<std::pair<int, int>>{{0, 10}, {10, 16}, {16, 33}}));
  EXPECT_EQ(p.bind, "0.0.0.0");  // other hosts reach the server, not only 127.0.0.1
  // The port LAUNCH.md and nginx name, whatever the build's default (Debian's is not 8080).
  EXPECT_EQ(p.port, kLlamaServerPort);
  EXPECT_NE(text.find("-m /models/m.gguf"), std::string::npos);
}

// Two 8-GPU HGX nodes, Llama 3.1 405B (126 layers): each rpc-server exposes its 8 CUDA devices,
// so the split has 16 entries; with -ngl 99 llama.cpp would keep layers 0-27 on the CPU.
TEST(llama_rpc_test, multi_gpu_hosts_get_an_entry_per_device_and_bind_the_infiniband_address) {
  auto in = testing::launch_inputs("tests/fixtures/launch/two_hgx_rails.yaml",
                                   "tests/fixtures/launch/two_hgx_pipeline_plan.json");
  std::string text = write_llama_rpc(in->input());
  Parsed p = parse(text);
  EXPECT_EQ(p.servers, (std::vector<std::string>{"10.9.0.1"}));  // ib0, not eno1's 10.0.0.1
  EXPECT_EQ(p.rpc, (std::vector<std::string>{"10.9.0.1:50052"}));
  EXPECT_EQ(p.ngl, 127);
  ASSERT_EQ(p.split.size(), 16u);
  auto slots = llama_cpp_slot_devices(126, p.ngl, p.split);
  EXPECT_EQ(host_ranges(slots, {8, 8}), (std::vector<std::pair<int, int>>{{0, 70}, {70, 127}}));
  // Every GPU holds layers: none is left idle by a split shorter than the device list.
  std::map<int, int> per_device;
  for (int d : slots)
    ++per_device[d];
  EXPECT_EQ(per_device.size(), 16u);
  EXPECT_EQ(p.bind, "0.0.0.0");
}

// Over Thunderbolt TCP each rpc-server listens on its end of the cable to the main host: the
// address `setup` puts on that host's port, whose peer `setup` configures on the main host.
TEST(llama_rpc_test, thunderbolt_ring_workers_listen_on_the_cable_to_the_main_host) {
  auto in = testing::launch_inputs("examples/clusters/mac-mini-m4-pro-x4.yaml",
                                   "tests/fixtures/launch/minis_ring_plan.json");
  std::string text = write_llama_rpc(in->input());
  Parsed p = parse(text);
  ASSERT_EQ(p.servers.size(), 2u);  // the main Mac runs its layers on its own Metal device
  std::string setup = render_setup(host_setups(in->topology->fabric, in->topology->subnets));
  auto block = [&](const std::string& host) {
    size_t a = setup.find("Setup for " + host + "\n");
    size_t b = setup.find("Setup for ", a + 1);
    return setup.substr(a, b == std::string::npos ? std::string::npos : b - a);
  };
  for (size_t i = 0; i < 2; ++i) {
    std::string addr = p.servers[i];
    std::string host = i == 0 ? "mini-1" : "mini-2";
    EXPECT_NE(block(host).find(" inet " + addr + " netmask 255.255.255.252\n"), std::string::npos)
        << addr << "\n"
        << setup;
    // mini-3 routes this address over its own port on the same cable.
    EXPECT_NE(block("mini-3").find("sudo route change " + addr + " -interface "), std::string::npos)
        << addr << "\n"
        << setup;
  }
  auto plan = in->plan->ranks;
  int layers = plan.back().layers->second;
  auto ranges = host_ranges(llama_cpp_slot_devices(layers, p.ngl, p.split), {1, 1, 1});
  for (size_t i = 0; i < plan.size(); ++i) {
    EXPECT_EQ(ranges[i].first, plan[i].layers->first);
    EXPECT_EQ(ranges[i].second, plan[i].layers->second + (i + 1 == plan.size() ? 1 : 0));
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
}  // namespace meshplan::llama_rpc_test
