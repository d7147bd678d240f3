#include "solvers/routed/routed_plan.hpp"

#include "lib/plan/strategy_kind.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "lib/cluster/mlx_backend.hpp"
#include "lib/core/error.hpp"
#include "solvers/problem/planning_problem.hpp"
#include "solvers/routed/routed_search.hpp"
#include "solvers/routed/routed_shards.hpp"
#include "solvers/routed/routed_streams.hpp"

namespace meshplan {
namespace {

struct Built {
  int streams = 0;
  RoutedInstance instance;
  std::vector<HostTable> tables;
};

// The most layers a host holds beside `extra` bytes (embedding, LM head), at most its table's
// length: a measured table's length is what the host held without them.
int layers_beside(const HostFigures& h, double extra, double per_layer, int table_length) {
  if (per_layer <= 0) return table_length;
  const double fit = std::floor((h.usable_bytes - extra) / per_layer);
  return static_cast<int>(std::clamp(fit, 0.0, static_cast<double>(table_length)));
}

Built build(const Cluster& cluster, const PlanningProblem& problem, const ModelDesc& model,
            const PlanRequest& request, const RoutedRequest& routed, int streams) {
  const PlanInputs& in = problem.inputs();
  Built b;
  b.streams = streams;
  b.tables = host_tables(cluster, in.hosts, model, routed.model_id, request.context, streams,
                         routed.profile, routed.profile_where);
  double weight = 0, kv = 0;
  for (const LayerInfo& l : model.layers) {
    weight += static_cast<double>(l.weight_bytes);
    kv += l.kv_bytes(request.context);
  }
  const double L = std::max(1, model.num_layers());
  const double per_layer = (weight + streams * kv) / L;
  const double embedding = static_cast<double>(model.embedding_bytes + model.other_bytes);
  const double head = static_cast<double>(model.head_bytes);
  b.instance.layers = model.num_layers();
  for (size_t i = 0; i < in.size(); ++i) {
    RoutedHost h;
    h.name = in.hosts[i].name;
    h.table = b.tables[i].tokens_per_s;
    h.head_s = head_seconds_per_token(in.hosts[i], model, streams);
    const int K = static_cast<int>(h.table.size());
    h.max_with_first = layers_beside(in.hosts[i], embedding, per_layer, K);
    h.max_with_last = layers_beside(in.hosts[i], head, per_layer, K);
    h.max_with_both = layers_beside(in.hosts[i], embedding + head, per_layer, K);
    b.instance.hosts.push_back(std::move(h));
  }
  const size_t n = in.size();
  // A fleet's links stay as the planner holds them (a switch is one entry); a small cluster's are
  // tabled pair by pair.
  if (n > LinkMatrix::kDenseHosts) {
    b.instance.links = std::make_shared<const LinkMatrix>(in.any);
    b.instance.message_bytes = in.message_bytes;
    return b;
  }
  b.instance.link.assign(n, std::vector<double>(n, 0));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j && in.any[i][j] && in.message_bytes > 0)
        b.instance.link[i][j] = in.any[i][j]->bandwidth / in.message_bytes;
  return b;
}

// The requests the routes keep in flight: a host with a batch of `streams` busy for the share
// flow / capacity of its time holds that share of a batch. A request is on one host at a time, so
// a pipeline of k hosts each with its batch keeps k batches in flight (Little's law: the flow
// times the time a token takes on its chain).
double routed_in_flight(const RoutedInstance& in, const RoutedLayout& layout, const RoutedFlow& f,
                        int streams) {
  double n = 0;
  for (size_t i = 0; i < in.hosts.size(); ++i) {
    if (f.host[i] <= 1e-12 || !layout[i].used()) continue;
    const double capacity = range_capacity(in, i, layout[i]);
    if (capacity <= 0) continue;
    n += streams * f.host[i] / capacity;
  }
  return n;
}

// The slowest chain a stream may take: each host on it works through a batch of `streams` in
// streams / capacity seconds, one after another.
double slowest_chain_s(const RoutedInstance& in, const RoutedLayout& layout, const RoutedFlow& f,
                       int streams) {
  const size_t n = in.hosts.size();
  std::vector<double> worst(n, -1);  // seconds from this host to the last layer
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return layout[a].start > layout[b].start; });
  double result = 0;
  for (size_t i : order) {
    if (f.host[i] <= 1e-12) continue;
    const double own = streams / range_capacity(in, i, layout[i]);
    double after = layout[i].end == in.layers ? 0 : -1;
    for (const auto& [j, flow] : f.out[i])
      if (flow > 1e-12 && worst[j] >= 0) after = std::max(after, worst[j]);
    if (after < 0) continue;
    worst[i] = own + after;
    if (f.entry[i] > 1e-12) result = std::max(result, worst[i]);
  }
  return result;
}

