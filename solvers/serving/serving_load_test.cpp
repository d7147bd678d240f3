#include "solvers/serving/serving_load.hpp"

#include <gtest/gtest.h>

namespace meshplan::serving_load_test {
namespace {

// A copy whose step grows by a tenth of one stream's per extra stream (weights read once, each
// stream's KV and compute on top), 64 streams at most, and a prompt of `prefill` seconds.
CopyCurve copy(double prefill) {
  return CopyCurve{[](int n) { return 0.020 + 0.002 * (n - 1); }, 64, prefill};
}

TEST(serving_load_test, without_prompts_a_token_takes_one_step_of_the_streams_in_flight) {
  LoadPoint p = closed_load(copy(0), 8, 100);
  EXPECT_DOUBLE_EQ(p.tpot_s, 0.034);
  // Half a step waiting for the one under way, when one of the others' is (7 of the 8).
  EXPECT_DOUBLE_EQ(p.ttft_s, 0.017 * 7 / 8);
  EXPECT_DOUBLE_EQ(p.decode_tokens_per_s, 8 / 0.034);
  EXPECT_NEAR(p.requests_per_s, 8 / (0.017 * 7 / 8 + 99 * 0.034), 1e-12);
  EXPECT_NEAR(p.output_tokens_per_s, 100 * p.requests_per_s, 1e-9);
  EXPECT_FALSE(p.overloaded);
}

TEST(serving_load_test, one_request_at_a_time_sees_one_prefill_and_one_step) {
  LoadPoint p = closed_load(copy(0.5), 1, 256);
  EXPECT_DOUBLE_EQ(p.ttft_s, 0.5);
  EXPECT_DOUBLE_EQ(p.tpot_s, 0.020);
  EXPECT_NEAR(p.requests_per_s, 1 / (0.5 + 255 * 0.020), 1e-12);
}

TEST(serving_load_test, the_others_prefills_hold_the_decode_for_the_share_of_time_they_take) {
  LoadPoint p = closed_load(copy(0.5), 16, 256);
  // The prefill utilisation is what the request rate makes of the prompts (Little's law); 15 of
  // the 16 prefills are the others'.
  EXPECT_NEAR(p.busy_prefilling, p.requests_per_s * 0.5, 1e-9);
  const double held = p.busy_prefilling * 15 / 16;
  EXPECT_NEAR(p.tpot_s, (0.020 + 0.002 * 15) / (1 - held), 1e-12);
  EXPECT_NEAR(p.ttft_s, 0.5 + held * 0.5 / (2 * (1 - held)) + 0.025 * 15 / 16, 1e-12);
  EXPECT_NEAR(p.requests_per_s * (p.ttft_s + 255 * p.tpot_s), 16, 1e-6);
}

TEST(serving_load_test, more_requests_in_flight_serve_more_and_each_waits_longer) {
  const CopyCurve c = copy(0.3);
  LoadPoint last = closed_load(c, 1, 128);
  for (int n = 2; n <= 64; n *= 2) {
    LoadPoint p = closed_load(c, n, 128);
    EXPECT_GT(p.requests_per_s, last.requests_per_s) << n;
    EXPECT_GT(p.tpot_s, last.tpot_s) << n;
    EXPECT_GT(p.ttft_s, last.ttft_s) << n;
    last = p;
  }
}

// The same load stated both ways gives the same figures: a closed loop of N in flight finishes R
// a second, and R arriving a second keep N in flight.
TEST(serving_load_test, a_closed_loop_and_its_arrival_rate_agree) {
  const CopyCurve c = copy(0.2);
  for (int n : {1, 4, 13, 40}) {
    LoadPoint closed = closed_load(c, n, 200);
    LoadPoint open = open_load(c, closed.requests_per_s, 200);
    ASSERT_FALSE(open.overloaded) << n;
    EXPECT_NEAR(open.in_flight, n, 1e-6 * n) << n;
    EXPECT_NEAR(open.tpot_s, closed.tpot_s, 1e-9) << n;
    EXPECT_NEAR(open.ttft_s, closed.ttft_s, 1e-9) << n;
  }
}

TEST(serving_load_test, arrivals_beyond_what_the_copy_finishes_overload_it) {
  EXPECT_TRUE(open_load(copy(0.5), 2.0, 100).overloaded) << "prefills alone take all the time";
  EXPECT_TRUE(open_load(copy(0.5), 2.5, 100).overloaded);
  // No prefill to speak of, but more in flight than the 64 that fit.
  LoadPoint most = closed_load(copy(0.001), 64, 100);
  EXPECT_FALSE(open_load(copy(0.001), most.requests_per_s * 0.99, 100).overloaded);
  EXPECT_TRUE(open_load(copy(0.001), most.requests_per_s * 1.05, 100).overloaded);
}

TEST(serving_load_test, targets_are_met_or_missed_by_the_mean_figures) {
  LoadPoint p = closed_load(copy(0.2), 8, 100);
  EXPECT_TRUE((LatencyTargets{p.ttft_s, p.tpot_s}.met_by(p)));
  EXPECT_FALSE((LatencyTargets{p.ttft_s * 0.99, 0}.met_by(p)));
  EXPECT_FALSE((LatencyTargets{0, p.tpot_s * 0.99}.met_by(p)));
  EXPECT_FALSE(LatencyTargets{}.any());
  EXPECT_TRUE(LatencyTargets{}.met_by(p));
}

}  // namespace
}  // namespace meshplan::serving_load_test
