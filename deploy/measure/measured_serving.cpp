#include "deploy/measure/measured_serving.hpp"

#include <algorithm>
#include <cmath>

#include "lib/plan/engines.hpp"
#include "lib/plan/plan_file_reader.hpp"

namespace meshplan {
namespace {

// Tokens/s as a measurement carries them: a decimal below 100 ("2.4", "33.4"), none above.
std::string rate(double tps) {
  return tps < 100 ? fmt::format("{:.1f}", tps) : fmt::format("{:.0f}", tps);
}

// Rounded to what a measurement carries (people read the file too), never to 0: the reader takes
// positive figures only.
double hundredths(double v) {
  const double r = std::round(v * 100) / 100;
  return r > 0 ? r : v;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

double number_at(const DocNode& object, std::string_view key) {
  const DocNode& v = object.at(key);
  const double x = v.as_number();
  if (!(x >= 0)) v.fail("expected a number, at least 0");
  return x;
}

}  // namespace

PlanPrediction read_plan_prediction(const DocNode& root) {
  root.require_object();
  if (const DocNode* s = root.find("schema"); s && s->is_string() && s->text() != kPlanSchema)
    s->fail(fmt::format("expected a plan file (schema \"{}\"), got \"{}\"{}", kPlanSchema,
                        s->text(),
                        s->text() == "meshplan.workload-plan/1"
                            ? ": a workload plan holds several models; give the plan of the "
                              "one the endpoint serves"
                            : ""));
  PlanPrediction p;
  p.model = root.at("model").require_object().at("name").as_string();
  const PlanRanks ranks = read_plan_ranks(root);
  p.engine = ranks.engine;
  for (const PlanRank& r : ranks.ranks)
    p.hosts.push_back(r.host);
  for (const PlanReplica& rep : ranks.replicas)
    for (const std::string& h : rep.hosts)
      if (std::find(p.hosts.begin(), p.hosts.end(), h) == p.hosts.end()) p.hosts.push_back(h);
  if (const DocNode* prompt = root.find("prompt")) p.prompt_tokens = prompt->as_int();
  const DocNode& predicted = root.at("predicted").require_object();
  p.ttft_ms = number_at(predicted, "ttft_ms");
  p.stream_tps = number_at(predicted, "decode_tokens_per_s");
  p.total_tps = p.stream_tps;
  if (const DocNode* serving = root.find("serving")) {
    serving->require_object();
    // The requests in flight over every replica, each request's means under that load, and the
    // output tokens/s in all: what measure's closed loop sees.
    const DocNode& c = serving->at("requests_in_flight");
    const int64_t in_flight = c.as_int();
    if (in_flight < 1) c.fail("expected the requests in flight over every replica, at least 1");
    p.concurrency = static_cast<int>(in_flight);
    const double tpot_ms = number_at(*serving, "tpot_ms");
    if (tpot_ms > 0) p.stream_tps = 1000 / tpot_ms;
    if (serving->find("ttft_ms")) p.ttft_ms = number_at(*serving, "ttft_ms");
    p.total_tps = number_at(*serving, "output_tokens_per_s");
  }
  return p;
}

Cluster with_measured_serving(Cluster cluster, const PlanPrediction& plan, const std::string& url,
                              const std::vector<LevelResult>& levels, const std::string& date) {
  const std::vector<std::string> hosts = sorted(plan.hosts);
  auto& entries = cluster.measured_serving;
  for (const LevelResult& level : levels) {
    std::erase_if(entries, [&](const MeasuredServing& m) {
      return m.model == plan.model && m.engine == plan.engine && sorted(m.hosts) == hosts &&
             m.concurrency == level.concurrency;
    });
    MeasuredServing m;
    m.date = date;
    m.url = url;
    m.engine = plan.engine;
    m.model = plan.model;
    m.hosts = plan.hosts;
    m.concurrency = level.concurrency;
    m.ttft_ms = hundredths(level.ttft_mean_s * 1e3);
    m.stream_tps = hundredths(level.stream_tokens_per_s);
    m.total_tps = hundredths(level.total_tokens_per_s);
    entries.push_back(std::move(m));
  }
  return cluster;
}

std::vector<MeasuredServing> measured_for(const Cluster& cluster, const std::string& model,
                                          const std::string& engine,
                                          std::vector<std::string> hosts) {
  hosts = sorted(std::move(hosts));
  std::vector<MeasuredServing> out;
  std::string newest;
  for (const MeasuredServing& m : cluster.measured_serving) {
    if (m.model != model || m.engine != engine || sorted(m.hosts) != hosts) continue;
    newest = std::max(newest, m.date);
    out.push_back(m);
  }
  std::erase_if(out, [&](const MeasuredServing& m) { return m.date != newest; });
  std::stable_sort(out.begin(), out.end(), [](const MeasuredServing& a, const MeasuredServing& b) {
    return a.concurrency < b.concurrency;
  });
  return out;
}

std::optional<double> predicted_stream_tps(const Plan& plan, int concurrency) {
  if (plan.serving) {
    if (concurrency == plan.serving->requests_in_flight && plan.serving->tpot_s > 0)
      return 1 / plan.serving->tpot_s;
    return std::nullopt;
  }
  if (concurrency == 1) return plan.predicted.decode_tokens_per_s;
  return std::nullopt;
}

std::vector<std::string> measured_lines(const Cluster& cluster, const Plan& plan) {
  std::vector<std::string> lines;
  for (const MeasuredServing& m :
       measured_for(cluster, plan.model_name, plan.engine, plan_hosts(plan))) {
    std::string line = fmt::format(
        "Measured {} at concurrency {}: {} tokens/s a stream, {} in all, TTFT {:.0f} ms", m.date,
        m.concurrency, rate(m.stream_tps), rate(m.total_tps), m.ttft_ms);
    if (auto p = predicted_stream_tps(plan, m.concurrency))
      line += fmt::format(" (predicted {} a stream)", rate(*p));
    lines.push_back(line);
  }
  return lines;
}

ojson measured_json(const Cluster& cluster, const Plan& plan) {
  ojson list = ojson::array();
  for (const MeasuredServing& m :
       measured_for(cluster, plan.model_name, plan.engine, plan_hosts(plan))) {
    ojson x;
    x["date"] = m.date;
    x["url"] = m.url;
    x["concurrency"] = m.concurrency;
    x["ttft_ms"] = json_number(std::round(m.ttft_ms * 100) / 100);
    x["stream_tokens_per_s"] = json_number(std::round(m.stream_tps * 100) / 100);
    x["total_tokens_per_s"] = json_number(std::round(m.total_tps * 100) / 100);
    if (auto p = predicted_stream_tps(plan, m.concurrency))
      x["predicted_stream_tokens_per_s"] = json_number(std::round(*p * 1000) / 1000);
    list.push_back(x);
  }
  return list;
}

}  // namespace meshplan
