#include "lib/plan/plan_host_lines.hpp"

#include <gtest/gtest.h>

namespace meshplan::plan_host_lines_test {
namespace {

HostInfo host(int gpus, int tp, bool used) {
  HostInfo h;
  h.name = "gpu-1";
  h.usable_bytes = 64.0 * 1024 * 1024 * 1024;
  h.usable_rule = "80% of memory";
  h.bandwidth = 3.35e12;
  h.flops = 989.4e12;
  h.gpus = gpus;
  h.tp = tp;
  h.gpu_link = "NVLink";
  h.used = used;
  return h;
}

TEST(plan_host_lines_test, one_line_per_gpu_layout) {
  const std::string head =
      "gpu-1: usable 64.0 GiB (80% of memory), 3350 GB/s and 989.4 TFLOP/s (decode) effective";
  EXPECT_EQ(plan_host_line(host(1, 1, true)), head);
  EXPECT_EQ(plan_host_line(host(1, 1, false)), head + ", not used");
  EXPECT_EQ(plan_host_line(host(8, 8, true)), head + ", layers split over 8 GPUs (NVLink)");
  EXPECT_EQ(plan_host_line(host(8, 4, true)),
            head + ", 8 GPUs: layers split over groups of 4 (NVLink), the groups a pipeline");
  EXPECT_EQ(plan_host_line(host(4, 1, false)), head + ", 4 GPUs as a pipeline, not used");
}

}  // namespace
}  // namespace meshplan::plan_host_lines_test
