#include "deploy/measure/measure_report.hpp"

#include <cmath>

#include "lib/core/text_table.hpp"

namespace meshplan {
namespace {

std::string ms(double seconds) {
  return fmt::format("{:.0f} ms", seconds * 1e3);
}

std::string tps(double v) {
  return v > 0 ? fmt::format("{:.1f}", v) : "-";
}

ojson rounded(double v, double scale = 100) {
  return json_number(std::round(v * scale) / scale);
}

// The plan predicts one level only: its own concurrency.
const PlanPrediction* prediction_for(const MeasureReport& r, const LevelResult& level) {
  return r.plan && r.plan->concurrency == level.concurrency ? &*r.plan : nullptr;
}

}  // namespace

std::string render_measure_table(const MeasureReport& report) {
  bool server = false;
  for (const LevelResult& l : report.levels)
    server = server || l.server_tokens_per_s.has_value();
  std::vector<std::string> header = {"concurrency", "requests",          "TTFT mean",
                                     "TTFT p50",    "tokens/s a stream", "tokens/s in all"};
  if (server) header.push_back("server's a stream");
  if (report.plan) {
    header.push_back("predicted a stream");
    header.push_back("predicted in all");
    header.push_back("predicted TTFT");
  }
  std::vector<TextTable::Align> align(header.size(), TextTable::Align::kRight);
  TextTable table(header, align);
  for (const LevelResult& l : report.levels) {
    std::vector<std::string> row = {std::to_string(l.concurrency),
                                    std::to_string(l.requests),
                                    ms(l.ttft_mean_s),
                                    ms(l.ttft_p50_s),
                                    tps(l.stream_tokens_per_s),
                                    tps(l.total_tokens_per_s)};
    if (server) row.push_back(l.server_tokens_per_s ? tps(*l.server_tokens_per_s) : "-");
    if (report.plan) {
      const PlanPrediction* p = prediction_for(report, l);
      row.push_back(p ? tps(p->stream_tps) : "-");
      row.push_back(p ? tps(p->total_tps) : "-");
      row.push_back(p ? fmt::format("{:.0f} ms", p->ttft_ms) : "-");
    }
    table.add_row(row);
  }
  std::string out =
      fmt::format("Measured {} (/v1/{}): prompt of about {} tokens, {} tokens out\n", report.url,
                  report.api == "chat" ? "chat/completions" : "completions", report.prompt_tokens,
                  report.output_tokens);
  out += table.render();
  if (report.plan && !report.levels.empty()) {
    bool predicted = false;
    for (const LevelResult& l : report.levels)
      predicted = predicted || prediction_for(report, l);
    if (!predicted)
      out += fmt::format("The plan predicts concurrency {} only (--concurrency {} measures it)\n",
                         report.plan->concurrency, report.plan->concurrency);
  }
  return out;
}

ojson measure_to_json(const MeasureReport& report) {
  ojson j;
  j["schema"] = kMeasureSchema;
  j["url"] = report.url;
  j["api"] = report.api;
  j["prompt_tokens"] = report.prompt_tokens;
  j["output_tokens"] = report.output_tokens;
  if (report.plan) {
    j["plan"] = ojson{{"model", report.plan->model},
                      {"engine", report.plan->engine},
                      {"hosts", report.plan->hosts},
                      {"concurrency", report.plan->concurrency}};
  }
  ojson levels = ojson::array();
  for (const LevelResult& l : report.levels) {
    ojson x;
    x["concurrency"] = l.concurrency;
    x["requests"] = l.requests;
    x["tokens"] = l.tokens;
    x["wall_s"] = rounded(l.wall_s, 1000);
    x["ttft_ms"] =
        ojson{{"mean", rounded(l.ttft_mean_s * 1e3)}, {"p50", rounded(l.ttft_p50_s * 1e3)}};
    x["stream_tokens_per_s"] = rounded(l.stream_tokens_per_s);
    x["total_tokens_per_s"] = rounded(l.total_tokens_per_s);
    if (l.server_tokens_per_s) x["server_stream_tokens_per_s"] = rounded(*l.server_tokens_per_s);
    if (const PlanPrediction* p = prediction_for(report, l))
      x["predicted"] = ojson{{"stream_tokens_per_s", rounded(p->stream_tps, 1000)},
                             {"total_tokens_per_s", rounded(p->total_tps, 1000)},
                             {"ttft_ms", rounded(p->ttft_ms, 1000)}};
    levels.push_back(x);
  }
  j["levels"] = levels;
  return j;
}

}  // namespace meshplan
