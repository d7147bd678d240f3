// The launch-file examples of docs/launch-files.md are the real output: each block under
// `<!-- example: emit FORMAT -->` is what `meshplan emit FORMAT` prints for the bundled
// 4 x M3 Ultra example and the pipeline plan the page makes from it.
#include <gtest/gtest.h>

#include <regex>

#include "tests/test_support.hpp"

namespace meshplan::readme_launch_examples_test {
namespace {

using testing::read_text;
using testing::run_meshplan;
using testing::source_path;

TEST(readme_launch_examples_test, every_example_block_is_the_real_output) {
  const std::string cluster = source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");
  const std::string plan = testing::temp_dir() + "/plan.json";
  auto p = run_meshplan({"plan", "-c", cluster, "-m", "deepseek-v3.1-8bit", "--strategy",
                         "pipeline", "--min-hosts", "4", "-o", plan});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  std::string page = read_text(source_path("docs/launch-files.md"));
  std::regex block(R"(<!-- example: emit ([a-z-]+) -->\n[^\n]*\n\n```[a-z]*\n([\s\S]*?)```\n)");
  int n = 0;
  for (std::sregex_iterator it(page.begin(), page.end(), block), end; it != end; ++it, ++n) {
    std::string format = (*it)[1];
    auto r = run_meshplan({"emit", format, "-c", cluster, "--plan", plan, "--user", "admin"});
    ASSERT_EQ(r.exit_code, 0) << format << ": " << r.err;
    EXPECT_EQ((*it)[2].str(), r.out) << format;
  }
  EXPECT_EQ(n, 12);  // every launcher format
}

}  // namespace
}  // namespace meshplan::readme_launch_examples_test
