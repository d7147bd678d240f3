#include "deploy/measure/fake_http_client.hpp"

#include <gtest/gtest.h>

namespace meshplan::fake_http_client_test {
namespace {

TEST(fake_http_client_test, answers_in_pieces_on_its_clock_and_counts_open_answers) {
  FakeClock clock;
  FakeHttpClient client(
      [](const FakePost& p) {
        FakeAnswer a;
        a.pieces = {"a", p.path};
        a.seconds_per_piece = 0.5;
        return a;
      },
      &clock);
  const HttpUrl url = parse_http_url("http://h:1");
  auto one = client.post(url, "/x", "{}", 10);
  auto two = client.post(url, "/y", "{}", 10);
  EXPECT_EQ(client.most_open(), 2);
  EXPECT_EQ(one->head().status, 200);
  EXPECT_EQ(*one->head().header("content-type"), "text/event-stream");
  EXPECT_EQ(read_whole_body(*two), "a/y");
  EXPECT_DOUBLE_EQ(clock.now, 1.0);
  two.reset();
  auto three = client.post(url, "/z", "{}", 9);
  EXPECT_EQ(client.most_open(), 2) << "one was closed before the third";
  EXPECT_EQ(client.posts().size(), 3u);
  EXPECT_DOUBLE_EQ(client.posts()[2].timeout_s, 9.0);
}

TEST(fake_http_client_test, a_refusal_is_thrown_by_post) {
  FakeHttpClient client(
      [](const FakePost&) {
        FakeAnswer a;
        a.refuse = "refused";
        return a;
      },
      nullptr);
  EXPECT_THROW(client.post(parse_http_url("http://h:1"), "/", "", 1), Error);
  EXPECT_TRUE(client.posts().empty());
}

}  // namespace
}  // namespace meshplan::fake_http_client_test
