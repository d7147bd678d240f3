#include "deploy/writers/exo_disaggregated.hpp"

#include <fmt/format.h>

#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/exo_env.hpp"
#include "deploy/writers/vllm_disaggregated.hpp"
#include "lib/cluster/mlx_backend.hpp"
#include "lib/core/error.hpp"
#include "lib/core/shell_quote.hpp"

namespace meshplan {
namespace {

// Creates a one-node pipeline instance of MODEL on each node, waits for both, links them.
// Python's standard library only, so that it runs wherever exo does.
constexpr const char* kLinkScript = R"PY(import json, sys, time, urllib.parse, urllib.request

api, model, prefill_api, decode_api = sys.argv[1:5]

def call(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read() or b"null")

def instance_on(node):
    query = urllib.parse.urlencode({"model_id": model, "node_ids": node})
    for p in call("GET", f"{api}/instance/previews?{query}")["previews"]:
        if p.get("error") is None and p.get("sharding") == "Pipeline" and p.get("instance_meta") == "MlxRing":
            body = next(iter(p["instance"].values()))
            if list(body["shardAssignments"]["nodeToRunner"]) == [node]:
                call("POST", f"{api}/instance", {"instance": p["instance"]})
                return body["instanceId"], list(body["shardAssignments"]["runnerToShard"])
    sys.exit(f"exo offers no one-node instance of {model} on node {node}")

def wait_ready(runners, what):
    for _ in range(1800):
        states = [call("GET", f"{api}/state/runners/{r}") or {} for r in runners]
        failed = [s["RunnerFailed"].get("errorMessage", "") for s in states if "RunnerFailed" in s]
        if failed:
            sys.exit(f"the {what} instance failed: {failed[0]}")
        if all("RunnerReady" in s for s in states):
            return
        time.sleep(1)
    sys.exit(f"the {what} instance was not ready after 30 minutes")

prefill_node = call("GET", f"{prefill_api}/node_id")
decode_node = call("GET", f"{decode_api}/node_id")
prefill, prefill_runners = instance_on(prefill_node)
decode, decode_runners = instance_on(decode_node)
wait_ready(prefill_runners, "prefill")
wait_ready(decode_runners, "decode")
call("POST", f"{api}/v1/instance-links", {"prefill_instances": [prefill], "decode_instances": [decode]})
links = call("GET", f"{api}/v1/instance-links")
if not any(prefill in l["prefillInstances"] and decode in l["decodeInstances"] for l in links):
    sys.exit("exo did not keep the link (is ENABLE_DISAGGREGATION=true set on every host?)")
print(f"prefill instance {prefill} on node {prefill_node}, decode instance {decode} on node {decode_node}: linked")
)PY";

}  // namespace

std::string write_exo_disaggregated(const EmitInput& in) {
  require_plan(in, "exo-disagg", "it starts the plan's prefill and decode hosts");
  if (!plan_disaggregates(in))
    throw input_error(
        "exo-disagg: the plan does not choose prefill on one host and decode on another (plan "
        "with --engine exo and --prompt 8192 or more compares that shape)");
  const PlanDisaggregation& d = *in.plan->disaggregated;
  if (d.prefill_hosts.size() != 1 || d.decode_hosts.size() != 1)
    throw input_error(
        "exo-disagg: exo links one-node instances; the plan has {} prefill and {} "
        "decode hosts",
        d.prefill_hosts.size(), d.decode_hosts.size());
  PairLaunch pair = pair_launch(in, EngineKind::kExo);
  const EmitInput sub{
      in.cluster, in.topology,    pair.report, pair.plan, std::string(name(MlxBackend::kAuto)),
      in.envs,    in.env_options, in.launch};
  const LaunchLayout& layout = sub.layout();
  const size_t p = 0, q = 1;  // the pair's plan lists the prefill host first
  const int api = launch_port(sub, kExoDefaultApiPort);
  const std::string model = in.launch.model.empty() ? "MODEL" : in.launch.model;
  std::string out = fmt::format(
      "# exo (@b5375f8), prefill on {} and decode on {}: prompts of more than 1000 tokens are "
      "computed on {}, whose KV cache goes to {} layer by layer over TCP; {} decodes. Both run "
      "MLX (an NVIDIA host through mlx-cuda).\n",
      layout.nodes[p].host->name, layout.nodes[q].host->name, layout.nodes[p].host->name,
      layout.nodes[q].host->name, layout.nodes[q].host->name);
  for (size_t i : {p, q})
    out += fmt::format("\n# {} on {}:\n{}\n", i == p ? "prefill" : "decode",
                       layout.nodes[i].host->name,
                       shell_command({{"ENABLE_DISAGGREGATION", "true"}}, exo_words(sub, i == p)));
  const std::string prefill_api =
      fmt::format("http://{}:{}", layout.reachable(p, "the link script calls its API"), api);
  const std::string decode_api =
      fmt::format("http://{}:{}", layout.reachable(q, "the link script asks its node id"), api);
  out += fmt::format(
      "\n# once both answer on /node_id, from a machine that reaches them: one instance of the "
      "model on each, linked (model: exo's Hugging Face id, as `curl {0}/models` lists it); "
      "clients then send chat requests to {0}\n",
      prefill_api);
  out += shell_command({}, {"python3", "-", prefill_api, model, prefill_api, decode_api}) +
         " <<'EOF'\n" + kLinkScript + "EOF\n";
  return out;
}

}  // namespace meshplan
