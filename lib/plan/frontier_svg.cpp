#include "lib/plan/frontier_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace meshplan {
namespace {

constexpr double kWidth = 900, kHeight = 560;
constexpr double kLeft = 80, kRight = 300, kTop = 50, kBottom = 60;
constexpr const char* kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79"};

std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A round step giving about five ticks up to `top`: 1, 2 or 5 times a power of ten.
double tick_step(double top) {
  const double raw = std::max(top, 1e-9) / 5;
  const double power = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * power) return m * power;
  return 10 * power;
}

}  // namespace

std::string frontier_svg(const Frontier& f, const std::string& title) {
  double max_x = f.chosen.stream_tokens_per_s, max_y = f.chosen.aggregate_tokens_per_s;
  for (const FrontierSeries& s : f.series)
    for (const FrontierPoint& p : s.points) {
      max_x = std::max(max_x, p.stream_tokens_per_s);
      max_y = std::max(max_y, p.aggregate_tokens_per_s);
    }
  const double step_x = tick_step(max_x * 1.05), step_y = tick_step(max_y * 1.05);
  const double top_x = std::ceil(max_x * 1.05 / step_x) * step_x;
  const double top_y = std::ceil(max_y * 1.05 / step_y) * step_y;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto X = [&](double v) { return kLeft + v / top_x * plot_w; };
  auto Y = [&](double v) { return kTop + plot_h - v / top_y * plot_h; };

  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"28\" font-size=\"16\" font-weight=\"bold\">{3}</text>\n",
      kWidth, kHeight, kLeft, escaped(title));
  // Axes, grid and ticks.
  for (double v = 0; v <= top_x + step_x / 2; v += step_x)
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#e0e0e0\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4:g}</text>\n",
        X(v), kTop, kTop + plot_h, kTop + plot_h + 18, v);
  for (double v = 0; v <= top_y + step_y / 2; v += step_y)
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#e0e0e0\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:g}</text>\n",
        kLeft, Y(v), kLeft + plot_w, kLeft - 8, Y(v) + 4, v);
  out += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n"
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">tokens/s each stream gets</text>\n"
      "<text transform=\"translate({},{}) rotate(-90)\" text-anchor=\"middle\">tokens/s in "
      "all</text>\n",
      kLeft, kTop, plot_w, plot_h, kLeft + plot_w / 2, kHeight - 15, 22, kTop + plot_h / 2);
  // A line per shape, its points labelled with the requests in flight; the legend beside.
  for (size_t i = 0; i < f.series.size(); ++i) {
    const FrontierSeries& s = f.series[i];
    const char* colour = kColours[i % std::size(kColours)];
    std::string points;
    for (const FrontierPoint& p : s.points)
      points +=
          fmt::format("{:.1f},{:.1f} ", X(p.stream_tokens_per_s), Y(p.aggregate_tokens_per_s));
    out += fmt::format("<g class=\"series\" data-shape=\"{}\">\n", escaped(s.shape));
    out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n",
                       points, colour);
    for (const FrontierPoint& p : s.points)
      out += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\" stroke=\"{}\"/>"
          "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" fill=\"{}\">{}</text>\n",
          X(p.stream_tokens_per_s), Y(p.aggregate_tokens_per_s), p.meets_targets ? colour : "white",
          colour, X(p.stream_tokens_per_s) + 6, Y(p.aggregate_tokens_per_s) - 6, colour,
          p.requests_in_flight);
    out += "</g>\n";
    const double ly = kTop + 10 + 20 * static_cast<double>(i);
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"{3}\" "
        "stroke-width=\"3\"/><text x=\"{4}\" y=\"{5:.1f}\">{6}</text>\n",
        kWidth - kRight + 15, ly, kWidth - kRight + 40, colour, kWidth - kRight + 46, ly + 4,
        escaped(s.shape));
  }
  // The plan's point.
  const double cx = X(f.chosen.stream_tokens_per_s), cy = Y(f.chosen.aggregate_tokens_per_s);
  out += fmt::format(
      "<g class=\"chosen\"><circle cx=\"{0:.1f}\" cy=\"{1:.1f}\" r=\"10\" fill=\"none\" "
      "stroke=\"#d62728\" stroke-width=\"3\"/><text x=\"{2:.1f}\" y=\"{3:.1f}\" fill=\"#d62728\" "
      "font-weight=\"bold\">the plan: {4}, {5} in flight</text></g>\n",
      cx, cy, cx + 14, cy + 18, escaped(f.chosen_shape), f.chosen.requests_in_flight);
  const double ly = kTop + 10 + 20 * static_cast<double>(f.series.size());
  out += fmt::format(
      "<text x=\"{0}\" y=\"{1:.1f}\" font-size=\"11\">numbers: requests in flight</text>"
      "<text x=\"{0}\" y=\"{2:.1f}\" font-size=\"11\">hollow: misses the targets</text>\n",
      kWidth - kRight + 15, ly + 4, ly + 18);
  return out + "</svg>\n";
}

}  // namespace meshplan
