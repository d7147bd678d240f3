#include "lib/remote/host_list.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"

namespace meshplan::host_list_test {
namespace {

using Names = std::vector<std::string>;

TEST(host_list_test, ranges_expand_with_and_without_padding) {
  EXPECT_EQ(expand_host_list("mac[1-4]"), (Names{"mac1", "mac2", "mac3", "mac4"}));
  EXPECT_EQ(expand_host_list("mac[01-03],studio"), (Names{"mac01", "mac02", "mac03", "studio"}));
  EXPECT_EQ(expand_host_list(" a , ,b "), (Names{"a", "b"}));
  EXPECT_EQ(expand_host_list("m[1-2]-p[1-2]"), (Names{"m1-p1", "m1-p2", "m2-p1", "m2-p2"}));
  EXPECT_EQ(expand_host_list("10.0.0.[8-10]"), (Names{"10.0.0.8", "10.0.0.9", "10.0.0.10"}));
  EXPECT_THROW(expand_host_list("mac[4-1]"), Error);
  EXPECT_THROW(expand_host_list("mac[1-4"), Error);
  EXPECT_THROW(expand_host_list("mac[a-b]"), Error);
  EXPECT_THROW(expand_host_list("mac[1-99999999999]"), Error);
  EXPECT_THROW(expand_host_list("mac]1-2["), Error);
  // The names of one item are bounded, however many ranges it has.
  EXPECT_EQ(expand_host_list("m[1-64]-[1-64]").size(), 4096u);
  EXPECT_THROW(expand_host_list("a[0-4096]b[0-4096]c[0-4096]"), Error);
  std::string many;
  for (int i = 0; i < 100000; ++i)
    many += "[1-1]";
  EXPECT_EQ(expand_host_list("m" + many), (Names{"m" + std::string(100000, '1')}));
}

TEST(host_list_test, targets_are_validated) {
  HostTarget t = parse_target("admin@mac-1:2222", "test");
  EXPECT_EQ(t.name, "mac-1");
  EXPECT_EQ(t.user, "admin");
  EXPECT_EQ(t.host, "mac-1");
  EXPECT_EQ(t.port, 2222);
  EXPECT_EQ(t.spec(), "admin@mac-1:2222");
  EXPECT_EQ(parse_target("studio.local", "test").spec(), "studio.local");
  // Nothing that reads as an ssh option or carries shell syntax gets through.
  for (const char* bad :
       {"-oProxyCommand=x", "mac;reboot", "mac 1", "a@b@c", "`id`", "$(id)", "mac:0", "mac:70000",
        "mac:22x", "-l@mac", "user@", "@mac", "mac|x", "ma'c"}) {
    EXPECT_THROW(parse_target(bad, "test"), Error) << bad;
  }
  try {
    parse_target("-oProxyCommand=x", "--hosts");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_NE(std::string(e.what()).find("--hosts"), std::string::npos) << e.what();
  }
}

TEST(host_list_test, inventory_lines_comments_names_and_paired_ranges) {
  std::string text =
      "# lab\n"
      "mac-1\n"
      "\n"
      "studio   admin@10.0.0.5:2200   # with a name\n"
      "mini[1-2] 10.0.1.[1-2]\n"
      "root@gpu[01-02]\n";
  auto t = parse_inventory(text, "hosts.txt");
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[0].name, "mac-1");
  EXPECT_EQ(t[1].name, "studio");
  EXPECT_EQ(t[1].spec(), "admin@10.0.0.5:2200");
  EXPECT_EQ(t[2].name, "mini1");
  EXPECT_EQ(t[2].host, "10.0.1.1");
  EXPECT_EQ(t[3].name, "mini2");
  EXPECT_EQ(t[3].host, "10.0.1.2");
  EXPECT_EQ(t[5].name, "gpu02");
  EXPECT_EQ(t[5].user, "root");
}

TEST(host_list_test, inventory_errors_name_file_and_line) {
  auto message = [](const std::string& text) {
    try {
      parse_inventory(text, "inv.txt");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("a\nb c d\n").find("inv.txt:2"), std::string::npos);
  EXPECT_NE(message("a\nmac[1-3] h[1-2]\n").find("inv.txt:2"), std::string::npos);
  EXPECT_NE(message("ok\n-bad\n").find("inv.txt:2"), std::string::npos);
  EXPECT_NE(message("# nothing\n").find("no hosts"), std::string::npos);
  EXPECT_NE(message("a\na\n").find("listed twice"), std::string::npos);
}

// Ranges are bounded before anything is built: one range, ranges that multiply, many items.
TEST(host_list_test, lists_past_the_limit_are_refused) {
  auto error_of = [](const std::string& text) {
    try {
      expand_host_list(text);
    } catch (const Error& e) {
      EXPECT_EQ(exit_code(e.kind()), 2);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("h[1-1000000]").find("at most 4097 hosts"), std::string::npos);
  EXPECT_NE(error_of("a[1-100]-b[1-100]").find("at most 4097 hosts"), std::string::npos);
  EXPECT_NE(error_of("a[1-4000],b[1-4000]").find("more than 4097 hosts"), std::string::npos);
  EXPECT_EQ(expand_host_list("a[1-64]-b[1-64]").size(), 4096u);
}

}  // namespace
}  // namespace meshplan::host_list_test
