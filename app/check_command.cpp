#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>

#include "app/ssh_args.hpp"
#include "lib/cluster/cluster_writer.hpp"
#include "lib/configure/live_check.hpp"
#include "lib/configure/tcp_check.hpp"
#include "lib/core/error.hpp"
#include "lib/discovery/host_list.hpp"
#include "lib/emit/mlx_env.hpp"
#include "lib/emit/mlx_hostfile_builder.hpp"

#include "app/commands.hpp"
#include "app/topology_args.hpp"
#include "lib/core/document.hpp"
#include "lib/topologies/check_report.hpp"
#include "lib/topologies/hostfile_check.hpp"
#include "lib/topologies/mlx_hostfile.hpp"

namespace meshplan {
namespace {

struct CheckArgs {
  std::string cluster;
  std::string backend = std::string(name(MlxBackend::kAuto));
  std::string hostfile;
  std::string plan;
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
    R"(Check the cabling and networks against what each MLX backend needs.

Examples:
  meshplan check -c cluster.json
  meshplan check -c cluster.json --backend jaccl
  meshplan check -c cluster.json --hostfile hosts.json
  meshplan check -c cluster.json --plan plan.json --backend ring --json
  meshplan check -c cluster.json --live                  # over SSH: addresses, pings, RDMA
  meshplan check -c cluster.json --live --measure -o measured.json

Lists every problem with its fix: for each missing mesh cable a free port on each side, for a
ring the fewest cables to add, port budgets, the 8-rank JACCL limit, Thunderbolt 4 cables where
RDMA is needed, hosts without RDMA, the Thunderbolt Bridge, address ranges in use, macOS builds,
cables seen from one side only. --backend auto (the default) picks the first valid of jaccl,
jaccl-ring, ring and ethernet. --hostfile checks an existing MLX hostfile against the cabling
(rank order, devices, addresses). --plan checks the plan's hosts in its rank order. Exits 0 when
the backend is valid (and the hostfile matches), 1 when not.

--live then checks the hosts over SSH (the plan's hosts with --plan, else every host with a
cable), one session each, with discover's SSH options: every cable end's interface is up with
its planned address (the /30 that setup gives it, or the address the file records), each end
answers pings from the other on those addresses, each TCP connection the chosen backend's launch
opens can be opened (a one-off listener on each planned address and port, from --starting-port
as mlx.launch counts them; the connecting rank connects; python3 on the hosts), and on Macs the
Thunderbolt Bridge is down and each RDMA port the backend needs is PORT_ACTIVE; the macOS build and the MLX version (where
Python has it) are the same everywhere. Each problem is named with its cable and its fix; exit 1.
A host that cannot be reached exits 3. --measure also writes the cluster (-o FILE) with each
answered cable's latency (half the median round trip of --pings pings per end), its bandwidth
where iperf3 is on both ends (--iperf-seconds, one cable at a time) and the date; `plan` uses
those figures instead of the catalog's and says so.)";

std::string today() {
  auto days = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  std::chrono::year_month_day d{days};
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(d.year()),
                     static_cast<unsigned>(d.month()), static_cast<unsigned>(d.day()));
}

// The live preflight: prints its findings, writes the measured cluster; false on a finding.
bool run_live(const CheckArgs& a, AppContext& ctx, const Cluster& cluster,
              const TopologyContext& topo, const CheckReport& report,
              const std::optional<PlanRanks>& plan) {
  const BackendVerdict* chosen = report.find(report.chosen);
  bool rdma = chosen && chosen->transport == "rdma";
  std::vector<LiveLink> links = live_links(cluster, topo.subnets, rdma);
  std::set<std::string> hosts;
  if (plan)
    for (const auto& r : plan->ranks)
      hosts.insert(r.host);
  std::erase_if(links, [&](const LiveLink& l) {
    return plan && (!hosts.count(l.host) || !hosts.count(l.peer_host));
  });
  // The TCP connections the chosen backend's launch opens (mlx.launch's ports), by host name.
  // A hostfile that cannot be written (an address the backend needs is unknown) leaves the TCP
  // test out, saying why; the rest of the check still runs.
  std::vector<TcpProbe> probes;
  if (chosen && chosen->valid) {
    MlxEnvOptions ports;
    ports.starting_port = a.starting_port;
    try {
      for (const auto& c : mlx_connections(build_mlx_hostfile(topo, *chosen, {}), ports))
        probes.push_back(
            {chosen->ranks[c.listener], chosen->ranks[c.connector], c.address, c.port});
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::kFailed && e.kind() != ErrorKind::kBadInput) throw;
      ctx.console.note(fmt::format("TCP connections not tried: {}", e.what()));
    }
  }
  std::vector<HostTarget> targets;
  for (const Host& h : cluster.hosts) {
    bool wanted = plan ? hosts.count(h.name) > 0 : false;
    for (const auto& p : probes)
      wanted = wanted || p.listen_host == h.name || p.connect_host == h.name;
    for (const auto& l : links)
      wanted = wanted || l.host == h.name;
    if (!wanted) continue;
    targets.push_back(host_target(h.name, h.ssh_target(), a.cluster, a.ssh));
  }
  if (targets.empty())
    throw input_error("--live: {} has no cable between hosts to check", a.cluster);
  auto executor = make_ssh_executor(a.ssh);
  LiveOptions options;
  options.pings = a.pings;
  options.jobs = a.jobs;
  options.iperf_seconds = a.measure ? a.iperf_seconds : 0;
  LiveReport live = run_live_check(cluster, links, targets, *executor, options);
  TcpCheckResult tcp;
  if (live.failures.empty() && !probes.empty()) {
    // Each connection waits at most this long, below the SSH silence limit.
    int wait_s = std::max(1, std::min(a.ssh.ssh.timeout_s - 1, 5));
    tcp = run_tcp_check(probes, targets, *executor, a.jobs, wait_s);
    live.findings.insert(live.findings.end(), tcp.findings.begin(), tcp.findings.end());
    live.failures = tcp.failures;
    live.notes.insert(live.notes.end(), tcp.notes.begin(), tcp.notes.end());
  }

