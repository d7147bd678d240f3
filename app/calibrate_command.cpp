#include <fmt/format.h>

#include <memory>
#include <set>

#include "app/commands.hpp"
#include "app/ssh_args.hpp"
#include "app/topology_args.hpp"
#include "deploy/configure/calibrate.hpp"
#include "deploy/configure/link_round_trips.hpp"
#include "lib/cluster/cluster_writer.hpp"
#include "lib/core/error.hpp"
#include "lib/core/nearest_names.hpp"
#include "topologies/topology_context.hpp"

namespace meshplan {
namespace {

struct CalibrateArgs {
  std::string cluster;
  std::string output = "-";
  std::string hosts;
  bool dry_run = false;
  int jobs = 16;
  SshArgs ssh;
};

constexpr const char* kCalibrateHelp =
    R"(Measure each host's memory bandwidth, FLOP/s, GPU all-reduce and stage overhead, and each
cable's round trip, over SSH.

Examples:
  meshplan calibrate -c cluster.json -o calibrated.json
  meshplan calibrate -c cluster.json --hosts gpu-1,gpu-2 -o calibrated.json --timeout 300
  meshplan calibrate -c cluster.json --dry-run          # print each host's script, run nothing
  meshplan plan -c calibrated.json -m llama-3.3-70b-4bit  # plans with the measured figures

On each host, one script runs python3 with what the host has: torch with CUDA, else MLX, else
numpy, else torch on the CPU. It times a large copy (1 GiB on a GPU, 256 MiB on the CPU; memory
bandwidth counted as a copy kernel counts it, bytes read and written), a square matrix product
(fp16 on a GPU, fp32 on the CPU: 2n^3 FLOP), one empty pipeline step (a token's activations in,
one kernel, out, a synchronisation) and, on a host of two or more CUDA GPUs, a one-token NCCL
all-reduce over them, one process per GPU. Each benchmark takes about a second; the whole run on
a host is stopped after --timeout seconds (by `timeout` on the host, and by the program itself),
with every process it started. A host without python3 and one of these gets a note and keeps the
catalog's figures.

Then each cable whose ends have addresses (after `meshplan setup --apply`) is timed: a one-off
python3 listener on one end's address echoes 64-byte requests sent one at a time from the other
end; the median of 200 round trips is what one RPC call costs on it (llama.cpp's rpc-servers),
and half of it the cable's latency where none was measured. The listener is stopped by its PID.

The cluster is written (-o FILE, atomically; stdout without -o) with each measured host's
mem_bandwidth and flops (one GPU's figure times the host's GPUs), gpu_link_latency_us,
stage_overhead_ms and `measured: DATE`, and each timed cable's round_trip_us and `measured:
DATE`; `plan` uses those instead of the catalog's and names them.
A host that cannot be reached or whose benchmark fails is named, the others are written, and the
exit code is 3. The SSH options are discover's; --timeout also bounds the connection.)";

// The hosts --hosts names (every host without it), each once.
std::vector<const Host*> chosen_hosts(const Cluster& cluster, const CalibrateArgs& a) {
  std::vector<const Host*> hosts;
  if (a.hosts.empty()) {
    for (const Host& h : cluster.hosts)
      hosts.push_back(&h);
    return hosts;
  }
  std::vector<std::string> names;
  for (const Host& h : cluster.hosts)
    names.push_back(h.name);
  std::set<std::string> seen;
  for (const auto& name : split_list(a.hosts)) {
    const Host* h = cluster.find_host(name);
    if (!h)
      throw input_error("--hosts: no host \"{}\" in {}{}", name, a.cluster,
                        did_you_mean(name, names));
    if (seen.insert(name).second) hosts.push_back(h);
  }
  return hosts;
}

// The measured figures (data when the cluster goes to a file, notes when it goes to stdout) and
// what was not measured.
void print_figures(AppContext& ctx, const std::string& output, const CalibrateReport& report,
                   const LinkRoundTripReport& links) {
  std::string summary;
  for (const auto& h : report.hosts)
    if (h.measured()) summary += calibration_summary(h) + "\n";
  for (const auto& l : links.measured)
    summary += fmt::format("{}: round trip {:.1f} us\n", l.name, l.us);
  for (const auto& n : report.notes)
    ctx.console.note(n);
  for (const auto& n : links.notes)
    ctx.console.note(n);
  for (const auto& f : links.failures)
    ctx.console.note(fmt::format("{}: round trips not measured: {}: {}", f.host,
                                 host_failure_name(f.kind), f.message));
  if (output == "-")
    ctx.console.note(summary.empty() ? "no host was measured"
                                     : summary.substr(0, summary.size() - 1));
  else
    ctx.console.data(summary);
}

int run_calibrate_command(const CalibrateArgs& a, AppContext& ctx) {
  if (a.jobs < 1 || a.jobs > 256) throw input_error("--jobs {}: expected 1-256", a.jobs);
  if (a.ssh.ssh.timeout_s < 5 || a.ssh.ssh.timeout_s > 3600)
    throw input_error("--timeout {}: expected 5-3600 seconds", a.ssh.ssh.timeout_s);
  check_ssh_args(a.ssh);
  Cluster cluster = read_cluster_arg(ctx, a.cluster);
  std::vector<const Host*> hosts = chosen_hosts(cluster, a);
  if (hosts.empty()) throw input_error("{}: no hosts to calibrate", a.cluster);
  const int limit = a.ssh.ssh.timeout_s;
  if (a.dry_run) {
    const std::string script = calibrate_script(limit);
    for (const Host* h : hosts)
      ctx.console.data(fmt::format("# {} (ssh {}): /bin/sh -s runs this\n{}\n", h->name,
                                   h->ssh_target(), script));
    return 0;
  }
  // The host's own limit acts first; the session waits a little longer for its last words.
  SshArgs session = a.ssh;
  session.ssh.timeout_s = limit + 10;
  auto executor = make_ssh_executor(session);
  std::vector<HostTarget> targets;
  for (const Host* h : hosts)
    targets.push_back(host_target(h->name, h->ssh_target(), a.cluster, a.ssh));
  CalibrateOptions options;
  options.timeout_s = limit;
  options.jobs = a.jobs;
  CalibrateReport report = run_calibrate(targets, *executor, options);
  // Then each cable between the hosts: one request's round trip, what an RPC call costs on it.
  TopologyContext topo(cluster, ctx.catalog);
  LinkRoundTripReport links = measure_link_round_trips(live_links(cluster, topo.subnets, false),
                                                       targets, *executor, a.jobs, 200);

  print_figures(ctx, a.output, report, links);
  if (!report.hosts.empty() || !links.measured.empty()) {
    const std::string date = today();
    write_output(ctx, a.output,
                 write_cluster_json(
                     with_link_round_trips(with_calibration(cluster, report, date), links, date)));
  }
  if (!report.failures.empty()) {
    std::string why =
        fmt::format("{} of {} host{} could not be calibrated:", report.failures.size(),
                    targets.size(), targets.size() == 1 ? "" : "s");
    for (const auto& f : report.failures)
      why += fmt::format("\n  {}: {}: {}", f.host, host_failure_name(f.kind), f.message);
    throw Error(ErrorKind::kHostsFailed, why);
  }
  return 0;
}

}  // namespace

void add_calibrate_command(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<CalibrateArgs>();
  a->ssh.ssh.timeout_s = 120;
  CLI::App* sub = app.add_subcommand("calibrate", kCalibrateHelp);
  sub->add_option("-c,--cluster", a->cluster, "Cluster file (JSON or YAML, - for stdin)")
      ->required();
  sub->add_option("-o,--output", a->output,
                  "Where the cluster with the measured figures goes (- for stdout)")
      ->capture_default_str();
  sub->add_option("--hosts", a->hosts, "Only these hosts (a,b or gpu-[1-4]); default: every host");
  sub->add_flag("--dry-run", a->dry_run, "Print each host's script; contact nothing");
  sub->add_option("--jobs", a->jobs, "Hosts calibrated at the same time")->capture_default_str();
  add_ssh_options(sub, a->ssh, "Seconds the benchmark may take on each host (and for connecting)");
  sub->callback([a, &ctx] { ctx.run = [a, &ctx] { return run_calibrate_command(*a, ctx); }; });
}

}  // namespace meshplan
