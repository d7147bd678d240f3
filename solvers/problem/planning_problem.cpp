#include "solvers/problem/planning_problem.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "lib/core/error.hpp"
#include "lib/core/units.hpp"
#include "solvers/problem/allreduce_paths.hpp"
#include "solvers/problem/pipeline_cost.hpp"

namespace meshplan {

std::vector<size_t> candidate_hosts(const Cluster& cluster, const PlanRequest& request) {
  std::vector<size_t> out;
  if (request.hosts.empty()) {
    for (size_t i = 0; i < cluster.hosts.size(); ++i)
      out.push_back(i);
    return out;
  }
  for (const auto& name : request.hosts) {
    int i = cluster.host_index(name);
    if (i < 0) throw input_error("--hosts: unknown host \"{}\"", name);
    if (std::find(out.begin(), out.end(), static_cast<size_t>(i)) != out.end())
      throw input_error("--hosts: host \"{}\" is listed twice", name);
    out.push_back(static_cast<size_t>(i));
  }
  return out;
}

namespace {

// The pins by candidate index, validated against the candidates and the model.
std::vector<RangePin> resolve_pins(const PlanRequest& request,
                                   const std::vector<size_t>& candidates, const Cluster& cluster,
                                   int layers) {
  std::vector<RangePin> pins;
  for (const LayerPin& p : request.pins) {
    int i = cluster.host_index(p.host);
    auto it = std::find(candidates.begin(), candidates.end(), static_cast<size_t>(std::max(i, 0)));
    if (i < 0 || it == candidates.end())
      throw input_error("--pin {}: \"{}\" is not a candidate host", p.host, p.host);
    if (p.start < 0 || p.end > layers || p.start >= p.end)
      throw input_error("--pin {}={}-{}: the model has layers 0-{}", p.host, p.start, p.end - 1,
                        layers - 1);
    RangePin r{static_cast<size_t>(it - candidates.begin()), p.start, p.end};
    for (const RangePin& q : pins) {
      if (q.host == r.host) throw input_error("--pin: host \"{}\" is pinned twice", p.host);
      if (q.start < r.end && r.start < q.end)
        throw input_error("--pin {}={}-{} overlaps the pin of {}", p.host, p.start, p.end - 1,
                          cluster.hosts[candidates[q.host]].name);
    }
    pins.push_back(r);
  }
  return pins;
}

// The links of `transport` between `candidates` (graph vertices, in candidate order): each network
// one medium its candidates join, and each pair joined by a cable its own best link.
LinkMatrix link_matrix(const LinkGraph& graph, const std::vector<size_t>& candidates,
                       Transport transport, double message_bytes) {
  LinkMatrix m(candidates.size());
  std::vector<size_t> medium(graph.network_count(), SIZE_MAX);
  for (size_t n = 0; n < graph.network_count(); ++n)  // in the file's order: it breaks ties
    if (std::optional<LinkFigures> l = as_used(graph.network(n), transport))
      medium[n] = m.add_medium(*l, l->hop_time(message_bytes));
  std::vector<size_t> position(graph.size(), SIZE_MAX);
  for (size_t a = 0; a < candidates.size(); ++a) {
    position[candidates[a]] = a;
    for (int n : graph.networks_of(candidates[a]))
      if (medium[static_cast<size_t>(n)] != SIZE_MAX) m.join(a, medium[static_cast<size_t>(n)]);
  }
  auto [it, end] = boost::edges(graph.graph());
  for (; it != end; ++it) {
    const size_t u = boost::source(*it, graph.graph()), v = boost::target(*it, graph.graph());
    const size_t a = position[u], b = position[v];
    if (a == SIZE_MAX || b == SIZE_MAX || a == b) continue;
    m.set(a, b, graph.best(u, v, transport, message_bytes));
    m.set(b, a, graph.best(v, u, transport, message_bytes));
  }
  return m;
}

}  // namespace

PlanningProblem::PlanningProblem(const Cluster& cluster, const Catalog& catalog,
                                 const ModelDesc& model, const PlanRequest& request)
    : model_(&model), request_(request), inputs_(std::make_unique<PlanInputs>()) {
  build(cluster, catalog, LinkGraph(cluster, catalog), request);
}

PlanningProblem::PlanningProblem(const Cluster& cluster, const Catalog& catalog,
                                 const LinkGraph& graph, const ModelDesc& model,
                                 const PlanRequest& request)
    : model_(&model), request_(request), inputs_(std::make_unique<PlanInputs>()) {
  build(cluster, catalog, graph, request);
}

void PlanningProblem::build(const Cluster& cluster, const Catalog& catalog, const LinkGraph& graph,
                            const PlanRequest& request) {
  const ModelDesc& model = *model_;
  if (request.context <= 0)
    throw input_error("--context must be a positive number of tokens, got {}", request.context);
  if (model.max_context > 0 && request.context > model.max_context)
    throw input_error("--context {}: {} handles at most {} tokens (its max_position_embeddings)",
                      request.context, model.name, model.max_context);
  if (request.prompt < 0)
    throw input_error("--prompt must not be negative, got {}", request.prompt);
  if (request.min_hosts < 0 || request.max_hosts < 0)
    throw input_error("--min-hosts and --max-hosts must not be negative");
  if (request.max_hosts > 0 && request.min_hosts > request.max_hosts)
    throw input_error("--min-hosts {} is more than --max-hosts {}", request.min_hosts,
                      request.max_hosts);
  std::vector<size_t> candidates = candidate_hosts(cluster, request);
  if (candidates.empty()) throw input_error("the cluster has no hosts");
  const int n = static_cast<int>(candidates.size());
  if (request.min_hosts > n)
    throw input_error("--min-hosts {}: there are only {} candidate hosts", request.min_hosts, n);
  pins_ = resolve_pins(request, candidates, cluster, model.num_layers());

  PlanInputs& in = *inputs_;
  in.min_hosts = std::max(1, request.min_hosts);
  in.max_hosts = request.max_hosts > 0 ? std::min(n, request.max_hosts) : n;
  activation_bytes_ = catalog.activation_bytes();
  in.message_bytes = activation_bytes_ * model.hidden_size;
  in.mesh_peer_s = catalog.jaccl_mesh_peer_s(in.message_bytes);
  for (size_t i : candidates) {
    HostFigures h = host_figures(cluster.hosts[i], catalog);
    if (request.headroom_fraction > 0 || request.headroom_bytes > 0) {
      h.usable_bytes =
          std::max(0.0, h.usable_bytes * (1 - request.headroom_fraction) - request.headroom_bytes);
      h.usable_rule +=
          request.headroom_bytes > 0
              ? fmt::format(", less --headroom {}", format_gib(request.headroom_bytes))
              : fmt::format(", less --headroom {:g} %", 100 * request.headroom_fraction);
    }
    in.hosts.push_back(std::move(h));
  }
  // One link graph; one matrix per transport.
  auto matrix = [&](Transport t) { return link_matrix(graph, candidates, t, in.message_bytes); };
  in.rdma = matrix(Transport::kRdma);
  in.tcp = matrix(Transport::kTcp);
  in.thunderbolt = matrix(Transport::kThunderbolt);
  in.network = matrix(Transport::kNetwork);
  in.any = matrix(Transport::kAny);
}

PlanningProblem::~PlanningProblem() = default;
PlanningProblem::PlanningProblem(PlanningProblem&&) noexcept = default;

const LinkMatrix& PlanningProblem::backend_links() const {
  return inputs_->links(transport_for_backend(request_.backend));
}

const PipelineCostModel& PlanningProblem::pipeline_cost() const {
  if (!pipeline_cost_) {
    pipeline_cost_ = std::make_unique<PipelineCostModel>(*model_, inputs_->hosts, backend_links(),
                                                         request_.context, request_.prompt,
                                                         activation_bytes_, head_last_);
  }
  return *pipeline_cost_;
}

const CollectivePaths& PlanningProblem::collective_paths() const {
  if (!paths_) paths_ = std::make_unique<CollectivePaths>(*inputs_, request_.backend);
  return *paths_;
}

PlanningProblem PlanningProblem::unconstrained() const {
  PlanningProblem p;
  p.model_ = model_;
  p.request_ = request_;
  p.request_.pins.clear();
  p.request_.hosts.clear();
  p.request_.min_hosts = p.request_.max_hosts = 0;
  p.activation_bytes_ = activation_bytes_;
  p.head_last_ = head_last_;
  p.inputs_ = std::make_unique<PlanInputs>();
  p.inputs_->message_bytes = inputs_->message_bytes;
  p.inputs_->mesh_peer_s = inputs_->mesh_peer_s;
  return p;
}

void PlanningProblem::set_links_from(const PlanningProblem& source,
                                     const std::function<LinkMatrix(const LinkMatrix&)>& f) {
  const PlanInputs& from = *source.inputs_;
  inputs_->rdma = f(from.rdma);
  inputs_->tcp = f(from.tcp);
  inputs_->thunderbolt = f(from.thunderbolt);
  inputs_->network = f(from.network);
  inputs_->any = f(from.any);
}

PlanningProblem PlanningProblem::subset(const std::vector<size_t>& members,
                                        const std::string& solver) const {
  PlanningProblem p = unconstrained();
  p.request_.solver = solver;
  PlanInputs& in = *p.inputs_;
  for (size_t k = 0; k < members.size(); ++k) {
    in.hosts.push_back(inputs_->hosts[members[k]]);
    p.request_.hosts.push_back(inputs_->hosts[members[k]].name);
    if (head_host_ == members[k]) p.head_host_ = k;
  }
  p.set_links_from(*this, [&](const LinkMatrix& m) { return m.subset(members); });
  in.min_hosts = 1;
  in.max_hosts = static_cast<int>(members.size());
  return p;
}

PlanningProblem PlanningProblem::at_one_tensor_degree(int tp) const {
  PlanningProblem p = for_backend(request_.backend, {});
  p.request_.tensor_degree = tp;
  return p;
}

PlanningProblem PlanningProblem::for_engine(const std::string& solver, double extra_hop_s) const {
  PlanningProblem p = for_backend(request_.backend, {});
  p.request_.solver = solver;
  if (extra_hop_s <= 0) return p;
  p.set_links_from(p, [&](const LinkMatrix& m) {
    LinkMatrix out = m;
    out.add_latency(extra_hop_s);
    return out;
  });
  return p;
}

namespace {

// a -> main -> b, the main host reading the tensor in full and then sending it on: the times of
// the two legs add (latency and bytes / bandwidth each).
LinkFigures through_main(const LinkFigures& in, const LinkFigures& out, const std::string& main) {
  LinkFigures l = in;
  l.name = in.name == out.name ? fmt::format("{} via {}", in.name, main)
                               : fmt::format("{}+{} via {}", in.name, out.name, main);
  l.rdma = in.rdma && out.rdma;
  l.thunderbolt = in.thunderbolt && out.thunderbolt;
  l.fabric_rdma = in.fabric_rdma && out.fabric_rdma;
  l.rdma_cable = in.rdma_cable && out.rdma_cable;
  l.latency_s = in.latency_s + out.latency_s;
  l.tcp_latency_s = in.tcp_latency_s + out.tcp_latency_s;
  l.bandwidth = 1 / (1 / in.bandwidth + 1 / out.bandwidth);
  l.tcp_bandwidth = 1 / (1 / in.tcp_bandwidth + 1 / out.tcp_bandwidth);
  if (l.network < 0) l.network = out.network;
  l.cable = -1;
  l.speed_gbps = std::min(in.speed_gbps, out.speed_gbps);
  l.generation = std::min(in.generation, out.generation);
  return l;
}

}  // namespace

PlanningProblem PlanningProblem::via_main_host(size_t main, const std::string& solver,
                                               const RoundTrip& round_trip_s,
                                               double gpu_bandwidth_factor) const {
  if (main >= size()) throw internal_error("main host out of range");
  std::vector<size_t> members;  // the main host last: llama.cpp's last device
  for (size_t i = 0; i < size(); ++i)
    if (i != main) members.push_back(i);
  members.push_back(main);
  PlanningProblem p = subset(members, solver);
  p.inputs_->min_hosts = inputs_->min_hosts;
  p.inputs_->max_hosts = inputs_->max_hosts;
  p.request_ = request_;
  p.request_.solver = solver;
  p.request_.hosts.clear();
  for (size_t m : members)
    p.request_.hosts.push_back(inputs_->hosts[m].name);
  for (RangePin pin : pins_) {
    pin.host =
        static_cast<size_t>(std::find(members.begin(), members.end(), pin.host) - members.begin());
    p.pins_.push_back(pin);
  }
  p.head_last_ = true;
  p.head_host_ = members.size() - 1;
  // What the main host's own stage adds to a token (llama.cpp's rpc-server of a CPU host).
  p.inputs_->hosts.back().overhead_s += round_trip_s(main, main);
  for (HostFigures& h : p.inputs_->hosts)
    if (!h.cpu_only) {
      h.bandwidth *= gpu_bandwidth_factor;
      h.head_bandwidth *= gpu_bandwidth_factor;
    }
  const std::string& main_name = inputs_->hosts[main].name;
  p.set_links_from(*this, [&](const LinkMatrix& m) {
    // A hop's figures depend on both ends and the main host.
    auto hop = [&](size_t from, size_t to) {
      std::optional<LinkFigures> link;
      if (from == main || to == main) {
        link = m[from][to];
      } else if (m[from][main] && m[main][to]) {
        link = through_main(*m[from][main], *m[main][to], main_name);
      }
      if (link && from != main) {  // the main host's round trip to stage `from`
        const double rt = round_trip_s(main, from);
        link->latency_s += rt;
        link->tcp_latency_s += rt;
      }
      return link;
    };
    const size_t stages = members.size() - 1;  // the main host is last
    LinkMatrix out(members.size());
    // Stages that all reach the main host alike each way (a fleet on one switch) hop between
    // each other alike: one medium they all join, and only the main host's links its own.
    bool alike = stages >= 2 && m[members[0]][main] && m[main][members[0]];
    for (size_t a = 1; a < stages && alike; ++a)
      alike = m[members[a]][main] == m[members[0]][main] &&
              m[main][members[a]] == m[main][members[0]] &&
              round_trip_s(main, members[a]) == round_trip_s(main, members[0]);
    if (alike) {
      const LinkFigures between = *hop(members[0], members[1]);
      const size_t medium = out.add_medium(between, between.latency_s);
      for (size_t a = 0; a < stages; ++a) {
        out.join(a, medium);
        out.set(a, stages, hop(members[a], main));
        out.set(stages, a, hop(main, members[a]));
      }
      return out;
    }
    // Otherwise every pair its own link.
    for (size_t a = 0; a < members.size(); ++a)
      for (size_t b = 0; b < members.size(); ++b)
        if (a != b)
          if (std::optional<LinkFigures> link = hop(members[a], members[b])) out.set(a, b, link);
    return out;
  });
  return p;
}

PlanningProblem PlanningProblem::with_figures(const std::string& backend,
                                              std::vector<HostFigures> hosts) const {
  // What subset() of every host gives, without its work per host: a fleet's problem is copied
  // for every backend and every combination of tensor degrees.
  PlanningProblem p = unconstrained();
  p.request_ = request_;
  p.request_.backend = backend;
  p.pins_ = pins_;
  p.head_host_ = head_host_;
  p.inputs_->hosts = std::move(hosts);
  p.set_links_from(*this, [](const LinkMatrix& m) { return m; });
  p.inputs_->min_hosts = inputs_->min_hosts;
  p.inputs_->max_hosts = inputs_->max_hosts;
  return p;
}

PlanningProblem PlanningProblem::for_backend(const std::string& backend,
                                             const std::vector<size_t>& no_rdma) const {
  PlanningProblem p = with_figures(backend, inputs_->hosts);
  for (size_t h : no_rdma)
    p.inputs_->rdma.cut(h);
  return p;
}

PlanningProblem PlanningProblem::at_tensor_degrees(const std::vector<int>& tp) const {
  std::vector<HostFigures> hosts;
  hosts.reserve(size());
  for (size_t i = 0; i < size(); ++i)
    hosts.push_back(i < tp.size() ? at_tensor_degree(inputs_->hosts[i], tp[i]) : inputs_->hosts[i]);
  return with_figures(request_.backend, std::move(hosts));
}

PlanningProblem PlanningProblem::grouped(const std::vector<std::vector<size_t>>& groups,
                                         std::vector<HostFigures> figures) const {
  PlanningProblem p = unconstrained();
  PlanInputs& in = *p.inputs_;
  in.hosts = std::move(figures);
  for (const HostFigures& h : in.hosts)
    p.request_.hosts.push_back(h.name);
  for (size_t g = 0; g < groups.size(); ++g)
    if (head_host_ && std::find(groups[g].begin(), groups[g].end(), *head_host_) != groups[g].end())
      p.head_host_ = g;
  const double bytes = inputs_->message_bytes;
  p.set_links_from(*this, [&](const LinkMatrix& m) {
    return m.grouped(groups, [&](const LinkFigures& l) { return l.hop_time(bytes); });
  });
  in.min_hosts = 1;
  in.max_hosts = static_cast<int>(groups.size());
  return p;
}

}  // namespace meshplan
