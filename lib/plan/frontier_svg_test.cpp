#include "lib/plan/frontier_svg.hpp"

#include <gtest/gtest.h>

namespace meshplan::frontier_svg_test {
namespace {

Frontier two_shapes() {
  Frontier f;
  f.series.push_back(
      {"tensor over a+b", {"a", "b"}, {{1, 40, 40, 0.2, true}, {8, 25, 200, 0.3, true}}});
  f.series.push_back(
      {"replicas <a & b>", {"a", "b"}, {{2, 33, 66, 0.3, true}, {8, 20, 160, 0.4, false}}});
  f.chosen_shape = "tensor over a+b";
  f.chosen = {8, 25, 200, 0.3, true};
  return f;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(frontier_svg_test, a_line_per_shape_a_point_per_load_and_the_plan_ringed) {
  const std::string svg = frontier_svg(two_shapes(), "gpt-oss & co");
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("</svg>\n"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  EXPECT_EQ(count(svg, "<g class=\"series\""), 2u);
  EXPECT_EQ(count(svg, "r=\"4\""), 4u) << "a point per load";
  EXPECT_EQ(count(svg, "r=\"10\""), 1u) << "the plan's point";
  EXPECT_NE(svg.find("the plan: tensor over a+b, 8 in flight"), std::string::npos);
  // Text is escaped: the title and a shape with markup characters.
  EXPECT_NE(svg.find("gpt-oss &amp; co"), std::string::npos);
  EXPECT_NE(svg.find("replicas &lt;a &amp; b&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("<a & b>"), std::string::npos);
  // The point that misses the targets is hollow.
  EXPECT_EQ(count(svg, "fill=\"white\" stroke=\"#ff7f0e\""), 1u);
}

TEST(frontier_svg_test, the_axes_reach_past_the_largest_point_in_round_steps) {
  const std::string svg = frontier_svg(two_shapes(), "t");
  // 200 tokens/s in all at most: ticks of 50 up to 250; 40 each at most: ticks of 10 up to 50.
  EXPECT_NE(svg.find(">250</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">300</text>"), std::string::npos);
  EXPECT_NE(svg.find(">50</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">60</text>"), std::string::npos);
}

}  // namespace
}  // namespace meshplan::frontier_svg_test
