#include "tests/fuzz/fuzz_entry_points.hpp"

#include <optional>
#include <stdexcept>
#include <string>

#include "deploy/configure/calibrate.hpp"
#include "deploy/configure/host_state.hpp"
#include "deploy/configure/live_check.hpp"
#include "deploy/configure/tcp_check.hpp"
#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/document.hpp"
#include "lib/core/error.hpp"
#include "lib/core/file_system.hpp"
#include "lib/models/expert_load.hpp"
#include "lib/models/model_folder.hpp"
#include "lib/models/model_loader.hpp"
#include "lib/models/safetensors.hpp"
#include "lib/plan/plan_file_reader.hpp"
#include "lib/probes/gpu_topology_parser.hpp"
#include "lib/probes/hardware_parser.hpp"
#include "lib/probes/ibv_parser.hpp"
#include "lib/probes/ifconfig_parser.hpp"
#include "lib/probes/linux_parsers.hpp"
#include "lib/probes/networksetup_parser.hpp"
#include "lib/probes/nvlink_status_parser.hpp"
#include "lib/probes/probe_script.hpp"
#include "lib/probes/probe_set.hpp"
#include "lib/probes/scontrol_parser.hpp"
#include "lib/probes/thunderbolt_parser.hpp"
#include "lib/remote/host_list.hpp"
#include "lib/remote/redaction.hpp"
#include "lib/remote/slurm_hostlist.hpp"
#include "solvers/problem/throughput_profile.hpp"
#include "solvers/serving/workload.hpp"
#include "topologies/mlx_hostfile.hpp"

namespace meshplan::fuzz {
namespace {

// A reader of files a user gives: only meshplan::Error may leave it.
template <typename F>
void user_file(F&& read) {
  try {
    read();
  } catch (const Error&) {
  }
}

// A parser of probe outputs: ProbeParseError is how it refuses an output; meshplan::Error is
// accepted too, since discovery reports both as a host whose output was not understood.
template <typename F>
void probe_output(F&& parse) {
  try {
    parse();
  } catch (const ProbeParseError&) {
  } catch (const Error&) {
  }
}

const ModelDesc& moe_model() {
  static const ModelDesc model = [] {
    MemoryFileSystem fs;
    return load_model("qwen3-30b-a3b-4bit", "", fs);
  }();
  return model;
}

}  // namespace

void fuzz_cluster_json(std::string_view input) {
  user_file([&] { load_cluster(input, "cluster.json", Catalog::builtin()); });
}

void fuzz_cluster_yaml(std::string_view input) {
  user_file([&] { load_cluster(input, "cluster.yaml", Catalog::builtin()); });
}

void fuzz_plan_file(std::string_view input) {
  // As `emit --plan FILE` reads it: JSON or YAML by content.
  user_file([&] { read_plan_ranks(parse_document(input, "plan")); });
}

void fuzz_mlx_hostfile(std::string_view input) {
  user_file([&] { read_mlx_hostfile(parse_json_document(input, "hostfile.json")); });
}

void fuzz_expert_load(std::string_view input) {
  const ModelDesc& model = moe_model();
  user_file([&] { parse_expert_load(input, "expert-load", model); });
}

void fuzz_workload(std::string_view input) {
  user_file([&] { parse_workload(input, "workload"); });
}

void fuzz_profile(std::string_view input) {
  std::optional<ThroughputProfile> p;
  user_file([&] { p = parse_throughput_profile(input, "profile"); });
  if (!p) return;
  // Whatever was accepted is written so that it reads back with the same names and lengths; an
  // error here is a bug, not a bad input.
  for (bool json : {false, true}) {
    ThroughputProfile back;
    try {
      back = parse_throughput_profile(write_throughput_profile(*p, json), "written");
    } catch (const Error& e) {
      throw std::logic_error(std::string("a written profile does not read back: ") + e.what());
    }
    if (back.model != p->model || back.hosts.size() != p->hosts.size() ||
        back.chips.size() != p->chips.size())
      throw std::logic_error("a written profile reads back different");
  }
}

void fuzz_host_list(std::string_view input) {
  user_file([&] { expand_host_list(input); });
  user_file([&] { parse_inventory(input, "hosts.txt"); });
  user_file([&] { expand_slurm_hostlist(input); });  // SLURM_JOB_NODELIST
  user_file([&] { parse_scontrol_nodes(input, "scontrol"); });
}

void fuzz_safetensors(std::string_view input) {
  MemoryFileSystem fs;
  fs.files["m/model.safetensors"] = std::string(input);
  user_file([&] { read_safetensors_header(fs, "m/model.safetensors"); });
}

void fuzz_model_config(std::string_view input) {
  MemoryFileSystem fs;
  fs.files["m/config.json"] = std::string(input);
  user_file([&] { load_model_folder("m/config.json", "", fs); });
}

void fuzz_probe_output(std::string_view input) {
  // The first NUL separates stdout from stderr.
  size_t nul = input.find('\0');
  std::string_view out = input.substr(0, nul);
  std::string_view err = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);
  probe_output([&] { split_probe_output(out, err); });
  for (const auto& spec : probe_specs())
    probe_output([&] { redact_probe_output(spec.name, out); });
}

