// Linux host facts: /proc/meminfo, `nvidia-smi --query-gpu=... --format=csv`, `ip -j addr show`,
// /etc/os-release, the /sys/class/net and /sys/class/infiniband readings of the probe script and
// `ip -j -6 neigh show` (what each interface sees across its wire).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

// MemTotal in bytes (meminfo's "kB" are KiB). Throws ProbeParseError without a MemTotal line.
uint64_t parse_meminfo_total(std::string_view text);

struct NvidiaGpu {
  int index = 0;
  std::string name;
  std::string uuid;
  std::string pci_bus;
  uint64_t memory = 0;  // bytes (memory.total is MiB)
};

// The columns discovery asks for, in the order of its nvidia-smi query.
const std::vector<std::string>& nvidia_smi_columns();

// CSV with ", " separators, with or without a header line and with or without units
// ("81559 MiB" or "81559"). A header names the columns; without one `columns` gives their order.
// Throws ProbeParseError on rows that do not fit.
std::vector<NvidiaGpu> parse_nvidia_smi(
    std::string_view text, const std::vector<std::string>& columns = nvidia_smi_columns());

struct LinuxInterface {
  std::string name;
  std::string link_type;  // "ether", "loopback", ...
  std::string operstate;  // "UP", "DOWN", "UNKNOWN"
  bool up = false;        // the UP flag
  std::string ipv4;       // first IPv4 address
  int prefix = 0;
  std::string mac;                     // "address" of an ether link
  int mtu = 0;                         // 0 when not given
  std::vector<std::string> addresses;  // every IPv4 address, "a.b.c.d/p"
};

// `ip -j addr show` (compact or pretty JSON). Throws ProbeParseError when it is not that JSON.
std::vector<LinuxInterface> parse_ip_addr(std::string_view json_text);

struct OsRelease {
  std::string id;          // "debian"
  std::string version_id;  // "12"
  std::string pretty_name;
};

OsRelease parse_os_release(std::string_view text);

// One line per interface of the probe's /sys/class/net reading: "NAME|ADDRESS|OPERSTATE|SPEED".
// SPEED is in Mb/s; the kernel refuses to read it on a down link, and reports -1 or 0 when it
// does not know it: speed_mbps is 0 then.
struct SysNetInterface {
  std::string name;
  std::string mac;
  std::string operstate;  // "up", "down", "unknown", "lowerlayerdown", ...
  int64_t speed_mbps = 0;
};
std::vector<SysNetInterface> parse_sys_net(std::string_view text);

// One line per RDMA-capable interface: "DEVICE INTERFACE" (from
// /sys/class/infiniband/DEVICE/device/net/INTERFACE).
struct RdmaNetInterface {
  std::string device;
  std::string interface;
};
std::vector<RdmaNetInterface> parse_rdma_net(std::string_view text);

// One line per RDMA port: "DEVICE RATE" with RATE as /sys/class/infiniband/DEVICE/ports/N/rate
// gives it ("400 Gb/sec (4X NDR)"). The fastest port of each device, in Gbit/s.
struct RdmaRate {
  std::string device;
  double gbps = 0;
};
std::vector<RdmaRate> parse_rdma_rates(std::string_view text);

// `ip -j -6 neigh show`: the link-layer addresses each interface has seen. Entries without an
// lladdr (INCOMPLETE, FAILED) are left out.
struct Neighbour {
  std::string interface;
  std::string address;  // IPv6, usually fe80::...
  std::string mac;
};
std::vector<Neighbour> parse_ip_neigh(std::string_view json_text);

}  // namespace meshplan
