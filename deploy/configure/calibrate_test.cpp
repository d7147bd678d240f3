#include "deploy/configure/calibrate.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>

#include "lib/cluster/cluster_reader.hpp"
#include "lib/cluster/cluster_writer.hpp"
#include "lib/core/document.hpp"
#include "lib/core/embedded_data.hpp"
#include "lib/core/units.hpp"
#include "lib/probes/probe_set.hpp"
#include "tests/fake_mac.hpp"
#include "tests/test_support.hpp"

namespace meshplan::calibrate_test {
namespace {

constexpr const char* kNumpyHost =
    "meshplan-calibrate backend=numpy\n"
    "meshplan-calibrate copy_bytes=268435456\n"
    "meshplan-calibrate mem_bandwidth_Bps=2.14985e+10\n"
    "meshplan-calibrate matmul_n=512\n"
    "meshplan-calibrate dtype=fp32\n"
    "meshplan-calibrate flops=4.06463e+09\n"
    "meshplan-calibrate stage_overhead_ms=0.0042595\n"
    "meshplan-calibrate end=1\n";

constexpr const char* kCudaHost =
    "meshplan-calibrate backend=torch-cuda\n"
    "meshplan-calibrate device=NVIDIA H100 80GB HBM3\n"
    "meshplan-calibrate devices=2\n"
    "meshplan-calibrate copy_bytes=1073741824\n"
    "meshplan-calibrate mem_bandwidth_Bps=3.0e12\n"
    "meshplan-calibrate matmul_n=8192\n"
    "meshplan-calibrate dtype=fp16\n"
    "meshplan-calibrate flops=7.0e14\n"
    "meshplan-calibrate stage_overhead_ms=0.031\n"
    "meshplan-calibrate allreduce_gpus=2\n"
    "meshplan-calibrate allreduce_method=graph\n"
    "meshplan-calibrate allreduce_latency_us=28.5\n"
    "meshplan-calibrate end=1\n";

constexpr const char* kNoTools =
    "meshplan-calibrate backend=none\n"
    "meshplan-calibrate end=1\n";

// Each host answers what `answers` holds for it; a host without an entry is unreachable.
class CannedExecutor : public RemoteExecutor {
 public:
  explicit CannedExecutor(std::map<std::string, ExecResult> answers)
      : answers_(std::move(answers)) {}
  ExecResult run(const HostTarget& target, const std::string& command,
                 const std::string& input) override {
    std::lock_guard<std::mutex> lock(mutex_);
    commands.push_back(command);
    scripts.push_back(input);
    auto a = answers_.find(target.name);
    if (a != answers_.end()) return a->second;
    ExecResult r;
    r.failure = HostFailureKind::kUnreachable;
    r.message = "cannot connect to " + target.name + ":22: Connection refused";
    return r;
  }
  std::vector<std::string> commands, scripts;