// The streams per host to search: as the profile was measured, or every count from 1 by doubling
// up to kRoutedMaxStreams (and to --concurrency) at which some host holds a layer and, under
// --tpot-ms, whose starting layout keeps it. Each is then searched with a budget of its own and
// what it serves decides (plan_routed): hosts of more memory fit more streams, and so are searched
// at every count that hosts of less memory are, as a larger --concurrency is at every count a
// smaller one is. Each count comes back as its instance.
std::vector<Built> stream_counts(const Cluster& cluster, const PlanningProblem& problem,
                                 const ModelDesc& model, const PlanRequest& request,
                                 const RoutedRequest& routed) {
  // The better of the best single pipeline and disjoint replicas.
  auto start = [&](const RoutedInstance& ri) {
    Chains c = best_pipeline(ri, std::vector<bool>(ri.hosts.size(), true));
    Chains r = greedy_replicas(ri);
    return r.tokens_per_s > c.tokens_per_s ? r : c;
  };
  std::vector<Built> out;
  if (routed.profile && routed.profile->streams_per_host > 0) {
    out.push_back(
        build(cluster, problem, model, request, routed, routed.profile->streams_per_host));
    return out;
  }
  // More streams a host than requests in flight in all would leave every one of them idle.
  const int most = request.concurrency > 0 ? std::min(request.concurrency, kRoutedMaxStreams)
                                           : kRoutedMaxStreams;
  for (int n = 1; n <= most; n *= 2) {
    Built b = build(cluster, problem, model, request, routed, n);
    if (std::none_of(b.instance.hosts.begin(), b.instance.hosts.end(),
                     [](const RoutedHost& h) { return !h.table.empty(); }))
      break;  // more streams only hold fewer layers
    // Streams beyond --tpot-ms on the starting layout are not worth trying. A fleet's are weighed
    // on its first shard (routed_shards.hpp), whose hosts are of the fleet's kinds in its
    // proportions.
    if (request.tpot_target_s > 0) {
      const RoutedInstance shard =
          b.instance.hosts.size() > kRoutedShardHosts
              ? routed_reordered(b.instance, routed_shards(b.instance).front())
              : b.instance;
      const Chains c = start(shard);
      if (c.tokens_per_s > 0) {
        RoutedFlow f = routed_max_flow(shard, c.layout);
        if (slowest_chain_s(shard, c.layout, f, n) > request.tpot_target_s * (1 + 1e-12)) break;
      }
    }
    out.push_back(std::move(b));
  }
  if (out.empty()) out.push_back(build(cluster, problem, model, request, routed, 1));
  return out;
}

// Why the search found no flow: no host holds a layer, or no layout reaches the last one.
[[noreturn]] void throw_no_layout(const RoutedInstance& ri, const ModelDesc& model, int streams) {
  bool any = std::any_of(ri.hosts.begin(), ri.hosts.end(),
                         [](const RoutedHost& h) { return !h.table.empty(); });
  if (!any)
    throw failure("routed: no host holds one layer of {} at {} streams per host", model.name,
                  streams);
  throw failure(
      "routed: no layout of the hosts reaches from the first layer to the last ({} layers, {} "
      "streams per host)",
      model.num_layers(), streams);
}

