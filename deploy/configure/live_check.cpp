#include "deploy/configure/live_check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "deploy/configure/host_state.hpp"
#include "deploy/configure/remote_stop.hpp"
#include "lib/core/parallel.hpp"
#include "lib/core/shell_quote.hpp"
#include "lib/core/units.hpp"
#include "lib/probes/ibv_parser.hpp"
#include "lib/probes/ifconfig_parser.hpp"
#include "lib/probes/linux_parsers.hpp"
#include "lib/probes/probe_set.hpp"

namespace meshplan {
namespace {

std::string end_interface(const Cluster& cluster, const Endpoint& e) {
  if (!e.interface.empty()) return e.interface;
  const Host* h = cluster.find_host(e.host);
  const ThunderboltPort* p = h ? h->find_port(e.port) : nullptr;
  return p ? p->interface : "";
}

std::string recorded_address(const Cluster& cluster, const std::string& host,
                             const std::string& iface) {
  const Host* h = cluster.find_host(host);
  const NetInterface* i = h ? h->find_interface(iface) : nullptr;
  return i ? i->ipv4 : "";
}

struct HostView {
  bool macos = false;
  std::string build, mlx;
  std::vector<InterfaceState> interfaces;
  std::vector<IbvPort> rdma;
  const InterfaceState* find(const std::string& name) const {
    for (const auto& i : interfaces)
      if (i.name == name) return &i;
    return nullptr;
  }
};

HostView parse_view(std::map<std::string, std::string>& s) {
  HostView v;
  v.build = trim(s["build"]);
  v.mlx = trim(s["mlx"]);
  if (s.count("ifconfig")) {
    v.macos = true;
    for (const auto& i : parse_ifconfig(s["ifconfig"]))
      v.interfaces.push_back({i.name, i.up, i.addresses});
    if (!ibv_reports_no_devices(s["ibv"])) v.rdma = parse_ibv_devinfo(s["ibv"]);
  } else if (s.count("ip")) {
    for (const auto& i : parse_ip_addr(s["ip"]))
      v.interfaces.push_back({i.name, i.up, i.addresses});
  } else {
    throw ProbeParseError("expected an @@ifconfig or @@ip section");
  }
  return v;
}

bool holds(const InterfaceState& i, const std::string& address) {
  for (const auto& a : i.addresses)
    if (a.substr(0, a.find('/')) == address) return true;
  return false;
}

void check_link(const LiveLink& l, const HostView& v, const std::string& ping,
                std::vector<LiveFinding>& out, std::optional<double>& round_trip) {
  const InterfaceState* i = v.find(l.interface);
  const std::string setup = "meshplan setup -c CLUSTER --apply";
  if (!i) {
    out.push_back({l.host, l.name(), fmt::format("interface {} is not on the host", l.interface),
                   "rediscover the cluster (meshplan discover) and plan again"});
    return;
  }
  if (!i->up)
    out.push_back({l.host, l.name(), fmt::format("{} is down", l.interface),
                   fmt::format("bring it up: {}", setup)});
  else if (!holds(*i, l.address))
    out.push_back({l.host, l.name(),
                   fmt::format("{} does not have its planned address {}", l.interface, l.address),
                   setup});
  std::vector<double> rtts = ping_round_trips_us(ping);
  if (rtts.empty()) {
    out.push_back(
        {l.host, l.name(),
         fmt::format("no reply from {} at {} over {}", l.peer_host, l.peer_address, l.interface),
         fmt::format("check this cable is plugged in at both ends and {}:{} is up with "
                     "{} (ICMP may also be blocked by a firewall)",
                     l.peer_host, l.peer_interface, l.peer_address)});
  } else {
    std::sort(rtts.begin(), rtts.end());
    size_t n = rtts.size();
    round_trip = n % 2 ? rtts[n / 2] : (rtts[n / 2 - 1] + rtts[n / 2]) / 2;
  }
  if (!l.rdma_device.empty() && v.macos) {
    const IbvPort* port = nullptr;
    for (const auto& p : v.rdma)
      if (p.device == l.rdma_device) port = &p;
    if (!port)
      out.push_back({l.host, l.name(), fmt::format("RDMA device {} is missing", l.rdma_device),
                     "enable RDMA (`rdma_ctl enable` in recoveryOS) and use a Thunderbolt 5 "
                     "cable on Thunderbolt 5 ports"});
    else if (port->state != "PORT_ACTIVE")
      out.push_back({l.host, l.name(),
                     fmt::format("RDMA port {} is {}", l.rdma_device, port->state),
                     "reseat the cable; a Thunderbolt 4 cable does not carry RDMA"});
  }
}

// One finding when the hosts that report a value do not all agree.
void same_everywhere(const std::map<std::string, std::string>& by_host, const std::string& what,
                     const std::string& fix, std::vector<LiveFinding>& out) {
  std::set<std::string> values;
  for (const auto& [h, v] : by_host)
    if (!v.empty()) values.insert(v);
  if (values.size() < 2) return;
  std::vector<std::string> parts;
  for (const auto& [h, v] : by_host)
    if (!v.empty()) parts.push_back(h + " " + v);
  out.push_back({"", "", fmt::format("{} differs: {}", what, fmt::join(parts, ", ")), fix});
}

}  // namespace

std::string LiveLink::name() const {
  return fmt::format("{}:{} - {}:{}", host, interface, peer_host, peer_interface);
}

std::vector<LiveLink> live_links(const Cluster& cluster, const SubnetPlan& subnets, bool rdma) {
  std::vector<LiveLink> out;
  auto name_of = [&](size_t host) { return cluster.hosts[host].name; };
  std::set<size_t> planned;
  for (const auto& c : subnets.cables) {
    const FabricCable& f = *c.cable;
    planned.insert(f.index);
    for (const FabricEnd* e : {&f.lo, &f.hi}) {
      const FabricEnd& p = f.other(e->host);
      out.push_back({f.index, name_of(e->host), e->interface, c.address(e->host), name_of(p.host),
                     p.interface, c.peer_address(e->host), rdma && f.rdma ? e->rdma_device : ""});
    }
  }
  for (const auto& d : subnets.direct) {
    const Cable& c = cluster.cables[d.cable];
    planned.insert(d.cable);
    out.push_back(
        {d.cable, c.a.host, c.a.interface, d.a_address, c.b.host, c.b.interface, d.b_address, ""});
    out.push_back(
        {d.cable, c.b.host, c.b.interface, d.b_address, c.a.host, c.a.interface, d.a_address, ""});
  }
  for (size_t i = 0; i < cluster.cables.size(); ++i) {
    if (planned.count(i)) continue;
    const Cable& c = cluster.cables[i];
    std::string ia = end_interface(cluster, c.a), ib = end_interface(cluster, c.b);
    std::string aa = recorded_address(cluster, c.a.host, ia),
                ab = recorded_address(cluster, c.b.host, ib);
    if (ia.empty() || ib.empty() || aa.empty() || ab.empty()) continue;
    out.push_back({i, c.a.host, ia, aa, c.b.host, ib, ab, ""});
    out.push_back({i, c.b.host, ib, ab, c.a.host, ia, aa, ""});
  }
  return out;
}

std::string live_script(const std::vector<const LiveLink*>& links, int pings,
                        const std::string& linux_part) {
  std::string s =
      "os=$(uname -s)\n"
      "echo \"@@mlx $(python3 -c 'import mlx.core as m; print(m.__version__)' 2>/dev/null)\"\n"
      "if [ \"$os\" = Darwin ]; then\n"
      "  echo \"@@build $(sw_vers -buildVersion 2>/dev/null)\"\n"
      "  echo @@ifconfig; ifconfig -a || exit 1\n"
      "  echo @@ibv; ibv_devinfo 2>&1\n"
      "else\n"
      "  echo @@ip; ip -j addr show || exit 1\n" +
      linux_part + "fi\n";
  for (size_t i = 0; i < links.size(); ++i) {
    std::string a = shell_quote(links[i]->peer_address);
    s += fmt::format(
        "echo @@ping_{}\n"
        "if [ \"$os\" = Darwin ]; then ping -n -c {} -t {} {} 2>&1; else ping -n -c {} -i 0.2 -W 1 "
        "{} 2>&1; fi\n",
        i, pings, pings + 1, a, pings, a);
  }
  return s + "echo @@end\n";
}

std::vector<double> ping_round_trips_us(const std::string& ping_output) {
  // "time=0.045 ms" or "time<1 ms": a number, an optional space, "ms".
  std::vector<double> out;
  for (size_t p = ping_output.find("time"); p != std::string::npos;
       p = ping_output.find("time", p + 1)) {
    size_t i = p + 4;
    if (i >= ping_output.size() || (ping_output[i] != '=' && ping_output[i] != '<')) continue;
    size_t start = ++i;
    while (i < ping_output.size() &&
           (std::isdigit(static_cast<unsigned char>(ping_output[i])) || ping_output[i] == '.'))
      ++i;
    std::string number = ping_output.substr(start, i - start);
    if (i < ping_output.size() && ping_output[i] == ' ') ++i;
    if (number.empty() || number.size() > 12 || ping_output.compare(i, 2, "ms") != 0) continue;
    char* end = nullptr;
    double ms = std::strtod(number.c_str(), &end);
    if (end == number.c_str() + number.size() && ms >= 0) out.push_back(ms * 1000.0);
  }
  return out;
}

std::optional<double> iperf_received_gbps(const std::string& json_text) {
  auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  const auto* end = j.contains("end") && j["end"].is_object() ? &j["end"] : nullptr;
  if (!end || !end->contains("sum_received") || !(*end)["sum_received"].is_object())
    return std::nullopt;
  const auto& sum = (*end)["sum_received"];
  if (!sum.contains("bits_per_second") || !sum["bits_per_second"].is_number()) return std::nullopt;
  double bps = sum["bits_per_second"].get<double>();
  if (!(bps > 0) || bps > 1e15) return std::nullopt;
  return bps / 1e9;
}

namespace {

constexpr int kIperfPort = 5201;

// One cable, from link.host to its peer: a one-off iperf3 server on the peer's address (its PID
// printed), then the client from this end's address; the server is stopped by its PID
// afterwards, whatever happened. Returns what to note when it could not be measured; `left`
// names a server that could not be stopped.
std::string measure_bandwidth(const LiveLink& l, const HostTarget& from, const HostTarget& to,
                              RemoteExecutor& ex, int seconds, std::optional<double>& gbps,
                              std::optional<LiveFinding>& left) {
  const std::string a = shell_quote(l.address), b = shell_quote(l.peer_address);
  ExecResult server =
      ex.run(to, "/bin/sh -s",
             fmt::format("command -v iperf3 >/dev/null 2>&1 || exit 127\n"
                         "f=$(mktemp) || exit 1\n"
                         "iperf3 -s -1 -D -B {} -p {} --idle-timeout {} -I \"$f\" >/dev/null "
                         "2>&1 || {{ rm -f \"$f\"; exit 1; }}\n"
                         "i=0; while [ ! -s \"$f\" ] && [ $i -lt 20 ]; do sleep 0.1; "
                         "i=$((i+1)); done\n"
                         "echo \"@@pid $(cat \"$f\")\"; rm -f \"$f\"\n",
                         b, kIperfPort, seconds + 10));
  std::vector<long> pids;
  for (const auto& [name, text] : script_sections(server.out))
    if (name == "pid" && std::atol(text.c_str()) > 1) pids.push_back(std::atol(text.c_str()));
  auto stop_server = [&] {
    StopResult stop = stop_by_pid(ex, to, pids, "iperf3", 3, std::chrono::milliseconds(1000));
    for (long pid : stop.left)
      left =
          LiveFinding{l.peer_host, l.name(),
                      fmt::format("could not stop the iperf3 server (PID {}): {}", pid, stop.why),
                      fmt::format("stop it on {}: kill {} (it also ends by itself within {} s)",
                                  l.peer_host, pid, seconds + 10)};
  };
  if (!server.ok() || server.exit_status != 0) {
    stop_server();
    return server.exit_status == 127 ? fmt::format("iperf3 is not on {}", l.peer_host)
                                     : fmt::format("iperf3 -s did not start on {}", l.peer_host);
  }
  ExecResult client =
      ex.run(from, "/bin/sh -s",
             fmt::format("command -v iperf3 >/dev/null 2>&1 || exit 127\n"
                         "for i in 1 2 3 4 5 6; do\n"
                         "  out=$(iperf3 -c {} -B {} -p {} -t {} -J 2>/dev/null) && "
                         "{{ printf '%s\n' \"$out\"; exit 0; }}\n"
                         "  sleep 0.3\ndone\nexit 1\n",
                         b, a, kIperfPort, seconds));
  stop_server();
  if (!client.ok() || client.exit_status != 0)
    return client.exit_status == 127
               ? fmt::format("iperf3 is not on {}", l.host)
               : fmt::format("iperf3 from {} to {} failed", l.host, l.peer_host);
  gbps = iperf_received_gbps(client.out);
  return gbps ? "" : "iperf3 printed no result";
}

}  // namespace

Cluster with_measurements(const Cluster& cluster, const std::vector<LiveLink>& links,
                          const LiveReport& report, const std::string& date) {
  Cluster measured = cluster;
  for (size_t c = 0; c < measured.cables.size(); ++c) {
    double sum = 0;
    int n = 0;
    for (size_t i = 0; i < links.size(); ++i)
      if (links[i].cable == c && report.round_trip_us[i]) sum += *report.round_trip_us[i], ++n;
    if (n == 0) continue;
    measured.cables[c].latency_us = sum / n / 2;  // one way: half the round trip
    measured.cables[c].measured = date;
    for (size_t i = 0; i < links.size(); ++i)
      if (links[i].cable == c && report.bandwidth_gbps[i])
        measured.cables[c].bandwidth_gbps = *report.bandwidth_gbps[i];
  }
  return measured;
}

namespace {

// With --measure: one iperf3 run per answered cable, one direction each, one at a time.
void measure_cables(const std::vector<LiveLink>& links, const std::vector<HostTarget>& targets,
                    RemoteExecutor& executor, int iperf_seconds, LiveReport& report) {
  auto target = [&](const std::string& host) -> const HostTarget* {
    for (const auto& t : targets)
      if (t.name == host) return &t;
    return nullptr;
  };
  std::set<size_t> done;  // one direction per cable
  for (size_t i = 0; i < links.size(); ++i) {
    const LiveLink& l = links[i];
    const HostTarget *from = target(l.host), *to = target(l.peer_host);
    if (!report.round_trip_us[i] || done.count(l.cable) || !from || !to) continue;
    done.insert(l.cable);
    std::optional<LiveFinding> left;
    std::string why =
        measure_bandwidth(l, *from, *to, executor, iperf_seconds, report.bandwidth_gbps[i], left);
    if (left) report.findings.push_back(*left);
    if (!why.empty())
      report.notes.push_back(fmt::format("bandwidth of {} not measured: {}", l.name(), why));
  }
}

}  // namespace

LiveReport run_live_check(const Cluster& cluster, const std::vector<LiveLink>& links,
                          const std::vector<HostTarget>& targets, RemoteExecutor& executor,
                          const LiveOptions& options) {
  LiveReport report;
  report.hosts = targets.size();
  report.round_trip_us.resize(links.size());
  std::mutex mutex;
  std::map<std::string, std::string> builds, mlx;
  std::vector<std::vector<LiveFinding>> per_host(targets.size());
  parallel_for(targets.size(), options.jobs, [&](size_t t) {
    const std::string& host = targets[t].name;
    std::vector<const LiveLink*> mine;
    std::vector<size_t> index;
    for (size_t i = 0; i < links.size(); ++i)
      if (links[i].host == host) mine.push_back(&links[i]), index.push_back(i);
    ExecResult e =
        executor.run(targets[t], "/bin/sh -s",
                     live_script(mine, options.pings,
                                 options.launch_facts ? linux_launch_script(options.ray) : ""));
    auto fail = [&](HostFailureKind kind, const std::string& message) {
      std::lock_guard<std::mutex> lock(mutex);
      report.failures.push_back({host, kind, message});
    };
    if (!e.ok()) return fail(e.failure, e.message);
    auto s = script_sections(e.out);
    HostView v;
    try {
      if (!s.count("end")) throw ProbeParseError("the check script stopped before its end");
      v = parse_view(s);
    } catch (const ProbeParseError& x) {
      std::string why = trim(e.err);
      return fail(
          HostFailureKind::kOutputNotUnderstood,
          fmt::format("{}{}", x.what(),
                      why.empty() ? "" : " (stderr: " + why.substr(0, why.find('\n')) + ")"));
    }
    for (size_t k = 0; k < mine.size(); ++k)
      check_link(*mine[k], v, s["ping_" + std::to_string(k)], per_host[t],
                 report.round_trip_us[index[k]]);
    bool thunderbolt = false;
    for (const auto* l : mine)
      thunderbolt = thunderbolt || is_thunderbolt(cluster.cables[l->cable].kind);
    const InterfaceState* bridge = v.find("bridge0");
    if (v.macos && thunderbolt && bridge && bridge->up)
      per_host[t].push_back({host, "", "the Thunderbolt Bridge (bridge0) is up",
                             "meshplan setup -c CLUSTER --apply (or: sudo ifconfig bridge0 down)"});
    std::lock_guard<std::mutex> lock(mutex);
    if (options.launch_facts && !v.macos) report.launch_facts[host] = parse_linux_launch_facts(s);
    if (v.macos) builds[host] = v.build;
    mlx[host] = v.mlx;
  });
  for (auto& f : per_host)
    report.findings.insert(report.findings.end(), f.begin(), f.end());
  same_everywhere(builds, "the macOS build",
                  "update every Mac to the same macOS release (MLX over RDMA needs matching "
                  "builds)",
                  report.findings);
  same_everywhere(mlx, "the MLX version", "install the same mlx on every host (pip install mlx==X)",
                  report.findings);
  std::sort(report.failures.begin(), report.failures.end(),
            [](const auto& a, const auto& b) { return a.host < b.host; });
  report.bandwidth_gbps.resize(links.size());
  if (options.iperf_seconds > 0 && report.failures.empty())
    measure_cables(links, targets, executor, options.iperf_seconds, report);
  return report;
}

}  // namespace meshplan
