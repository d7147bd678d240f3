// Slurm's host-list rules (src/common/hostlist.c); tests/slurm/ also holds the expansion to
// `scontrol show hostnames` on a real installation.
#include "lib/remote/slurm_hostlist.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"
#include "lib/remote/host_list.hpp"

namespace meshplan::slurm_hostlist_test {
namespace {

using Names = std::vector<std::string>;

TEST(slurm_hostlist_test, brackets_hold_lists_and_ranges_padded_to_the_low_width) {
  EXPECT_EQ(expand_slurm_hostlist("gpu[01-04,07]"),
            (Names{"gpu01", "gpu02", "gpu03", "gpu04", "gpu07"}));
  EXPECT_EQ(expand_slurm_hostlist("n[00-3]"), (Names{"n00", "n01", "n02", "n03"}));
  EXPECT_EQ(expand_slurm_hostlist("n[9-11]"), (Names{"n9", "n10", "n11"}));
  EXPECT_EQ(expand_slurm_hostlist("n[3,1]"), (Names{"n3", "n1"}));
  EXPECT_EQ(expand_slurm_hostlist(" a ,b  c,,"), (Names{"a", "b", "c"}));
  EXPECT_EQ(expand_slurm_hostlist("n[1-2],n[1-2]"), (Names{"n1", "n2", "n1", "n2"}));
}

// Slurm recurses from the last bracket outwards: the last varies fastest, then the first.
TEST(slurm_hostlist_test, several_brackets_in_slurms_order) {
  EXPECT_EQ(expand_slurm_hostlist("a[1-2]b[3-4]"), (Names{"a1b3", "a1b4", "a2b3", "a2b4"}));
  EXPECT_EQ(
      expand_slurm_hostlist("a[1-2]b[3-4]c[5-6]"),
      (Names{"a1b3c5", "a1b3c6", "a2b3c5", "a2b3c6", "a1b4c5", "a1b4c6", "a2b4c5", "a2b4c6"}));
}

TEST(slurm_hostlist_test, lists_slurm_refuses_are_input_errors) {
  for (const char* bad : {"n[3-1]", "n[a-b]", "n[1--2]", "n[]", "n[1,]", "n[-1]", "n[1-3]-ib",
                          "n[1-2", "n1-2]", "n[[1-2]", "n[1 -2]", "n[1-99999999999]"}) {
    try {
      expand_slurm_hostlist(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kBadInput) << bad;
      EXPECT_NE(std::string(e.what()).find("bad host list"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(expand_slurm_hostlist("a[1-100]b[1-100]"), Error);
  EXPECT_EQ(expand_slurm_hostlist("a[1-64]b[1-64]").size(), 4096u);
}

// `discover gpu[01-04,07]` takes Slurm's bracket forms through meshplan's own host lists.
TEST(slurm_hostlist_test, meshplan_host_lists_take_slurm_brackets) {
  EXPECT_EQ(expand_host_list("gpu[01-02,07],login"), (Names{"gpu01", "gpu02", "gpu07", "login"}));
  EXPECT_EQ(expand_host_list("mac[1-2].local"), (Names{"mac1.local", "mac2.local"}));
  EXPECT_THROW(expand_host_list("gpu[01-02,]"), Error);
}

}  // namespace
}  // namespace meshplan::slurm_hostlist_test
