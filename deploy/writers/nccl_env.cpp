#include "deploy/writers/nccl_env.hpp"

#include <fmt/format.h>

#include "deploy/layout/launch_nodes.hpp"
#include "lib/core/shell_quote.hpp"

namespace meshplan {

std::vector<std::pair<std::string, std::string>> nccl_variables(const LaunchLayout& layout,
                                                                size_t node) {
  // NCCL and Gloo bootstrap over the data interface (launch_nodes.hpp): it needs an address,
  // not the management port.
  rendezvous_address(layout, node, "NCCL and Gloo bootstrap over an interface every rank reaches");
  const std::string& iface = layout.nodes[node].data_interface;
  std::vector<std::pair<std::string, std::string>> out = {{"NCCL_SOCKET_IFNAME", "=" + iface},
                                                          {"GLOO_SOCKET_IFNAME", iface}};
  const auto& devices = layout.nodes[node].rdma_devices;
  // A Mac's rdma_enX devices are Thunderbolt RDMA for JACCL; NCCL does not run on macOS.
  if (!devices.empty() && !layout.nodes[node].mac) {
    std::string hca = "=";
    for (size_t i = 0; i < devices.size(); ++i)
      hca += (i ? "," : "") + devices[i] + ":1";
    out.emplace_back("NCCL_IB_HCA", hca);
  }
  return out;
}

std::string write_nccl_env(const EmitInput& in) {
  const LaunchLayout& layout = in.layout();
  std::string out = fmt::format(
      "# NCCL and Gloo interfaces for {} ranks: source the block of the host the rank runs on.\n",
      layout.nodes.size());
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    out += fmt::format("\n# rank {}: {}\n", i, layout.nodes[i].host->name);
    for (const auto& [key, value] : nccl_variables(layout, i))
      out += fmt::format("export {}={}\n", key, shell_quote(value));
  }
  return out;
}

}  // namespace meshplan
