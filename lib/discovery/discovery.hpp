// Discovery: probe every host in parallel, turn each host's outputs into a Host record, match
// the Thunderbolt cables between them and group shared networks. The outputs come from a
// ProbeSource: SSH through a RemoteExecutor, or a replay folder. A host that fails is reported
// with its failure class and never stops the others.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/core/file_system.hpp"
#include "lib/probes/probe_set.hpp"
#include "lib/remote/host_list.hpp"
#include "lib/remote/remote_executor.hpp"

namespace meshplan {

struct ProbeResult {
  HostFailureKind failure = HostFailureKind::kNone;
  std::string message;
  ProbeSet probes;
};

class ProbeSource {
 public:
  virtual ~ProbeSource() = default;
  // One host's probe outputs, or why there are none. Called from several threads at once.
  virtual ProbeResult probe(const HostTarget& target) = 0;
};

// Runs the probe script over one SSH channel per host.
class RemoteProbeSource : public ProbeSource {
 public:
  explicit RemoteProbeSource(RemoteExecutor& executor) : executor_(executor) {}
  ProbeResult probe(const HostTarget& target) override;

 private:
  RemoteExecutor& executor_;
};

// Reads <host>.<probe>.<ext> files.
class ReplayProbeSource : public ProbeSource {
 public:
  ReplayProbeSource(const FileSystem& fs, std::string dir) : fs_(fs), dir_(std::move(dir)) {}
  ProbeResult probe(const HostTarget& target) override;

 private:
  const FileSystem& fs_;
  std::string dir_;
};

struct HostFailure {
  std::string host;
  std::string target;  // user@host:port as given
  HostFailureKind kind = HostFailureKind::kNone;
  std::string message;
};

struct DiscoveryProgress {
  size_t done = 0;
  size_t total = 0;
  size_t failed = 0;
  std::string host;  // the host that just finished
};

struct DiscoveryOptions {
  int jobs = 16;
  // Called after each host, one call at a time.
  std::function<void(const DiscoveryProgress&)> progress;
};

struct DiscoveryResult {
  Cluster cluster;                    // the hosts that were probed, in the order given
  std::vector<HostFailure> failures;  // in the order given
  // Every host's raw outputs, failed hosts included when they produced any (for --record).
  std::vector<std::pair<std::string, ProbeSet>> raw;
};

DiscoveryResult discover(const std::vector<HostTarget>& targets, ProbeSource& source,
                         const Catalog& catalog, const DiscoveryOptions& options);

}  // namespace meshplan
