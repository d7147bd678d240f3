// `meshplan plan --frontier` and `--frontier-svg` through the real binary on two DGX Sparks with
// gpt-oss-120b: the shapes compared, the plan's own point on its line, the targets marked, and the
// chart rendered by librsvg (rsvg-convert from Debian).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_support.hpp"

namespace meshplan::frontier_cli_test {
namespace {

using nlohmann::json;
using testing::run_meshplan;
using testing::source_path;
using testing::temp_dir;

const std::string kSparks = source_path("tests/fixtures/clusters/spark-pair-roce-cable.yaml");

json plan(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"plan",  "--json", "-c",
                                   kSparks, "-m",     "gpt-oss-120b-mxfp4-bf16"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_meshplan(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json();
}

const json* series(const json& frontier, const std::string& shape) {
  for (const json& s : frontier["series"])
    if (s["shape"] == shape) return &s;
  return nullptr;
}

TEST(frontier_cli_test, every_shape_as_the_load_grows_with_the_plan_on_its_line) {
  json p = plan({"--objective", "throughput", "--concurrency", "32", "--frontier"});
  const json& f = p["frontier"];
  const json* tensor = series(f, "tensor over spark-1+spark-2");
  const json* alone = series(f, "one copy on spark-1");
  const json* replicas = series(f, "replicas");
  ASSERT_TRUE(tensor && alone && replicas) << f.dump(1);
  EXPECT_EQ(series(f, "one copy on spark-2"), nullptr) << "one series per kind of host";
  for (const json* s : {tensor, alone, replicas}) {
    const json& points = (*s)["points"];
    ASSERT_GE(points.size(), 6u) << (*s)["shape"];
    EXPECT_EQ(points[0]["requests_in_flight"], (*s)["shape"] == "replicas" ? 2 : 1);
    for (size_t i = 1; i < points.size(); ++i) {
      // More requests: more in all, less each.
      EXPECT_GT(points[i]["aggregate_tokens_per_s"].get<double>(),
                points[i - 1]["aggregate_tokens_per_s"].get<double>());
      EXPECT_LT(points[i]["stream_tokens_per_s"].get<double>(),
                points[i - 1]["stream_tokens_per_s"].get<double>());
    }
  }
  // The plan is one of the shapes at its load, and the best of them there.
  const json& chosen = f["chosen"];
  EXPECT_EQ(chosen["requests_in_flight"], 32);
  EXPECT_NEAR(chosen["aggregate_tokens_per_s"].get<double>(),
              p["serving"]["aggregate_tokens_per_s"].get<double>(), 1e-3);
  const json* own = series(f, chosen["shape"].get<std::string>());
  ASSERT_TRUE(own) << chosen["shape"];
  for (const json& s : f["series"])
    for (const json& q : s["points"]) {
      if (q["requests_in_flight"] != 32) continue;
      EXPECT_LE(q["aggregate_tokens_per_s"].get<double>(),
                chosen["aggregate_tokens_per_s"].get<double>() * (1 + 1e-6))
          << s["shape"];
    }
  bool on_line = false;
  for (const json& q : (*own)["points"])
    if (q["requests_in_flight"] == 32)
      on_line = std::abs(q["aggregate_tokens_per_s"].get<double>() -
                         chosen["aggregate_tokens_per_s"].get<double>()) < 1e-3;
  EXPECT_TRUE(on_line);
}

TEST(frontier_cli_test, points_that_miss_the_targets_are_marked) {
  json p = plan({"--ttft-ms", "400", "--tpot-ms", "40", "--frontier"});
  const json& s = p["serving"];
  EXPECT_LE(s["ttft_ms"].get<double>(), 400);
  EXPECT_LE(s["tpot_ms"].get<double>(), 40);
  int met = 0, missed = 0;
  for (const json& series : p["frontier"]["series"])
    for (const json& q : series["points"]) {
      const bool ok = q["ttft_ms"].get<double>() <= 400 * (1 + 1e-9) &&
                      1000 / q["stream_tokens_per_s"].get<double>() <= 40 * (1 + 1e-3);
      EXPECT_EQ(q["meets_targets"].get<bool>(), ok)
          << series["shape"] << " " << q["requests_in_flight"];
      (ok ? met : missed) += 1;
    }
  EXPECT_GT(met, 0);
  EXPECT_GT(missed, 0);
}

// The chart: rendered by librsvg to a PNG of the chart's size, with far more drawn on it than on
// an empty chart of the same size.
TEST(frontier_cli_test, the_chart_renders) {
  const std::string dir = temp_dir();
  const std::string svg = dir + "/frontier.svg";
  auto r = run_meshplan({"plan", "-c", kSparks, "-m", "gpt-oss-120b-mxfp4-bf16", "--concurrency",
                         "32", "--objective", "throughput", "--frontier-svg", svg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Frontier (the plan: "), std::string::npos) << r.out;
  const std::string text = testing::read_text(svg);
  EXPECT_NE(text.find("gpt-oss-120b-mxfp4-bf16 on"), std::string::npos);
  std::ofstream(dir + "/empty.svg") << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" "
                                       "height=\"560\"><rect width=\"900\" height=\"560\" "
                                       "fill=\"white\"/></svg>\n";
  for (const char* name : {"frontier", "empty"}) {
    const std::string cmd = "rsvg-convert -f png -o " + dir + "/" + name + ".png " + dir + "/" +
                            name + ".svg 2>" + dir + "/" + name + ".err";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << testing::read_text(dir + "/" + name + ".err");
  }
  const std::string png = testing::read_text(dir + "/frontier.png");
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  auto be32 = [&](size_t at) {
    return (static_cast<unsigned char>(png[at]) << 24) |
           (static_cast<unsigned char>(png[at + 1]) << 16) |
           (static_cast<unsigned char>(png[at + 2]) << 8) | static_cast<unsigned char>(png[at + 3]);
  };
  EXPECT_EQ(be32(16), 900u);
  EXPECT_EQ(be32(20), 560u);
  EXPECT_GT(png.size(), 10 * testing::read_text(dir + "/empty.png").size());
}

}  // namespace
}  // namespace meshplan::frontier_cli_test
