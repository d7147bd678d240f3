// `check --live`'s TCP test: the connections a launch will open, tried before it. Each listening
// host binds a one-off listener on each planned address:port (python3, forked into the
// background and stopped by its PID afterwards); then each connecting host opens its
// connections. A port already held by another process, and a connection refused, denied or
// timed out on a network that may well answer pings (a firewall, a policy rule), is a finding.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "deploy/configure/live_check.hpp"

namespace meshplan {

struct TcpProbe {
  std::string listen_host, connect_host;  // cluster host names
  std::string address;                    // where listen_host listens
  int port = 0;
  // An engine's probe: what needs the port ("vLLM --master-port") and the one fix of a refused
  // connection; both "" for mlx.launch's ports, whose findings name --starting-port.
  std::string what{}, fix{};
  // > 0: time that many round trips of a small request on the connection (calibrate's); port 0
  // then asks the listener for any free port.
  int round_trips = 0;
};

struct TcpCheckResult {
  std::vector<LiveFinding> findings;
  std::vector<LiveHostFailure> failures;
  std::vector<std::string> notes;  // hosts without python3
  size_t tried = 0, opened = 0;
  std::map<size_t, double> round_trip_us;  // per probe index with round_trips: the median
  std::map<size_t, std::string> failed;    // per probe index: why it did not open, in a phrase
};

TcpCheckResult run_tcp_check(const std::vector<TcpProbe>& probes,
                             const std::vector<HostTarget>& targets, RemoteExecutor& executor,
                             int jobs, int connect_timeout_s);

// The scripts (exposed for tests and the fuzz target): listeners print "@@bound ADDR PORT ACTUAL"
// (ACTUAL: the port taken, which port 0 leaves to the system), "@@busy ADDR PORT WHY" and "@@pid
// PID"; the connector prints "@@tcp I ok", "@@tcp I ok MICROSECONDS" (the median round trip) or
// "@@tcp I fail WHY".
std::string tcp_listen_script(const std::vector<const TcpProbe*>& probes, int lifetime_s);
std::string tcp_connect_script(const std::vector<const TcpProbe*>& probes, int timeout_s);

struct TcpBound {
  std::string address;
  int port = 0;    // as asked
  int actual = 0;  // as taken
  bool operator==(const TcpBound&) const = default;
};

struct TcpLines {
  bool no_python = false;
  std::vector<TcpBound> bound;
  std::vector<std::pair<std::pair<std::string, int>, std::string>> busy;  // (addr, port), why
  std::vector<long> pids;
  std::vector<std::pair<size_t, std::string>> results;    // probe index, "" when it opened
  std::vector<std::pair<size_t, double>> round_trips_us;  // probe index, median
};
TcpLines parse_tcp_lines(const std::string& output);

}  // namespace meshplan
