// How `meshplan advise` prices one scenario: its plan (or the workload's plans) and the check's
// findings on its cluster, so that findings resolved by a change can be told apart.
#pragma once

#include <atomic>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/core/clock.hpp"
#include "lib/core/file_system.hpp"
#include "lib/models/model.hpp"
#include "lib/plan/advice.hpp"
#include "solvers/advice/change.hpp"
#include "solvers/serving/workload.hpp"

namespace meshplan {

// A check finding as atoms (code, backend, host), so that one listing more or fewer hosts after a
// change still counts as the same finding on the hosts it keeps naming.
struct ScenarioFindings {
  std::map<std::string, std::set<std::string>> atoms;  // message -> its atoms
  std::set<std::string> all;                           // every atom of the scenario
};

struct ScenarioResult {
  AdviceOutcome outcome;
  ScenarioFindings findings;
  bool memory_binds = false;
  std::string engine;
};

// The check's errors and warnings, each once (a finding shared by backends counts once).
ScenarioFindings findings_of(const Cluster& cluster, const Catalog& catalog);

class ScenarioEvaluator {
 public:
  // `model` and `quant` as named on the command line, or the `workload`'s models; `objective` is
  // the plan request's. All must outlive the evaluator.
  ScenarioEvaluator(const Catalog& catalog, const std::string& model, const std::string& quant,
                    const std::vector<WorkloadEntry>& workload, const std::string& objective,
                    const FileSystem& fs, const Clock& clock);

  bool workload() const { return !workload_.empty(); }
  std::string name();

  // Loads (once) the model at a quantization; not thread-safe, so called before run().
  const ModelDesc& model(const std::string& quant);

  // Safe to call from several threads once model(s.quant) has been loaded.
  // Without `findings` the check is left for later (combinations: only those listed need it).
  ScenarioResult run(const Scenario& s, bool findings = true) const;

  // Several models (--workload): the workload planner's objective, the least aggregate tokens/s
  // per unit of share (throughput) or the share-weighted time per token, as tokens/s (latency).
  ScenarioResult run_workload(const Scenario& s, bool findings) const;

  std::string objective() const { return objective_ == "throughput" ? "throughput" : "latency"; }

  mutable std::atomic<int> plans{0};

 private:
  const Catalog& catalog_;
  const std::string& model_;
  const std::string& quant_;
  const std::vector<WorkloadEntry>& workload_;
  const std::string& objective_;
  const FileSystem& fs_;
  const Clock& clock_;
  std::map<std::string, ModelDesc> models_;
  std::vector<ModelDesc> workload_models_;
};

// Smaller quantizations the catalog (or, for a folder, MLX's usual ones) offers.
std::vector<std::string> smaller_quantizations(ScenarioEvaluator& ev, const std::string& model);

}  // namespace meshplan