void fuzz_thunderbolt(std::string_view input) {
  probe_output([&] { parse_thunderbolt(input); });
}

void fuzz_hardware(std::string_view input) {
  probe_output([&] { parse_system_profiler_hardware(input); });
}

void fuzz_networksetup(std::string_view input) {
  probe_output([&] { parse_networksetup(input); });
}

void fuzz_ifconfig(std::string_view input) {
  probe_output([&] { parse_ifconfig(input); });
  probe_output([&] { parse_getifaddr(input); });
}

void fuzz_ibv(std::string_view input) {
  probe_output([&] { parse_ibv_devices(input); });
  probe_output([&] { parse_ibv_devinfo(input); });
  probe_output([&] { ibv_reports_no_devices(input); });
}

void fuzz_sysctl(std::string_view input) {
  probe_output([&] { parse_sysctl(input); });
  probe_output([&] { parse_wired_limit(input); });
}

void fuzz_sw_vers(std::string_view input) {
  probe_output([&] { parse_sw_vers(input); });
}

void fuzz_meminfo(std::string_view input) {
  probe_output([&] { parse_meminfo_total(input); });
}

void fuzz_nvidia_smi(std::string_view input) {
  probe_output([&] { parse_nvidia_smi(input); });
}

void fuzz_ip_json(std::string_view input) {
  probe_output([&] { parse_ip_addr(input); });
  probe_output([&] { parse_ip_neigh(input); });
}

void fuzz_linux_text(std::string_view input) {
  probe_output([&] { parse_os_release(input); });
  probe_output([&] { parse_sys_net(input); });
  probe_output([&] { parse_rdma_net(input); });
}

void fuzz_host_state(std::string_view input) {
  probe_output([&] { parse_host_state(input); });
  ping_round_trips_us(std::string(input));
  iperf_received_gbps(std::string(input));
  script_sections(input);
  parse_tcp_lines(std::string(input));
  probe_output([&] { parse_calibration("host", std::string(input)); });
}

void fuzz_gpu_topology(std::string_view input) {
  probe_output([&] { parse_gpu_topology(input); });
  probe_output([&] { parse_nvlink_status(input); });
}

const std::vector<FuzzTarget>& fuzz_targets() {
  static const std::vector<FuzzTarget> targets = {
      {"cluster_json", fuzz_cluster_json},
      {"cluster_yaml", fuzz_cluster_yaml},
      {"plan_file", fuzz_plan_file},
      {"mlx_hostfile", fuzz_mlx_hostfile},
      {"expert_load", fuzz_expert_load},
      {"workload", fuzz_workload},
      {"profile", fuzz_profile},
      {"host_list", fuzz_host_list},
      {"safetensors", fuzz_safetensors},
      {"model_config", fuzz_model_config},
      {"probe_output", fuzz_probe_output},
      {"thunderbolt", fuzz_thunderbolt},
      {"hardware", fuzz_hardware},
      {"networksetup", fuzz_networksetup},
      {"ifconfig", fuzz_ifconfig},
      {"ibv", fuzz_ibv},
      {"sysctl", fuzz_sysctl},
      {"sw_vers", fuzz_sw_vers},
      {"meminfo", fuzz_meminfo},
      {"nvidia_smi", fuzz_nvidia_smi},
      {"ip_json", fuzz_ip_json},
      {"linux_text", fuzz_linux_text},
      {"gpu_topology", fuzz_gpu_topology},
      {"host_state", fuzz_host_state},
  };
  return targets;
}

const FuzzTarget* find_fuzz_target(std::string_view name) {
  for (const auto& t : fuzz_targets()) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

}  // namespace meshplan::fuzz
