// RDMA device listings. `ibv_devices` prints a two-column table (device, node GUID); on a
// Thunderbolt 4 Mac it prints the header only even after `rdma_ctl enable`, and on Linux without
// an HCA it fails with "Failed to get IB devices list". `ibv_devinfo` prints one `hca_id:` block
// per device with a `port:` / `state:` pair per port.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

// Device names in listed order ("rdma_en2", "mlx5_0"); empty for a header-only table or an
// error message.
std::vector<std::string> parse_ibv_devices(std::string_view text);

struct IbvPort {
  std::string device;  // hca_id
  int port = 0;
  std::string state;  // "PORT_ACTIVE", "PORT_DOWN", ...
  std::string link_layer;
};

// One entry per (device, port); a device listed without ports gives one entry with port 0.
std::vector<IbvPort> parse_ibv_devinfo(std::string_view text);

// True when the text is the "no devices" message of the verbs tools (not an error to report).
bool ibv_reports_no_devices(std::string_view text);

}  // namespace meshplan
