#include "deploy/configure/tcp_check.hpp"

#include <fmt/format.h>

#include <charconv>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "deploy/configure/remote_stop.hpp"
#include "lib/core/parallel.hpp"
#include "lib/core/shell_quote.hpp"
#include "lib/core/units.hpp"

namespace meshplan {
namespace {

// SO_REUSEADDR as MLX's ring sets it: a port left in TIME_WAIT by an earlier check is free, one a
// process listens on is not; port 0 takes a free one, printed after the one asked for. The child
// keeps the sockets open until stopped or `life` passes, and echoes what each connection sends
// (the round trips of `calibrate`).
constexpr const char* kListener = R"(import os, select, socket, sys, time
args = sys.argv[1:]
life = float(args.pop())
socks = []
for i in range(0, len(args), 2):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind((args[i], int(args[i + 1])))
        s.listen(16)
        socks.append(s)
        print("@@bound %s %s %d" % (args[i], args[i + 1], s.getsockname()[1]))
    except OSError as e:
        s.close()
        print("@@busy %s %s %s" % (args[i], args[i + 1], e.strerror or e))
sys.stdout.flush()
if not socks:
    sys.exit(0)
pid = os.fork()
if pid:
    print("@@pid %d" % pid)
    sys.exit(0)
os.setsid()
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
end = time.time() + life
conns = []
while time.time() < end:
    ready, _, _ = select.select(socks + conns, [], [], max(0.0, end - time.time()))
    for s in ready:
        if s in socks:
            try:
                c = s.accept()[0]
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                conns.append(c)
            except OSError:
                pass
            continue
        try:
            d = s.recv(4096)
            if d:
                s.sendall(d)
        except OSError:
            d = b""
        if not d:
            s.close()
            conns.remove(s)
)";

// With a count of round trips, a 64-byte request echoed back that many times after ten to warm up,
// one at a time as an RPC client sends them (TCP_NODELAY); the median in microseconds.
constexpr const char* kConnector = R"(import socket, sys, time
t = float(sys.argv[1])
a = sys.argv[2:]
for i in range(0, len(a), 3):
    k = i // 3
    try:
        s = socket.create_connection((a[i], int(a[i + 1])), t)
        n = int(a[i + 2])
        if not n:
            s.close()
            print("@@tcp %d ok" % k)
            continue
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.settimeout(t)
        times = []
        for j in range(n + 10):
            t0 = time.perf_counter()
            s.sendall(b"m" * 64)
            got = 0
            while got < 64:
                d = s.recv(64 - got)
                if not d:
                    raise OSError("the listener closed the connection")
                got += len(d)
            if j >= 10:
                times.append(time.perf_counter() - t0)
        s.close()
        times.sort()
        print("@@tcp %d ok %.1f" % (k, times[len(times) // 2] * 1e6))
    except socket.timeout:
        print("@@tcp %d fail timed out after %gs" % (k, t))
    except OSError as e:
        print("@@tcp %d fail %s" % (k, e.strerror or e))
    sys.stdout.flush()
)";

std::string python_run(const char* program, const std::vector<std::string>& args) {
  std::string s = "command -v python3 >/dev/null 2>&1 || { echo @@nopython; exit 0; }\npython3 -";
  for (const auto& a : args) {
    s += ' ';
    s += shell_quote(a);
  }
  s += " <<'MESHPLAN_PY'\n";
  s += program;
  return s + "MESHPLAN_PY\n";
}

bool to_number(std::string_view text, long& out) {
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && p == text.data() + text.size();
}

std::string endpoint(const TcpProbe& p) {
  return p.port ? fmt::format("{}:{}", p.address, p.port) : p.address;  // 0: any free port
}

}  // namespace

std::string tcp_listen_script(const std::vector<const TcpProbe*>& probes, int lifetime_s) {
  std::vector<std::string> args;
  for (const auto* p : probes)
    args.insert(args.end(), {p->address, std::to_string(p->port)});
  args.push_back(std::to_string(lifetime_s));
  return python_run(kListener, args);
}

std::string tcp_connect_script(const std::vector<const TcpProbe*>& probes, int timeout_s) {
  std::vector<std::string> args{std::to_string(timeout_s)};
  for (const auto* p : probes)
    args.insert(args.end(), {p->address, std::to_string(p->port), std::to_string(p->round_trips)});
  return python_run(kConnector, args);
}

TcpLines parse_tcp_lines(const std::string& output) {
  TcpLines out;
  std::istringstream lines(output);
  std::string raw;
  while (std::getline(lines, raw)) {
    std::istringstream words(raw);
    std::string tag, first, second, rest;
    words >> tag >> first >> second;
    std::getline(words >> std::ws, rest);
    rest = trim(rest);
    long number = 0;
    if (tag == "@@nopython") {
      out.no_python = true;
    } else if (tag == "@@bound" || tag == "@@busy") {
      if (first.empty() || !to_number(second, number) || number < 0 || number > 65535) continue;
      long actual = number;  // what port 0 took
      if (tag == "@@bound" && !rest.empty() &&
          (!to_number(rest, actual) || actual <= 0 || actual > 65535))
        continue;
      if (tag == "@@bound" && actual == 0) continue;
      if (tag == "@@bound")
        out.bound.push_back({first, static_cast<int>(number), static_cast<int>(actual)});
      else
        out.busy.push_back({{first, static_cast<int>(number)}, rest});
    } else if (tag == "@@pid") {
      if (to_number(first, number) && number > 1) out.pids.push_back(number);
    } else if (tag == "@@tcp" && to_number(first, number) && number >= 0) {
      if (second == "ok") {
        out.results.emplace_back(static_cast<size_t>(number), "");
        double us = 0;
        auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), us);
        if (!rest.empty() && ec == std::errc() && p == rest.data() + rest.size() && us > 0 &&
            us < 1e7)
          out.round_trips_us.emplace_back(static_cast<size_t>(number), us);
      } else if (second == "fail")
        out.results.emplace_back(static_cast<size_t>(number), rest.empty() ? "failed" : rest);
    }
  }
  return out;
}

