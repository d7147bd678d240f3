#include "lib/probes/nvlink_status_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string>

#include "lib/probes/probe_set.hpp"

namespace meshplan {
namespace {

std::string_view trim_view(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// "GPU 1: NVIDIA H200 (UUID: ...)" -> 1; -1 for any other line.
int gpu_index(std::string_view line) {
  if (!line.starts_with("GPU ")) return -1;
  line.remove_prefix(4);
  int index = -1;
  auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), index);
  if (ec != std::errc() || end == line.data() + line.size() || *end != ':') return -1;
  return index;
}

}  // namespace

std::vector<GpuNvlinks> parse_nvlink_status(std::string_view text) {
  std::vector<GpuNvlinks> out;
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = trim_view(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    if (line.empty()) continue;
    if (int g = gpu_index(line); g >= 0) {
      out.push_back(GpuNvlinks{g, 0, 0, 0});
      continue;
    }
    if (!line.starts_with("Link ")) continue;  // warnings, "NVML: ..." notes
    if (out.empty())
      throw ProbeParseError(fmt::format("line {}: a link before any GPU: \"{}\"", line_no, line));
    const size_t colon = line.find(':');
    std::string_view state =
        colon == std::string_view::npos ? "" : trim_view(line.substr(colon + 1));
    GpuNvlinks& gpu = out.back();
    if (state == "<inactive>") {
      ++gpu.down;
      continue;
    }
    double rate = 0;
    auto [end, ec] = std::from_chars(state.data(), state.data() + state.size(), rate);
    if (ec != std::errc() || !(rate > 0) ||
        trim_view(std::string_view(end, state.data() + state.size() - end)) != "GB/s")
      throw ProbeParseError(fmt::format(
          "line {}: expected \"Link N: <rate> GB/s\" or \"Link N: <inactive>\", got \"{}\"",
          line_no, line));
    gpu.rate_GBps = gpu.up == 0 ? rate : std::min(gpu.rate_GBps, rate);
    ++gpu.up;
  }
  return out;
}

}  // namespace meshplan
