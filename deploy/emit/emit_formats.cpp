#include "deploy/emit/emit_formats.hpp"

#include <fmt/format.h>

#include <cctype>

#include "deploy/emit/cluster_dot.hpp"
#include "deploy/emit/host_steps.hpp"
#include "deploy/emit/replica_launch.hpp"
#include "deploy/emit/slurm_hetjob.hpp"
#include "deploy/writers/ansible_inventory.hpp"
#include "deploy/writers/deepspeed_files.hpp"
#include "deploy/writers/exo_disaggregated.hpp"
#include "deploy/writers/exo_env.hpp"
#include "deploy/writers/llama_rpc.hpp"
#include "deploy/writers/mlx_cuda_hostfile.hpp"
#include "deploy/writers/mlx_launch.hpp"
#include "deploy/writers/mpi_hostfiles.hpp"
#include "deploy/writers/nccl_env.hpp"
#include "deploy/writers/ray_cluster.hpp"
#include "deploy/writers/routing_table.hpp"
#include "deploy/writers/slurm_batch.hpp"
#include "deploy/writers/torchrun_launch.hpp"
#include "deploy/writers/vllm_disaggregated.hpp"
#include "deploy/writers/vllm_launch.hpp"
#include "lib/core/error.hpp"
#include "lib/plan/engine_kind.hpp"
#include "topologies/mlx_hostfile_builder.hpp"
#include "topologies/mlx_hostfile_writer.hpp"
#include "topologies/setup_commands.hpp"

