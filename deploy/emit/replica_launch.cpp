#include "deploy/emit/replica_launch.hpp"

#include <fmt/format.h>

#include <fmt/ranges.h>
#include <algorithm>

#include "deploy/layout/plan_match.hpp"
#include "deploy/writers/exo_env.hpp"
#include "deploy/writers/llama_rpc.hpp"
#include "deploy/writers/mlx_launch.hpp"
#include "deploy/writers/nginx_upstream.hpp"
#include "deploy/writers/vllm_launch.hpp"
#include "lib/core/error.hpp"
#include "lib/plan/engine_kind.hpp"
#include "lib/plan/engines.hpp"

namespace meshplan {

std::string replica_engine(const EmitInput& in, const PlanReplica& replica) {
  const Catalog& catalog = in.topology.catalog;
  if (in.plan->engine.empty())
    return std::string(default_engine(in.cluster, catalog, replica.hosts));
  const Engine* e = find_engine(in.plan->engine);
  if (!e || !runs_on(*e, in.cluster, catalog, replica.hosts))
    throw input_error(
        "the plan's engine {} does not run on every host of its replica of {}; plan again with "
        "an engine those hosts run",
        in.plan->engine, fmt::join(replica.hosts, ", "));
  return in.plan->engine;
}

ServingEndpoint serving_endpoint(const EmitInput& in, const LaunchLayout& layout,
                                 std::string_view engine) {
  // mlx.launch lists a pipeline's last stage first (mlx_rank_report): its rank 0 is the last node.
  const bool last = is_engine(engine, EngineKind::kLlamaRpc) ||
                    (is_engine(engine, EngineKind::kMlxLm) && mlx_ranks_reversed(in));
  const int port = is_engine(engine, EngineKind::kVllm)    ? kVllmServePort
                   : is_engine(engine, EngineKind::kExo)   ? launch_port(in, kExoDefaultApiPort)
                   : is_engine(engine, EngineKind::kMlxLm) ? kMlxLmServerPort
                                                           : kLlamaServerPort;
  return {last ? layout.nodes.size() - 1 : 0, port};
}

std::string plan_endpoint_url(const EmitInput& in) {
  require_plan(in, "the endpoint", "it is the host that runs the plan's HTTP server");
  if (!launch_replicas(*in.plan).empty())
    throw input_error(
        "the plan's replicas answer behind nginx, on a host the plan does not name: give "
        "--url http://NGINX_HOST:{}",
        kNginxListenPort);
  const LaunchLayout& layout = in.layout();
  const std::string engine =
      in.plan->engine.empty()
          ? std::string(default_engine(in.cluster, in.topology.catalog, in.plan->hosts()))
          : in.plan->engine;
  const ServingEndpoint at = serving_endpoint(in, layout, engine);
  const std::string& address =
      layout.reachable(at.node, "the endpoint is asked there for completions");
  if (address.find(':') != std::string::npos)  // IPv6
    return fmt::format("http://[{}]:{}", address, at.port);
  return fmt::format("http://{}:{}", address, at.port);
}

std::vector<std::string_view> engine_format_names(std::string_view engine) {
  if (is_engine(engine, EngineKind::kMlxLm)) return {"mlx-hostfile", "mlx-env", "mlx-launch"};
  if (is_engine(engine, EngineKind::kVllm)) return {"vllm"};
  if (is_engine(engine, EngineKind::kExo)) return {"exo-env"};
  return {"llama-rpc"};
}

EmitInput replica_input(const EmitInput& in, const ReplicaLaunch& r) {
  return EmitInput{in.cluster, in.topology,    r.report, r.plan,       in.requested_backend,
                   in.envs,    in.env_options, r.launch, r.layout_slot};
}

namespace {

// The replica as a plan of its own: its hosts, ranks and backend; the top-level transport only
// where the plan's own ranks are this replica's (the replicas record none), "local" on one host.
PlanRanks replica_plan(const PlanRanks& plan, const PlanReplica& replica,
                       const std::string& engine) {
  PlanRanks out;
  out.backend = replica.backend;
  out.strategy = replica.strategy;
  out.engine = engine;
  out.ranks = replica.ranks;
  out.model = plan.model;  // one model: the engines' rules read its heads and experts
  if (out.ranks.size() == 1)
    out.transport = "local";  // nothing between hosts: no cables to set up
  else if (out.hosts() == plan.hosts())
    out.transport = plan.transport;
  return out;
}

// The host whose HTTP server answers for the replica, and its port.
void place_server(const EmitInput& in, ReplicaLaunch& r) {
  const LaunchLayout& layout = in.layout();
  const ServingEndpoint at = serving_endpoint(in, layout, r.engine);
  r.serving_host = layout.nodes[at.node].host->name;
  r.address = layout.reachable(at.node, "nginx sends the replica its requests there");
  r.port = at.port;
}

}  // namespace

std::vector<ReplicaLaunch> replica_launches(const EmitInput& in) {
  std::vector<ReplicaLaunch> out;
  if (!in.plan) return out;
  std::vector<PlanReplica> replicas = launch_replicas(*in.plan);
  out.reserve(replicas.size());  // inputs refer into the elements
  for (size_t i = 0; i < replicas.size(); ++i) {
    ReplicaLaunch r;
    r.index = i + 1;
    r.replica = replicas[i];
    r.engine = replica_engine(in, r.replica);
    r.plan = replica_plan(*in.plan, r.replica, r.engine);
    CheckOptions o;
    o.backend = backend_for_plan(in.requested_backend, r.plan);
    o.hosts = r.plan->hosts();
    o.fixed_order = true;
    r.report = check_cluster(in.topology, o);
    r.launch = in.launch;
    r.launch.exo_namespace = fmt::format(
        "{}-replica-{}", in.cluster.name.empty() ? "meshplan" : in.cluster.name, r.index);
    out.push_back(std::move(r));
  }
  for (ReplicaLaunch& r : out)
    place_server(replica_input(in, r), r);
  return out;
}

std::string write_nginx(const EmitInput& in) {
  require_plan(in, "nginx", "it balances over the plan's replicas");
  std::vector<ReplicaLaunch> replicas = replica_launches(in);
  if (replicas.empty())
    throw input_error(
        "nginx: the plan is one copy of the model; nginx balances over a serving plan's replicas "
        "(plan --objective throughput) or a routed plan whose hosts all hold every layer");
  return nginx_for_replicas(replicas);
}

std::string nginx_for_replicas(const std::vector<ReplicaLaunch>& replicas) {
  std::vector<NginxServer> servers;
  for (const ReplicaLaunch& r : replicas)
    servers.push_back(
        {r.address, r.port, nginx_weight(r.replica.request_share),
         fmt::format("replica {}: {} ({}), {:.1f} % of the requests", r.index,
                     fmt::join(r.replica.hosts, ", "), r.engine, r.replica.request_share * 100)});
  return render_nginx_conf(servers, kNginxListenPort);
}

}  // namespace meshplan
