#include "deploy/writers/vllm_disaggregated.hpp"

#include <fmt/format.h>

#include "deploy/layout/launch_nodes.hpp"
#include "deploy/layout/plan_match.hpp"
#include "lib/core/error.hpp"
#include "lib/plan/engine_kind.hpp"
#include "topologies/backend_rules.hpp"

namespace meshplan {
namespace {

// UCX's device for the KV cache: the node's RDMA NIC port when it has one, else its data interface.
std::string ucx_device(const LaunchNode& n) {
  if (!n.rdma_devices.empty()) return n.rdma_devices.front() + ":1";
  return n.data_interface.empty() ? n.interface : n.data_interface;
}

std::string serve_line(const LaunchNode& n, const std::string& model, int port,
                       const std::string& address) {
  const std::string gpus = std::to_string(std::max(1, n.cuda_gpus()));
  return shell_command({{"VLLM_NIXL_SIDE_CHANNEL_HOST", address},
                        {"VLLM_NIXL_SIDE_CHANNEL_PORT", std::to_string(kVllmNixlSideChannelPort)},
                        {"UCX_NET_DEVICES", ucx_device(n)}},
                       {"vllm", "serve", model, "--host", "0.0.0.0", "--port", std::to_string(port),
                        "--tensor-parallel-size", gpus, "--kv-transfer-config",
                        R"({"kv_connector":"NixlConnector","kv_role":"kv_both"})"});
}

}  // namespace

PairLaunch pair_launch(const EmitInput& in, EngineKind engine) {
  PairLaunch p;
  p.plan = PlanRanks{};
  p.plan->engine = name(engine);
  for (const auto* hosts :
       {&in.plan->disaggregated->prefill_hosts, &in.plan->disaggregated->decode_hosts})
    for (const std::string& h : *hosts) {
      PlanRank r;
      r.rank = static_cast<int>(p.plan->ranks.size());
      r.host = h;
      p.plan->ranks.push_back(r);
    }
  CheckOptions o;
  o.backend = backend_for_plan(in.requested_backend, p.plan);
  o.hosts = p.plan->hosts();
  o.fixed_order = true;
  p.report = check_cluster(in.topology, o);
  return p;
}

bool plan_disaggregates(const EmitInput& in) {
  return in.plan && in.plan->disaggregated.has_value();
}

std::string write_vllm_disaggregated(const EmitInput& in) {
  require_plan(in, "vllm-disagg", "it starts the plan's prefill and decode hosts");
  if (!plan_disaggregates(in))
    throw input_error(
        "vllm-disagg: the plan does not choose prefill on one host and decode on another (plan "
        "with --prompt 8192 or more on NVIDIA hosts compares that shape)");
  PairLaunch pair = pair_launch(in, EngineKind::kVllm);
  const EmitInput sub{
      in.cluster, in.topology,    pair.report, pair.plan, std::string(name(MlxBackend::kAuto)),
      in.envs,    in.env_options, in.launch};
  const LaunchLayout& layout = sub.layout();
  for (const LaunchNode& n : layout.nodes)
    if (n.mac)
      throw input_error("vllm-disagg: {} is a Mac; vLLM runs on NVIDIA Linux hosts", n.host->name);
  const std::string model = in.launch.model.empty() ? "MODEL" : in.launch.model;
  const size_t prefills = in.plan->disaggregated->prefill_hosts.size();
  std::string out = fmt::format(
      "# vLLM, prefill and decode apart: each prompt is computed on the prefill host, whose KV "
      "cache the decode host pulls through the NixlConnector (pip install nixl), then decoded "
      "there. vllm-router sends each request to both (pip install vllm-router).\n");
  std::string prefill_urls, decode_urls;
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    const LaunchNode& n = layout.nodes[i];
    const bool prefill = i < prefills;
    const std::string& address =
        !n.data_address.empty() ? n.data_address
                                : layout.reachable(i, "the other instance reaches its KV there");
    const int port = prefill ? kVllmPrefillPort : kVllmDecodePort;
    const std::string url = fmt::format("http://{}:{}",
                                        layout.reachable(i,
                                                         "the router sends it "
                                                         "requests there"),
                                        port);
    (prefill ? prefill_urls : decode_urls) +=
        fmt::format(" --{} {}", prefill ? "prefill" : "decode", url);
    out += fmt::format("\n# {} on {} ({} GPU{}):\n{}\n", prefill ? "prefill" : "decode",
                       n.host->name, std::max(1, n.cuda_gpus()), n.cuda_gpus() > 1 ? "s" : "",
                       serve_line(n, model, port, address));
  }
  const size_t router = layout.nodes.size() - 1;
  out += fmt::format(
      "\n# the router, on {} once both answer on /v1/models; clients use port {}:\n"
      "vllm-router --pd-disaggregation{}{} --host 0.0.0.0 --port {}\n",
      layout.nodes[router].host->name, kVllmRouterPort, prefill_urls, decode_urls, kVllmRouterPort);
  return out;
}

}  // namespace meshplan