// The plan's model, strategy and transport, before any host is placed.
Plan routed_plan_header(const ModelDesc& model, const PlanRequest& request, const PlanInputs& in) {
  Plan plan;
  plan.model_name = model.name;
  plan.quantization = model.quantization;
  plan.num_layers = model.num_layers();
  plan.attention_heads = model.num_heads;
  plan.kv_heads = model.num_kv_heads;
  plan.hidden_size = model.hidden_size;
  plan.routed_experts = model.routed_experts();
  plan.total_bytes = model.total_bytes();
  plan.context = request.context;
  plan.prompt = request.prompt;
  plan.strategy = name(StrategyKind::kRouted);
  plan.backend = name(MlxBackend::kNone);
  plan.transport = "network";
  plan.activation_bytes = in.message_bytes;
  return plan;
}

// The rank of the host `h` describes, holding range `r` of the layers: its bytes and stage time.
RankPlan routed_rank(const Plan& plan, const RoutedHostInfo& h, const LayerRange& r,
                     const HostFigures& figures, const ModelDesc& model, const PlanRequest& request,
                     int layers, int streams) {
  RankPlan rank;
  rank.rank = static_cast<int>(plan.ranks.size());
  rank.host = h.host;
  rank.layer_start = r.start;
  rank.layer_end = r.end;
  rank.holds_head = r.end == layers;
  for (int l = r.start; l < r.end; ++l) {
    rank.weight_bytes += static_cast<double>(model.layers[static_cast<size_t>(l)].weight_bytes);
    rank.kv_bytes += streams * model.layers[static_cast<size_t>(l)].kv_bytes(request.context);
  }
  if (r.start == 0)
    rank.weight_bytes += static_cast<double>(model.embedding_bytes + model.other_bytes);
  if (rank.holds_head) rank.weight_bytes += static_cast<double>(model.head_bytes);
  rank.total_bytes = rank.weight_bytes + rank.kv_bytes;
  rank.usable_bytes = figures.usable_bytes;
  rank.bandwidth = figures.bandwidth;
  rank.flops = figures.flops;
  rank.stage_s = streams / h.capacity;
  return rank;
}

// The hosts that carry flow, by first layer: their routing entries, ranks and links. Returns
// their indices in that order.
std::vector<size_t> place_used_hosts(Plan& plan, RoutingInfo& routing, const Built& b,
                                     const RoutedSolution& s, const PlanInputs& in,
                                     const ModelDesc& model, const PlanRequest& request,
                                     int streams) {
  const RoutedInstance& ri = b.instance;
  std::vector<size_t> used;
  for (size_t i = 0; i < ri.hosts.size(); ++i)
    if (s.layout[i].used() && s.flow.host[i] > 1e-9) used.push_back(i);
  std::sort(used.begin(), used.end(), [&](size_t a, size_t c) {
    return std::pair(s.layout[a].start, a) < std::pair(s.layout[c].start, c);
  });
  for (size_t i : used) {
    const LayerRange r = s.layout[i];
    RoutedHostInfo h;
    h.host = ri.hosts[i].name;
    h.layer_start = r.start;
    h.layer_end = r.end;
    h.capacity = range_capacity(ri, i, r);
    h.flow = s.flow.host[i];
    h.entry = s.flow.entry[i];
    h.exit = r.end == ri.layers ? s.flow.host[i] : 0;
    h.table = b.tables[i].source;
    routing.hosts.push_back(h);
    plan.ranks.push_back(routed_rank(plan, h, r, in.hosts[i], model, request, ri.layers, streams));
  }
  for (size_t i : used)
    for (const auto& [j, flow] : s.flow.out[i])  // by j, as `used` runs
      if (flow > 1e-9)
        routing.links.push_back({ri.hosts[i].name, ri.hosts[j].name, flow, ri.link_at(i, j)});
  return used;
}

