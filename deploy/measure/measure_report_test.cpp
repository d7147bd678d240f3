#include "deploy/measure/measure_report.hpp"

#include <gtest/gtest.h>

namespace meshplan::measure_report_test {
namespace {

MeasureReport report() {
  MeasureReport r;
  r.url = "http://10.0.0.1:8080";
  r.api = "completions";
  r.prompt_tokens = 128;
  r.output_tokens = 64;
  for (int c : {1, 4}) {
    LevelResult l;
    l.concurrency = c;
    l.requests = 4 * c;
    l.ttft_mean_s = 0.1 * c;
    l.ttft_p50_s = 0.09 * c;
    l.stream_tokens_per_s = 40.0 / c + 10;
    l.total_tokens_per_s = (40.0 / c + 10) * c;
    l.tokens = 64 * l.requests;
    l.wall_s = 2;
    r.levels.push_back(l);
  }
  return r;
}

TEST(measure_report_test, the_table_has_a_row_per_level) {
  EXPECT_EQ(render_measure_table(report()),
            "Measured http://10.0.0.1:8080 (/v1/completions): prompt of about 128 tokens, 64 "
            "tokens out\n"
            "concurrency  requests  TTFT mean  TTFT p50  tokens/s a stream  tokens/s in all\n"
            "          1         4     100 ms     90 ms               50.0             50.0\n"
            "          4        16     400 ms    360 ms               20.0             80.0\n");
}

TEST(measure_report_test, the_plans_prediction_stands_beside_the_level_it_predicts) {
  MeasureReport r = report();
  PlanPrediction p;
  p.concurrency = 4;
  p.stream_tps = 22.25;
  p.total_tps = 89;
  p.ttft_ms = 350;
  r.plan = p;
  r.levels[1].server_tokens_per_s = 21.0;
  const std::string table = render_measure_table(r);
  EXPECT_NE(table.find("server's a stream  predicted a stream  predicted in all  predicted TTFT"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("21.0                22.2              89.0          350 ms\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("-                   -                 -               -\n"),
            std::string::npos)
      << table;
  ojson j = measure_to_json(r);
  EXPECT_EQ(j["schema"], "meshplan.measure/1");
  EXPECT_FALSE(j["levels"][0].contains("predicted"));
  EXPECT_EQ(j["levels"][1]["predicted"]["stream_tokens_per_s"], 22.25);
  EXPECT_EQ(j["levels"][1]["ttft_ms"]["p50"], 360);
  EXPECT_EQ(j["levels"][1]["server_stream_tokens_per_s"], 21);
  p.concurrency = 8;
  r.plan = p;
  EXPECT_NE(render_measure_table(r).find("The plan predicts concurrency 8 only (--concurrency 8 "
                                         "measures it)"),
            std::string::npos);
}

}  // namespace
}  // namespace meshplan::measure_report_test