  size_t answered = 0;
  for (const auto& r : live.round_trip_us)
    answered += r.has_value();
  std::string out = fmt::format("\nLive check: {} host{}, {} cable end{}, {} answered\n",
                                targets.size(), targets.size() == 1 ? "" : "s", links.size(),
                                links.size() == 1 ? "" : "s", answered);
  if (!probes.empty())
    out += fmt::format("  TCP ({} launch, from port {}): {} of {} connection{} opened\n",
                       report.chosen, a.starting_port, tcp.opened, probes.size(),
                       probes.size() == 1 ? "" : "s");
  for (size_t i = 0; i < links.size(); ++i)
    if (live.round_trip_us[i])
      out += fmt::format("  {}: {} -> {}: round trip {:.0f} us{}\n", links[i].name(),
                         links[i].address, links[i].peer_address, *live.round_trip_us[i],
                         live.bandwidth_gbps[i]
                             ? fmt::format(", {:.2f} Gb/s (iperf3)", *live.bandwidth_gbps[i])
                             : "");
  for (const auto& n : live.notes)
    ctx.console.note(n);
  for (const auto& f : live.findings) {
    std::string fix = f.fix;
    for (auto p = fix.find("CLUSTER"); p != std::string::npos; p = fix.find("CLUSTER"))
      fix.replace(p, 7, a.cluster);
    out += fmt::format("  problem: {}{}{}\n    fix: {}\n", f.host.empty() ? "" : f.host + ": ",
                       f.cable.empty() ? "" : "cable " + f.cable + ": ", f.problem, fix);
  }
  ctx.console.data(out);
  if (a.measure && answered > 0) {
    Cluster measured = with_measurements(cluster, links, live, today());
    write_output(ctx, a.output, write_cluster_json(measured));
    ctx.console.note(fmt::format("wrote the measured latencies of {} cable end{} to {}", answered,
                                 answered == 1 ? "" : "s", a.output));
  }
  if (!live.failures.empty()) {
    std::string msg = fmt::format("{} of {} host{} could not be checked:", live.failures.size(),
                                  targets.size(), targets.size() == 1 ? "" : "s");
    for (const auto& f : live.failures)
      msg += fmt::format("\n  {}: {}: {}", f.host, host_failure_name(f.kind), f.message);
    throw Error(ErrorKind::kHostsFailed, msg);
  }
  return live.findings.empty();
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