// The prediction and serving figures of the flow; throws when a stream on the slowest chain
// misses --min-stream-tps.
void predict_routed(Plan& plan, const RoutedInstance& ri, const RoutedSolution& s,
                    const PlanRequest& request, int streams) {
  const double chain_s = slowest_chain_s(ri, s.layout, s.flow, streams);
  plan.predicted.token_latency_s = chain_s;
  plan.predicted.decode_tokens_per_s = chain_s > 0 ? 1 / chain_s : 0;
  plan.predicted.bottleneck =
      "the hosts' tables: the flow is limited by the cut " +
      std::string(s.flow.total >= s.bound.tokens_per_s * (1 - 1e-9) ? "that meets the upper bound"
                                                                    : "the search found");
  ServingInfo sv;
  sv.objective = "throughput";
  sv.load = request.rate > 0 ? "poisson" : "closed";
  sv.ttft_target_s = request.ttft_target_s;
  sv.tpot_target_s = request.tpot_target_s;
  // Every host used holds one stream at least: fewer requests than that leave some idle for the
  // share of the time they lack, and the flow falls with them.
  const double in_flight = routed_in_flight(ri, s.layout, s.flow, streams);
  const double busy = request.concurrency > 0 && in_flight > request.concurrency
                          ? request.concurrency / in_flight
                          : 1;
  sv.requests_in_flight =
      std::max(1, static_cast<int>(std::lround(std::min(in_flight, in_flight * busy))));
  sv.max_requests_in_flight = sv.requests_in_flight;
  sv.prompt_tokens = request.prompt;
  sv.output_tokens = request.output_tokens_or_default();
  sv.bound_by = "the hosts' tables";
  sv.step_s = chain_s;
  sv.stream_tokens_per_s = plan.predicted.decode_tokens_per_s;
  sv.aggregate_tokens_per_s = s.flow.total * busy;
  sv.output_tokens_per_s = sv.aggregate_tokens_per_s;
  sv.requests_per_s = sv.aggregate_tokens_per_s / static_cast<double>(sv.output_tokens);
  sv.tpot_s = chain_s;
  sv.kv_bytes = 0;
  for (const RankPlan& r : plan.ranks)
    sv.kv_bytes += r.kv_bytes;
  sv.bound_aggregate_tokens_per_s = std::max(s.bound.tokens_per_s, sv.aggregate_tokens_per_s);
  sv.bound_method = s.bound.method;
  plan.serving = sv;
  if (request.ttft_target_s > 0)
    throw failure(
        "--ttft-ms {:g}: a routed plan predicts no time to first token (its prompts follow the "
        "same routes as its tokens)",
        request.ttft_target_s * 1000);
  if (request.rate > 0 && request.rate > sv.requests_per_s * (1 + 1e-9))
    throw failure("--rate {:g}: the routes finish at most {:.2f} requests a second", request.rate,
                  sv.requests_per_s);
  if (request.tpot_target_s > 0 && chain_s > request.tpot_target_s * (1 + 1e-12))
    throw failure(
        "--tpot-ms {:g}: a stream on the slowest routed chain takes {:.1f} ms a token ({:.0f} % "
        "over)",
        request.tpot_target_s * 1000, chain_s * 1000, (chain_s / request.tpot_target_s - 1) * 100);
}

// Every candidate host, with why each one left out is, and a note naming those left out.
void describe_hosts(Plan& plan, const Built& b, const PlanInputs& in,
                    const std::vector<size_t>& used, int streams) {
  const RoutedInstance& ri = b.instance;
  for (size_t i = 0; i < in.size(); ++i) {
    const HostFigures& h = in.hosts[i];
    HostInfo info{h.name,       h.usable_bytes, h.bandwidth, h.flops,
                  h.overhead_s, h.usable_rule,  false,       "",
                  h.gpus,       h.tp,           h.gpu_link};
    info.used = std::find(used.begin(), used.end(), i) != used.end();
    if (!info.used)
      info.left_out = ri.hosts[i].table.empty() ? fmt::format("holds no layer at {} streams ({})",
                                                              streams, b.tables[i].source)
                                                : "no range for it raises the flow";
    plan.hosts.push_back(info);
  }
  std::vector<std::string> out;
  for (const HostInfo& h : plan.hosts)
    if (!h.used) out.push_back(fmt::format("{} ({})", h.name, h.left_out));
  if (!out.empty()) {
    std::string note = "left out: ";
    for (size_t k = 0; k < out.size(); ++k)
      note += (k ? ", " : "") + out[k];
    plan.notes.push_back(note);
  }
}

}  // namespace

