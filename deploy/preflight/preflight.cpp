#include "deploy/preflight/preflight.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "deploy/configure/tcp_check.hpp"
#include "deploy/preflight/engine_preflight.hpp"
#include "deploy/writers/mlx_env.hpp"
#include "lib/core/error.hpp"
#include "topologies/mlx_hostfile_builder.hpp"

namespace meshplan {
namespace {

// The TCP connections the chosen backend's launch opens (mlx.launch's ports), by host name. A
// hostfile that cannot be written (an address the backend needs is unknown) leaves the TCP test
// out, saying why; the rest of the check still runs.
std::vector<TcpProbe> launch_probes(const TopologyContext& topo, const BackendVerdict* chosen,
                                    int starting_port, std::vector<std::string>& notes) {
  std::vector<TcpProbe> probes;
  if (!chosen || !chosen->valid) return probes;
  MlxEnvOptions ports;
  ports.starting_port = starting_port;
  try {
    for (const auto& c : mlx_connections(build_mlx_hostfile(topo, *chosen, {}), ports))
      probes.push_back({chosen->ranks[c.listener], chosen->ranks[c.connector], c.address, c.port});
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kFailed && e.kind() != ErrorKind::kBadInput) throw;
    notes.push_back(fmt::format("TCP connections not tried: {}", e.what()));
  }
  return probes;
}

std::string plural(size_t n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// The hosts to reach: the plan's, and every end of a probe or a cable.
std::vector<HostTarget> hosts_to_check(const Cluster& cluster, const std::optional<PlanRanks>& plan,
                                       const std::set<std::string>& hosts,
                                       const std::vector<TcpProbe>& probes,
                                       const std::vector<LiveLink>& links,
                                       const TargetOf& target_of) {
  std::vector<HostTarget> targets;
  for (const Host& h : cluster.hosts) {
    bool wanted = plan ? hosts.count(h.name) > 0 : false;
    for (const auto& p : probes)
      wanted = wanted || p.listen_host == h.name || p.connect_host == h.name;
    for (const auto& l : links)
      wanted = wanted || l.host == h.name;
    if (wanted) targets.push_back(target_of(h));
  }
  return targets;
}

// Each answered cable end's round trip, then every problem with its fix.
std::string live_lines(const std::vector<LiveLink>& links, const LiveReport& live,
                       const std::string& cluster_file) {
  std::string text;
  for (size_t i = 0; i < links.size(); ++i)
    if (live.round_trip_us[i])
      text += fmt::format("  {}: {} -> {}: round trip {:.0f} us{}\n", links[i].name(),
                          links[i].address, links[i].peer_address, *live.round_trip_us[i],
                          live.bandwidth_gbps[i]
                              ? fmt::format(", {:.2f} Gb/s (iperf3)", *live.bandwidth_gbps[i])
                              : "");
  for (const auto& f : live.findings) {
    std::string fix = f.fix;
    for (auto p = fix.find("CLUSTER"); p != std::string::npos; p = fix.find("CLUSTER"))
      fix.replace(p, 7, cluster_file);
    text += fmt::format("  problem: {}{}{}\n    fix: {}\n", f.host.empty() ? "" : f.host + ": ",
                        f.cable.empty() ? "" : "cable " + f.cable + ": ", f.problem, fix);
  }
  return text;
}

}  // namespace

PreflightReport run_preflight(const Cluster& cluster, const TopologyContext& topo,
                              const CheckReport& report, const std::optional<PlanRanks>& plan,
                              const TargetOf& target_of, RemoteExecutor& executor,
                              const PreflightOptions& options) {
  PreflightReport out;
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
  // An engine of Linux hosts: the connections its launch files name; else mlx.launch's.
  std::optional<EngineLaunchCheck> engine = engine_launch_check(topo, report, plan, out.notes);
  std::vector<TcpProbe> probes =
      engine ? engine->probes : launch_probes(topo, chosen, options.starting_port, out.notes);
  std::vector<HostTarget> targets = hosts_to_check(cluster, plan, hosts, probes, links, target_of);
  if (targets.empty())
    throw input_error("--live: {} has no cable between hosts to check", options.cluster_file);
  LiveOptions live_options;
  live_options.pings = options.pings;
  live_options.jobs = options.jobs;
  live_options.iperf_seconds = options.measure ? options.iperf_seconds : 0;
  live_options.launch_facts = engine.has_value();
  live_options.ray = engine && engine->ray;
  LiveReport live = run_live_check(cluster, links, targets, executor, live_options);
  if (engine) {
    set_ephemeral_ports(*engine, live);
    probes = engine->probes;
    engine_host_findings(*engine, topo.catalog, live, live.findings, live.notes);
  }
  TcpCheckResult tcp;
  if (live.failures.empty() && !probes.empty()) {
    tcp = run_tcp_check(probes, targets, executor, options.jobs, options.connect_wait_s);
    live.findings.insert(live.findings.end(), tcp.findings.begin(), tcp.findings.end());
    live.failures = tcp.failures;
    live.notes.insert(live.notes.end(), tcp.notes.begin(), tcp.notes.end());
  }

  for (const auto& r : live.round_trip_us)
    out.answered += r.has_value();
  out.text = fmt::format("\nLive check: {}, {}, {} answered\n", plural(targets.size(), "host"),
                         plural(links.size(), "cable end"), out.answered);
  if (engine)
    out.text += fmt::format("  TCP ({}): {} of {} opened\n", engine->summary, tcp.opened,
                            plural(probes.size(), "connection"));
  else if (!probes.empty())
    out.text += fmt::format("  TCP ({} launch, from port {}): {} of {} opened\n", report.chosen,
                            options.starting_port, tcp.opened, plural(probes.size(), "connection"));
  out.text += live_lines(links, live, options.cluster_file);
  out.notes.insert(out.notes.end(), live.notes.begin(), live.notes.end());
  out.ok = live.findings.empty();
  if (options.measure && out.answered > 0)
    out.measured = with_measurements(cluster, links, live, options.date);
  if (!live.failures.empty()) {
    out.unreachable = fmt::format("{} of {} could not be checked:", live.failures.size(),
                                  plural(targets.size(), "host"));
    for (const auto& f : live.failures)
      out.unreachable +=
          fmt::format("\n  {}: {}: {}", f.host, host_failure_name(f.kind), f.message);
  }
  return out;
}

}  // namespace meshplan
