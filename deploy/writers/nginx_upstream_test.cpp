// The nginx config's upstream: weights from the plan's shares, one server line per replica, and
// nothing from a file that could end a directive.
#include "deploy/writers/nginx_upstream.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"

namespace meshplan::nginx_upstream_test {
namespace {

TEST(nginx_upstream_test, weights_are_percent_of_the_requests_and_never_zero) {
  EXPECT_EQ(nginx_weight(0.5), 50);
  EXPECT_EQ(nginx_weight(0.2856), 29);
  EXPECT_EQ(nginx_weight(0.004), 1) << "a replica of the plan still takes requests";
  EXPECT_EQ(nginx_weight(1.0), 100);
}

TEST(nginx_upstream_test, one_server_line_per_replica_with_its_weight) {
  std::string conf = render_nginx_conf({{"10.0.0.1", 8080, 50, "replica 1: a"},
                                        {"10.0.0.2", 8000, 30, "replica 2:\nb"},
                                        {"fe80::1", 52415, 20, ""}},
                                       kNginxListenPort);
  EXPECT_NE(conf.find("server 10.0.0.1:8080 weight=50;  # replica 1: a\n"), std::string::npos)
      << conf;
  EXPECT_NE(conf.find("server 10.0.0.2:8000 weight=30;  # replica 2: b\n"), std::string::npos)
      << "a note stays on its line";
  EXPECT_NE(conf.find("server [fe80::1]:52415 weight=20;\n"), std::string::npos) << conf;
  EXPECT_NE(conf.find("listen 8100;"), std::string::npos);
  EXPECT_NE(conf.find("proxy_buffering off;"), std::string::npos);
  EXPECT_NE(conf.find("pid nginx.pid;"), std::string::npos) << "relative to -p: no root needed";
  EXPECT_EQ(conf.find("/var/"), std::string::npos) << "no path outside the prefix";
  // Braces balance: the file is one complete config.
  int depth = 0;
  for (char c : conf) {
    depth += c == '{' ? 1 : c == '}' ? -1 : 0;
    ASSERT_GE(depth, 0);
  }
  EXPECT_EQ(depth, 0);
}

TEST(nginx_upstream_test, addresses_that_are_not_one_word_are_refused) {
  for (const std::string bad : {"10.0.0.1; include /etc/passwd", "a b", "", "-x", "h{"})
    EXPECT_THROW(render_nginx_conf({{bad, 8080, 1, ""}}, kNginxListenPort), Error) << bad;
  EXPECT_THROW(render_nginx_conf({}, kNginxListenPort), Error);
  EXPECT_THROW(render_nginx_conf({{"10.0.0.1", 0, 1, ""}}, kNginxListenPort), Error);
}

}  // namespace
}  // namespace meshplan::nginx_upstream_test
