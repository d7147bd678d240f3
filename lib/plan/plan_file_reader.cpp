#include "lib/plan/plan_file_reader.hpp"

#include "lib/plan/engines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "lib/plan/engines.hpp"
#include "lib/plan/plan.hpp"
#include "lib/plan/strategy_kind.hpp"
#include "lib/plan/workload_plan.hpp"

namespace meshplan {

std::vector<std::string> PlanRanks::hosts() const {
  std::vector<std::string> out;
  for (const auto& r : ranks)
    out.push_back(r.host);
  return out;
}

namespace {

ClusterPrint read_made_for(const DocNode& node) {
  node.require_object();
  ClusterPrint p;
  p.message_bytes = node.at("message_bytes").as_number();
  for (const DocNode& h : node.at("hosts").require_array().items()) {
    h.require_object();
    ClusterPrint::HostPrint x;
    x.name = h.at("name").as_string();
    x.chip = h.at("chip").as_string();
    int64_t memory = h.at("memory_bytes").as_int();
    if (memory < 0) h.at("memory_bytes").fail("expected a number of bytes, at least 0");
    x.memory = static_cast<uint64_t>(memory);
    x.os = h.at("os").as_string();
    p.hosts.push_back(std::move(x));
  }
  for (const DocNode& l : node.at("links").require_array().items()) {
    l.require_object();
    const auto& pair = l.at("hosts").require_array().items();
    if (pair.size() != 2) l.at("hosts").fail("expected two host names");
    p.links.push_back({pair[0].as_string(), pair[1].as_string(), l.at("link").as_string()});
  }
  return p;
}

double read_flow(const DocNode& n, const char* key) {
  const DocNode& v = n.at(key);
  const double x = v.as_number();
  if (!(x >= 0 && x < 1e300)) v.fail("expected tokens/s, 0 or more");
  return x;
}

// The "routing" object of a routed plan (plan_serving.cpp writes it).
RoutingInfo read_routing(const DocNode& node) {
  node.require_object();
  RoutingInfo r;
  if (auto* s = node.find("streams_per_host")) r.streams = static_cast<int>(s->as_int());
  for (const DocNode& h : node.at("hosts").require_array().items()) {
    h.require_object();
    RoutedHostInfo x;
    x.host = h.at("host").as_string();
    const auto& l = h.at("layers").require_array().items();
    if (l.size() != 2) h.at("layers").fail("expected layers as [start, end)");
    x.layer_start = static_cast<int>(l[0].as_int());
    x.layer_end = static_cast<int>(l[1].as_int());
    if (x.layer_start < 0 || x.layer_end <= x.layer_start)
      h.at("layers").fail("expected 0 <= start < end");
    x.flow = read_flow(h, "flow_tokens_per_s");
    x.entry = read_flow(h, "entry_tokens_per_s");
    x.exit = read_flow(h, "exit_tokens_per_s");
    if (auto* c = h.find("capacity_tokens_per_s")) x.capacity = c->as_number();
    r.hosts.push_back(x);
  }
  for (const DocNode& l : node.at("links").require_array().items()) {
    l.require_object();
    RoutedLinkInfo x;
    x.from = l.at("from").as_string();
    x.to = l.at("to").as_string();
    x.flow = read_flow(l, "flow_tokens_per_s");
    auto known = [&](const std::string& name) {
      return std::any_of(r.hosts.begin(), r.hosts.end(),
                         [&](const RoutedHostInfo& h) { return h.host == name; });
    };
    if (!known(x.from)) l.at("from").fail("expected a host of the routing's hosts");
    if (!known(x.to)) l.at("to").fail("expected a host of the routing's hosts");
    r.links.push_back(x);
  }
  return r;
}

// One entry of a "ranks" array, the i-th: its host, layers and what its strategy adds.
PlanRank read_rank(const DocNode& n, size_t i) {
  n.require_object();
  PlanRank r;
  r.rank = static_cast<int>(i);
  if (auto* v = n.find("rank")) {
    if (v->as_int() != static_cast<int64_t>(i))
      v->fail(fmt::format("expected rank {} (ranks are listed in order)", i));
  }
  r.host = n.at("host").as_string();
  if (auto* l = n.find("layers"); l && !l->is_null()) {
    const auto& items = l->require_array().items();
    if (items.size() != 2) l->fail("expected layers as [start, end)");
    int64_t a = items[0].as_int(), b = items[1].as_int();
    if (a < 0 || b < a) l->fail(fmt::format("expected 0 <= start <= end, got [{}, {})", a, b));
    r.layers = {static_cast<int>(a), static_cast<int>(b)};
  }
  if (auto* w = n.find("wired_limit_mb")) {
    r.wired_limit_mb = w->as_int();
    if (r.wired_limit_mb < 0) w->fail("expected a number of MiB, at least 0");
  }
  if (auto* v = n.find("share"); v && !v->is_null()) {
    double share = v->as_number();
    if (!(share > 0 && share <= 1))
      v->fail("expected the rank's share of a layer, above 0 up to 1");
    r.share = share;
  }
  if (auto* g = n.find("tp_group"); g && !g->is_null()) {
    for (const auto& h : g->require_array().items())
      r.tp_group.push_back(h.as_string());
    if (r.tp_group.size() < 2 ||
        std::find(r.tp_group.begin(), r.tp_group.end(), r.host) == r.tp_group.end())
      g->fail(fmt::format("expected the hosts this rank's layers are split over, {} among them",
                          r.host));
  }
  if (auto* e = n.find("experts"); e && !e->is_null()) {
    for (const auto& layer : e->require_array().items()) {
      std::vector<int> ids;
      for (const auto& id : layer.require_array().items()) {
        int64_t x = id.as_int();
        if (x < 0) id.fail("expected an expert index, 0 or more");
        ids.push_back(static_cast<int>(x));
      }
      r.experts.push_back(std::move(ids));
    }
  }
  if (auto* v = n.find("tp")) {
    const int64_t tp = v->as_int();
    if (tp < 1 || tp > 64) v->fail("expected the GPUs each layer is split over, 1 to 64");
    r.tp = static_cast<int>(tp);
  }
  if (auto* g = n.find("gpu_stages"); g && !g->is_null()) {
    int next = r.layers ? r.layers->first : 0;
    for (const auto& stage : g->require_array().items()) {
      const DocNode& l = stage.require_object().at("layers");
      const auto& items = l.require_array().items();
      if (items.size() != 2) l.fail("expected layers as [start, end)");
      const int64_t a = items[0].as_int(), b = items[1].as_int();
      if (a != next || b <= a)
        l.fail(
            fmt::format("expected [{}, end) with end above {}: the groups of GPUs hold the "
                        "rank's layers in order",
                        next, next));
      r.gpu_stages.emplace_back(static_cast<int>(a), static_cast<int>(b));
      next = static_cast<int>(b);
    }
    if (r.layers && next != r.layers->second)
      g->fail(fmt::format("expected the groups of GPUs to end at layer {}, the rank's end",
                          r.layers->second));
  }
  return r;
}

// The "replicas" array of a serving plan (plan_serving.cpp writes it): disjoint groups of hosts,
// each a whole copy of the model with its ranks in order and its share of the requests.
std::vector<PlanReplica> read_replicas(const DocNode& node) {
  std::vector<PlanReplica> out;
  const auto& items = node.require_array().items();
  if (items.empty()) node.fail("expected at least one replica");
  double shares = 0;
  for (const DocNode& item : items) {
    item.require_object();
    PlanReplica rep;
    const DocNode& hosts = item.at("hosts").require_array();
    for (const DocNode& h : hosts.items()) {
      std::string name = h.as_string();
      if (std::find(rep.hosts.begin(), rep.hosts.end(), name) != rep.hosts.end())
        h.fail(fmt::format("host {} appears twice in one replica", name));
      for (const PlanReplica& prev : out)
        if (std::find(prev.hosts.begin(), prev.hosts.end(), name) != prev.hosts.end())
          h.fail(fmt::format("expected disjoint replicas; host {} is in two", name));
      rep.hosts.push_back(std::move(name));
    }
    if (rep.hosts.empty()) hosts.fail("expected the replica's hosts, at least one");
    rep.strategy = item.at("strategy").as_string();
    rep.backend = item.at("backend").as_string();
    const DocNode& share = item.at("request_share");
    rep.request_share = share.as_number();
    if (!(rep.request_share > 0 && rep.request_share <= 1))
      share.fail("expected the replica's fraction of the requests, above 0 up to 1");
    shares += rep.request_share;
    const DocNode& ranks = item.at("ranks").require_array();
    for (size_t i = 0; i < ranks.items().size(); ++i) {
      const DocNode& n = ranks.items()[i];
      PlanRank r = read_rank(n, i);
      if (std::find(rep.hosts.begin(), rep.hosts.end(), r.host) == rep.hosts.end())
        n.at("host").fail(fmt::format("expected a host of the replica's hosts, got {}", r.host));
      for (const PlanRank& prev : rep.ranks)
        if (prev.host == r.host) n.at("host").fail(fmt::format("host {} has two ranks", r.host));
      if (!r.layers) n.fail("expected the rank's \"layers\" as [start, end)");
      rep.ranks.push_back(std::move(r));
    }
    if (rep.ranks.size() != rep.hosts.size())
      ranks.fail(
          fmt::format("expected a rank for each of the replica's {} hosts", rep.hosts.size()));
    out.push_back(std::move(rep));
  }
  // The writer rounds each share to 4 decimals.
  if (std::abs(shares - 1) > 0.01)
    node.fail(fmt::format("expected request shares that sum to 1, got {:.4f}", shares));
  return out;
}

// The engine a plan names: one of the engine table's.
std::string read_engine(const DocNode& node) {
  std::string name = node.as_string();
  if (!find_engine(name)) node.fail(fmt::format("expected {}, or null", engine_names()));
  return name;
}

}  // namespace

namespace {

// The models of a workload plan, each with the hosts of its plan and of its replicas.
PlanRanks read_workload_ranks(const DocNode& root) {
  PlanRanks out;
  const DocNode& plans = root.at("plans").require_array();
  if (plans.items().empty()) plans.fail("expected at least one model's plan");
  auto add_rank = [&](const std::string& host) {
    for (const auto& r : out.ranks)
      if (r.host == host) return;  // colocated models share a host
    PlanRank r;
    r.rank = static_cast<int>(out.ranks.size());
    r.host = host;
    out.ranks.push_back(std::move(r));
  };
  for (const DocNode& item : plans.items()) {
    const DocNode& plan = item.require_object().at("plan");
    PlanRanks one = read_plan_ranks(plan);
    ModelHosts m;
    m.model = plan.at("model").require_object().at("name").as_string();
    m.hosts = one.hosts();
    for (const PlanReplica& rep : one.replicas)
      for (const std::string& h : rep.hosts)
        if (std::find(m.hosts.begin(), m.hosts.end(), h) == m.hosts.end()) m.hosts.push_back(h);
    for (const auto& h : m.hosts)
      add_rank(h);
    out.models.push_back(std::move(m));
  }
  return out;
}

// The counts of "model" the engines' rules need; each a whole number from 0 to 2^20.
PlanRanks::ModelShape read_model_shape(const DocNode& m) {
  PlanRanks::ModelShape shape;
  auto count = [&](const char* key, int& into) {
    if (const DocNode* n = m.find(key)) {
      const int64_t v = n->as_int();
      if (v < 0 || v > (1 << 20)) n->fail("expected a count from 0 to 1048576");
      into = static_cast<int>(v);
    }
  };
  count("layers", shape.layers);
  count("attention_heads", shape.attention_heads);
  count("kv_heads", shape.kv_heads);
  count("hidden_size", shape.hidden_size);
  count("routed_experts", shape.routed_experts);
  return shape;
}

}  // namespace

PlanRanks read_plan_ranks(const DocNode& root) {
  root.require_object();
  if (auto* s = root.find("schema"); s && s->as_string() == kWorkloadPlanSchema)
    return read_workload_ranks(root);
  else if (s && s->as_string() == "meshplan.plan/1")
    s->fail(
        "a plan of an earlier meshplan (meshplan.plan/1, whose serving figures counted "
        "--concurrency per replica); plan again to write meshplan.plan/2");
  else if (s && s->as_string() != kPlanSchema)
    s->fail(fmt::format("expected schema \"{}\" or \"{}\", got \"{}\"", kPlanSchema,
                        kWorkloadPlanSchema, s->text()));
  PlanRanks out;
  if (auto* b = root.find("backend"); b && b->is_string()) out.backend = b->text();
  if (auto* s = root.find("strategy"); s && s->is_string()) out.strategy = s->text();
  if (auto* t = root.find("transport"); t && t->is_string()) out.transport = t->text();
  if (auto* e = root.find("engine_reason"); e && e->is_string()) out.engine_reason = e->text();
  if (auto* m = root.find("made_for")) out.made_for = read_made_for(*m);
  if (auto* m = root.find("model"); m && m->is_object()) out.model = read_model_shape(*m);
  if (auto* r = root.find("routing")) out.routing = read_routing(*r);
  if (auto* e = root.find("engine"); e && !e->is_null()) out.engine = read_engine(*e);
  if (auto* r = root.find("replicas"); r && !r->is_null()) out.replicas = read_replicas(*r);
  if (auto* shapes = root.find("shapes"); shapes && !shapes->is_null())
    for (const DocNode& s : shapes->require_array().items()) {
      s.require_object();
      const DocNode* chosen = s.find("chosen");
      if (!chosen || !chosen->as_bool() || s.at("shape").as_string() != "disaggregated") continue;
      PlanDisaggregation d;
      for (const DocNode& h : s.at("prefill_hosts").require_array().items())
        d.prefill_hosts.push_back(h.as_string());
      for (const DocNode& h : s.at("decode_hosts").require_array().items())
        d.decode_hosts.push_back(h.as_string());
      if (d.prefill_hosts.empty() || d.decode_hosts.empty())
        s.fail("expected prefill_hosts and decode_hosts, one host or more each");
      out.disaggregated = d;
    }
  const DocNode& ranks = root.at("ranks").require_array();
  if (ranks.items().empty()) ranks.fail("expected at least one rank");
  for (size_t i = 0; i < ranks.items().size(); ++i) {
    const DocNode& n = ranks.items()[i];
    PlanRank r = read_rank(n, i);
    for (const auto& prev : out.ranks)
      if (prev.host == r.host)
        n.at("host").fail(fmt::format("host {} appears in two ranks", r.host));
    out.ranks.push_back(std::move(r));
  }
  return out;
}

std::vector<PlanReplica> launch_replicas(const PlanRanks& plan) {
  if (!plan.replicas.empty()) return plan.replicas;
  if (!plan.routing || plan.routing->hosts.empty()) return {};
  // Routed: whole copies only when every host holds the same [0, L) (a routed plan covers every
  // layer, so L is the model's); any host on a part of the layers needs the routing table.
  const auto& hosts = plan.routing->hosts;
  double total = 0;
  for (const RoutedHostInfo& h : hosts) {
    if (h.layer_start != 0 || h.layer_end != hosts.front().layer_end) return {};
    total += h.flow;
  }
  std::vector<PlanReplica> out;
  for (const RoutedHostInfo& h : hosts) {
    PlanReplica rep;
    rep.hosts = {h.host};
    rep.strategy = name(StrategyKind::kPipeline);
    rep.backend = plan.backend;
    // By flow: the tokens/s this copy carries of the plan's whole.
    rep.request_share = total > 0 ? h.flow / total : 1.0 / static_cast<double>(hosts.size());
    PlanRank& r = rep.ranks.emplace_back();
    r.host = h.host;
    r.layers.emplace(0, h.layer_end);
    out.push_back(std::move(rep));
  }
  return out;
}

}  // namespace meshplan