namespace {

// Probe indices per host, each host with its target; hosts without a target are left out.
using HostProbes = std::vector<std::pair<const HostTarget*, std::vector<size_t>>>;

// One check's inputs and what its parallel jobs gather; `mutex` guards the gathered members.
struct TcpCheckRun {
  TcpCheckRun(const std::vector<TcpProbe>& probes, const std::vector<HostTarget>& targets,
              RemoteExecutor& executor, int jobs, int connect_timeout_s)
      : probes(probes),
        targets(targets),
        executor(executor),
        jobs(jobs),
        connect_timeout_s(connect_timeout_s),
        lifetime(30 + connect_timeout_s * static_cast<int>(probes.size())) {}

  const std::vector<TcpProbe>& probes;
  const std::vector<HostTarget>& targets;
  RemoteExecutor& executor;
  const int jobs;
  const int connect_timeout_s;
  const int lifetime;  // seconds a listener lives unless stopped

  std::mutex mutex;
  TcpCheckResult result;
  std::map<size_t, int> listening;  // probes whose address:port was bound: the port taken
  std::map<const HostTarget*, std::vector<long>> pids;  // listeners to stop, per host

  // The probes grouped by the host `host_of` names.
  template <class HostOf>
  HostProbes by_host(HostOf host_of) const {
    std::map<std::string, std::vector<size_t>> m;
    for (size_t i = 0; i < probes.size(); ++i)
      m[host_of(probes[i])].push_back(i);
    HostProbes out;
    for (auto& [host, list] : m)
      for (const auto& t : targets)
        if (t.name == host) out.emplace_back(&t, list);
    return out;
  }

