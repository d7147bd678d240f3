#include "solvers/problem/request_flags.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "lib/core/error.hpp"

namespace meshplan::request_flags_test {
namespace {

std::string input_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput) << e.what();
    return e.what();
  }
  return "no error";
}

TEST(request_flags_test, the_flags_as_written_become_the_request) {
  RequestFlags f;
  f.context = "32k";
  f.prompt = "0";
  f.headroom = "10%";
  f.hosts = {"a", "b"};
  f.pins = {"a=0-20"};
  PlanRequest r;
  apply_request_flags(f, r);
  EXPECT_EQ(r.context, 32768);
  EXPECT_EQ(r.prompt, 0);
  EXPECT_DOUBLE_EQ(r.headroom_fraction, 0.1);
  EXPECT_EQ(r.hosts, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(r.pins.size(), 1u);
  EXPECT_EQ(r.pins[0].host, "a");
  EXPECT_EQ(r.pins[0].start, 0);
  EXPECT_EQ(r.pins[0].end, 21);
  PlanRequest bytes;
  parse_headroom("8GiB", bytes);
  EXPECT_DOUBLE_EQ(bytes.headroom_bytes, 8.0 * (1LL << 30));
}

TEST(request_flags_test, each_bad_flag_is_named_with_its_expected_form) {
  EXPECT_NE(input_error_of([] { token_count("--context", "lots"); }).find("--context lots"),
            std::string::npos);
  EXPECT_NE(input_error_of([] { parse_pin("a=20-3"); }).find("must not be before"),
            std::string::npos);
  EXPECT_NE(input_error_of([] { parse_pin("a:0-3"); }).find("HOST=FIRST-LAST"), std::string::npos);
  PlanRequest r;
  EXPECT_NE(input_error_of([&] { parse_headroom("1.5", r); }).find("a fraction is below 1"),
            std::string::npos);
}

TEST(request_flags_test, routed_plans_for_throughput_and_a_minimum_implies_it) {
  PlanRequest r;
  r.strategy = "routed";
  apply_request_flags({}, r);
  EXPECT_EQ(r.objective, "throughput");
  r.objective = "latency";
  EXPECT_NE(input_error_of([&] { apply_request_flags({}, r); }).find("not latency"),
            std::string::npos);
  PlanRequest s;
  ServingFlags f;
  f.output_tokens = "1k";
  f.min_stream_tps = 5;
  apply_serving_flags(f, s);
  EXPECT_EQ(s.objective, "throughput");
  EXPECT_EQ(s.output_tokens, 1024);
  EXPECT_DOUBLE_EQ(s.tpot_target_s, 0.2) << "--min-stream-tps 5 is --tpot-ms 200";
}

TEST(request_flags_test, a_load_is_stated_one_way_and_a_target_one_way) {
  PlanRequest r;
  ServingFlags f;
  f.tpot_ms = 50;
  f.min_stream_tps = 20;
  EXPECT_NE(input_error_of([&] { apply_serving_flags(f, r); }).find("give one"), std::string::npos);
  r.concurrency = 8;
  ServingFlags g;
  g.rate = 2;
  EXPECT_NE(input_error_of([&] { apply_serving_flags(g, r); }).find("two ways to state the load"),
            std::string::npos);
  ServingFlags bad;
  bad.ttft_ms = -1;
  EXPECT_NE(input_error_of([&] { apply_serving_flags(bad, r); }).find("--ttft-ms -1: expected"),
            std::string::npos);
  PlanRequest s;
  ServingFlags ok;
  ok.rate = 1.5;
  ok.ttft_ms = 2000;
  apply_serving_flags(ok, s);
  EXPECT_EQ(s.objective, "throughput");
  EXPECT_DOUBLE_EQ(s.rate, 1.5);
  EXPECT_DOUBLE_EQ(s.ttft_target_s, 2);
}

}  // namespace
}  // namespace meshplan::request_flags_test
