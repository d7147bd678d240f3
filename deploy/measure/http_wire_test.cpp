#include "deploy/measure/http_wire.hpp"

#include <gtest/gtest.h>

namespace meshplan::http_wire_test {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return fmt::format("{}: {}", exit_code(e.kind()), e.what());
  }
  return "no error";
}

TEST(http_wire_test, urls_take_an_ipv4_address_a_name_or_ipv6_and_a_port) {
  HttpUrl a = parse_http_url("http://10.0.0.1:8080");
  EXPECT_EQ(a.host, "10.0.0.1");
  EXPECT_EQ(a.port, 8080);
  EXPECT_EQ(a.prefix, "");
  EXPECT_EQ(a.origin(), "http://10.0.0.1:8080");
  EXPECT_EQ(request_path(a, "/v1/completions"), "/v1/completions");
  HttpUrl b = parse_http_url("http://gpu-1/");
  EXPECT_EQ(b.port, 80);
  HttpUrl c = parse_http_url("http://[::1]:8000/v1");
  EXPECT_EQ(c.host, "::1");
  EXPECT_EQ(c.origin(), "http://[::1]:8000");
  EXPECT_EQ(request_path(c, "/v1/completions"), "/v1/completions") << "/v1 is the API's own";
  HttpUrl d = parse_http_url("http://proxy:80/llm/");
  EXPECT_EQ(request_path(d, "/v1/chat/completions"), "/llm/v1/chat/completions");
}

TEST(http_wire_test, bad_urls_are_input_errors_with_the_expected_form) {
  for (const char* bad : {"10.0.0.1:8080", "http://:8080", "http://h:0", "http://h:99999",
                          "http://h:80x", "ftp://h", "http://h:8080/v1?x=1"}) {
    std::string e = error_of([&] { parse_http_url(bad); });
    EXPECT_EQ(e.rfind("2: --url ", 0), 0u) << bad << ": " << e;
    EXPECT_NE(e.find("expected http://HOST:PORT"), std::string::npos) << e;
  }
  EXPECT_NE(error_of([] { parse_http_url("https://h:443"); }).find("https is not spoken here"),
            std::string::npos);
}

TEST(http_wire_test, the_post_carries_its_length_and_closes) {
  std::string post = format_post(parse_http_url("http://10.0.0.1:8080"), "/v1/completions", "{}");
  EXPECT_EQ(post,
            "POST /v1/completions HTTP/1.1\r\nHost: 10.0.0.1:8080\r\nContent-Type: "
            "application/json\r\nAccept: text/event-stream\r\nContent-Length: 2\r\nConnection: "
            "close\r\n\r\n{}");
}

TEST(http_wire_test, heads_give_status_reason_and_lower_case_headers) {
  HttpHead h = parse_http_head(
      "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nX-A:  b ", "origin");
  EXPECT_EQ(h.status, 404);
  EXPECT_EQ(h.reason, "Not Found");
  ASSERT_NE(h.header("content-type"), nullptr);
  EXPECT_EQ(*h.header("content-type"), "application/json");
  EXPECT_EQ(*h.header("x-a"), "b");
  EXPECT_EQ(h.header("content-length"), nullptr);
  std::string e = error_of([] { parse_http_head("SSH-2.0-OpenSSH_9.6", "http://h:22"); });
  EXPECT_EQ(e,
            "3: http://h:22: expected an HTTP/1.1 status line (\"HTTP/1.1 200 OK\"), got "
            "\"SSH-2.0-OpenSSH_9.6\"");
  EXPECT_NE(error_of([] {
              parse_http_head("HTTP/1.1 200 OK\r\nno colon", "o");
            }).find("expected a header line \"Name: value\""),
            std::string::npos);
}

TEST(http_wire_test, chunked_bodies_decode_from_any_split) {
  const std::string wire =
      "4\r\ndata\r\n1A;ext=1\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nT: x\r\n\r\n";
  HttpHead head = parse_http_head("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked", "o");
  for (size_t step : {size_t{1}, size_t{3}, wire.size()}) {
    BodyDecoder d(head, "o");
    std::string body;
    for (size_t i = 0; i < wire.size(); i += step)
      body += d.feed(std::string_view(wire).substr(i, step));
    EXPECT_TRUE(d.done()) << step;
    EXPECT_EQ(body, "dataabcdefghijklmnopqrstuvwxyz") << step;
  }
  BodyDecoder bad(head, "o");
  EXPECT_NE(error_of([&] { bad.feed("zz\r\n"); }).find("expected a chunk size in hexadecimal"),
            std::string::npos);
  BodyDecoder cut(head, "o");
  cut.feed("4\r\nda");
  EXPECT_NE(error_of([&] { cut.closed(); }).find("closed before the end of the answer"),
            std::string::npos);
}

TEST(http_wire_test, content_length_and_read_to_close_bodies) {
  BodyDecoder d(parse_http_head("HTTP/1.1 200 OK\r\nContent-Length: 5", "o"), "o");
  EXPECT_EQ(d.feed("abc"), "abc");
  EXPECT_FALSE(d.done());
  EXPECT_EQ(d.feed("deXYZ"), "de") << "bytes past the length are not the body";
  EXPECT_TRUE(d.done());
  BodyDecoder short_body(parse_http_head("HTTP/1.1 200 OK\r\nContent-Length: 5", "o"), "o");
  short_body.feed("ab");
  EXPECT_NE(error_of([&] { short_body.closed(); }).find("3 bytes of its Content-Length missing"),
            std::string::npos);
  BodyDecoder to_close(parse_http_head("HTTP/1.0 200 OK", "o"), "o");
  EXPECT_EQ(to_close.feed("all"), "all");
  EXPECT_FALSE(to_close.done());
  to_close.closed();
  EXPECT_TRUE(to_close.done());
}

}  // namespace
}  // namespace meshplan::http_wire_test
