#include "lib/discovery/discovery.hpp"

#include <fmt/format.h>

#include <mutex>

#include "lib/core/parallel.hpp"
#include "lib/core/units.hpp"
#include "lib/discovery/cable_matcher.hpp"
#include "lib/discovery/host_builder.hpp"
#include "lib/discovery/network_grouping.hpp"
#include "lib/probes/probe_script.hpp"
#include "lib/probes/replay_folder.hpp"

namespace meshplan {
namespace {

// The probe that was running when the output stopped: the last begin marker.
std::string running_probe(const std::string& out) {
  const std::string marker = "\n@@meshplan ";
  size_t pos = out.rfind(marker);
  if (pos == std::string::npos) return "";
  size_t end = out.find('\n', pos + marker.size());
  std::string name =
      out.substr(pos + marker.size(),
                 end == std::string::npos ? std::string::npos : end - pos - marker.size());
  // Finished probes are followed by their exit marker.
  if (out.find("\n@@meshplan-exit ", pos + marker.size()) != std::string::npos) return "";
  return name;
}

}  // namespace

ProbeResult RemoteProbeSource::probe(const HostTarget& target) {
  ExecResult e = executor_.run(target, kProbeShell, probe_script());
  ProbeResult r;
  if (!e.ok()) {
    r.failure = e.failure;
    r.message = e.message;
    if (e.failure == HostFailureKind::kTimedOut) {
      if (const ProbeSpec* spec = find_probe_spec(running_probe(e.out)))
        r.message += fmt::format(" while running `{}`", spec->command);
    }
    return r;
  }
  try {
    r.probes = split_probe_output(e.out, e.err);
  } catch (const ProbeParseError& x) {
    std::string why = trim(e.err).substr(0, trim(e.err).find('\n'));
    r.failure = e.exit_status == 127 && e.out.empty() ? HostFailureKind::kCommandMissing
                                                      : HostFailureKind::kOutputNotUnderstood;
    r.message = fmt::format("`{}`: {}{}", kProbeShell, x.what(),
                            why.empty() ? "" : " (stderr: " + why + ")");
  }
  return r;
}

ProbeResult ReplayProbeSource::probe(const HostTarget& target) {
  ProbeResult r;
  r.probes = read_replay_probes(fs_, dir_, target.name);
  if (r.probes.probes.empty()) {
    r.failure = HostFailureKind::kUnreachable;
    r.message = fmt::format("no replay files for it in {}", dir_);
  }
  return r;
}

DiscoveryResult discover(const std::vector<HostTarget>& targets, ProbeSource& source,
                         const Catalog& catalog, const DiscoveryOptions& options) {
  size_t n = targets.size();
  std::vector<ProbeResult> results(n);
  std::vector<BuiltHost> built(n);
  std::mutex progress_mutex;
  DiscoveryProgress progress;
  progress.total = n;
  parallel_for(n, options.jobs, [&](size_t i) {
    results[i] = source.probe(targets[i]);
    if (results[i].failure == HostFailureKind::kNone)
      built[i] = build_host(targets[i], results[i].probes, catalog);
    std::lock_guard<std::mutex> lock(progress_mutex);
    ++progress.done;
    if (results[i].failure != HostFailureKind::kNone || built[i].failure != HostFailureKind::kNone)
      ++progress.failed;
    progress.host = targets[i].name;
    if (options.progress) options.progress(progress);
  });

  DiscoveryResult out;
  std::vector<std::vector<TbBus>> buses;
  std::vector<std::vector<NetSighting>> sightings;
  for (size_t i = 0; i < n; ++i) {
    const HostTarget& t = targets[i];
    if (!results[i].probes.probes.empty()) out.raw.emplace_back(t.name, results[i].probes);
    if (results[i].failure != HostFailureKind::kNone) {
      out.failures.push_back({t.name, t.spec(), results[i].failure, results[i].message});
    } else if (built[i].failure != HostFailureKind::kNone) {
      out.failures.push_back({t.name, t.spec(), built[i].failure, built[i].failure_message});
    } else {
      out.cluster.hosts.push_back(std::move(built[i].host));
      buses.push_back(std::move(built[i].buses));
      sightings.push_back(std::move(built[i].sightings));
      for (auto& f : built[i].findings)
        out.cluster.findings.push_back(std::move(f));
    }
  }
  CableMatch cables = match_cables(out.cluster.hosts, buses, catalog);
  out.cluster.cables = std::move(cables.cables);
  for (auto& f : cables.findings)
    out.cluster.findings.push_back(std::move(f));
  CableMatch network = match_network_cables(out.cluster.hosts, sightings, catalog);
  for (auto& c : network.cables)
    out.cluster.cables.push_back(std::move(c));
  for (auto& f : network.findings)
    out.cluster.findings.push_back(std::move(f));
  out.cluster.networks = group_networks(out.cluster.hosts, catalog);
  return out;
}

}  // namespace meshplan
