#include "deploy/configure/calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <set>
#include <sstream>

#include "lib/core/embedded_data.hpp"
#include "lib/core/parallel.hpp"
#include "lib/core/units.hpp"
#include "lib/probes/probe_set.hpp"

namespace meshplan {
namespace {

constexpr std::string_view kPrefix = "meshplan-calibrate ";
constexpr std::string_view kEndOfProgram = "MESHPLAN_CALIBRATE_EOF";

// A number the whole text spells, finite and within [low, high]; nullopt otherwise.
std::optional<double> number_in(const std::string& text, double low, double high) {
  if (text.empty() || text.size() > 32) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v) || v < low || v > high)
    return std::nullopt;
  return v;
}

// Free text (a device name, a note): printable, bounded.
bool plain_text(const std::string& text) {
  if (text.empty() || text.size() > 300) return false;
  return std::none_of(text.begin(), text.end(),
                      [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

std::string last_line(const std::string& text) {
  std::string t = trim(text);
  size_t nl = t.rfind('\n');
  t = nl == std::string::npos ? t : t.substr(nl + 1);
  return t.size() > 200 ? t.substr(0, 200) + "..." : t;
}

}  // namespace

std::string calibrate_script(int timeout_s) {
  const std::string_view program = embedded_file("templates/calibrate.py");
  // `timeout` stops python3 and the processes it started (its process group); where a host has
  // no `timeout` (macOS), the program's own alarm does. `exec` leaves no shell waiting.
  return fmt::format(
      "# meshplan calibrate: bounded benchmarks, at most {0} s on this host\n"
      "if ! command -v python3 >/dev/null 2>&1; then\n"
      "  echo '{1}backend=none'; echo '{1}end=1'; exit 0\n"
      "fi\n"
      "t=\n"
      "if command -v timeout >/dev/null 2>&1; then t='timeout -k 5 {0}'; fi\n"
      "exec $t python3 - {0} <<'{2}'\n"
      "{3}{2}\n",
      timeout_s, kPrefix, kEndOfProgram, program);
}

HostCalibration parse_calibration(const std::string& host, const std::string& output) {
  HostCalibration h;
  h.host = host;
  bool end = false;
  std::set<std::string> seen;
  std::istringstream in(output);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto odd = [&](std::string_view why) {
      std::string shown = line.size() > 120 ? line.substr(0, 120) + "..." : line;
      throw ProbeParseError(fmt::format("line {} \"{}\": {}", number, shown, why));
    };
    if (end) odd("nothing may follow the end line");
    if (!line.starts_with(kPrefix)) odd("expected \"meshplan-calibrate KEY=VALUE\"");
    const std::string rest = line.substr(kPrefix.size());
    const size_t eq = rest.find('=');
    if (eq == std::string::npos || eq == 0) odd("expected KEY=VALUE");
    const std::string key = rest.substr(0, eq), value = rest.substr(eq + 1);
    if (key != "note" && !seen.insert(key).second) odd("the key comes twice");
    auto num = [&](double low, double high) {
      auto v = number_in(value, low, high);
      if (!v) odd(fmt::format("expected a number from {:g} to {:g}", low, high));
      return *v;
    };
    auto whole = [&](double low, double high) {
      double v = num(low, high);
      if (v != std::floor(v)) odd("expected a whole number");
      return v;
    };
    if (key == "backend") {
      static const std::set<std::string> known = {"torch-cuda", "mlx", "numpy", "torch-cpu",
                                                  "none"};
      if (!known.count(value)) odd("expected torch-cuda, mlx, numpy, torch-cpu or none");
      h.backend = value;
    } else if (key == "device") {
      if (!plain_text(value)) odd("expected a device name");
      h.device = value;
    } else if (key == "devices") {
      h.devices = static_cast<int>(whole(1, 256));
    } else if (key == "copy_bytes") {
      h.copy_bytes = static_cast<int64_t>(whole(1, 1e12));
    } else if (key == "mem_bandwidth_Bps") {
      h.mem_bandwidth = num(1e6, 1e15);
    } else if (key == "matmul_n") {
      h.matmul_n = static_cast<int>(whole(1, 1 << 20));
    } else if (key == "dtype") {
      if (value != "fp16" && value != "fp32") odd("expected fp16 or fp32");
      h.dtype = value;
    } else if (key == "flops") {
      h.flops = num(1e6, 1e18);
    } else if (key == "allreduce_gpus") {
      h.allreduce_gpus = static_cast<int>(whole(2, 256));
    } else if (key == "allreduce_method") {
      if (value != "graph" && value != "loop") odd("expected graph or loop");
      h.allreduce_method = value;
    } else if (key == "allreduce_latency_us") {
      h.allreduce_us = num(0, 1e6);
    } else if (key == "stage_overhead_ms") {
      h.stage_ms = num(0, 1000);
    } else if (key == "note") {
      if (!plain_text(value)) odd("expected a line of text");
      h.notes.push_back(value);
    } else if (key == "end") {
      if (value != "1") odd("expected end=1");
      end = true;
    } else {
      odd(fmt::format("unknown key \"{}\"", key));
    }
  }
  if (!end) throw ProbeParseError("the benchmark stopped before its end line");
  if (h.backend.empty()) throw ProbeParseError("no backend line");
  if (h.backend != "none" && !h.measured())
    throw ProbeParseError(
        fmt::format("backend {} gave no mem_bandwidth_Bps and flops lines", h.backend));
  return h;
}

CalibrateReport run_calibrate(const std::vector<HostTarget>& targets, RemoteExecutor& executor,
                              const CalibrateOptions& options) {
  CalibrateReport report;
  std::vector<std::optional<HostCalibration>> answers(targets.size());
  std::mutex mutex;
  const std::string script = calibrate_script(options.timeout_s);
  parallel_for(targets.size(), options.jobs, [&](size_t t) {
    const std::string& host = targets[t].name;
    auto fail = [&](HostFailureKind kind, const std::string& message) {
      std::lock_guard<std::mutex> lock(mutex);
      report.failures.push_back({host, kind, message});
    };
    ExecResult e = executor.run(targets[t], "/bin/sh -s", script);
    if (!e.ok()) return fail(e.failure, e.message);
    const std::string why = last_line(e.err);
    const std::string stderr_note = why.empty() ? "" : " (stderr: " + why + ")";
    // 124: `timeout` or the program's alarm stopped it; 137: killed after the grace period.
    if (e.exit_status == 124 || e.exit_status == 137)
      return fail(HostFailureKind::kTimedOut,
                  fmt::format("the benchmark took longer than {} s and was stopped (raise "
                              "--timeout){}",
                              options.timeout_s, stderr_note));
    if (e.exit_status != 0)
      return fail(HostFailureKind::kCommandFailed,
                  fmt::format("the benchmark exited with status {}{}", e.exit_status, stderr_note));
    try {
      answers[t] = parse_calibration(host, e.out);
    } catch (const ProbeParseError& x) {
      fail(HostFailureKind::kOutputNotUnderstood, fmt::format("{}{}", x.what(), stderr_note));
    }
  });
  for (auto& a : answers) {
    if (!a) continue;
    if (a->backend == "none")
      report.notes.push_back(fmt::format(
          "{}: no python3 with torch, mlx or numpy; keeps the catalog's figures", a->host));
    for (const auto& n : a->notes)
      report.notes.push_back(fmt::format("{}: {}", a->host, n));
    report.hosts.push_back(std::move(*a));
  }
  std::sort(report.failures.begin(), report.failures.end(),
            [](const auto& a, const auto& b) { return a.host < b.host; });
  return report;
}

Cluster with_calibration(const Cluster& cluster, const CalibrateReport& report,
                         const std::string& date) {
  Cluster out = cluster;
  for (const auto& c : report.hosts) {
    Host* h = out.find_host(c.host);
    if (!h || !c.measured()) continue;
    // The cost model takes a host's figures as the sum over its GPUs; the benchmark ran on one.
    double devices = 1;
    if (!h->gpus.empty())
      devices = static_cast<double>(h->gpus.size());
    else if (c.backend == "torch-cuda")
      devices = std::max(1, c.devices);
    h->mem_bandwidth = *c.mem_bandwidth * devices;
    h->flops = *c.flops * devices;
    // Only an all-reduce timed inside a CUDA graph is what an engine's costs; one timed in a loop
    // carries every launch (40 us against 11.7 us on 2 x H200) and would price tensor
    // parallelism out of plans where it wins, so it is reported and not written.
    if (c.allreduce_us && c.allreduce_method == "graph")
      h->gpu_link_latency_s = *c.allreduce_us * 1e-6;
    if (c.stage_ms) h->stage_overhead_s = *c.stage_ms * 1e-3;
    h->measured = date;
  }
  return out;
}

std::string calibration_summary(const HostCalibration& h) {
  if (!h.measured()) return fmt::format("{}: not measured ({})", h.host, h.backend);
  std::string on = h.backend;
  if (!h.device.empty())
    on += h.devices > 1 ? fmt::format(", {} x {}", h.devices, h.device) : ", " + h.device;
  std::string s = fmt::format("{}: {}: memory {}, {} ({}, n={}){}", h.host, on,
                              format_rate(*h.mem_bandwidth, "B/s"), format_rate(*h.flops, "FLOP/s"),
                              h.dtype, h.matmul_n, h.devices > 1 ? " per GPU" : "");
  if (h.allreduce_us)
    s += h.allreduce_method == "graph"
             ? fmt::format(", all-reduce {:.1f} us ({} GPUs, in a CUDA graph)", *h.allreduce_us,
                           h.allreduce_gpus)
             : fmt::format(
                   ", all-reduce {:.1f} us ({} GPUs, in a loop with its launches: not written; "
                   "engines run it in a CUDA graph, which the catalog's figure was measured in)",
                   *h.allreduce_us, h.allreduce_gpus);
  if (h.stage_ms) s += fmt::format(", stage {:.3g} ms", *h.stage_ms);
  return s;
}

}  // namespace meshplan
