#include "lib/plan/plan_serving.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "lib/core/units.hpp"
#include "lib/plan/plan_rank_json.hpp"

namespace meshplan {
namespace {

ojson tps(double v) {
  return json_number(std::round(v * 1000) / 1000);
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v)
    out += (out.empty() ? "" : ",") + s;
  return out;
}

ojson serving_json(const ServingInfo& s) {
  ojson x;
  x["objective"] = s.objective;
  ojson load{{"kind", s.load}};
  if (s.load == "poisson")
    load["rate_per_s"] = json_number(std::round(s.requests_per_s * 1e6) / 1e6);
  else
    load["requests_in_flight"] = s.requests_in_flight;
  load["prompt_tokens"] = s.prompt_tokens;
  load["output_tokens"] = s.output_tokens;
  x["load"] = load;
  if (s.ttft_target_s > 0 || s.tpot_target_s > 0) {
    ojson t = ojson::object();
    if (s.ttft_target_s > 0) t["ttft_ms"] = json_ms(s.ttft_target_s);
    if (s.tpot_target_s > 0) t["tpot_ms"] = json_ms(s.tpot_target_s);
    x["targets"] = t;
  }
  x["requests_in_flight"] = s.requests_in_flight;
  x["max_requests_in_flight"] = s.max_requests_in_flight;
  x["requests_per_s"] = json_number(std::round(s.requests_per_s * 1e6) / 1e6);
  if (s.ttft_s > 0) x["ttft_ms"] = json_ms(s.ttft_s);
  x["tpot_ms"] = json_ms(s.tpot_s);
  x["bound_by"] = s.bound_by;
  x["step_ms"] = json_ms(s.step_s);
  x["stream_tokens_per_s"] = tps(s.stream_tokens_per_s);
  x["aggregate_tokens_per_s"] = tps(s.aggregate_tokens_per_s);
  x["output_tokens_per_s"] = tps(s.output_tokens_per_s);
  x["kv_bytes"] = json_number(std::round(s.kv_bytes));
  x["bound"] = ojson{{"aggregate_tokens_per_s", tps(s.bound_aggregate_tokens_per_s)},
                     {"method", s.bound_method}};
  return x;
}

ojson replica_json(const ReplicaInfo& r) {
  ojson x;
  x["hosts"] = r.hosts;
  x["strategy"] = r.strategy;
  x["backend"] = r.backend;
  x["requests_in_flight"] = r.requests_in_flight;
  x["requests_per_s"] = json_number(std::round(r.requests_per_s * 1e6) / 1e6);
  x["ttft_ms"] = json_ms(r.ttft_s);
  x["tpot_ms"] = json_ms(r.tpot_s);
  x["stream_tokens_per_s"] = tps(r.stream_tokens_per_s);
  x["aggregate_tokens_per_s"] = tps(r.aggregate_tokens_per_s);
  x["request_share"] = json_number(std::round(r.request_share * 10000) / 10000);
  ojson ranks = ojson::array();
  for (const RankPlan& k : r.ranks)  // as the plan's own: its GPU stages and shares too
    ranks.push_back(rank_json(k));
  x["ranks"] = ranks;
  return x;
}

ojson shape_json(const ShapeInfo& s) {
  ojson x;
  x["shape"] = s.shape;
  x["prefill_hosts"] = s.prefill_hosts;
  x["decode_hosts"] = s.decode_hosts;
  x["ttft_ms"] = json_ms(s.ttft_s);
  if (s.shape == "disaggregated") x["kv_transfer_ms"] = json_ms(s.kv_transfer_s);
  x["decode_tokens_per_s"] = tps(s.decode_tokens_per_s);
  x["end_to_end_ms"] = json_ms(s.end_to_end_s);
  x["chosen"] = s.chosen;
  return x;
}

ojson routing_json(const RoutingInfo& r) {
  ojson x;
  x["streams_per_host"] = r.streams;
  ojson hosts = ojson::array();
  for (const RoutedHostInfo& h : r.hosts)
    hosts.push_back(ojson{{"host", h.host},
                          {"layers", ojson::array({h.layer_start, h.layer_end})},
                          {"capacity_tokens_per_s", tps(h.capacity)},
                          {"flow_tokens_per_s", tps(h.flow)},
                          {"entry_tokens_per_s", tps(h.entry)},
                          {"exit_tokens_per_s", tps(h.exit)},
                          {"table", h.table}});
  x["hosts"] = hosts;
  ojson links = ojson::array();
  for (const RoutedLinkInfo& l : r.links)
    links.push_back(ojson{{"from", l.from},
                          {"to", l.to},
                          {"flow_tokens_per_s", tps(l.flow)},
                          {"capacity_tokens_per_s", tps(l.capacity)}});
  x["links"] = links;
  x["optimal"] = r.optimal;
  x["proof"] = r.proof;
  return x;
}

ojson frontier_point_json(const FrontierPoint& p) {
  ojson x;
  x["requests_in_flight"] = p.requests_in_flight;
  x["stream_tokens_per_s"] = tps(p.stream_tokens_per_s);
  x["aggregate_tokens_per_s"] = tps(p.aggregate_tokens_per_s);
  x["ttft_ms"] = json_ms(p.ttft_s);
  x["meets_targets"] = p.meets_targets;
  return x;
}

ojson frontier_json(const Frontier& f) {
  ojson series = ojson::array();
  for (const FrontierSeries& s : f.series) {
    ojson points = ojson::array();
    for (const FrontierPoint& p : s.points)
      points.push_back(frontier_point_json(p));
    series.push_back(ojson{{"shape", s.shape}, {"hosts", s.hosts}, {"points", points}});
  }
  ojson chosen = frontier_point_json(f.chosen);
  chosen["shape"] = f.chosen_shape;
  return ojson{{"series", series}, {"chosen", chosen}};
}

}  // namespace

