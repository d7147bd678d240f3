#include "tests/oracle/plan_comparison.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "tests/oracle/oracle_support.hpp"

namespace meshplan::oracle {
namespace {

// The processes the plan runs on a rank's host: its GPU groups of tp, else one group of tp, else
// every GPU of the host (a host's figures split each layer over all of them).
int planned_processes(const PlanRank& r, const Cluster& cluster) {
  if (!r.gpu_stages.empty()) return r.tp * static_cast<int>(r.gpu_stages.size());
  if (r.tp > 1) return r.tp;
  const Host* h = find_host(cluster, r.host);
  return h ? device_count(*h) : 1;
}

// The ranks a launch file answers for: its replica's (replica-N/ is the N-th), else the plan's.
const std::vector<PlanRank>* ranks_for(const std::string& file, const PlanRanks& plan,
                                       const std::vector<PlanReplica>& replicas) {
  if (file.rfind("replica-", 0) != 0) return &plan.ranks;
  const size_t n = static_cast<size_t>(std::atoi(file.c_str() + 8));
  return n >= 1 && n <= replicas.size() ? &replicas[n - 1].ranks : nullptr;
}

bool counts_processes(const std::string& file) {
  for (const char* f : {"vllm.sh", "slurm.sbatch", "ray-cluster.yaml", "torchrun.sh",
                        "openmpi.hostfile", "mpich.hostfile", "deepspeed.hostfile"})
    if (file.size() >= std::string(f).size() && file.ends_with(f)) return true;
  return false;
}

bool keeps_rank_order(const std::string& file) {
  return file.ends_with(".hostfile") || file.ends_with("torchrun.sh");
}

// "[4, 6)" for a run of experts, else the list.
std::string experts_text(const std::set<int>& experts) {
  if (experts.empty()) return "none";
  if (*experts.rbegin() - *experts.begin() + 1 == static_cast<int>(experts.size()))
    return fmt::format("[{}, {})", *experts.begin(), *experts.rbegin() + 1);
  return fmt::format("{{{}}}", fmt::join(experts, ","));
}

std::string range_text(const std::optional<std::pair<int, int>>& r) {
  return r ? fmt::format("[{}, {})", r->first, r->second) : "none";
}

void compare_host(const LaunchReading& launch, const EngineHost& e, const PlanRank& r,
                  const Cluster& cluster, std::vector<Violation>& out) {
  const std::string where = launch.file + ": " + e.host;
  if (counts_processes(launch.file) && e.processes != planned_processes(r, cluster))
    out.push_back({"ranks-per-host", fmt::format("{} starts {} processes, the plan {}", where,
                                                 e.processes, planned_processes(r, cluster))});
  if (e.layers && r.layers && *e.layers != *r.layers)
    out.push_back({"layers", fmt::format("{} computes layers {}, the plan {}", where,
                                         range_text(e.layers), range_text(r.layers))});
  if (!e.experts) return;
  for (const std::vector<int>& layer : r.experts) {
    if (layer.empty()) continue;
    const std::set<int> planned(layer.begin(), layer.end());
    if (planned != *e.experts)
      out.push_back(
          {"experts", fmt::format("{} holds experts {} of each MoE layer, the plan {}", where,
                                  experts_text(*e.experts), experts_text(planned))});
    return;
  }
}

}  // namespace

std::vector<Violation> compare_with_plan(const OracleReading& reading, const PlanRanks& plan,
                                         const Cluster& cluster) {
  std::vector<Violation> out;
  const std::vector<PlanReplica> replicas = launch_replicas(plan);
  for (const LaunchReading& launch : reading.launches) {
    const std::vector<PlanRank>* ranks = ranks_for(launch.file, plan, replicas);
    if (!ranks) {
      out.push_back({"launch-hosts", launch.file + ": a replica folder the plan does not have"});
      continue;
    }
    std::vector<std::string> planned, started;
    for (const PlanRank& r : *ranks)
      planned.push_back(r.host);
    for (const EngineHost& e : launch.hosts)
      started.push_back(e.host);
    if (std::set(planned.begin(), planned.end()) != std::set(started.begin(), started.end())) {
      out.push_back(
          {"launch-hosts", fmt::format("{} starts on {}, the plan uses {}", launch.file,
                                       fmt::join(started, ", "), fmt::join(planned, ", "))});
      continue;
    }
    if (keeps_rank_order(launch.file) && planned != started)
      out.push_back(
          {"rank-order", fmt::format("{} orders {}, the plan {}", launch.file,
                                     fmt::join(started, ", "), fmt::join(planned, ", "))});
    for (const EngineHost& e : launch.hosts)
      for (const PlanRank& r : *ranks)
        if (r.host == e.host) compare_host(launch, e, r, cluster, out);
  }
  return out;
}

}  // namespace meshplan::oracle
