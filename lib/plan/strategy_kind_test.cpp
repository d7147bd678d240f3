#include "lib/plan/strategy_kind.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"

namespace meshplan::strategy_kind_test {
namespace {

TEST(strategy_kind_test, every_name_reads_back_as_its_strategy) {
  ASSERT_EQ(all_strategies().size(), 6u);
  for (StrategyKind s : all_strategies()) {
    EXPECT_EQ(parse_strategy(name(s)), s) << name(s);
    EXPECT_TRUE(is_strategy(name(s), s));
    EXPECT_FALSE(summary(s).empty());
  }
  EXPECT_EQ(strategy_choices(),
            (std::vector<std::string>{"auto", "pipeline", "tensor", "expert", "hybrid", "routed"}));
  EXPECT_EQ(strategy_help().rfind("auto (the fastest of the others), pipeline (layer ranges), ", 0),
            0u);
}

TEST(strategy_kind_test, an_unknown_name_gets_the_nearest_and_the_list) {
  try {
    parse_strategy("tensr");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_STREQ(e.what(),
                 "unknown strategy \"tensr\" (did you mean \"tensor\"?); expected auto, pipeline, "
                 "tensor, expert, hybrid or routed");
  }
}

}  // namespace
}  // namespace meshplan::strategy_kind_test
