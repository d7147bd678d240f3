#include "deploy/emit/launch_guide.hpp"

#include <fmt/format.h>

#include "deploy/emit/emit_formats.hpp"
#include "deploy/emit/host_steps.hpp"
#include "deploy/emit/launch_troubleshooting.hpp"
#include "deploy/emit/replica_launch.hpp"
#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/exo_env.hpp"
#include "deploy/writers/llama_rpc.hpp"
#include "deploy/writers/mlx_launch.hpp"
#include "deploy/writers/ray_cluster.hpp"
#include "deploy/writers/vllm_disaggregated.hpp"
#include "deploy/writers/vllm_launch.hpp"
#include "lib/core/error.hpp"
#include "lib/plan/engine_kind.hpp"

namespace meshplan {
namespace {

// Per artifact: its engine and the steps, with {first} / {last} / {hosts} filled per layout.
struct GuideStep {
  std::string_view file;
  std::string_view title;
  std::string_view steps;
};

constexpr GuideStep kSteps[] = {
    {"setup.sh", "Host setup (before any engine)", ""},  // host_steps_guide
    {"mlx-launch.sh", "MLX (mlx-lm)",
     "Copy `mlx-hostfile.json` to a host that reaches every rank by ssh and run the command of "
     "`mlx-launch.sh` there. Without mlx.launch, source each rank's block of `mlx-env.sh` on its "
     "host."},
    {"llama-rpc.sh", "llama.cpp RPC",
     "Start the `rpc-server` line of each rank on its host ({workers}), then the `llama-server` "
     "line on {last}. `--tensor-split` is a proportion: llama.cpp rounds it to whole layers."},
    {"torchrun.sh", "torchrun",
     "Run each node's line on its host, {first} (node 0, the master) first."},
    {"deepspeed.hostfile", "DeepSpeed",
     "Put `.deepspeed_env` in the home folder of every host, then run the command in "
     "`deepspeed.hostfile`'s first comment on {first}."},
    {"openmpi.hostfile", "Open MPI",
     "On {first}: `mpirun --hostfile openmpi.hostfile -np {n} PROGRAM` (`mpich.hostfile` with "
     "`mpiexec -f mpich.hostfile -n {n} PROGRAM` for MPICH)."},
    {"vllm.sh", "vLLM", "Run node 0's line on {first}, then each other node's line on its host."},
    {"vllm-disaggregated.sh", "vLLM, prefill and decode apart",
     "Copy the model to both hosts. Start the prefill line on its host and the decode line on "
     "its host (either first), wait until both answer `curl http://HOST:PORT/v1/models`, then "
     "start `vllm-router` on the decode host."},
    {"slurm.sbatch", "Slurm",
     "`sbatch slurm.sbatch` asks Slurm for the {n} nodes ({first} first) and starts vLLM on each "
     "with srun (`emit slurm --engine torchrun` or `llama-rpc` for the others); run "
     "`sbatch --test-only slurm.sbatch` first to have the controller check it."},
    {"ray-cluster.yaml", "Ray and vLLM on it",
     "`ray up ray-cluster.yaml` from a host that reaches all by ssh, or the `ray start` lines at "
     "its end, {first} (head) first; then the `vllm serve ... --distributed-executor-backend ray` "
     "line at its end, on {first}."},
    {"exo-disaggregated.sh", "exo, prefill and decode apart",
     "Install exo on both hosts (on an NVIDIA host with MLX's CUDA build). Start each host's exo "
     "line on it, the prefill host first; once both answer `curl http://HOST:52415/node_id`, run "
     "the script's `python3` part with the model's Hugging Face id in place of MODEL: it creates "
     "an instance on each host and links them."},
    {"exo.sh", "exo",
     "Run each host's line on that host, {first} first. exo chooses its own layer placement: it "
     "cannot take the plan's split."},
    {"inventory.yaml", "Ansible",
     "`ansible -i inventory.yaml all -m ping` checks that every host answers."},
};

// The last step: ask the engine's HTTP server for its models, where the plan's engine answers.
std::string check_step(const EmitInput& in, const LaunchLayout& layout,
                       const std::map<std::string, std::string>& files, int step) {
  const std::string& engine = in.plan ? in.plan->engine : std::string();
  size_t node = 0;
  int port = 0;
  if (files.count("vllm-disaggregated.sh")) {
    // The router on the decode host.
    for (size_t i = 0; i < layout.nodes.size(); ++i)
      if (layout.nodes[i].host->name == in.plan->disaggregated->decode_hosts.back()) node = i;
    port = kVllmRouterPort;
  } else {
    // The engine's own launch file must have been written for it to answer.
    const std::vector<std::string_view> formats = engine_format_names(engine);
    const EmitFormat* launch = find_emit_format(formats.back());
    if (engine.empty() || !launch || !files.count(std::string(launch->file))) return "";
    const ServingEndpoint at = serving_endpoint(in, layout, engine);
    node = at.node;
    port = at.port;
  }
  const LaunchNode& n = layout.nodes[node];
  const std::string host = n.address.empty() ? n.host->name : n.address;
  return fmt::format(
      "\n## {}. Check that it answers\n\n`curl http://{}:{}/v1/models` (on {}) lists the model "
      "once it has loaded.\n",
      step, host, port, n.host->name);
}

}  // namespace

std::string render_launch_guide(const EmitInput& in,
                                const std::map<std::string, std::string>& files) {
  const LaunchLayout& layout = in.layout();
  size_t n = layout.nodes.size();
  std::string out = fmt::format(
      "# Launching {}\n\n", in.cluster.name.empty() ? std::string("the cluster") : in.cluster.name);
  out += fmt::format("The plan: {} over {} rank{}, backend {} ({}). Ranks in order:\n\n",
                     layout.strategy.empty() ? std::string("a plan") : layout.strategy, n,
                     n == 1 ? "" : "s", layout.backend, layout.transport);
  // mlx-lm numbers a pipeline's ranks from the last stage (MLX_RANK): both numbers are shown.
  const bool reversed = files.count("mlx-launch.sh") && mlx_ranks_reversed(in);
  out += reversed
             ? "| rank | mlx rank | host | ssh | address | layers |\n|---|---|---|---|---|---|\n"
             : "| rank | host | ssh | address | layers |\n|---|---|---|---|---|\n";
  for (const LaunchNode& node : layout.nodes)
    out += fmt::format(
        "| {}{} | {} | `{}` | {} | {} |\n", node.rank,
        reversed ? fmt::format(" | {}", static_cast<int>(n) - 1 - node.rank) : "", node.host->name,
        node.ssh, node.address.empty() ? "-" : node.address,
        node.layers ? fmt::format("[{}, {})", node.layers->first, node.layers->second) : "-");
  std::string workers;
  for (size_t i = 0; i + 1 < n; ++i)
    workers += (i ? ", " : "") + layout.nodes[i].host->name;
  int step = 1;
  for (const GuideStep& s : kSteps) {
    if (!files.count(std::string(s.file))) continue;
    // The host steps first: every one of them runs before the engine that needs it.
    std::string_view steps = s.steps;
    if (s.file == "mlx-launch.sh" && !files.count("mlx-hostfile.json"))
      steps =
          "Run the command of `mlx-launch.sh` on {first}: one host needs no mlx.launch, "
          "hostfile or MLX_RANK.";
    if (s.file == "vllm.sh" && n == 1) steps = "Run its line on {first}.";
    if (s.file == "vllm.sh" && vllm_needs_ray(layout))
      steps =
          "Its nodes give vLLM unequal GPU counts, so Ray starts them: run the `ray start` "
          "lines of `vllm.sh`, {first} (the head) first, then its `vllm serve` line once on "
          "{first}.";
    std::string text =
        s.file == "setup.sh"
            ? host_steps_guide(plan_host_steps(in))
            : fmt::format(fmt::runtime(steps), fmt::arg("first", layout.nodes.front().host->name),
                          fmt::arg("last", layout.nodes.back().host->name),
                          fmt::arg("workers", workers.empty() ? std::string("none") : workers),
                          fmt::arg("n", n)) +
                  "\n";
    out += fmt::format("\n## {}. {}\n\n{}", step++, s.title, text);
    if (s.file == "mlx-launch.sh") {
      std::string note = mlx_lm_split_note(in);
      if (!note.empty()) out += "\n" + note + "\n";
    }
  }
  out += check_step(in, layout, files, step);
  if (!files.count("llama-rpc.sh") && in.plan->engine.empty())
    out += "\nllama.cpp RPC is not written: it splits by layers and this plan does not.\n";
  if (!files.count("ray-cluster.yaml"))
    out += ray_runs_an_engine(in)
               ? "\nRay is not written: its file needs the ssh user (emit all --user NAME).\n"
               : "\nRay is not written: no engine of this plan runs on Ray here (vLLM on Ray "
                 "needs NVIDIA hosts).\n";
  out += render_launch_troubleshooting(in, files);
  return out;
}

}  // namespace meshplan
