#include "lib/discovery/discover_targets.hpp"

#include <fmt/format.h>

#include "lib/core/error.hpp"
#include "lib/remote/slurm_hostlist.hpp"

namespace meshplan {

std::vector<HostTarget> collect_targets(const TargetSources& s) {
  std::vector<HostTarget> targets;
  for (const auto& word : s.words) {
    for (const auto& item : expand_host_list(word))
      targets.push_back(parse_target(item, "host list"));
  }
  for (const auto& item : expand_host_list(s.hosts))
    targets.push_back(parse_target(item, "--hosts"));
  if (!s.inventory_file.empty()) {
    for (auto& t : parse_inventory(s.inventory_text, s.inventory_file))
      targets.push_back(std::move(t));
  }
  if (s.slurm_nodes) {
    if (s.slurm_nodes->empty())
      throw input_error(
          "--slurm: SLURM_JOB_NODELIST is not set; run inside an allocation (salloc, sbatch, "
          "srun) or list the nodes (gpu[01-04])");
    for (const auto& item : expand_slurm_hostlist(*s.slurm_nodes))
      targets.push_back(parse_target(item, "SLURM_JOB_NODELIST"));
  }
  if (targets.empty()) {
    for (const auto& name : s.replay_hosts)
      targets.push_back(parse_target(name, s.replay_dir));
  }
  if (targets.empty())
    throw input_error(
        "no hosts given: list them (mac-1 mac-2), or use --hosts mac[1-4], -i INVENTORY, "
        "--slurm or --replay DIR");
  check_unique_names(targets);
  for (auto& t : targets) {
    if (t.user.empty() && !s.default_user.empty()) t.user = s.default_user;
    if (t.port == 0) t.port = s.default_port;
  }
  return targets;
}

std::string probe_failure_report(const std::vector<HostFailure>& failures, size_t total) {
  std::string s = fmt::format("{} of {} host{} could not be probed:", failures.size(), total,
                              total == 1 ? "" : "s");
  for (const auto& f : failures) {
    std::string who = f.target == f.host ? f.host : fmt::format("{} ({})", f.host, f.target);
    s += fmt::format("\n  {}: {}: {}", who, host_failure_name(f.kind), f.message);
  }
  return s;
}

}  // namespace meshplan
