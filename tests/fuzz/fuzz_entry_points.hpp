// What each fuzz target does with its input, shared by the libFuzzer programs (one
// `<name>_fuzzer.cpp` per target, built with MESHPLAN_BUILD_FUZZERS) and by
// tests/fuzz_regressions_test.cpp, which replays every kept input in the normal test suite.
//
// Every function hands the bytes to a real reader or parser. An input that is not what the
// reader expects must end in meshplan's own error: `Error` for files a user gives, and
// `ProbeParseError` for the outputs of commands run on a host (the discovery parsers' documented
// error). Those are caught here; anything else (another exception, a crash, a hang) escapes and
// is a bug.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace meshplan::fuzz {

using EntryPoint = void (*)(std::string_view input);

struct FuzzTarget {
  const char* name;  // tests/fuzz/<name>_fuzzer.cpp, tests/fuzz/regressions/<name>/
  EntryPoint run;
};

// Every target, by name.
const std::vector<FuzzTarget>& fuzz_targets();
const FuzzTarget* find_fuzz_target(std::string_view name);

// Files a user gives.
void fuzz_cluster_json(std::string_view input);  // cluster file as JSON (cluster_loader)
void fuzz_cluster_yaml(std::string_view input);  // cluster file as YAML
void fuzz_plan_file(std::string_view input);     // plan file, as configuring commands read it
void fuzz_mlx_hostfile(std::string_view input);  // `check --hostfile`
void fuzz_expert_load(std::string_view input);   // `plan --expert-load` for a catalog MoE model
void fuzz_workload(std::string_view input);      // `plan --workload`
void fuzz_profile(std::string_view input);       // `plan --profile`; what it writes reads back
void fuzz_host_list(std::string_view input);     // host ranges, inventories, Slurm lists/nodes
void fuzz_safetensors(std::string_view input);   // a .safetensors file's header
void fuzz_model_config(std::string_view input);  // a model's config.json

// Outputs of the probes run on a host.
void fuzz_probe_output(std::string_view input);  // the probe script's marked output
void fuzz_thunderbolt(std::string_view input);   // system_profiler SPThunderboltDataType -json
void fuzz_hardware(std::string_view input);      // system_profiler SPHardware/SPDisplays -json
void fuzz_networksetup(std::string_view input);  // networksetup -listallhardwareports
void fuzz_ifconfig(std::string_view input);      // ifconfig, ipconfig getifaddr
void fuzz_ibv(std::string_view input);           // ibv_devices, ibv_devinfo
void fuzz_sysctl(std::string_view input);        // sysctl hw.memsize ..., iogpu.wired_limit_mb
void fuzz_sw_vers(std::string_view input);       // sw_vers
void fuzz_meminfo(std::string_view input);       // /proc/meminfo
void fuzz_nvidia_smi(std::string_view input);    // nvidia-smi --query-gpu CSV
void fuzz_host_state(std::string_view input);    // --apply's state, --live's pings, calibrate
void fuzz_ip_json(std::string_view input);       // ip -j addr show, ip -j -6 neigh show
void fuzz_linux_text(std::string_view input);    // /etc/os-release, /sys/class/net readings
void fuzz_gpu_topology(std::string_view input);  // nvidia-smi topo -m and nvlink -s

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace meshplan::fuzz

// The whole of a `<name>_fuzzer.cpp`: MESHPLAN_FUZZ_TARGET(fuzz_cluster_yaml)
#define MESHPLAN_FUZZ_TARGET(function)                                      \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { \
    meshplan::fuzz::function(meshplan::fuzz::as_text(data, size));          \
    return 0;                                                               \
  }