Plan plan_routed(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                 const PlanRequest& request, const RoutedRequest& routed, const Clock& clock) {
  const double began = clock.now_seconds();
  PlanningProblem problem(cluster, catalog, model, request);
  const PlanInputs& in = problem.inputs();
  // Every count is searched with the whole budget, the count whose upper bound is highest first;
  // a count whose bound is no more than the best flow reached cannot win and is not searched. The
  // flow reached decides, the fewer streams on a tie. A fleet weighs the counts on its first
  // shard and searches the whole fleet at the count that wins, within one budget.
  std::vector<Built> builds = stream_counts(cluster, problem, model, request, routed);
  const double built = clock.now_seconds();
  RoutedOptions options;
  options.time_limit_s = routed.time_limit_s;
  options.clock = &clock;
  const bool fleet = in.size() > kRoutedShardHosts;
  std::vector<StreamCount> weigh;
  for (const Built& c : builds)
    weigh.push_back(
        {c.streams,
         fleet ? routed_reordered(c.instance, routed_shards(c.instance).front()) : c.instance});
  const double tabled = clock.now_seconds();
  // Under --concurrency a layout serves its flow when it keeps no more requests in flight than
  // there are (its figures are those of its streams' batches). With more, it serves less, and its
  // figures hold only for one stream a host: then the requests keep its hosts busy their share of
  // the time (a fleet's first shard: its share of the requests). A count serves what the best of
  // its routes, its single pipeline and its disjoint replicas do: fewer hosts keep fewer requests
  // in flight. What a count serves only grows with the requests asked, and a count allowed at
  // some number of requests is at every larger one.
  auto serves = [&](const RoutedInstance& ri, const RoutedLayout& layout, int n) {
    const RoutedFlow f = routed_max_flow(ri, layout);
    const double asked =
        request.concurrency * static_cast<double>(ri.hosts.size()) / static_cast<double>(in.size());
    const double in_flight = routed_in_flight(ri, layout, f, n);
    if (in_flight <= asked * (1 + 1e-9)) return f.total;
    return n == 1 ? f.total * asked / in_flight : 0.0;
  };
  auto best_served = [&](const RoutedInstance& ri, const RoutedSolution& t, int n) {
    std::pair<double, int> best{serves(ri, t.layout, n), 0};  // what it serves, which layout
    for (int which : {1, 2}) {
      const Chains& c = which == 1 ? t.pipeline : t.replicas;
      if (c.tokens_per_s <= 0) continue;
      const double v = serves(ri, c.layout, n);
      if (v > best.first * kRoutedBetter) best = {v, which};
    }
    return best;
  };
  StreamValue value = nullptr;
  if (request.concurrency > 0)
    value = [&](const StreamCount& c, const RoutedSolution& t) {
      return best_served(c.instance, t, c.streams).first;
    };
  // A fleet spends the budget once: the counts weighed on its first shard and the other shards
  // unlike it each get an even share, the first shard searched as the fleet's search would.
  RoutedOptions fleet_options = options;
  const size_t unlike = fleet ? routed_unlike_shards(builds.front().instance) : 1;
  if (fleet)
    fleet_options.time_limit_s = options.time_limit_s * static_cast<double>(unlike) /
                                 static_cast<double>(unlike - 1 + weigh.size());
  StreamChoice choice = choose_stream_count(
      weigh, fleet ? routed_shard_options(fleet_options, unlike) : options, value);
  const double weighed = clock.now_seconds();
  const int streams = weigh[choice.index].streams;
  Built b = std::move(builds[choice.index]);
  RoutedSolution s = fleet ? solve_routed_fleet(b.instance, fleet_options, &choice.solution)
                           : std::move(choice.solution);
  if (request.concurrency > 0 && !fleet)
    if (const auto [v, which] = best_served(b.instance, s, streams); which > 0) {
      // A baseline keeps fewer requests in flight than there are and serves more: it is the plan.
      const Chains& c = which == 1 ? s.pipeline : s.replicas;
      const double routes = serves(b.instance, s.layout, streams);
      s.layout = c.layout;
      s.flow = routed_max_flow(b.instance, s.layout);
      s.optimal = false;
      s.proof = fmt::format(
          "with {} requests in flight, {} serve {:.1f} tokens/s against {:.1f} for the routes of "
          "the most flow, which hold more streams than there are requests",
          request.concurrency,
          which == 1 ? "the best single pipeline's hosts" : "disjoint replicas", v, routes);
    }
  if (s.flow.total <= 0) throw_no_layout(b.instance, model, streams);

  Plan plan = routed_plan_header(model, request, in);
  const RoutedInstance& ri = b.instance;
  RoutingInfo routing;
  routing.streams = streams;
  routing.optimal = s.optimal;
  routing.proof = s.proof;
  routing.nodes = s.nodes;
  if (routed.timings) {
    routed.timings->push_back({"host tables and streams per host", built - began});
    routed.timings->push_back({"first shards of each count of streams", tabled - built});
    routed.timings->push_back(
        {fmt::format("{} count{} of streams searched{}", weigh.size(), weigh.size() == 1 ? "" : "s",
                     fleet ? " on the first shard" : ""),
         weighed - tabled});
    // A fleet's phases are its search after the weighing; a cluster's, its chosen count's.
    routed.timings->insert(routed.timings->end(), s.phases.begin(), s.phases.end());
  }
  const std::vector<size_t> used =
      place_used_hosts(plan, routing, b, s, in, model, request, streams);
  predict_routed(plan, ri, s, request, streams);
  // Fewer requests than the hosts hold: every route carries its share of what they do carry.
  if (const double busy = plan.serving->aggregate_tokens_per_s / s.flow.total; busy < 1) {
    for (RoutedHostInfo& h : routing.hosts) {
      h.flow *= busy;
      h.entry *= busy;
      h.exit *= busy;
    }
    for (RoutedLinkInfo& l : routing.links)
      l.flow *= busy;
    plan.notes.push_back(fmt::format(
        "routed: {} requests in flight keep the hosts busy {:.0f} % of the time (each host used "
        "holds one stream at least)",
        request.concurrency, busy * 100));
  }

  // Under --concurrency a baseline too serves its flow for the share of the time the requests
  // keep its hosts busy.
  auto baseline = [&](const char* name, const Chains& c, const char* what) {
    const double served = c.tokens_per_s > 0 && request.concurrency > 0
                              ? serves(ri, c.layout, streams)
                              : c.tokens_per_s;
    BaselineInfo x{name, c.tokens_per_s > 0, 0, served, 0, {}, what};
    for (size_t i = 0; i < ri.hosts.size(); ++i)
      if (c.layout[i].used()) x.hosts.push_back(ri.hosts[i].name);
    if (served > 0) x.speedup = plan.serving->aggregate_tokens_per_s / served;
    return x;
  };
  plan.baselines.push_back(baseline("routed-single-pipeline", s.pipeline,
                                    "the best single pipeline on the same tables, tokens/s"));
  plan.baselines.push_back(baseline(
      "routed-disjoint-replicas", s.replicas,
      s.shards > 0 ? "disjoint pipelines, each the best of the hosts left in its shard, on the "
                     "same tables, tokens/s"
                   : "disjoint pipelines, each the best of the hosts left, on the same tables, "
                     "tokens/s"));
  plan.solver = {"routed-branch-and-bound", s.optimal, s.solve_s * 1000, s.proof};

  describe_hosts(plan, b, in, used, streams);
  plan.notes.push_back(fmt::format(
      "routed: {} streams per host; {:.1f} tokens/s in all against {:.1f} for the best single "
      "pipeline and {:.1f} for disjoint replicas on the same tables",
      streams, plan.serving->aggregate_tokens_per_s, plan.baselines[0].decode_tokens_per_s,
      plan.baselines[1].decode_tokens_per_s));
  plan.routing = routing;
  return plan;
}

}  // namespace meshplan
