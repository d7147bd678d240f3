#include "deploy/writers/slurm_batch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/llama_rpc.hpp"
#include "deploy/writers/nccl_env.hpp"
#include "deploy/writers/torchrun_launch.hpp"
#include "deploy/writers/vllm_launch.hpp"
#include "lib/core/error.hpp"
#include "lib/core/shell_quote.hpp"
#include "lib/plan/engine_kind.hpp"

namespace meshplan {
namespace {

// One arm of the node script's `case`: the node's name, the variables it exports, its command.
struct NodeArm {
  std::string node;
  int rank = 0;
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> words;
  std::string before;  // shell lines run before the command (llama.cpp: wait for the servers)
};

std::string quoted_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    out += shell_quote(w);
  }
  return out;
}

// The script every task runs: its node's arm, chosen by SLURMD_NODENAME (set by slurmd for
// every task, srun(1) OUTPUT ENVIRONMENT VARIABLES).
std::string node_script(const std::vector<NodeArm>& arms, const std::vector<std::string>& envs) {
  std::string s = "case \"${SLURMD_NODENAME:-}\" in\n";
  for (const NodeArm& a : arms) {
    s += fmt::format("{})\n", shell_quote(a.node));
    s += fmt::format("  export MESHPLAN_RANK={} MESHPLAN_NODE={}\n", a.rank, shell_quote(a.node));
    for (const auto& e : envs) {
      auto eq = e.find('=');
      s += fmt::format("  export {}={}\n", e.substr(0, eq), shell_quote(e.substr(eq + 1)));
    }
    for (const auto& [k, v] : a.env)
      s += fmt::format("  export {}={}\n", k, shell_quote(v));
    s += a.before;
    s += fmt::format("  exec ${{MESHPLAN_ENGINE:+\"$MESHPLAN_ENGINE\"}} {}\n  ;;\n",
                     quoted_words(a.words));
  }
  s += "*)\n  echo \"meshplan: node ${SLURMD_NODENAME:-?} is not one of the plan's nodes\" >&2\n"
       "  exit 1\n  ;;\nesac\n";
  return s;
}

// The plan's hosts as Slurm node names, in rank order: Linux hosts, in the allocation when one is
// given.
std::vector<std::string> slurm_nodes(const EmitInput& in, const LaunchLayout& layout) {
  std::vector<std::string> nodes;
  for (const LaunchNode& node : layout.nodes) {
    if (node.mac)
      throw input_error("emit slurm: {} is a Mac; Slurm runs the plan on Linux nodes",
                        node.host->name);
    nodes.push_back(
        hostfile_word(node.host->name, "its name (the Slurm node name)", node.host->name));
  }
  // The plan's hosts must be nodes the job may use: a host outside the allocation would leave
  // sbatch waiting for, or refusing, a node the user does not hold.
  if (!in.launch.allocation.empty()) {
    for (const auto& name : nodes)
      if (std::find(in.launch.allocation.begin(), in.launch.allocation.end(), name) ==
          in.launch.allocation.end())
        throw input_error(
            "emit slurm: the plan's host {} is not in the Slurm allocation ({}); plan over the "
            "allocation's nodes (discover --slurm) or drop --allocation",
            name, fmt::join(in.launch.allocation, ","));
  }
  return nodes;
}

// The GPUs of every node: --gpus-per-node asks the same of every node (sbatch(1)).
int gpus_per_node(const LaunchLayout& layout) {
  const int gpus = layout.nodes.front().cuda_gpus();
  for (const LaunchNode& node : layout.nodes)
    if (node.cuda_gpus() != gpus)
      throw failure(
          "emit slurm: --gpus-per-node asks the same of every node, but {} has {} GPUs and {} "
          "has {}; plan hosts of one kind together (--hosts)",
          layout.nodes.front().host->name, gpus, node.host->name, node.cuda_gpus());
  return gpus;
}

// What one engine makes of the job: the node script's arms, the sruns in order, the title.
struct EngineJob {
  std::vector<NodeArm> arms;
  std::vector<SlurmStep> steps;
  std::string title;
};

