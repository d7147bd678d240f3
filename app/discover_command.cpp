#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "app/commands.hpp"
#include "app/ssh_args.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "lib/cluster/cluster_writer.hpp"
#include "lib/core/error.hpp"
#include "lib/discovery/discover_targets.hpp"
#include "lib/discovery/discovery.hpp"
#include "lib/discovery/slurm_cluster.hpp"
#include "lib/probes/replay_folder.hpp"
#include "lib/remote/host_list.hpp"
#include "lib/remote/libssh_executor.hpp"

namespace meshplan {
namespace {

struct DiscoverOptions {
  std::vector<std::string> positional;
  std::string hosts;
  std::string inventory;
  std::string output = "-";
  SshArgs ssh;
  int jobs = 16;
  bool ignore_unreachable = false;
  bool json = true;
  std::string replay;
  std::string record;
  bool slurm = false;          // the nodes of SLURM_JOB_NODELIST
  std::string source = "ssh";  // ssh or scontrol
};

constexpr const char* kDiscoverHelp =
    R"(Probe hosts over SSH, in parallel, and write the cluster file.

Examples:
  meshplan discover mac-1 mac-2 mac-3 mac-4 -o cluster.json
  meshplan discover --hosts 'studio[1-4]' --user admin --identity ~/.ssh/id_ed25519
  meshplan discover -i hosts.txt --jobs 32 --timeout 20 --ignore-unreachable -o cluster.json
  meshplan discover mac-1 mac-2 --host-key-policy accept-new --known-hosts ./known_hosts
  meshplan discover mac[1-4] --record probes/            # keep the raw outputs (serials redacted)
  meshplan discover --replay probes/ -o cluster.json     # rebuild the file from recorded outputs
  meshplan discover --slurm -o cluster.json              # inside an allocation: its nodes, by SSH
  meshplan discover --slurm --source scontrol            # the same from Slurm's controller, no SSH
  meshplan discover 'gpu[01-04,07]' --source scontrol    # any nodes the controller knows

Hosts are [user@]host[:port]; ranges expand (mac[1-4], mac[01-04], Slurm's gpu[01-04,07]); the
order given is the host order of the file. --slurm takes the nodes of SLURM_JOB_NODELIST, expanded
by Slurm's rules; --source scontrol reads `scontrol show node -o` (GPUs from Gres, memory from
RealMemory) instead of probing over SSH, and refuses nodes that are DOWN, DRAIN or FAIL (exit 3). An inventory has one host per line, "[user@]host[:port]" or
"NAME [user@]host[:port]", with '#' comments. ~/.ssh/config is honoured (or --ssh-config);
--user and --port apply to hosts that do not say their own, and win over the config.

Each host gets one SSH session running one probe script: chip, memory, wired limit, OS version,
Thunderbolt ports and their peers, interfaces and addresses, RDMA devices (macOS); memory, GPUs,
addresses, RDMA ports (Linux). Cables are matched by Thunderbolt domain UUID on both ends, also
behind docks. Host keys are checked against known_hosts: strict refuses an unknown key and prints
its fingerprint; accept-new records it; a changed key is always refused.

A host that fails is reported as unreachable, timed out, host key unknown, host key changed,
authentication refused, command missing, command failed or output not understood, and the run
exits with 3. Nothing is written then, unless --ignore-unreachable, which writes the other hosts.)";

std::vector<HostTarget> targets_of(const DiscoverOptions& o, AppContext& ctx) {
  TargetSources s;
  s.words = o.positional;
  s.hosts = o.hosts;
  s.inventory_file = o.inventory;
  if (!o.inventory.empty()) s.inventory_text = read_input(ctx, o.inventory);
  if (o.slurm) {
    const char* list = std::getenv("SLURM_JOB_NODELIST");
    s.slurm_nodes = list ? list : "";
  }
  if (!o.replay.empty()) {
    s.replay_dir = o.replay;
    s.replay_hosts = replay_hosts(ctx.fs, o.replay);
  }
  s.default_user = o.ssh.ssh.user;
  s.default_port = o.ssh.ssh.port;
  return collect_targets(s);
}

void write_cluster(const Cluster& cluster, const DiscoverOptions& o, AppContext& ctx) {
  std::string json = write_cluster_json(cluster);
  // The file must load as it is written; a failure here is a bug, not bad input.
  try {
    load_cluster(json, "discovered cluster", ctx.catalog);
  } catch (const Error& e) {
    throw internal_error("the discovered cluster does not load: {}", e.what());
  }
  write_output(ctx, o.output, json);
}

// --source scontrol: the nodes as Slurm's controller describes them, no SSH.
int run_discover_scontrol(const std::vector<HostTarget>& targets, const DiscoverOptions& o,
                          AppContext& ctx) {
  SlurmNodes nodes = query_slurm_nodes(targets, PopenLocalCommand());
  for (const auto& w : nodes.warnings)
    ctx.console.warn(w);
  Cluster cluster = slurm_cluster(targets, nodes.nodes, ctx.catalog);
  for (const auto& f : cluster.findings)
    ctx.console.warn(fmt::format("{}: {}: {}", f.host, f.kind, f.message));
  write_cluster(cluster, o, ctx);
  return 0;
}

int run_discover(const DiscoverOptions& o, AppContext& ctx) {
  if (!o.replay.empty() && !o.record.empty())
    throw input_error("--record and --replay cannot be combined");
  if (o.jobs < 1) throw input_error("--jobs {}: expected at least 1", o.jobs);
  check_ssh_args(o.ssh);
  if (o.source != "ssh" && o.source != "scontrol")
    throw input_error("--source {}: expected ssh or scontrol", o.source);
  if (o.source == "scontrol" && (!o.replay.empty() || !o.record.empty()))
    throw input_error("--source scontrol reads Slurm's controller: no --replay or --record");
  std::vector<HostTarget> targets = targets_of(o, ctx);
  if (o.source == "scontrol") return run_discover_scontrol(targets, o, ctx);

  std::unique_ptr<RemoteExecutor> executor;
  std::unique_ptr<ProbeSource> source;
  if (!o.replay.empty()) {
    auto available = replay_hosts(ctx.fs, o.replay);
    for (const auto& t : targets) {
      if (std::find(available.begin(), available.end(), t.name) == available.end())
        throw input_error("--replay {}: no files for host {}; the folder has: {}", o.replay, t.name,
                          fmt::join(available, ", "));
    }
    source = std::make_unique<ReplayProbeSource>(ctx.fs, o.replay);
  } else {
    executor = make_ssh_executor(o.ssh);
    source = std::make_unique<RemoteProbeSource>(*executor);
  }

  DiscoveryOptions options;
  options.jobs = o.jobs;
  bool live = &ctx.console.err_stream() == &std::cerr && ::isatty(STDERR_FILENO) &&
              ctx.console.verbosity >= 0;
  if (live) {
    options.progress = [&ctx](const DiscoveryProgress& p) {
      ctx.console.err_stream() << fmt::format(
                                      "\rdiscover: {}/{} hosts done, {} failed (last: {})\033[K",
                                      p.done, p.total, p.failed, p.host)
                               << std::flush;
    };
  }
  DiscoveryResult result = discover(targets, *source, ctx.catalog, options);
  if (live) ctx.console.err_stream() << "\r\033[K" << std::flush;

  if (!o.record.empty()) {
    for (const auto& [host, probes] : result.raw)
      write_replay_probes(ctx.fs, o.record, host, probes);
    ctx.console.info(
        fmt::format("recorded the outputs of {} hosts in {}", result.raw.size(), o.record));
  }
  for (const auto& f : result.cluster.findings) {
    std::string where = f.port.empty() ? f.host : fmt::format("{} port {}", f.host, f.port);
    ctx.console.warn(fmt::format("{}: {}: {}", where, f.kind, f.message));
  }

  bool write = result.failures.empty() || (o.ignore_unreachable && !result.cluster.hosts.empty());
  if (o.slurm)
    for (Host& h : result.cluster.hosts)
      h.slurm = true;
  if (write) write_cluster(result.cluster, o, ctx);
  if (!result.failures.empty()) {
    std::string report = probe_failure_report(result.failures, targets.size());
    if (write)
      report +=
          fmt::format("\nwrote the other {} host{} (--ignore-unreachable)",
                      result.cluster.hosts.size(), result.cluster.hosts.size() == 1 ? "" : "s");
    else if (o.ignore_unreachable)
      report += "\nnothing written: no host could be probed";
    else
      report += "\nnothing written; rerun with --ignore-unreachable to write the other hosts";
    throw Error(ErrorKind::kHostsFailed, report);
  }
  return 0;
}

}  // namespace