std::string render_frontier_table(const Frontier& f) {
  std::string out = fmt::format(
      "Frontier (the plan: {}, {} in flight, {:.1f} tokens/s each, "
      "{:.1f} in all):\n",
      f.chosen_shape, f.chosen.requests_in_flight, f.chosen.stream_tokens_per_s,
      f.chosen.aggregate_tokens_per_s);
  size_t width = 5;
  for (const FrontierSeries& s : f.series)
    width = std::max(width, s.shape.size());
  out += fmt::format("  {:<{}}  {:>9}  {:>13}  {:>15}  {:>9}  {}\n", "shape", width, "in flight",
                     "tokens/s each", "tokens/s in all", "TTFT", "targets");
  for (const FrontierSeries& s : f.series)
    for (const FrontierPoint& p : s.points)
      out += fmt::format("  {:<{}}  {:>9}  {:>13.1f}  {:>15.1f}  {:>9}  {}\n", s.shape, width,
                         p.requests_in_flight, p.stream_tokens_per_s, p.aggregate_tokens_per_s,
                         format_duration(p.ttft_s), p.meets_targets ? "met" : "missed");
  return out;
}

void add_serving_json(const Plan& plan, ojson& j) {
  if (plan.serving) j["serving"] = serving_json(*plan.serving);
  if (!plan.replicas.empty()) {
    ojson rs = ojson::array();
    for (const ReplicaInfo& r : plan.replicas)
      rs.push_back(replica_json(r));
    j["replicas"] = rs;
  }
  if (!plan.shapes.empty()) {
    ojson ss = ojson::array();
    for (const ShapeInfo& s : plan.shapes)
      ss.push_back(shape_json(s));
    j["output_tokens"] = plan.output_tokens;
    j["shapes"] = ss;
  }
  if (plan.routing) j["routing"] = routing_json(*plan.routing);
  if (plan.frontier) j["frontier"] = frontier_json(*plan.frontier);
}

std::string render_serving(const Plan& plan) {
  std::string out;
  if (plan.serving) {
    const ServingInfo& s = *plan.serving;
    const std::string load =
        s.load == "poisson"
            ? fmt::format(
                  "{:g} requests a second arriving (Poisson), up to {} in flight on "
                  "average",
                  std::round(s.requests_per_s * 1e6) / 1e6, s.requests_in_flight)
            : fmt::format("{} request{} in flight in all", s.requests_in_flight,
                          s.requests_in_flight == 1 ? "" : "s");
    out += fmt::format("Serving ({}): {}, prompts of {} tokens and {} out\n", s.objective, load,
                       s.prompt_tokens, s.output_tokens);
    out += fmt::format(
        "Each request: {}{} a token ({:.1f} tokens/s while decoding); {:.2f} requests a second, "
        "{:.1f} tokens/s in all while decoding\n",
        s.ttft_s > 0 ? "TTFT " + format_duration(s.ttft_s) + ", " : std::string(),
        format_duration(s.tpot_s), s.stream_tokens_per_s, s.requests_per_s,
        s.aggregate_tokens_per_s);
    if (s.ttft_target_s > 0 || s.tpot_target_s > 0)
      out +=
          fmt::format("Targets met:{}{}\n",
                      s.ttft_target_s > 0 ? " TTFT " + format_duration(s.ttft_target_s) : "",
                      s.tpot_target_s > 0 ? " per token " + format_duration(s.tpot_target_s) : "");
    out += fmt::format("KV {} for the streams; at most {} in flight fit; bound by {}\n",
                       format_gib(s.kv_bytes), s.max_requests_in_flight, s.bound_by);
    out += fmt::format("Upper bound: {:.1f} tokens/s in all ({})\n", s.bound_aggregate_tokens_per_s,
                       s.bound_method);
  }
  if (plan.routing) {
    for (const RoutedHostInfo& h : plan.routing->hosts)
      out += fmt::format("Routed {}: layers {}-{}, {:.1f} of {:.1f} tokens/s ({})\n", h.host,
                         h.layer_start, h.layer_end - 1, h.flow, h.capacity, h.table);
    for (const RoutedLinkInfo& l : plan.routing->links)
      out += fmt::format("Route {} -> {}: {:.1f} tokens/s\n", l.from, l.to, l.flow);
    out += fmt::format("Routing {}: {}\n", plan.routing->optimal ? "optimal" : "not proven optimal",
                       plan.routing->proof);
  }
  for (size_t i = 0; i < plan.replicas.size(); ++i) {
    const ReplicaInfo& r = plan.replicas[i];
    out += fmt::format(
        "Replica {}: {} ({}), {} request{} in flight, {:.1f} tokens/s in all, {} a token, {:.0f} % "
        "of the requests\n",
        i + 1, joined(r.hosts), r.strategy, r.requests_in_flight,
        r.requests_in_flight == 1 ? "" : "s", r.aggregate_tokens_per_s, format_duration(r.tpot_s),
        r.request_share * 100);
  }
  for (const ShapeInfo& s : plan.shapes) {
    out += fmt::format(
        "Shape {} (prefill {}, decode {}): TTFT {}, {:.1f} tokens/s, {} per request of {} "
        "tokens{}\n",
        s.shape, joined(s.prefill_hosts), joined(s.decode_hosts), format_duration(s.ttft_s),
        s.decode_tokens_per_s, format_duration(s.end_to_end_s), plan.output_tokens,
        s.chosen ? " (chosen)" : "");
  }
  if (plan.frontier) out += render_frontier_table(*plan.frontier);
  return out;
}

}  // namespace meshplan
