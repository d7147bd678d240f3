#include "lib/core/units.hpp"

#include <gtest/gtest.h>

namespace meshplan::units_test {
namespace {

TEST(units_test, bytes_decimal_and_binary) {
  EXPECT_DOUBLE_EQ(*parse_bytes("512GB"), 512e9);
  EXPECT_DOUBLE_EQ(*parse_bytes("192GiB"), 192.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*parse_bytes("64 MiB"), 64.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*parse_bytes("1.5TB"), 1.5e12);
  EXPECT_DOUBLE_EQ(*parse_bytes("4096"), 4096);
  EXPECT_DOUBLE_EQ(*parse_bytes("-5GB"), -5e9);  // the caller rejects negative sizes
  EXPECT_FALSE(parse_bytes("lots"));
  EXPECT_FALSE(parse_bytes("12 parsecs"));
  EXPECT_FALSE(parse_bytes(""));
}

TEST(units_test, link_speeds) {
  EXPECT_DOUBLE_EQ(*parse_gbps("80Gbps"), 80);
  EXPECT_DOUBLE_EQ(*parse_gbps("80 Gb/s"), 80);
  EXPECT_DOUBLE_EQ(*parse_gbps("Up to 120 Gb/s"), 120);
  EXPECT_DOUBLE_EQ(*parse_gbps("800Mbps"), 0.8);
  EXPECT_FALSE(parse_gbps("fast"));
}

TEST(units_test, durations_need_units) {
  EXPECT_DOUBLE_EQ(*parse_duration("50us"), 50e-6);
  EXPECT_DOUBLE_EQ(*parse_duration("0.3ms"), 0.3e-3);
  EXPECT_FALSE(parse_duration("50"));
}

TEST(units_test, token_counts_take_k_and_m) {
  EXPECT_EQ(parse_token_count("32768"), 32768);
  EXPECT_EQ(parse_token_count("32k"), 32768);
  EXPECT_EQ(parse_token_count("128K"), 131072);
  EXPECT_EQ(parse_token_count("1M"), 1048576);
  EXPECT_FALSE(parse_token_count("32kb"));
  EXPECT_FALSE(parse_token_count("-5"));
  EXPECT_FALSE(parse_token_count("0"));
  EXPECT_FALSE(parse_token_count("1.5k"));
  EXPECT_FALSE(parse_token_count(""));
}

TEST(units_test, formatting) {
  EXPECT_EQ(format_gib(512.0 * 1024 * 1024 * 1024), "512.0 GiB");
  EXPECT_EQ(format_bytes(405874409472), "405.9 GB");
  EXPECT_EQ(format_bytes(12), "12 B");
}

TEST(units_test, durations_read_in_the_unit_that_fits) {
  EXPECT_EQ(format_duration(1.234), "1.23 s");
  EXPECT_EQ(format_duration(0.0469), "46.90 ms");
  EXPECT_EQ(format_duration(50e-6), "50 us");
}

}  // namespace
}  // namespace meshplan::units_test
