#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "app/ssh_args.hpp"
#include "deploy/preflight/preflight.hpp"
#include "lib/cluster/cluster_writer.hpp"
#include "lib/core/error.hpp"
#include "lib/remote/host_list.hpp"

#include "app/commands.hpp"
#include "app/topology_args.hpp"
#include "deploy/layout/engine_check.hpp"
#include "deploy/layout/plan_match.hpp"
#include "lib/core/document.hpp"
#include "topologies/check_report.hpp"
#include "topologies/hostfile_check.hpp"
#include "topologies/mlx_hostfile.hpp"

namespace meshplan {
namespace {

struct CheckArgs {
  std::string cluster;
  std::string backend = std::string(name(MlxBackend::kAuto));
  std::string hostfile;
  std::string plan;
  std::string engine;
  bool json = false;
  bool live = false;
  bool measure = false;
  std::string output;
  int pings = 3;
  int iperf_seconds = 2;
  int jobs = 16;
  int starting_port = 32323;
  SshArgs ssh;
};

constexpr const char* kCheckHelp =
    R"(Check the cabling and networks against what each MLX backend needs, or on Linux hosts what the
engine's launch (vLLM, llama.cpp RPC, torchrun over NCCL) needs.

Examples:
  meshplan check -c cluster.json
  meshplan check -c cluster.json --backend jaccl
  meshplan check -c cluster.json --hostfile hosts.json
  meshplan check -c cluster.json --plan plan.json --backend ring --json
  meshplan check -c cluster.json --live                  # over SSH: addresses, pings, RDMA
  meshplan check -c cluster.json --live --measure -o measured.json
  meshplan check -c gpu-nodes.yaml                       # no Mac: vLLM's network, NCCL's HCA
  meshplan check -c cluster.json --engine llama-rpc

Lists every problem with its fix: for each missing mesh cable a free port on each side, for a
ring the fewest cables to add, port budgets, the 8-rank JACCL limit, Thunderbolt 4 cables where
RDMA is needed, hosts without RDMA, the Thunderbolt Bridge, address ranges in use, macOS builds,
cables seen from one side only. --backend auto (the default) picks the first valid of jaccl,
jaccl-ring, ring and ethernet. --hostfile checks an existing MLX hostfile against the cabling
(rank order, devices, addresses). --plan checks the plan's hosts in its rank order. Exits 0 when
the backend is valid (and the hostfile matches), 1 when not.

On a cluster without Macs (or with --engine) it checks the engine's launch instead, laid out as
`emit` lays it out: the data network every node reaches the others on, the interface NCCL and
Gloo will use on each node and its address (one subnet), the RDMA devices NCCL's IB transport
will use (NCCL_IB_HCA: on every node or none, on every node of an InfiniBand network), and for
vLLM the same number and part of GPUs on every node. MLX's backends are then checked only when
--backend or --hostfile asks for them.

--live then checks the hosts over SSH (the plan's hosts with --plan, else every host with a
cable), one session each, with discover's SSH options: every cable end's interface is up with
its planned address (the /30 that setup gives it, or the address the file records), each end
answers pings from the other on those addresses, each TCP connection the chosen backend's launch
opens can be opened (a one-off listener on each planned address and port, from --starting-port
as mlx.launch counts them; the connecting rank connects; python3 on the hosts), and on Macs the
Thunderbolt Bridge is down and each RDMA port the backend needs is PORT_ACTIVE; the macOS build and the MLX version (where
Python has it) are the same everywhere. For an engine of Linux hosts (vLLM, llama.cpp RPC) the TCP
test opens the ports that engine's launch files name (vLLM's --master-port from every node to node
0 and its API port, Ray's GCS port where Ray places unequal nodes, each rpc-server's port from the
main host) and one port per pair inside the listener's ip_local_port_range (NCCL's, Gloo's and
ZMQ's ephemeral ports); a refused one is named with the one rule that fixes it (allow TCP between
the nodes on their network). It also compares nvidia-smi's GPUs with the cluster file, checks that
each HCA of NCCL_IB_HCA is PORT_ACTIVE (ibv_devinfo), and that Python, torch, its CUDA runtime and
NCCL, vLLM (and Ray) are the same on every node. Each problem is named with its cable and its fix; exit 1.
A host that cannot be reached exits 3. --measure also writes the cluster (-o FILE) with each
answered cable's latency (half the median round trip of --pings pings per end), its bandwidth
where iperf3 is on both ends (--iperf-seconds, one cable at a time) and the date; `plan` uses
those figures instead of the catalog's and says so.)";