 private:
  std::map<std::string, ExecResult> answers_;
  std::mutex mutex_;
};

ExecResult answered(const std::string& out, int status = 0, const std::string& err = "") {
  ExecResult r;
  r.exit_status = status;
  r.out = out;
  r.err = err;
  return r;
}

HostTarget target(const std::string& name) {
  return HostTarget{name, "", name, 22};
}

std::string parse_error(const std::string& output) {
  try {
    parse_calibration("gpu-1", output);
  } catch (const ProbeParseError& e) {
    return e.what();
  }
  return "";
}

TEST(calibrate_test, the_script_runs_python_under_timeout_with_the_program_on_its_input) {
  const std::string s = calibrate_script(77);
  EXPECT_NE(s.find("timeout -k 5 77"), std::string::npos) << s;
  EXPECT_NE(s.find("exec $t python3 - 77 <<'MESHPLAN_CALIBRATE_EOF'\n"), std::string::npos);
  EXPECT_NE(s.find("echo 'meshplan-calibrate backend=none'"), std::string::npos);
  EXPECT_TRUE(s.ends_with("MESHPLAN_CALIBRATE_EOF\n"));
  // The program never holds the end of its here-document, and it is the embedded one.
  const std::string_view program = embedded_file("templates/calibrate.py");
  EXPECT_EQ(program.find("MESHPLAN_CALIBRATE_EOF"), std::string_view::npos);
  EXPECT_NE(s.find(program), std::string::npos);
  for (const char* piece : {"torch.cuda.is_available()", "import mlx.core", "import numpy",
                            "init_process_group(\"nccl\"", "torch.cuda.CUDAGraph()", "signal.alarm",
                            "p.kill()", "os.dup2(2, 1)"})
    EXPECT_NE(program.find(piece), std::string_view::npos) << piece;
}

TEST(calibrate_test, a_numpy_hosts_figures_are_read) {
  HostCalibration h = parse_calibration("node-1", kNumpyHost);
  EXPECT_EQ(h.backend, "numpy");
  ASSERT_TRUE(h.measured());
  EXPECT_DOUBLE_EQ(*h.mem_bandwidth, 2.14985e10);
  EXPECT_DOUBLE_EQ(*h.flops, 4.06463e9);
  EXPECT_EQ(h.matmul_n, 512);
  EXPECT_EQ(h.dtype, "fp32");
  EXPECT_DOUBLE_EQ(*h.stage_ms, 0.0042595);
  EXPECT_FALSE(h.allreduce_us);
  EXPECT_EQ(calibration_summary(h),
            "node-1: numpy: memory 21.5 GB/s, 4.06 GFLOP/s (fp32, n=512), stage 0.00426 ms");
}

TEST(calibrate_test, a_cuda_hosts_figures_include_the_all_reduce) {
  HostCalibration h = parse_calibration("gpu-1", kCudaHost);
  EXPECT_EQ(h.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h.devices, 2);
  ASSERT_TRUE(h.allreduce_us);
  EXPECT_DOUBLE_EQ(*h.allreduce_us, 28.5);
  EXPECT_EQ(h.allreduce_method, "graph");
  EXPECT_EQ(calibration_summary(h),
            "gpu-1: torch-cuda, 2 x NVIDIA H100 80GB HBM3: memory 3.00 TB/s, 700 TFLOP/s "
            "(fp16, n=8192) per GPU, all-reduce 28.5 us (2 GPUs, in a CUDA graph), stage 0.031 ms");
}

TEST(calibrate_test, odd_output_is_refused_naming_the_line) {
  EXPECT_EQ(parse_error(std::string(kNumpyHost).insert(0, "hello\n")),
            "line 1 \"hello\": expected \"meshplan-calibrate KEY=VALUE\"");
  EXPECT_EQ(parse_error("meshplan-calibrate backend=numpy\nmeshplan-calibrate flops=fast\n"),
            "line 2 \"meshplan-calibrate flops=fast\": expected a number from 1e+06 to 1e+18");
  EXPECT_EQ(parse_error("meshplan-calibrate backend=numpy\nmeshplan-calibrate flops=nan\n"),
            "line 2 \"meshplan-calibrate flops=nan\": expected a number from 1e+06 to 1e+18");
  EXPECT_EQ(parse_error("meshplan-calibrate backend=cobol\n"),
            "line 1 \"meshplan-calibrate backend=cobol\": expected torch-cuda, mlx, numpy, "
            "torch-cpu or none");
  EXPECT_EQ(parse_error("meshplan-calibrate colour=blue\n"),
            "line 1 \"meshplan-calibrate colour=blue\": unknown key \"colour\"");
  EXPECT_EQ(parse_error("meshplan-calibrate backend=none\nmeshplan-calibrate backend=none\n"),
            "line 2 \"meshplan-calibrate backend=none\": the key comes twice");
  EXPECT_EQ(parse_error(std::string(kNoTools) + "meshplan-calibrate backend=none\n"),
            "line 3 \"meshplan-calibrate backend=none\": nothing may follow the end line");
  // Cut off (a timeout, a crash): no end line.
  EXPECT_EQ(parse_error("meshplan-calibrate backend=numpy\n"),
            "the benchmark stopped before its end line");
  EXPECT_EQ(parse_error("meshplan-calibrate backend=numpy\nmeshplan-calibrate end=1\n"),
            "backend numpy gave no mem_bandwidth_Bps and flops lines");
  EXPECT_EQ(parse_error(kNumpyHost), "");
}

TEST(calibrate_test, each_host_is_measured_noted_or_named_with_its_failure) {
  CannedExecutor ex({{"cpu-1", answered(kNumpyHost)},
                     {"bare", answered(kNoTools)},
                     {"odd", answered("Segmentation fault\n")},
                     {"slow", answered("meshplan-calibrate backend=numpy\n", 124)},
                     {"broken", answered("", 1, "Traceback ...\nImportError: libcuda.so.1\n")}});
  CalibrateOptions options;
  options.timeout_s = 30;
  CalibrateReport r = run_calibrate({target("cpu-1"), target("bare"), target("gone"), target("odd"),
                                     target("slow"), target("broken")},
                                    ex, options);
  ASSERT_EQ(ex.scripts.size(), 6u);
  EXPECT_EQ(ex.commands[0], "/bin/sh -s");
  EXPECT_EQ(ex.scripts[0], calibrate_script(30));
  ASSERT_EQ(r.hosts.size(), 2u);
  EXPECT_EQ(r.hosts[0].host, "cpu-1");
  EXPECT_TRUE(r.hosts[0].measured());
  EXPECT_EQ(r.hosts[1].backend, "none");
  EXPECT_EQ(r.notes, std::vector<std::string>{
                         "bare: no python3 with torch, mlx or numpy; keeps the catalog's figures"});
  ASSERT_EQ(r.failures.size(), 4u);
  EXPECT_EQ(r.failures[0].host, "broken");
  EXPECT_EQ(r.failures[0].kind, HostFailureKind::kCommandFailed);
  EXPECT_EQ(r.failures[0].message,
            "the benchmark exited with status 1 (stderr: ImportError: libcuda.so.1)");
  EXPECT_EQ(r.failures[1].host, "gone");
  EXPECT_EQ(r.failures[1].kind, HostFailureKind::kUnreachable);
  EXPECT_EQ(r.failures[2].host, "odd");
  EXPECT_EQ(r.failures[2].kind, HostFailureKind::kOutputNotUnderstood);
  EXPECT_EQ(r.failures[2].message,
            "line 1 \"Segmentation fault\": expected \"meshplan-calibrate KEY=VALUE\"");
  EXPECT_EQ(r.failures[3].kind, HostFailureKind::kTimedOut);
  EXPECT_EQ(r.failures[3].message,
            "the benchmark took longer than 30 s and was stopped (raise --timeout)");
}

Cluster three_hosts() {
  return read_cluster(parse_yaml_document(R"(schema: meshplan.cluster/1
hosts:
  - {name: gpu-1, memory: 2TiB, gpus: "2 x h100-sxm", nvlink: 18}
  - {name: cpu-1, memory: 64GiB, mem_bandwidth: 50GB/s, flops: 1T}
  - {name: cpu-2, memory: 64GiB, mem_bandwidth: 50GB/s, flops: 1T}
)",
                                          "three.yaml"),
                      Catalog::builtin());
}

TEST(calibrate_test, only_measured_hosts_change_and_the_file_reads_back_the_same) {
  Cluster c = three_hosts();
  CalibrateReport r;
  r.hosts.push_back(parse_calibration("gpu-1", kCudaHost));
  r.hosts.push_back(parse_calibration("cpu-1", kNumpyHost));
  Cluster m = with_calibration(c, r, "2026-11-27");
  const Host& gpu = *m.find_host("gpu-1");
  EXPECT_DOUBLE_EQ(*gpu.mem_bandwidth, 6.0e12);  // two GPUs, one measured
  EXPECT_DOUBLE_EQ(*gpu.flops, 1.4e15);
  EXPECT_DOUBLE_EQ(*gpu.gpu_link_latency_s, 28.5e-6);
  EXPECT_DOUBLE_EQ(*gpu.stage_overhead_s, 0.031e-3);
  EXPECT_EQ(gpu.measured, "2026-11-27");
  const Host& cpu = *m.find_host("cpu-1");
  EXPECT_DOUBLE_EQ(*cpu.mem_bandwidth, 2.14985e10);
  EXPECT_FALSE(cpu.gpu_link_latency_s);
  EXPECT_EQ(*m.find_host("cpu-2"), *c.find_host("cpu-2"));
  // An all-reduce timed in a loop (its launches included) is reported, not written.
  std::string loop = kCudaHost;
  loop.replace(loop.find("allreduce_method=graph"), 22, "allreduce_method=loop");
  CalibrateReport looped;
  looped.hosts.push_back(parse_calibration("gpu-1", loop));
  EXPECT_FALSE(with_calibration(c, looped, "2026-11-27").find_host("gpu-1")->gpu_link_latency_s);
  EXPECT_NE(calibration_summary(looped.hosts[0]).find("in a loop with its launches: not written"),
            std::string::npos);

  const std::string text = write_cluster_json(m);
  EXPECT_NE(text.find("\"gpu_link_latency_us\": 28.5"), std::string::npos) << text;
  EXPECT_NE(text.find("\"stage_overhead_ms\": 0.031"), std::string::npos) << text;
  EXPECT_NE(text.find("\"measured\": \"2026-11-27\""), std::string::npos) << text;
  Cluster back = read_cluster(parse_json_document(text, "m.json"), Catalog::builtin());
  EXPECT_EQ(back.find_host("gpu-1")->measured, "2026-11-27");
  EXPECT_NEAR(*back.find_host("gpu-1")->gpu_link_latency_s, 28.5e-6, 1e-12);
  EXPECT_NEAR(*back.find_host("cpu-1")->stage_overhead_s, 0.0042595e-3, 1e-12);
}

TEST(calibrate_test, a_measured_date_is_checked_like_a_cables) {
  auto error = [](const std::string& host) {
    try {
      read_cluster(parse_yaml_document("hosts:\n  - " + host + "\n", "h.yaml"), Catalog::builtin());
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("{name: a, memory: 8GiB, mem_bandwidth: 50GB/s, flops: 1T, measured: "
                  "2026-11-27}"),
            "");
  EXPECT_NE(error("{name: a, memory: 8GiB, mem_bandwidth: 50GB/s, flops: 1T, measured: today}")
                .find("expected the date of the measurement, YYYY-MM-DD"),
            std::string::npos);
  EXPECT_NE(error("{name: a, memory: 8GiB, chip: m3-ultra-80c, measured: 2026-11-27}")
                .find("measured needs mem_bandwidth, flops"),
            std::string::npos);
}

// The script itself under /bin/sh, as sshd would run it.
TEST(calibrate_test, a_host_without_python3_gets_the_none_backend) {
  const std::string empty = testing::temp_dir();
  testing::LocalShellExecutor ex(empty, "", "PATH='" + empty + "'");
  CalibrateReport r = run_calibrate({target("bare")}, ex, {});
  ASSERT_TRUE(r.failures.empty()) << r.failures[0].message;
  ASSERT_EQ(r.hosts.size(), 1u);
  EXPECT_EQ(r.hosts[0].backend, "none");
  EXPECT_EQ(r.notes.size(), 1u);
}

TEST(calibrate_test, the_time_limit_stops_python_and_what_it_started) {
  const std::string bin = testing::temp_dir();
  const std::string pid_file = bin + "/child.pid";
  // A python3 that starts a child and never finishes.
  testing::write_fake_command(bin + "/slow", "python3",
                              "sleep 60 &\necho $! > '" + pid_file + "'\nwait\n");
  testing::LocalShellExecutor ex(bin);
  CalibrateOptions options;
  options.timeout_s = 1;
  CalibrateReport r = run_calibrate({target("slow")}, ex, options);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].kind, HostFailureKind::kTimedOut) << r.failures[0].message;
  // Gone, or a zombie waiting for init to reap it: either way it no longer runs.
  // A killed process can still show R for a moment on a busy machine while the kernel delivers
  // the signal, so it gets a few seconds to get there; one that was never signalled sleeps (S).
  const std::string stat = "/proc/" + trim(testing::read_text(pid_file)) + "/stat";
  auto state_now = [&stat] {
    std::ifstream in(stat);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text.empty() ? std::string() : text.substr(text.rfind(')') + 2, 1);
  };
  std::string state = state_now();
  for (int i = 0; i < 50 && !(state.empty() || state == "Z"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    state = state_now();
  }
  EXPECT_TRUE(state.empty() || state == "Z") << "the child outlived the time limit: " << state;
}

}  // namespace
}  // namespace meshplan::calibrate_test
