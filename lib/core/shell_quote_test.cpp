// One quoting rule for every value printed into a command: POSIX sh, as Python's shlex.quote.
#include "lib/core/shell_quote.hpp"

#include <gtest/gtest.h>

namespace meshplan::shell_quote_test {
namespace {

TEST(shell_quote_test, shell_quoting_follows_shlex) {
  EXPECT_EQ(shell_quote("1"), "1");
  EXPECT_EQ(shell_quote("10.0.0.1:32323"), "10.0.0.1:32323");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\"'\"'s'");
  EXPECT_EQ(shell_quote(""), "''");
}

}  // namespace
}  // namespace meshplan::shell_quote_test