  void fail(const HostTarget& t, const ExecResult& e) {
    std::lock_guard<std::mutex> lock(mutex);
    result.failures.push_back({t.name, e.failure, e.message});
  }
};

// 1. Listeners: every probe whose address:port one of them bound can be tried.
void start_listeners(TcpCheckRun& run) {
  HostProbes listeners = run.by_host([](const TcpProbe& p) { return p.listen_host; });
  parallel_for(listeners.size(), run.jobs, [&](size_t k) {
    const auto& [target, list] = listeners[k];
    std::vector<const TcpProbe*> mine;
    for (size_t i : list)
      mine.push_back(&run.probes[i]);
    ExecResult e = run.executor.run(*target, "/bin/sh -s", tcp_listen_script(mine, run.lifetime));
    if (!e.ok()) {
      // A cut session may have left a listener whose PID came before the cut: stop it too.
      if (e.command_sent) {
        std::lock_guard<std::mutex> lock(run.mutex);
        run.pids[target] = parse_tcp_lines(e.out).pids;
      }
      return run.fail(*target, e);
    }
    TcpLines lines = parse_tcp_lines(e.out);
    std::lock_guard<std::mutex> lock(run.mutex);
    if (lines.no_python) {
      run.result.notes.push_back(
          fmt::format("TCP ports on {} not tried: python3 is not on the host", target->name));
      return;
    }
    run.pids[target] = lines.pids;
    for (size_t i : list) {
      const TcpProbe& p = run.probes[i];
      for (const TcpBound& b : lines.bound)
        if (b.address == p.address && b.port == p.port) run.listening[i] = b.actual;
      for (const auto& [where, why] : lines.busy) {
        if (where.first != p.address || where.second != p.port) continue;
        run.result.failed[i] = fmt::format("cannot listen on {} ({})", endpoint(p), why);
        if (!p.what.empty())
          run.result.findings.push_back(
              {p.listen_host, "",
               fmt::format("cannot listen on {} ({}); the launch needs it for {}", endpoint(p), why,
                           p.what),
               fmt::format("stop the process that holds the port (an earlier launch?): `lsof -nP "
                           "-iTCP:{} -sTCP:LISTEN` names it",
                           p.port)});
        else
          run.result.findings.push_back(
              {p.listen_host, "",
               fmt::format("cannot listen on {} ({}); a launch's rank needs it", endpoint(p), why),
               fmt::format("if another process holds the port (a rank of an earlier launch?), "
                           "stop it: `lsof -nP -iTCP:{} -sTCP:LISTEN` names it; or launch with "
                           "another --starting-port",
                           p.port)});
      }
    }
  });
}

// 2. Connections, from each connecting host.
void try_connections(TcpCheckRun& run) {
  HostProbes connectors = run.by_host([](const TcpProbe& p) { return p.connect_host; });
  parallel_for(connectors.size(), run.jobs, [&](size_t k) {
    const auto& [target, all] = connectors[k];
    std::vector<size_t> list;
    std::vector<TcpProbe> taken;  // on the port each listener took
    {
      std::lock_guard<std::mutex> lock(run.mutex);
      for (size_t i : all)
        if (auto it = run.listening.find(i); it != run.listening.end()) {
          list.push_back(i);
          taken.push_back(run.probes[i]);
          taken.back().port = it->second;
        }
    }
    std::vector<const TcpProbe*> mine;
    for (const TcpProbe& p : taken)
      mine.push_back(&p);
    if (mine.empty()) return;
    ExecResult e =
        run.executor.run(*target, "/bin/sh -s", tcp_connect_script(mine, run.connect_timeout_s));
    if (!e.ok()) return run.fail(*target, e);
    TcpLines lines = parse_tcp_lines(e.out);
    std::lock_guard<std::mutex> lock(run.mutex);
    TcpCheckResult& result = run.result;
    if (lines.no_python) {
      result.notes.push_back(fmt::format(
          "TCP connections from {} not tried: python3 is not on the host", target->name));
      return;
    }
    for (const auto& [index, us] : lines.round_trips_us)
      if (index < list.size()) result.round_trip_us[list[index]] = us;
    std::set<size_t> answered;
    for (const auto& [index, why] : lines.results) {
      if (index >= list.size() || !answered.insert(index).second) continue;
      const TcpProbe& p = taken[index];
      ++result.tried;
      if (why.empty()) {
        ++result.opened;
        continue;
      }
      result.failed[list[index]] = fmt::format("cannot open a TCP connection to {} at {} ({})",
                                               p.listen_host, endpoint(p), why);
      if (!p.what.empty()) {
        result.findings.push_back({p.connect_host, "",
                                   fmt::format("cannot open a TCP connection to {} at {} for {} "
                                               "({})",
                                               p.listen_host, endpoint(p), p.what, why),
                                   p.fix});
        continue;
      }
      result.findings.push_back(
          {p.connect_host, "",
           fmt::format("cannot open a TCP connection to {} at {} ({})", p.listen_host, endpoint(p),
                       why),
           fmt::format("allow incoming TCP on port {} on {} (macOS: the firewall in System "
                       "Settings > Network, or pf; Linux: nftables/iptables) and check that no "
                       "rule on {} refuses it",
                       p.port, p.listen_host, p.connect_host)});
    }
    for (size_t i = 0; i < list.size(); ++i)
      if (!answered.count(i)) {
        result.failed[list[i]] =
            fmt::format("the TCP test to {} printed no result", endpoint(taken[i]));
        result.findings.push_back(
            {taken[i].connect_host, "",
             fmt::format("the TCP test to {} printed no result", endpoint(taken[i])),
             "check that python3 runs on the host"});
      }
  });
}

// 3. Stop every listener by its PID, whatever happened above; a host that does not answer is
// tried again, and what is left running is named.
void stop_listeners(TcpCheckRun& run) {
  std::vector<std::pair<const HostTarget*, std::vector<long>>> stops(run.pids.begin(),
                                                                     run.pids.end());
  parallel_for(stops.size(), run.jobs, [&](size_t k) {
    const auto& [target, list] = stops[k];
    StopResult stop =
        stop_by_pid(run.executor, *target, list, "python3", 3, std::chrono::milliseconds(1000));
    std::lock_guard<std::mutex> lock(run.mutex);
    for (long pid : stop.left)
      run.result.findings.push_back(
          {target->name, "",
           fmt::format("could not stop the TCP test's listener (python3, PID {}): {}", pid,
                       stop.why),
           fmt::format("stop it on {}: kill {} (it also ends by itself within {} s)", target->name,
                       pid, run.lifetime)});
  });
}

}  // namespace

TcpCheckResult run_tcp_check(const std::vector<TcpProbe>& probes,
                             const std::vector<HostTarget>& targets, RemoteExecutor& executor,
                             int jobs, int connect_timeout_s) {
  TcpCheckRun run(probes, targets, executor, jobs, connect_timeout_s);
  start_listeners(run);
  try_connections(run);
  stop_listeners(run);
  TcpCheckResult& result = run.result;
  auto by_name = [](const auto& a, const auto& b) { return a.host < b.host; };
  std::sort(result.failures.begin(), result.failures.end(), by_name);
  std::stable_sort(result.findings.begin(), result.findings.end(), by_name);
  std::sort(result.notes.begin(), result.notes.end());
  return std::move(result);
}

}  // namespace meshplan
