#include "deploy/emit/replica_guide.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "deploy/emit/launch_troubleshooting.hpp"
#include "deploy/emit/replica_launch.hpp"
#include "deploy/writers/mlx_launch.hpp"
#include "deploy/writers/nginx_upstream.hpp"
#include "lib/plan/engine_kind.hpp"

namespace meshplan {
namespace {

// The checklist item of one replica: which of its files goes where and what starts on which host.
std::string replica_steps(const EmitInput& in, const ReplicaLaunch& r) {
  const std::string dir = fmt::format("replica-{}", r.index);
  const std::vector<std::string>& hosts = r.replica.hosts;
  const std::string first = hosts.front(), last = r.replica.ranks.back().host;
  std::string out =
      fmt::format("- [ ] Replica {} ({} on {}):\n", r.index, r.engine, fmt::join(hosts, ", "));
  auto item = [&](const std::string& text) { out += "  - [ ] " + text + "\n"; };
  if (is_engine(r.engine, EngineKind::kMlxLm) && hosts.size() == 1) {
    item(fmt::format("run `{}/mlx-launch.sh` on {}: one host needs no mlx.launch or hostfile", dir,
                     first));
  } else if (is_engine(r.engine, EngineKind::kMlxLm)) {
    item(fmt::format(
        "copy `{0}/mlx-hostfile.json` and `{0}/mlx-launch.sh` to a host that reaches {1} by ssh "
        "({2} does)",
        dir, fmt::join(hosts, ", "), first));
    item(fmt::format(
        "there, in the folder of `mlx-hostfile.json`, run the `mlx.launch` line of "
        "`mlx-launch.sh` (without mlx.launch: source each rank's block of `{}/mlx-env.sh` on its "
        "host)",
        dir));
    const std::string note = mlx_lm_split_note(replica_input(in, r));
    if (!note.empty()) item(note);
  } else if (is_engine(r.engine, EngineKind::kVllm)) {
    item(fmt::format("copy `{}/vllm.sh` to {}", dir, fmt::join(hosts, ", ")));
    item(hosts.size() == 1
             ? fmt::format("run its line on {}", first)
             : fmt::format("run node 0's line on {}, then each other node's line on its host",
                           first));
  } else if (is_engine(r.engine, EngineKind::kExo)) {
    item(fmt::format("copy `{}/exo.sh` to {}", dir, fmt::join(hosts, ", ")));
    item(fmt::format(
        "run each host's line on that host, {} first (its --namespace keeps this replica apart "
        "from the others; exo places the layers itself)",
        first));
  } else {
    item(fmt::format("copy `{}/llama-rpc.sh` and the GGUF model to {}", dir,
                     fmt::join(hosts, ", ")));
    if (hosts.size() > 1)
      item(
          fmt::format("start the `rpc-server` line of each other rank on its host, then the "
                      "`llama-server` line on {}",
                      last));
    else
      item(fmt::format("start the `llama-server` line on {}", last));
  }
  item(fmt::format("wait until `curl http://{}:{}/v1/models` answers ({}'s HTTP server)", r.address,
                   r.port, r.serving_host));
  return out;
}

}  // namespace

std::string render_replica_guide(const EmitInput& in, const std::vector<ReplicaLaunch>& replicas,
                                 const std::map<std::string, std::string>& files) {
  std::string out = fmt::format(
      "# Launching {}: {} replicas behind nginx\n\n"
      "The plan serves the model from {} replicas, each a whole copy on its own hosts, launched "
      "on its own from its folder; nginx sends each its weight's share of the requests.\n\n",
      in.cluster.name.empty() ? std::string("the cluster") : in.cluster.name, replicas.size(),
      replicas.size());
  out +=
      "| replica | hosts | engine | backend | HTTP server | share | nginx weight |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const ReplicaLaunch& r : replicas)
    out += fmt::format("| {} | {} | {} | {} | {} `{}:{}` | {:.1f} % | {} |\n", r.index,
                       fmt::join(r.replica.hosts, ", "), r.engine, r.report.chosen, r.serving_host,
                       r.address, r.port, r.replica.request_share * 100,
                       nginx_weight(r.replica.request_share));
  out += "\nIn order:\n\n";
  if (files.count("setup.sh"))
    out +=
        "- [ ] Network: run each host's block of `setup.sh` on that host (or `meshplan setup "
        "--plan PLAN` from here); `teardown.sh` undoes it\n";
  for (const ReplicaLaunch& r : replicas)
    out += replica_steps(in, r);
  out += fmt::format(
      "- [ ] nginx, on a host that reaches every replica: copy `nginx.conf` into a folder of its "
      "own there and, in that folder, run `nginx -p \"$PWD\" -c nginx.conf` (no root needed; "
      "`-s stop` stops it)\n"
      "- [ ] Check: on nginx's host, `curl http://127.0.0.1:{0}/v1/models` answers (from "
      "elsewhere: `http://NGINX_HOST:{0}`); send requests there\n",
      kNginxListenPort);
  if (files.count("inventory.yaml"))
    out += "\n`ansible -i inventory.yaml all -m ping` checks that every host answers. ";
  else
    out += "\nNo inventory.yaml: no backend holds every replica's hosts at once. ";
  out += "cluster.dot draws each host's replica.\n";
  if (files.count("slurm.sbatch"))
    out +=
        "\nUnder Slurm instead of the replica steps: `sbatch --test-only slurm.sbatch` has the "
        "controller check it, then `sbatch slurm.sbatch` starts every replica as one heterogeneous "
        "job (a component per replica, on its nodes); nginx stays as above.\n";
  // Each replica starts on its own hosts: its own ports and interfaces.
  std::string hangs;
  for (const ReplicaLaunch& r : replicas)
    hangs +=
        troubleshooting_sections(replica_input(in, r), files, fmt::format("replica-{}/", r.index),
                                 fmt::format("Replica {}: ", r.index));
  out += troubleshooting_section(hangs);
  return out;
}

}  // namespace meshplan