void add_discover_command(CLI::App& app, AppContext& ctx) {
  auto o = std::make_shared<DiscoverOptions>();
  CLI::App* sub = app.add_subcommand("discover", kDiscoverHelp);
  sub->add_option("host", o->positional,
                  "Hosts to probe: [user@]host[:port], ranges such as mac[1-4]");
  sub->add_option("--hosts", o->hosts, "Comma-separated hosts (ranges such as mac[1-4])");
  sub->add_option("-i,--inventory", o->inventory,
                  "File with one host per line: [NAME] [user@]host[:port]");
  sub->add_option("-o,--output", o->output,
                  "Write the cluster file (JSON) here, atomically; - for stdout")
      ->capture_default_str();
  sub->add_flag("--json", o->json, "Print the cluster file as JSON (the default and only form)");
  add_ssh_options(sub, o->ssh, "Seconds for connecting, and for each probe command");
  sub->add_option("--jobs", o->jobs, "Hosts probed at the same time")->capture_default_str();
  sub->add_flag("--ignore-unreachable", o->ignore_unreachable,
                "Write the hosts that worked even when others failed (the exit code is still 3)");
  sub->add_option("--replay", o->replay,
                  "Build the cluster from a folder of recorded outputs instead of SSH");
  sub->add_option("--record", o->record,
                  "Also save every host's raw outputs in this folder (serials redacted)");
  sub->add_flag(
      "--slurm", o->slurm,
      "The nodes of this Slurm allocation (SLURM_JOB_NODELIST), marked slurm in the file");
  sub->add_option("--source", o->source,
                  "ssh (probe each host) or scontrol (ask Slurm's controller: no SSH needed)")
      ->capture_default_str();
  sub->callback([o, &ctx] { ctx.run = [o, &ctx] { return run_discover(*o, ctx); }; });
}

}  // namespace meshplan
