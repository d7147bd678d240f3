#include "deploy/configure/linux_launch_facts.hpp"

#include <fmt/format.h>

#include <charconv>
#include <sstream>

#include "lib/core/units.hpp"

namespace meshplan {
namespace {

// torch is imported for its CUDA runtime and NCCL (torch.version.cuda, torch.cuda.nccl.version());
// vLLM's and Ray's versions come from their installed metadata, which is what vllm.__version__
// and ray.__version__ print, without the seconds their imports take.
constexpr const char* kVersions = R"(import platform, sys
print("@@v_python " + platform.python_version())
try:
    import torch
    print("@@v_torch " + torch.__version__)
    if torch.version.cuda:
        print("@@v_cuda " + str(torch.version.cuda))
    try:
        v = torch.cuda.nccl.version()
        print("@@v_nccl " + (".".join(str(x) for x in v) if isinstance(v, tuple) else str(v)))
    except Exception:
        pass
except Exception:
    pass
def installed(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:
        try:
            return __import__(name).__version__
        except Exception:
            return ""
for name in sys.argv[1:]:
    v = installed(name)
    if v:
        print("@@v_%s %s" % (name, v))
)";

bool to_int(std::string_view text, int& out) {
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && p == text.data() + text.size();
}

}  // namespace

std::string linux_launch_script(bool ray) {
  return fmt::format(
      "  echo \"@@portrange $(cat /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)\"\n"
      "  if command -v nvidia-smi >/dev/null 2>&1; then echo @@gpus; nvidia-smi "
      "--query-gpu=name,memory.total --format=csv,noheader 2>&1; else echo @@nogpus; fi\n"
      "  if command -v ibv_devinfo >/dev/null 2>&1; then echo @@ibv; ibv_devinfo 2>&1; "
      "else echo @@noibv; fi\n"
      "  if command -v python3 >/dev/null 2>&1; then python3 - vllm{} 2>/dev/null <<'MESHPLAN_PY'\n"
      "{}MESHPLAN_PY\n"
      "  else echo @@nopython; fi\n",
      ray ? " ray" : "", kVersions);
}

std::vector<SmiGpu> parse_smi_gpus(std::string_view text) {
  std::vector<SmiGpu> out;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    size_t comma = line.rfind(',');
    if (comma == std::string::npos) continue;
    std::string name = trim(line.substr(0, comma));
    std::istringstream memory(line.substr(comma + 1));
    std::string number, unit;
    memory >> number >> unit;
    int mib = 0;
    if (name.empty() || unit != "MiB" || !to_int(number, mib) || mib < 0) continue;
    out.push_back({name, static_cast<uint64_t>(mib)});
  }
  return out;
}

LinuxLaunchFacts parse_linux_launch_facts(const std::map<std::string, std::string>& s) {
  LinuxLaunchFacts f;
  auto section = [&](const char* name) -> const std::string* {
    auto it = s.find(name);
    return it == s.end() ? nullptr : &it->second;
  };
  if (const std::string* range = section("portrange")) {
    std::istringstream words(*range);
    std::string low, high;
    int a = 0, b = 0;
    if (words >> low >> high && to_int(low, a) && to_int(high, b) && a >= 1 && b <= 65535 && a <= b)
      f.port_range = std::pair{a, b};
  }
  if (const std::string* gpus = section("gpus")) {
    f.nvidia_smi = true;
    f.gpus = parse_smi_gpus(*gpus);
    std::string text = trim(*gpus);
    if (f.gpus.empty() && !text.empty()) f.nvidia_smi_error = text.substr(0, text.find('\n'));
  }
  if (const std::string* ibv = section("ibv")) {
    f.ibv_devinfo = true;
    if (!ibv_reports_no_devices(*ibv)) f.rdma = parse_ibv_devinfo(*ibv);
  }
  f.python = !section("nopython");
  for (const auto& [name, text] : s)
    if (name.rfind("v_", 0) == 0 && !trim(text).empty()) f.versions[name.substr(2)] = trim(text);
  if (!f.versions.count("python")) f.python = false;
  return f;
}

}  // namespace meshplan