EngineJob vllm_job(const EmitInput& in, const LaunchLayout& layout,
                   const std::vector<std::string>& nodes) {
  const size_t n = layout.nodes.size();
  EngineJob job;
  require_plan(in, "vllm", "-tp and -pp come from the plan's strategy and ranks");
  VllmShape shape = vllm_shape(layout, in.plan->model);
  for (size_t i = 0; i < n; ++i)
    job.arms.push_back({nodes[i], static_cast<int>(i), vllm_node_env(layout, i, shape),
                        vllm_node_words(in, layout, shape, i), ""});
  job.steps = {SlurmStep{nodes, false}};
  job.title = fmt::format("vLLM over {} node{}, rank 0 serving on port 8000", n, n == 1 ? "" : "s");
  return job;
}

EngineJob torchrun_job(const EmitInput& in, const LaunchLayout& layout,
                       const std::vector<std::string>& nodes) {
  const size_t n = layout.nodes.size();
  EngineJob job;
  std::string master = rendezvous_address(
      layout, 0, "torchrun's rendezvous (rank 0) needs an address every node reaches");
  int port = launch_port(in, kTorchrunDefaultPort);
  std::string program = in.launch.program.empty() ? "train.py" : in.launch.program;
  const int per_node = torchrun_processes_per_node(layout);
  for (size_t i = 0; i < n; ++i) {
    // c10d rendezvous on rank 0's address (torchrun's own default port); the job's id keeps
    // two jobs on one endpoint apart. Underscore spellings, as `emit torchrun` (torch 1.x).
    std::vector<std::string> words = {"torchrun",
                                      fmt::format("--nnodes={}", n),
                                      fmt::format("--nproc_per_node={}", per_node),
                                      fmt::format("--node_rank={}", i),
                                      "--rdzv_backend=c10d",
                                      fmt::format("--rdzv_endpoint={}:{}", master, port),
                                      "--rdzv_id=meshplan",
                                      program};
    job.arms.push_back({nodes[i], static_cast<int>(i), nccl_variables(layout, i), words, ""});
  }
  job.steps = {SlurmStep{nodes, false}};
  job.title = fmt::format("torchrun over {} node{}, c10d rendezvous on {}:{}", n, n == 1 ? "" : "s",
                          master, port);
  return job;
}

// The main process connects to every rpc-server at start: the lines run before it start the
// local one, if any, and wait (bounded) until each answers; "" when there is none to wait for.
std::string rpc_server_wait(const LlamaRpcLaunch& rpc, size_t main) {
  std::string before;
  if (main > 0 || !rpc.local_server.empty()) {
    const std::string endpoints = fmt::format("{}", fmt::join(rpc.endpoints, ","));
    if (!rpc.local_server.empty())
      before += fmt::format("  ${{MESHPLAN_ENGINE:+\"$MESHPLAN_ENGINE\"}} {} &\n",
                            quoted_words(rpc.local_server));
    before += fmt::format(
        "  for ep in $(echo {} | tr , ' '); do\n"
        "    t=0\n"
        "    until [ -n \"${{MESHPLAN_ENGINE:-}}\" ] || (exec "
        "3<>\"/dev/tcp/${{ep%:*}}/${{ep##*:}}\") "
        "2>/dev/null; do\n"
        "      t=$((t + 1)); [ \"$t\" -le 300 ] || {{ echo \"meshplan: rpc-server $ep does not "
        "answer\" >&2; exit 1; }}; sleep 1\n"
        "    done\n"
        "  done\n",
        shell_quote(endpoints));
  }
  return before;
}

EngineJob llama_rpc_job(const EmitInput& in, const LaunchLayout& layout,
                        const std::vector<std::string>& nodes) {
  const size_t n = layout.nodes.size();
  EngineJob job;
  LlamaRpcLaunch rpc = llama_rpc_launch(in, layout);
  const size_t main = n - 1;
  for (size_t i = 0; i < main; ++i)
    job.arms.push_back({nodes[i], static_cast<int>(i), {}, rpc.servers[i], ""});
  job.arms.push_back(
      {nodes[main], static_cast<int>(main), {}, rpc.main, rpc_server_wait(rpc, main)});
  if (main > 0)
    job.steps.push_back({std::vector<std::string>(nodes.begin(), nodes.begin() + main), true});
  job.steps.push_back({{nodes[main]}, false});
  job.title = fmt::format("llama.cpp RPC over {} node{}: rpc-servers first, llama-server on {}", n,
                          n == 1 ? "" : "s", nodes[main]);
  return job;
}

}  // namespace

