// One planning problem per `meshplan plan` call: the request, validated once, the model, the
// candidate hosts' figures and the link matrices per transport (PlanInputs), the resolved pins and
// the all-reduce paths, built once and handed to every strategy (solvers/strategies.hpp) and to
// the baselines. A sub-problem over some of the candidates (a plan's hosts in rank order) reuses
// the figures instead of reading the cluster again.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/models/model.hpp"
#include "solvers/problem/plan_inputs.hpp"
#include "solvers/problem/plan_request.hpp"
#include "solvers/problem/search_space.hpp"

namespace meshplan {

class CollectivePaths;

// Indices of the candidate hosts: `request.hosts` in that order (input errors for a name that is
// not in the cluster or is listed twice), or every host in file order.
std::vector<size_t> candidate_hosts(const Cluster& cluster, const PlanRequest& request);

class PipelineCostModel;

class PlanningProblem {
 public:
  // Validates the request's context, prompt, --hosts, --min-hosts, --max-hosts and --pin (input
  // errors name the flag) and gathers the figures.
  PlanningProblem(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                  const PlanRequest& request);
  // The same over a link graph the caller already built for `cluster`.
  PlanningProblem(const Cluster& cluster, const Catalog& catalog, const LinkGraph& graph,
                  const ModelDesc& model, const PlanRequest& request);
  ~PlanningProblem();
  PlanningProblem(PlanningProblem&&) noexcept;
  PlanningProblem& operator=(PlanningProblem&&) = delete;
  PlanningProblem(const PlanningProblem&) = delete;
  PlanningProblem& operator=(const PlanningProblem&) = delete;

  const ModelDesc& model() const { return *model_; }
  const PlanRequest& request() const { return request_; }
  const PlanInputs& inputs() const { return *inputs_; }
  size_t size() const { return inputs_->size(); }
  const HostFigures& host(size_t i) const { return inputs_->hosts[i]; }
  double activation_bytes() const { return activation_bytes_; }
  // Layer pins by candidate index.
  const std::vector<RangePin>& pins() const { return pins_; }
  // The links a pipeline's hops may use under the request's backend.
  const LinkMatrix& backend_links() const;
  // The pipeline cost model over every candidate in the requested order (built on first use).
  const PipelineCostModel& pipeline_cost() const;
  // The ways groups of candidates can all-reduce under the backend (built on first use).
  const CollectivePaths& collective_paths() const;

  // The same problem over `members` (candidate indices) in that order, with no pins and no host
  // limits: the hosts a plan uses, for its baselines.
  PlanningProblem subset(const std::vector<size_t>& members, const std::string& solver) const;
  // The same problem planned for one backend: its links only, and no RDMA link touching a host in
  // `no_rdma` (candidate indices of hosts that cannot run RDMA, e.g. an old macOS).
  PlanningProblem for_backend(const std::string& backend, const std::vector<size_t>& no_rdma) const;
  // The same problem as an engine plans it: its pipeline solver (an engine's own split) and
  // `extra_hop_s` added to every hop between two hosts (an engine's own cost per hop), all else
  // kept. llama.cpp RPC's problem is via_main_host's.
  PlanningProblem for_engine(const std::string& solver, double extra_hop_s) const;
  // The same problem as llama.cpp RPC runs it with candidate `main` as the main host (where
  // llama-server runs): `main` moves to the last candidate and must be the last rank, holding the
  // embedding and LM head (llama-model.cpp load_tensors: the output layer goes to the last device,
  // token_embd stays on the main host's CPU). No tensor goes from one rpc-server to another
  // (ggml-rpc.cpp): a hop a -> b is a -> main then main -> b, each leg one of the links here
  // (free where a or b is the main host, none without a link on both legs), and a hop leaving a
  // remote stage a adds `round_trip_s(main, a)` (candidate indices of this problem); the main
  // host's own stage adds `round_trip_s(main, main)` to a token. Every host but a CPU one reads
  // weights at `gpu_bandwidth_factor` of its bandwidth (llama.cpp's kernels on low-bit weights).
  using RoundTrip = std::function<double(size_t main, size_t stage)>;
  PlanningProblem via_main_host(size_t main, const std::string& solver,
                                const RoundTrip& round_trip_s,
                                double gpu_bandwidth_factor = 1) const;
  // Where the embedding and LM head live: on the last rank instead of rank 0, and on which
  // candidate only (none: any).
  bool head_last() const { return head_last_; }
  const std::optional<size_t>& head_host() const { return head_host_; }
  // The same problem with one tensor-parallel degree asked of every multi-GPU host, as
  // --tensor-degree asks it (an engine that runs one degree on every stage, vLLM's -tp).
  PlanningProblem at_one_tensor_degree(int tp) const;
  // The same problem with each candidate's GPUs split tensor-parallel `tp[i]` wide
  // (at_tensor_degree), pins and host limits kept.
  PlanningProblem at_tensor_degrees(const std::vector<int>& tp) const;
  // The same problem over groups of candidates, each planned as one host with `figures[k]`
  // (hybrid plans: tensor parallel inside a group, a pipeline between groups): the link between
  // two groups is the fastest between their members for one token's activations. No pins, no
  // host limits.
  PlanningProblem grouped(const std::vector<std::vector<size_t>>& groups,
                          std::vector<HostFigures> figures) const;

 private:
  PlanningProblem() = default;
  // The same model and request without pins, --hosts or host limits, and no hosts yet.
  PlanningProblem unconstrained() const;
  // This problem over `backend` with these figures for its hosts (the same hosts, in order).
  PlanningProblem with_figures(const std::string& backend, std::vector<HostFigures> hosts) const;
  // Every link matrix of `source` passed through `f`.
  void set_links_from(const PlanningProblem& source,
                      const std::function<LinkMatrix(const LinkMatrix&)>& f);
  void build(const Cluster& cluster, const Catalog& catalog, const LinkGraph& graph,
             const PlanRequest& request);

  const ModelDesc* model_ = nullptr;
  PlanRequest request_;
  std::unique_ptr<PlanInputs> inputs_;  // on the heap: the paths point into it across moves
  double activation_bytes_ = 0;
  std::vector<RangePin> pins_;
  bool head_last_ = false;
  std::optional<size_t> head_host_;
  mutable std::unique_ptr<PipelineCostModel> pipeline_cost_;
  mutable std::unique_ptr<CollectivePaths> paths_;
};

}  // namespace meshplan