// The live preflight: prints its findings, writes the measured cluster; false on a finding.
bool run_live(const CheckArgs& a, AppContext& ctx, const Cluster& cluster,
              const TopologyContext& topo, const CheckReport& report,
              const std::optional<PlanRanks>& plan) {
  PreflightOptions options;
  options.cluster_file = a.cluster;
  options.starting_port = a.starting_port;
  options.pings = a.pings;
  options.jobs = a.jobs;
  options.measure = a.measure;
  options.iperf_seconds = a.iperf_seconds;
  // Below the SSH silence limit.
  options.connect_wait_s = std::max(1, std::min(a.ssh.ssh.timeout_s - 1, 5));
  options.date = today();
  auto executor = make_ssh_executor(a.ssh);
  auto target_of = [&](const Host& h) {
    return host_target(h.name, h.ssh_target(), a.cluster, a.ssh);
  };
  PreflightReport live = run_preflight(cluster, topo, report, plan, target_of, *executor, options);
  for (const auto& n : live.notes)
    ctx.console.note(n);
  ctx.console.data(live.text);
  if (live.measured) {
    write_output(ctx, a.output, write_cluster_json(*live.measured));
    ctx.console.note(fmt::format("wrote the measured latencies of {} cable end{} to {}",
                                 live.answered, live.answered == 1 ? "" : "s", a.output));
  }
  if (!live.unreachable.empty()) throw Error(ErrorKind::kHostsFailed, live.unreachable);
  return live.ok;
}

int run_check(const CheckArgs& a, AppContext& ctx) {
  if (a.measure && !a.live) throw input_error("--measure needs --live");
  if (a.measure && a.output.empty())
    throw input_error("--measure needs -o FILE for the cluster with the measured figures");
  if (a.pings < 1 || a.pings > 100) throw input_error("--pings {}: expected 1-100", a.pings);
  if (a.iperf_seconds < 0 || a.iperf_seconds > 60)
    throw input_error("--iperf-seconds {}: expected 0-60 (0: no bandwidth)", a.iperf_seconds);
  if (a.live) check_ssh_args(a.ssh);
  Cluster cluster = read_cluster_arg(ctx, a.cluster);
  auto plan = read_plan_arg(ctx, a.plan);
  TopologyContext topo(cluster, ctx.catalog);
  CheckReport report = check_cluster(topo, check_options_for(a.backend, plan));
  // A cluster of Linux hosts is checked for its engine's launch; MLX's backends only where Macs
  // are, or a backend or hostfile is asked for.
  const std::vector<std::string> hosts = plan ? plan->hosts() : std::vector<std::string>{};
  const Engine* inferred = engine_to_check(cluster, ctx.catalog, hosts, plan);  // null: a Mac
  const Engine* engine = a.engine.empty() ? inferred : find_engine(a.engine);
  if (engine) report.engine = check_engine_launch(topo, report, plan, *engine);
  report.mlx_checked =
      !(engine && inferred && is_backend(a.backend, MlxBackend::kAuto) && a.hostfile.empty());
  if (!a.hostfile.empty()) {
    MlxHostfile hostfile =
        read_mlx_hostfile(parse_json_document(read_input(ctx, a.hostfile), a.hostfile));
    report.hostfile = check_hostfile(topo, hostfile, a.hostfile, a.backend);
  }
  if (a.json)
    ctx.console.data(check_report_json(report).dump(2) + "\n");
  else
    ctx.console.data(render_check_report(report));
  if (!a.live) return report.ok() ? 0 : 1;
  bool live_ok = run_live(a, ctx, cluster, topo, report, plan);
  return report.ok() && live_ok ? 0 : 1;
}

}  // namespace

void add_check_command(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<CheckArgs>();
  CLI::App* sub = app.add_subcommand("check", kCheckHelp);
  sub->add_option("-c,--cluster", a->cluster, "Cluster file (JSON or YAML, - for stdin)")
      ->required();
  sub->add_option("--backend", a->backend, mlx_backend_choices_text())
      ->check(CLI::IsMember(mlx_backend_choices()))
      ->capture_default_str();
  sub->add_option("--hostfile", a->hostfile, "An MLX hostfile to check against the cabling");
  sub->add_option("--plan", a->plan, "A plan file: check its hosts in its rank order");
  sub->add_option("--engine", a->engine,
                  "Check what this engine's launch needs of the network (default: the plan's, "
                  "else vllm on NVIDIA hosts, llama-rpc on CPU hosts; none on Macs)")
      ->check(CLI::IsMember(engine_name_list()));
  sub->add_flag("--json", a->json, "Print the findings as JSON (meshplan.check/1)");
  sub->add_flag("--live", a->live,
                "Also check the hosts over SSH: addresses, pings, RDMA, versions");
  sub->add_flag("--measure", a->measure,
                "With --live: record each cable's measured latency in the cluster written by -o");
  sub->add_option("-o,--output", a->output, "Where --measure writes the cluster file");
  sub->add_option("--pings", a->pings, "Pings per cable end for --live")->capture_default_str();
  sub->add_option("--iperf-seconds", a->iperf_seconds,
                  "With --measure: seconds of iperf3 per cable, where both ends have it")
      ->capture_default_str();
  sub->add_option("--starting-port", a->starting_port,
                  "With --live: the first port the launch uses (mlx.launch --starting-port)")
      ->check(CLI::Range(1, 65535))
      ->capture_default_str();
  sub->add_option("--jobs", a->jobs, "Hosts checked at the same time")->capture_default_str();
  add_ssh_options(sub, a->ssh, "Seconds for connecting, and for the check on each host");
  sub->callback([a, &ctx] { ctx.run = [a, &ctx] { return run_check(*a, ctx); }; });
}

}  // namespace meshplan
