// What the launcher unit tests share: an EmitInput built from a cluster file and a plan file the
// way `emit` builds it (the plan's backend checked over its hosts in rank order).
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "deploy/layout/emit_input.hpp"
#include "deploy/layout/plan_match.hpp"
#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/document.hpp"
#include "tests/test_support.hpp"

namespace meshplan::testing {

struct LaunchInputs {
  Cluster cluster;
  std::unique_ptr<TopologyContext> topology;
  CheckReport report;
  std::optional<PlanRanks> plan;
  std::vector<std::string> envs;
  LaunchOptions launch;

  EmitInput input() const {
    return EmitInput{cluster, *topology, report, plan, "auto", envs, {}, launch};
  }
};

// `cluster` and `plan` are paths under the source tree; plan "" for none.
inline std::unique_ptr<LaunchInputs> launch_inputs(const std::string& cluster,
                                                   const std::string& plan = "",
                                                   const std::string& backend = "auto") {
  auto in = std::make_unique<LaunchInputs>();
  in->cluster = load_cluster(read_text(source_path(cluster)), cluster, Catalog::builtin());
  in->topology = std::make_unique<TopologyContext>(in->cluster, Catalog::builtin());
  if (!plan.empty()) in->plan = read_plan_ranks(parse_document(read_text(source_path(plan)), plan));
  CheckOptions o;
  o.backend = backend_for_plan(backend, in->plan);
  if (in->plan) {
    require_plan_matches(*in->topology, *in->plan);
    o.hosts = in->plan->hosts();
    o.fixed_order = true;
  }
  in->report = check_cluster(*in->topology, o);
  return in;
}

inline const char* kLoopback = "tests/fixtures/launch/loopback.yaml";
inline const char* kLoopbackPlan = "tests/fixtures/launch/loopback_plan.json";
inline const char* kStudios = "examples/clusters/mac-studio-m3-ultra-x4.yaml";

// The lines of `text` that are neither blank nor comments.
inline std::vector<std::string> command_lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line[0] != '#') out.push_back(line);
    start = end + 1;
  }
  return out;
}

// Runs an sbatch `script` with a stand-in `srun` that starts the node script on each listed node
// with SLURMD_NODENAME set, as slurmd does, and the engine replaced by a recorder
// (MESHPLAN_ENGINE); returns what was recorded.
inline std::string run_with_fake_srun(const std::string& script) {
  std::string dir = temp_dir();
  std::filesystem::create_directories(dir + "/bin");
  std::ofstream(dir + "/bin/srun")
      << "#!/bin/sh\nnodes=\n"
         "while [ $# -gt 0 ]; do case \"$1\" in --nodelist=*) nodes=${1#--nodelist=}; shift ;;\n"
         "  --*) shift ;; *) break ;; esac; done\n"
         "echo \"srun $nodes\" >>\"$RECORD\"\n"
         "for n in $(echo \"$nodes\" | tr , ' '); do SLURMD_NODENAME=$n \"$@\" || exit 1; done\n";
  std::filesystem::permissions(dir + "/bin/srun", std::filesystem::perms::owner_all);
  return run_recorded(dir, "export MESHPLAN_ENGINE=\"$PWD/bin/engine\"\n" + script + "wait\n",
                      {"engine"});
}

}  // namespace meshplan::testing
