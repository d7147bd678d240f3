#include "lib/core/nearest_names.hpp"

#include <gtest/gtest.h>

namespace meshplan::nearest_names_test {
namespace {

TEST(nearest_names_test, typos_and_near_versions_are_suggested_nearest_first) {
  std::vector<std::string> commands = {"plan", "check", "emit", "setup", "discover", "dot"};
  EXPECT_EQ(nearest_names("plna", commands), std::vector<std::string>{"plan"});
  EXPECT_EQ(did_you_mean("chekc", commands), " (did you mean \"check\"?)");
  EXPECT_EQ(did_you_mean("frobnicate", commands), "");
  std::vector<std::string> models = {"deepseek-v3.1-4bit", "deepseek-v3.1-8bit", "kimi-k2-4bit",
                                     "llama-3.3-70b-4bit"};
  auto near = nearest_names("deepseek-v3-4bit", models);
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near.front(), "deepseek-v3.1-4bit");
  EXPECT_EQ(nearest_names("DEEPSEEK-V3.1-4BIT", models).front(), "deepseek-v3.1-4bit");
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(nearest_names_test, a_family_prefix_suggests_its_members) {
  std::vector<std::string> chips = {"m3-max-40c", "m3-ultra-60c", "m3-ultra-80c", "m4-max-40c"};
  EXPECT_EQ(nearest_names("m3-ultra", chips),
            (std::vector<std::string>{"m3-ultra-60c", "m3-ultra-80c"}));
}

}  // namespace
}  // namespace meshplan::nearest_names_test