namespace meshplan {
namespace {

// NVIDIA hosts run MLX's nccl backend, Macs the checked backend
// (deploy/writers/mlx_cuda_hostfile.hpp).
MlxHostfile mlx_hostfile_of(const EmitInput& in) {
  const LaunchLayout& layout = in.layout();
  if (mlx_runs_nccl(layout)) return build_mlx_cuda_hostfile(layout, in.envs);
  // A pipeline's last stage first: mlx-lm's rank 0 loads the last layers.
  const CheckReport report = mlx_rank_report(in);
  return build_mlx_hostfile(in.topology, require_valid(report), in.envs);
}

std::string mlx_hostfile(const EmitInput& in) {
  return write_mlx_hostfile(mlx_hostfile_of(in));
}

std::string mlx_env(const EmitInput& in) {
  MlxHostfile f = mlx_hostfile_of(in);
  std::vector<MlxRankEnv> ranks = mlx_rank_envs(f, in.env_options);
  mark_plan_ranks(in, ranks);  // both numbers where mlx-lm's differ from the plan's
  return render_mlx_env(f, ranks);
}

// With a plan, the host steps it needs (deploy/emit/host_steps.hpp); without one, `meshplan
// setup`'s interface commands for every host.
std::string setup(const EmitInput& in) {
  require_valid(in.report);
  if (in.plan) return render_host_setup(plan_host_steps(in));
  if (!in.topology.subnet_error.empty()) throw failure("{}", in.topology.subnet_error);
  return render_setup(host_setups(in.topology.fabric, in.topology.subnets));
}

std::string teardown(const EmitInput& in) {
  if (in.plan) return render_host_teardown(plan_host_steps(in));
  if (!in.topology.subnet_error.empty()) throw failure("{}", in.topology.subnet_error);
  return render_teardown(host_setups(in.topology.fabric, in.topology.subnets));
}

// vLLM, torchrun, DeepSpeed, MPI launchers and NCCL are for Linux hosts: `emit all` leaves them out
// of a plan with a Mac (asked for by name they are still written).
bool no_mac(const EmitInput& in) {
  for (const LaunchNode& n : in.layout().nodes)
    if (n.mac) return false;
  return true;
}

// One vLLM instance over the plan's ranks, unless its chosen shape splits prefill from decode.
bool one_vllm_instance(const EmitInput& in) {
  return no_mac(in) && !plan_disaggregates(in);
}

// exo over the plan's ranks; a prefill/decode pair starts from exo-disaggregated.sh instead.
bool exo_over_ranks(const EmitInput& in) {
  return !plan_disaggregates(in);
}

// The Slurm job starts one engine over the plan's ranks: not the prefill/decode pair.
bool slurm_over_the_ranks(const EmitInput& in) {
  return slurm_applies(in) && !plan_disaggregates(in);
}

// MLX runs on all Macs (or CPUs), or on NVIDIA hosts of one GPU count, not on a mix.
bool mlx_applies(const EmitInput& in) {
  return mlx_runs_on(in.layout());
}

// A hostfile and per-rank variables only where mlx.launch starts several ranks: one rank runs
// mlx_lm.server alone (mlx-launch).
bool mlx_over_ranks(const EmitInput& in) {
  return mlx_applies(in) && mlx_rank_count(in.layout()) > 1;
}

// Layer-split formats apply to plans that split by layers.
bool split_by_layers(const EmitInput& in) {
  return in.plan && splits_by_layers(in.layout());
}

// setup / teardown: every host step the plan needs (a GPU wired limit, Thunderbolt cables,
// direct cables without addresses); without a plan, the Thunderbolt cables of ranks that use them.
bool has_host_steps(const EmitInput& in) {
  if (in.plan) return !plan_host_steps(in).empty();
  std::string t = in.layout().transport;
  return t == "thunderbolt" || t == "rdma";
}

bool has_host_undo(const EmitInput& in) {
  return has_host_steps(in) && !teardown(in).empty();
}

std::string routing(const EmitInput& in) {
  return write_routing_table(in.plan);
}

// nginx balances over replicas: `emit all` writes it for plans of several copies only.
bool has_replicas(const EmitInput& in) {
  return in.plan && !launch_replicas(*in.plan).empty();
}

bool routed(const EmitInput& in) {
  return in.plan && in.plan->routing.has_value();
}

// Ray's file names the ssh user; without one, or without an engine that runs on Ray (vLLM on
// NVIDIA hosts), it is left out of `emit all`.
bool ray_applies(const EmitInput& in) {
  return (!in.launch.user.empty() || !in.layout().nodes.front().ssh_user.empty()) &&
         ray_runs_an_engine(in);
}

}  // namespace

const std::vector<EmitFormat>& emit_formats() {
  static const std::vector<EmitFormat> table = {
      {"mlx-hostfile",
       "the hostfile mlx.launch reads, byte for byte as mlx.distributed_config writes it (NVIDIA "
       "hosts: the nccl backend, a line per GPU)",
       mlx_hostfile, "mlx-hostfile.json", false, mlx_over_ranks, name(EngineKind::kMlxLm)},
      {"mlx-env", "per rank, the variables mlx.launch would export (MLX_RANK, MLX_HOSTFILE, ...)",
       mlx_env, "mlx-env.sh", false, mlx_over_ranks, name(EngineKind::kMlxLm)},
      {"mlx-launch",
       "the mlx.launch command for mlx-lm and, per rank, the plan's layers beside mlx-lm's own "
       "split",
       write_mlx_launch, "mlx-launch.sh", false, mlx_applies, name(EngineKind::kMlxLm)},
      {"setup",
       "per host, the steps before the engine: interface commands (as `meshplan setup`) and, with "
       "--plan, a Mac's GPU wired limit and direct cables' addresses",
       setup, "setup.sh", false, has_host_steps},
      {"teardown", "per host, the commands that undo setup", teardown, "teardown.sh", false,
       has_host_undo},
      {"dot", "the Graphviz drawing of hosts, cables and the plan (as `meshplan dot`)",
       write_cluster_dot_artifact, "cluster.dot"},
      {"openmpi-hostfile",
       "Open MPI hostfile (mpirun --hostfile): hosts in rank order, slots = GPUs per host (else "
       "1)",
       write_openmpi_hostfile, "openmpi.hostfile", false, no_mac, "mpi"},
      {"mpich-hostfile",
       "MPICH Hydra host file (mpiexec -f): host:N in rank order, N = GPUs per host (else 1)",
       write_mpich_hostfile, "mpich.hostfile", false, no_mac, "mpi"},
      {"deepspeed-hostfile",
       "DeepSpeed hostfile: `host slots=N` in rank order, N = GPUs per host (else 1), launch "
       "command as a comment",
       write_deepspeed_hostfile, "deepspeed.hostfile", false, no_mac, "deepspeed"},
      {"deepspeed-env",
       "DeepSpeed's .deepspeed_env: KEY=VALUE lines only (NCCL/Gloo interfaces, --env)",
       write_deepspeed_env, ".deepspeed_env", false, no_mac, "deepspeed"},
      {"torchrun",
       "per node, the torchrun command (static rendezvous on rank 0) with its NCCL/Gloo variables",
       write_torchrun, "torchrun.sh", false, no_mac, "torchrun"},
      {"nccl-env",
       "per rank, NCCL_SOCKET_IFNAME / NCCL_IB_HCA in exact = forms and GLOO_SOCKET_IFNAME",
       write_nccl_env, "nccl-env.sh", false, no_mac, "vllm torchrun deepspeed mpi"},
      {"llama-rpc",
       "llama.cpp: rpc-server per rank, then llama-server with --rpc and --tensor-split (needs "
       "--plan)",
       write_llama_rpc, "llama-rpc.sh", true, split_by_layers, name(EngineKind::kLlamaRpc)},
      {"exo-disagg",
       "exo with prefill and decode on different hosts (the plan's chosen shape): each host's exo "
       "with ENABLE_DISAGGREGATION=true, then a script that creates a one-node instance on each "
       "and links them",
       write_exo_disaggregated, "exo-disaggregated.sh", true, plan_disaggregates,
       name(EngineKind::kExo)},
      {"exo-env", "per host, the exo command with its --namespace and ports", write_exo_env,
       "exo.sh", false, exo_over_ranks, name(EngineKind::kExo)},
      {"vllm",
       "per node, vllm serve with -tp, -pp, --nnodes, --node-rank, --master-addr (needs --plan); "
       "-tp is the GPUs each layer is split over, -pp the pipeline's stages (hosts, or a host's "
       "groups of GPUs)",
       write_vllm, "vllm.sh", true, one_vllm_instance, name(EngineKind::kVllm)},
      {"vllm-disagg",
       "vLLM with prefill and decode on different hosts (the plan's chosen shape): vllm serve with "
       "the NixlConnector per host, then vllm-router --pd-disaggregation in front",
       write_vllm_disaggregated, "vllm-disaggregated.sh", true, plan_disaggregates,
       name(EngineKind::kVllm)},
      {"ray-cluster",
       "Ray local-provider YAML for ray up, the ray start line of each host and, on NVIDIA hosts, "
       "vLLM on Ray",
       write_ray_cluster, "ray-cluster.yaml", false, ray_applies, name(EngineKind::kVllm)},
      {"ansible-inventory",
       "Ansible YAML inventory: hosts with their variables, groups head, workers and by OS",
       write_ansible_inventory, "inventory.yaml"},
      {"routing",
       "routed plans: the routing table (entry hosts, next hosts with weights) as JSON for a "
       "request scheduler (needs --plan)",
       routing, "routing.json", true, routed},
      {"nginx",
       "replica plans: nginx.conf, nginx in front of the replicas' HTTP servers, weighted by the "
       "plan's request shares (nginx -p \"$PWD\" -c nginx.conf; needs --plan)",
       write_nginx, "nginx.conf", true, has_replicas},
      {"slurm",
       "sbatch script: the plan's nodes in rank order, GPUs per node, and per node through srun "
       "its NCCL/Gloo variables and engine (--engine vllm, torchrun or llama-rpc; needs --plan)",
       write_slurm_job, "slurm.sbatch", true, slurm_over_the_ranks, "vllm llama-rpc torchrun"},
  };
  return table;
}

bool format_serves_engine(const EmitFormat& format, std::string_view engine) {
  if (engine.empty() || format.engines.empty()) return true;
  std::string_view rest = format.engines;
  while (!rest.empty()) {
    const size_t space = rest.find(' ');
    if (rest.substr(0, space) == engine) return true;
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  return false;
}

const EmitFormat* find_emit_format(std::string_view name) {
  for (const EmitFormat& f : emit_formats())
    if (f.name == name) return &f;
  return nullptr;
}

std::string emit_format_names() {
  std::string names;
  const auto& table = emit_formats();
  for (size_t i = 0; i < table.size(); ++i)
    names += fmt::format("{}{}",
                         i == 0                  ? ""
                         : i + 1 == table.size() ? " or "
                                                 : ", ",
                         table[i].name);
  return names;
}

std::string emit_formats_help() {
  size_t width = 0;
  for (const EmitFormat& f : emit_formats())
    width = std::max(width, f.name.size());
  std::string out = "Formats:\n";
  for (const EmitFormat& f : emit_formats())
    out += fmt::format("  {:<{}}  {}\n", f.name, width, f.summary);
  return out;
}

void validate_emit_options(const std::vector<std::string>& envs, const MlxEnvOptions& options) {
  for (const auto& e : envs) {
    auto eq = e.find('=');
    bool ok = eq != std::string::npos && eq > 0;
    for (size_t k = 0; ok && k < eq; ++k)
      ok = std::isalnum(static_cast<unsigned char>(e[k])) || e[k] == '_';
    if (!ok)
      throw input_error("--env {}: expected KEY=VALUE with a key of letters, digits and _", e);
  }
  if (options.connections_per_ip < 1) throw input_error("--connections-per-ip must be at least 1");
}

}  // namespace meshplan
