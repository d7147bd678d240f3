#include "deploy/measure/sse_parser.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"

namespace meshplan::sse_parser_test {
namespace {

TEST(sse_parser_test, events_end_at_blank_lines_whatever_the_split) {
  const std::string stream =
      ": keep-alive\r\ndata: {\"a\":1}\r\n\r\nevent: x\ndata: two\ndata: lines\n\ndata:[DONE]\n\n";
  for (size_t step : {size_t{1}, size_t{7}, stream.size()}) {
    SseParser p("o");
    std::vector<std::string> events;
    for (size_t i = 0; i < stream.size(); i += step)
      for (auto& e : p.feed(std::string_view(stream).substr(i, step)))
        events.push_back(e);
    EXPECT_EQ(events, (std::vector<std::string>{"{\"a\":1}", "two\nlines", "[DONE]"})) << step;
    EXPECT_TRUE(p.finish().empty());
  }
}

TEST(sse_parser_test, an_event_without_its_blank_line_counts_at_the_end) {
  SseParser p("o");
  EXPECT_TRUE(p.feed("data: last").empty());
  EXPECT_EQ(p.finish(), std::vector<std::string>{"last"});
}

TEST(sse_parser_test, other_lines_and_error_lines_are_failures_that_say_what_was_expected) {
  SseParser p("http://h:1");
  try {
    p.feed("{\"choices\": []}\n");
    FAIL() << "plain JSON is no event stream";
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 3);
    EXPECT_EQ(std::string(e.what()),
              "http://h:1: expected Server-Sent Events lines (\"data: {...}\"), got "
              "\"{\"choices\": []}\"");
  }
  SseParser q("o");
  try {
    q.feed("error: {\"code\":500,\"message\":\"out of memory\"}\n\n");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ended the stream with an error: {\"code\":500"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace meshplan::sse_parser_test
