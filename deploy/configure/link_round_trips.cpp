#include "deploy/configure/link_round_trips.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "deploy/configure/tcp_check.hpp"

namespace meshplan {

LinkRoundTripReport measure_link_round_trips(const std::vector<LiveLink>& links,
                                             const std::vector<HostTarget>& targets,
                                             RemoteExecutor& executor, int jobs, int round_trips) {
  auto targeted = [&](const std::string& host) {
    return std::any_of(targets.begin(), targets.end(),
                       [&](const HostTarget& t) { return t.name == host; });
  };
  std::vector<TcpProbe> probes;
  std::vector<const LiveLink*> probed;
  std::set<size_t> cables;
  for (const LiveLink& l : links) {
    if (!targeted(l.host) || !targeted(l.peer_host) || !cables.insert(l.cable).second) continue;
    TcpProbe p{l.peer_host, l.host, l.peer_address, 0};
    p.round_trips = round_trips;
    probes.push_back(p);
    probed.push_back(&l);
  }
  LinkRoundTripReport report;
  if (probes.empty()) return report;
  // A host times its cables one after another, so they do not share its CPU.
  TcpCheckResult r = run_tcp_check(probes, targets, executor, jobs, 5);
  report.failures = r.failures;
  report.notes = r.notes;
  for (size_t i = 0; i < probes.size(); ++i) {
    auto it = r.round_trip_us.find(i);
    if (it != r.round_trip_us.end()) {
      report.measured.push_back({probed[i]->cable, probed[i]->name(), it->second});
      continue;
    }
    // Why not: an address not configured yet, a firewall; a host that failed is reported alone.
    auto why = r.failed.find(i);
    if (why == r.failed.end() &&
        std::any_of(r.failures.begin(), r.failures.end(), [&](const LiveHostFailure& f) {
          return f.host == probes[i].listen_host || f.host == probes[i].connect_host;
        }))
      continue;
    report.notes.push_back(fmt::format(
        "{}: round trip not measured ({}); is the address configured (meshplan setup --apply)?",
        probed[i]->name(), why == r.failed.end() ? "no answer" : why->second));
  }
  std::sort(report.measured.begin(), report.measured.end(),
            [](const LinkRoundTrip& a, const LinkRoundTrip& b) { return a.cable < b.cable; });
  return report;
}

Cluster with_link_round_trips(const Cluster& cluster, const LinkRoundTripReport& report,
                              const std::string& date) {
  Cluster out = cluster;
  for (const LinkRoundTrip& m : report.measured) {
    Cable& c = out.cables.at(m.cable);
    c.round_trip_us = m.us;
    c.measured = date;
  }
  return out;
}

}  // namespace meshplan
