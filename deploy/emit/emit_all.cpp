#include "deploy/emit/emit_all.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "deploy/emit/cluster_dot.hpp"
#include "deploy/emit/emit_formats.hpp"
#include "deploy/emit/host_steps.hpp"
#include "deploy/emit/launch_guide.hpp"
#include "deploy/emit/replica_guide.hpp"
#include "deploy/emit/slurm_hetjob.hpp"
#include "deploy/writers/ansible_inventory.hpp"
#include "lib/cluster/mlx_backend.hpp"
#include "lib/core/error.hpp"
#include "lib/plan/engine_kind.hpp"

namespace meshplan {
namespace {

// Every replica's hosts as one plan without layers, checked with the requested backend: the
// hosts the Ansible inventory lists. nullopt when no backend holds them all.
std::optional<std::map<std::string, std::string>> whole_cluster_files(
    const EmitInput& in, const std::vector<ReplicaLaunch>& replicas) {
  std::optional<PlanRanks> all = PlanRanks{};
  all->engine = in.plan->engine;
  for (const ReplicaLaunch& r : replicas)
    for (const PlanRank& k : r.replica.ranks) {
      PlanRank x;
      x.rank = static_cast<int>(all->ranks.size());
      x.host = k.host;
      all->ranks.push_back(x);
    }
  CheckOptions o;
  o.hosts = all->hosts();
  try {
    CheckReport report = check_cluster(in.topology, o);
    EmitInput whole{in.cluster, in.topology,    report,   all, std::string(name(MlxBackend::kAuto)),
                    in.envs,    in.env_options, in.launch};
    return std::map<std::string, std::string>{{"inventory.yaml", write_ansible_inventory(whole)}};
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

std::map<std::string, std::string> emit_all(const EmitInput& in) {
  require_plan(in, "emit all", "it writes the artifacts of one plan");
  // Several copies of the model (replicas, or a routed plan of whole copies): a launch each.
  const std::vector<ReplicaLaunch> replicas = replica_launches(in);
  if (!replicas.empty()) return emit_replica_launches(in, replicas);
  std::map<std::string, std::string> files;
  if (in.plan->routing) {
    // A routed plan is served by one engine per host on its layer range, with a scheduler that
    // follows the routing table; the launchers of one model split over ranks do not apply.
    for (const EmitFormat& f : emit_formats())
      if (f.name == "routing" || f.name == "dot" || f.name == "ansible-inventory")
        files[std::string(f.file)] = f.write(in);
    std::string guide = "# Launching this routed plan\n\n";
    for (const RoutedHostInfo& h : in.plan->routing->hosts)
      guide += fmt::format("* {}: layers [{}, {}), {:.1f} tokens/s\n", h.host, h.layer_start,
                           h.layer_end, h.flow);
    guide +=
        "\nStart on each host an engine that serves its layer range, then have the request "
        "scheduler send requests to the `entry` hosts of routing.json by weight and pass each "
        "token on to a `next` host by weight (meshplan's docs/routed-serving.md). inventory.yaml "
        "lists "
        "the hosts for Ansible; cluster.dot draws the ranges and the flows.\n";
    files["LAUNCH.md"] = guide;
    return files;
  }
  const std::string& engine = in.plan->engine;
  if (engine.empty() && in.plan->engine_reason.rfind("none:", 0) == 0)
    throw failure(
        "the plan names no engine that runs it ({}); plan again with --engine NAME for a layout "
        "an engine runs, or write one format by name (emit --list)",
        in.plan->engine_reason.substr(6));
  // The Slurm job starts the plan's engine where it starts one.
  EmitInput input = in;
  if (input.launch.engine.empty() &&
      (is_engine(engine, EngineKind::kVllm) || is_engine(engine, EngineKind::kLlamaRpc)))
    input.launch.engine = engine;
  for (const EmitFormat& f : emit_formats())
    if (format_serves_engine(f, engine) && (!f.applies || f.applies(input)))
      files[std::string(f.file)] = f.write(input);
  files["LAUNCH.md"] = render_launch_guide(input, files);
  return files;
}

std::map<std::string, std::string> emit_replica_launches(
    const EmitInput& in, const std::vector<ReplicaLaunch>& replicas) {
  std::map<std::string, std::string> files;
  // The cables' addresses are the cluster's (one /30 plan): one setup for every replica's hosts.
  PlanHostSteps steps;
  for (const ReplicaLaunch& r : replicas) {
    EmitInput one = replica_input(in, r);
    const std::string folder = fmt::format("replica-{}/", r.index);
    for (std::string_view name : engine_format_names(r.engine)) {
      const EmitFormat* f = find_emit_format(name);
      if (f->applies && !f->applies(one)) continue;  // a one-host replica: no MLX hostfile
      files[folder + std::string(f->file)] = f->write(one);
    }
    merge_host_steps(in, steps, plan_host_steps(one));
  }
  if (!steps.empty()) {
    files["setup.sh"] = render_host_setup(steps);
    const std::string undo = render_host_teardown(steps);
    if (!undo.empty()) files["teardown.sh"] = undo;
  }
  // Linux replicas of an engine Slurm starts: the heterogeneous job, a component per replica.
  const bool linux_only =
      std::none_of(replicas.begin(), replicas.end(), [&](const ReplicaLaunch& r) {
        const EmitInput one = replica_input(in, r);
        return std::any_of(one.layout().nodes.begin(), one.layout().nodes.end(),
                           [](const LaunchNode& n) { return n.mac; });
      });
  const std::string& engine = replicas.front().engine;
  if (linux_only &&
      (is_engine(engine, EngineKind::kVllm) || is_engine(engine, EngineKind::kLlamaRpc))) {
    EmitInput job = in;
    if (job.launch.engine.empty()) job.launch.engine = engine;
    files["slurm.sbatch"] = slurm_hetjob_for_replicas(job, replicas);
  }
  files["nginx.conf"] = nginx_for_replicas(replicas);
  files["cluster.dot"] = write_cluster_dot_artifact(in);
  auto whole = whole_cluster_files(in, replicas);
  if (whole) files.insert(whole->begin(), whole->end());
  files["LAUNCH.md"] = render_replica_guide(in, replicas, files);
  return files;
}

}  // namespace meshplan
