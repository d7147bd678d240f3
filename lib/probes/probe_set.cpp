#include "lib/probes/probe_set.hpp"

namespace meshplan {

const ProbeOutput* ProbeSet::find(std::string_view name) const {
  auto it = probes.find(std::string(name));
  return it == probes.end() ? nullptr : &it->second;
}

const std::vector<ProbeSpec>& probe_specs() {
  // System tools are run by name: the script appends /usr/sbin:/sbin:/usr/bin:/bin to PATH so a
  // user's own PATH (or a test's fake commands) comes first. sysctl is asked with names (no -n)
  // so that an unknown name on an older macOS cannot shift the other values.
  static const std::vector<ProbeSpec> specs = {
      {"uname", "txt", ProbeOs::kAny, "uname -s", true},
      {"sw_vers", "txt", ProbeOs::kMacos, "sw_vers", false},
      {"sysctl", "txt", ProbeOs::kMacos, "sysctl hw.memsize hw.model machdep.cpu.brand_string",
       true},
      {"wired_limit", "txt", ProbeOs::kMacos, "sysctl -n iogpu.wired_limit_mb", false},
      {"hardware", "json", ProbeOs::kMacos,
       "system_profiler -json SPHardwareDataType SPDisplaysDataType", false},
      {"system_profiler", "json", ProbeOs::kMacos, "system_profiler SPThunderboltDataType -json",
       true},
      {"networksetup", "txt", ProbeOs::kMacos, "networksetup -listallhardwareports", true},
      {"ifconfig", "txt", ProbeOs::kMacos, "ifconfig", false},
      {"en0_ip", "txt", ProbeOs::kMacos, "ipconfig getifaddr en0", false},
      {"en1_ip", "txt", ProbeOs::kMacos, "ipconfig getifaddr en1", false},
      {"ibv_devices", "txt", ProbeOs::kMacos, "ibv_devices", false},
      {"meminfo", "txt", ProbeOs::kLinux, "cat /proc/meminfo", true},
      {"os_release", "txt", ProbeOs::kLinux, "cat /etc/os-release", false},
      {"nvidia_smi", "csv", ProbeOs::kLinux,
       "nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,memory.total "
       "--format=csv,noheader,nounits",
       false},
      {"nvidia_topo", "txt", ProbeOs::kLinux, "nvidia-smi topo -m", false},
      // Which NVLinks are up, and at what rate: topo -m counts the links a pair was built with.
      {"nvidia_nvlink", "txt", ProbeOs::kLinux, "nvidia-smi nvlink -s", false},
      {"ip_addr", "json", ProbeOs::kLinux, "ip -j addr show", false},
      // MAC, operational state and speed of every interface (speed cannot be read on a down
      // link: the field stays empty).
      {"sys_net", "txt", ProbeOs::kLinux,
       "sh -c 'for d in /sys/class/net/*; do printf \"%s|%s|%s|%s\\n\" \"${d##*/}\" "
       "\"$(cat $d/address 2>/dev/null)\" \"$(cat $d/operstate 2>/dev/null)\" "
       "\"$(cat $d/speed 2>/dev/null)\"; done'",
       false},
      // The interfaces an RDMA device sits on (RoCE, InfiniBand).
      {"rdma_net", "txt", ProbeOs::kLinux,
       "sh -c 'for n in /sys/class/infiniband/*/device/net/*; do [ -e \"$n\" ] || continue; "
       "d=${n#/sys/class/infiniband/}; echo \"${d%%/*} ${n##*/}\"; done'",
       false},
      // The rate of every RDMA port ("400 Gb/sec (4X NDR)"): the speed of InfiniBand and RoCE
      // links, which /sys/class/net does not always report.
      {"rdma_rate", "txt", ProbeOs::kLinux,
       "sh -c 'for r in /sys/class/infiniband/*/ports/*/rate; do [ -e \"$r\" ] || continue; "
       "d=${r#/sys/class/infiniband/}; echo \"${d%%/*} $(cat \"$r\")\"; done'",
       false},
      // What each link that is up sees across its wire: one all-nodes ping per interface makes
      // every IPv6 neighbour on it answer, which fills the neighbour table without configuring
      // anything; matching the MACs seen against the other hosts' interfaces finds the cables.
      {"neigh", "json", ProbeOs::kLinux,
       "sh -c 'for d in /sys/class/net/*; do i=${d##*/}; [ \"$i\" = lo ] && continue; "
       "[ \"$(cat $d/operstate 2>/dev/null)\" = up ] || continue; "
       "ping -6 -c1 -W1 \"ff02::1%$i\" >/dev/null 2>&1 & done; wait; ip -j -6 neigh show'",
       false},
      {"ibv_devinfo", "txt", ProbeOs::kAny, "ibv_devinfo", false},
  };
  return specs;
}

const ProbeSpec* find_probe_spec(std::string_view name) {
  for (const auto& s : probe_specs()) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

}  // namespace meshplan
