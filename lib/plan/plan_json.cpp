#include "lib/plan/plan_json.hpp"

#include "lib/models/model_json.hpp"
#include "lib/plan/plan_rank_json.hpp"
#include "lib/plan/plan_serving.hpp"

namespace meshplan {
namespace {

ojson model_summary_json(const Plan& plan) {
  ojson m;
  m["name"] = plan.model_name;
  m["quantization"] = plan.quantization;
  m["layers"] = plan.num_layers;
  m["total_bytes"] = plan.total_bytes;
  // What the engines' rules read when the launch is written (lib/core/engine_rules.hpp).
  if (plan.attention_heads > 0) m["attention_heads"] = plan.attention_heads;
  if (plan.kv_heads > 0) m["kv_heads"] = plan.kv_heads;
  if (plan.hidden_size > 0) m["hidden_size"] = plan.hidden_size;
  if (plan.routed_experts > 0) m["routed_experts"] = plan.routed_experts;
  return m;
}

ojson predicted_json(const Plan& plan) {
  ojson p;
  p["token_latency_ms"] = json_ms(plan.predicted.token_latency_s);
  p["decode_tokens_per_s"] =
      json_number(std::round(plan.predicted.decode_tokens_per_s * 1000) / 1000);
  p["ttft_ms"] = json_ms(plan.predicted.ttft_s);
  p["bottleneck"] = plan.predicted.bottleneck;
  p["stages_ms"] = json_ms(plan.predicted.stages_s);
  p["head_ms"] = json_ms(plan.predicted.head_s);
  p["hops_ms"] = json_ms(plan.predicted.hops_s);
  return p;
}

// Null when the plan has no bound.
ojson bound_json(const Plan& plan) {
  if (!plan.bound) return ojson(nullptr);
  ojson b;
  b["token_latency_ms"] = json_ms(plan.bound->token_latency_s);
  b["gap_percent"] = json_number(std::round(plan.bound->gap_percent * 100) / 100);
  if (!plan.bound->method.empty()) b["method"] = plan.bound->method;
  return b;
}

ojson collective_json(const CollectiveInfo& c) {
  ojson x;
  x["kind"] = c.kind;
  x["link"] = c.link;
  x["latency_us"] = json_number(std::round(c.latency_s * 1e9) / 1e3);
  if (c.peer_s > 0) x["peer_us"] = json_number(std::round(c.peer_s * 1e9) / 1e3);
  x["bandwidth_bytes_per_s"] = json_number(c.bandwidth);
  x["per_layer_ms"] = json_ms(c.per_layer_s);
  x["layers"] = c.layers;
  x["ms"] = json_ms(c.total_s);
  return x;
}

ojson baseline_json(const BaselineInfo& b) {
  ojson x;
  x["solver"] = b.solver;
  x["feasible"] = b.feasible;
  x["token_latency_ms"] = b.feasible ? json_ms(b.token_latency_s) : ojson(nullptr);
  x["decode_tokens_per_s"] =
      b.feasible ? json_number(std::round(b.decode_tokens_per_s * 1000) / 1000) : ojson(nullptr);
  x["speedup"] = b.feasible ? json_number(std::round(b.speedup * 1000) / 1000) : ojson(nullptr);
  x["hosts"] = b.hosts;
  if (!b.note.empty()) x["note"] = b.note;
  return x;
}

ojson solver_json(const Plan& plan) {
  ojson s;
  s["name"] = plan.solver.name;
  s["optimal"] = plan.solver.optimal;
  s["solve_ms"] = json_number(std::round(plan.solver.solve_ms * 1000) / 1000);
  if (!plan.solver.note.empty()) s["note"] = plan.solver.note;
  return s;
}

ojson alternative_json(const Alternative& a) {
  ojson x;
  x["strategy"] = a.strategy;
  x["feasible"] = a.feasible;
  x["decode_tokens_per_s"] =
      a.feasible ? json_number(std::round(a.decode_tokens_per_s * 1000) / 1000) : ojson(nullptr);
  x["token_latency_ms"] = a.feasible ? json_ms(a.token_latency_s) : ojson(nullptr);
  if (!a.backend.empty()) x["backend"] = a.backend;
  x["hosts"] = a.hosts;
  if (!a.reason.empty()) x["reason"] = a.reason;
  return x;
}

// One host's figures behind the prediction (SPEC section 7).
ojson plan_host_json(const HostInfo& h) {
  ojson x;
  x["name"] = h.name;
  x["used"] = h.used;
  if (!h.used && !h.left_out.empty()) x["left_out"] = h.left_out;
  x["usable_bytes"] = json_number(std::round(h.usable_bytes));
  x["bandwidth_bytes_per_s"] = json_number(h.bandwidth);
  x["flops_per_s"] = json_number(h.flops);
  x["stage_overhead_ms"] = json_ms(h.overhead_s);
  if (!h.usable_rule.empty()) x["usable_rule"] = h.usable_rule;
  if (h.gpus > 1) {
    x["gpus"] = h.gpus;
    x["tp"] = h.tp;
    x["gpu_link"] = h.gpu_link;
  }
  return x;
}

// What the plan was made for: `emit --plan` refuses a cluster that differs from it.
ojson made_for_json(const Plan& plan) {
  ojson c, ch = ojson::array(), cl = ojson::array();
  for (const auto& h : plan.cluster.hosts) {
    ojson x;
    x["name"] = h.name;
    x["chip"] = h.chip;
    x["memory_bytes"] = h.memory;
    x["os"] = h.os;
    ch.push_back(x);
  }
  for (const auto& l : plan.cluster.links)
    cl.push_back(ojson{{"hosts", ojson::array({l.a, l.b})}, {"link", l.link}});
  c["hosts"] = ch;
  c["links"] = cl;
  c["message_bytes"] = json_number(plan.cluster.message_bytes);
  return c;
}

ojson figures_json(const Plan& plan, const ModelDesc& model) {
  ojson f;
  f["stage_overhead_ms"] = json_ms(plan.stage_overhead_s);
  f["activation_bytes"] = json_number(plan.activation_bytes);
  f["hidden_size"] = model.hidden_size;
  f["vocab_size"] = model.vocab_size;
  ojson head;
  head["flops"] = json_number(model.head_flops());
  head["read_bytes"] = model.head_read_bytes();
  head["resident_bytes"] = model.head_resident_bytes();
  f["head"] = head;
  ojson layers = ojson::array();
  for (const auto& l : model.layers)
    layers.push_back(layer_json(l));
  f["layers"] = layers;
  return f;
}

}  // namespace

ojson plan_to_json(const Plan& plan, const ModelDesc& model) {
  ojson j;
  j["schema"] = kPlanSchema;
  j["model"] = model_summary_json(plan);
  j["context"] = plan.context;
  j["prompt"] = plan.prompt;
  j["strategy"] = plan.strategy;
  j["backend"] = plan.backend;
  // The engine it is made for; null when no engine of its hosts runs it (engine_reason says why).
  if (!plan.engine.empty())
    j["engine"] = plan.engine;
  else if (!plan.engine_reason.empty())
    j["engine"] = nullptr;
  if (!plan.engine_reason.empty()) j["engine_reason"] = plan.engine_reason;
  if (!plan.transport.empty()) j["transport"] = plan.transport;
  ojson ranks = ojson::array();
  for (const auto& r : plan.ranks)
    ranks.push_back(rank_json(r));
  j["ranks"] = ranks;
  j["predicted"] = predicted_json(plan);
  j["bound"] = bound_json(plan);
  if (plan.collective) j["collective"] = collective_json(*plan.collective);
  j["baseline"] = plan.baselines.empty() ? ojson(nullptr) : baseline_json(plan.baselines.front());
  ojson baselines = ojson::array();
  for (const auto& b : plan.baselines)
    baselines.push_back(baseline_json(b));
  j["baselines"] = baselines;
  j["solver"] = solver_json(plan);
  ojson alts = ojson::array();
  for (const auto& a : plan.alternatives)
    alts.push_back(alternative_json(a));
  j["alternatives"] = alts;
  if (!plan.notes.empty()) j["notes"] = plan.notes;
  // The figures behind the prediction (SPEC section 7), enough to recompute it by hand.
  ojson hosts = ojson::array();
  for (const auto& h : plan.hosts)
    hosts.push_back(plan_host_json(h));
  j["hosts"] = hosts;
  if (!plan.cluster.empty()) j["made_for"] = made_for_json(plan);
  j["figures"] = figures_json(plan, model);
  add_serving_json(plan, j);
  return j;
}

std::string write_plan_json(const Plan& plan, const ModelDesc& model) {
  return plan_to_json(plan, model).dump(2) + "\n";
}

}  // namespace meshplan
