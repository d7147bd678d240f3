// The "left out: ..." note: hosts named one by one, unless many share a reason (a fleet of one
// kind), which are then counted after the first three.
#include "solvers/problem/left_out.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace meshplan::left_out_test {
namespace {

HostInfo left_out(const std::string& name, const std::string& why) {
  HostInfo h;
  h.name = name;
  h.left_out = why;
  return h;
}

std::string note_of(const Plan& plan) {
  for (const std::string& n : plan.notes)
    if (n.starts_with("left out: ")) return n;
  return "";
}

TEST(left_out_test, a_few_hosts_are_each_named_with_their_reason) {
  Plan plan;
  plan.hosts.push_back(left_out("a", "too small"));
  HostInfo used;
  used.name = "b";
  used.used = true;
  plan.hosts.push_back(used);
  plan.hosts.push_back(left_out("c", "not faster"));
  rewrite_left_out_note(plan);
  EXPECT_EQ(note_of(plan), "left out: a (too small); c (not faster)");
}

TEST(left_out_test, many_alike_are_counted_after_the_first_three) {
  Plan plan;
  for (int i = 1; i <= 8; ++i)
    plan.hosts.push_back(left_out(fmt::format("small-{}", i), "too small"));
  plan.hosts.push_back(left_out("odd", "no link"));
  for (int i = 1; i <= 9; ++i)
    plan.hosts.push_back(left_out(fmt::format("spare-{}", i), "not faster"));
  rewrite_left_out_note(plan);
  // Eight for one reason are still named; nine are the first three and six more.
  EXPECT_EQ(note_of(plan),
            "left out: small-1 (too small); small-2 (too small); small-3 (too small); small-4 (too "
            "small); small-5 (too small); small-6 (too small); small-7 (too small); small-8 (too "
            "small); odd (no link); spare-1, spare-2, spare-3 and 6 more hosts (not faster)");
}

TEST(left_out_test, the_note_goes_when_every_host_is_used) {
  Plan plan;
  plan.notes.push_back("left out: a (too small)");
  HostInfo used;
  used.name = "a";
  used.used = true;
  plan.hosts.push_back(used);
  rewrite_left_out_note(plan);
  EXPECT_EQ(note_of(plan), "");
  EXPECT_TRUE(plan.notes.empty());
}

}  // namespace
}  // namespace meshplan::left_out_test