// `srun` over some of the job's nodes, one task each. --ntasks is given because srun otherwise
// takes SLURM_NTASKS of the whole job from the batch environment.
std::string srun_line(const SlurmStep& step, const std::string& script_var, int het_group) {
  return fmt::format(
      "srun{3} --nodes={0} --ntasks={0} --ntasks-per-node=1 --nodelist={1} --kill-on-bad-exit=1 "
      "/bin/bash -c \"${2}\"{4}\n",
      step.nodes.size(), fmt::join(step.nodes, ","), script_var,
      het_group >= 0 ? fmt::format(" --het-group={}", het_group) : "", step.background ? " &" : "");
}

std::string sbatch_node_lines(const SlurmLaunch& launch) {
  std::string out = fmt::format("#SBATCH --nodes={}\n", launch.nodes.size());
  out += fmt::format("#SBATCH --nodelist={}\n", fmt::join(launch.nodes, ","));
  out += "#SBATCH --ntasks-per-node=1\n";
  if (launch.gpus > 0) out += fmt::format("#SBATCH --gpus-per-node={}\n", launch.gpus);
  return out;
}

bool slurm_applies(const EmitInput& in) {
  const LaunchLayout& layout = in.layout();
  const int gpus = layout.nodes.front().cuda_gpus();
  return std::none_of(layout.nodes.begin(), layout.nodes.end(),
                      [gpus](const LaunchNode& n) { return n.mac || n.cuda_gpus() != gpus; });
}

SlurmLaunch slurm_launch(const EmitInput& in) {
  require_plan(in, "slurm", "the job's nodes, their order and the engine's split come from it");
  const LaunchLayout& layout = in.layout();
  const std::string engine =
      in.launch.engine.empty() ? std::string(name(EngineKind::kVllm)) : in.launch.engine;
  if (!is_engine(engine, EngineKind::kVllm) && engine != "torchrun" &&
      !is_engine(engine, EngineKind::kLlamaRpc))
    throw input_error("--engine {}: expected vllm, torchrun or llama-rpc", engine);
  const std::vector<std::string> nodes = slurm_nodes(in, layout);
  const int gpus = gpus_per_node(layout);

  EngineJob job;
  if (is_engine(engine, EngineKind::kVllm))
    job = vllm_job(in, layout, nodes);
  else if (engine == "torchrun")
    job = torchrun_job(in, layout, nodes);
  else
    job = llama_rpc_job(in, layout, nodes);

  SlurmLaunch out;
  out.engine = engine;
  out.nodes = nodes;
  out.gpus = gpus;
  out.title = job.title;
  out.strategy = layout.strategy;
  out.node_script = node_script(job.arms, in.envs);
  out.steps = std::move(job.steps);
  return out;
}

std::string write_slurm_batch(const EmitInput& in) {
  const SlurmLaunch job = slurm_launch(in);
  const size_t n = job.nodes.size();
  std::string out = "#!/bin/bash\n";
  out += fmt::format("#SBATCH --job-name=meshplan-{}\n", job.engine);
  out += sbatch_node_lines(job);
  out += fmt::format("# meshplan: {} ({} plan). Submit with: sbatch FILE\n", job.title,
                     job.strategy.empty() ? "no" : job.strategy);
  out += "# Ranks in order:";
  for (size_t i = 0; i < n; ++i)
    out += fmt::format(" {}={}", i, job.nodes[i]);
  out +=
      "\n# Slurm sorts --nodelist, so each node finds its rank by name (SLURMD_NODENAME).\n"
      "# MESHPLAN_ENGINE, when set, runs instead of the engine, with its command line as "
      "arguments.\n"
      "set -eu\n"
      "node_script=$(cat <<'MESHPLAN_NODE'\n";
  out += job.node_script;
  out += "MESHPLAN_NODE\n)\n";
  for (const SlurmStep& step : job.steps)
    out += srun_line(step, "node_script");
  return out;
}

}  // namespace meshplan
