// Whatever a host prints, the parsers answer with a result or a ProbeParseError: never a crash,
// never another exception. Large and odd inputs on purpose.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "lib/probes/hardware_parser.hpp"
#include "lib/probes/ibv_parser.hpp"
#include "lib/probes/ifconfig_parser.hpp"
#include "lib/probes/linux_parsers.hpp"
#include "lib/probes/networksetup_parser.hpp"
#include "lib/probes/probe_script.hpp"
#include "lib/probes/probe_set.hpp"
#include "lib/probes/thunderbolt_parser.hpp"
#include "lib/remote/redaction.hpp"

namespace meshplan::parser_robustness_test {
namespace {

std::vector<std::string> odd_inputs() {
  return {
      "",
      "\n\n\n",
      std::string(1 << 20, 'x'),
      std::string(1 << 20, '"'),
      "{\"a\": \"" + std::string(1 << 20, 'y') + "\"}",
      "en0: flags=" + std::string(200000, '8') + "<UP",
      "\tmedia: " + std::string(200000, '1') + "base",
      std::string(100000, '[') + std::string(100000, '{'),
      "{\"SPThunderboltDataType\": [{\"receptacle_1_tag\": {\"receptacle_id_key\": 7}, \"_items\": "
      "5}]}",
      "{\"SPHardwareDataType\": [], \"SPDisplaysDataType\": {}}",
      "[{\"ifname\": \"eth0\", \"addr_info\": [1, {\"family\": \"inet\", \"local\": 5}]}]",
      std::string("\0\xff\xfe binary \x01", 12),
      "GPU-" + std::string(300000, 'a'),
      "hca_id: x\n\tport: 99999999999999999999\n\tstate: \n",
      "MemTotal: 99999999999999999999999 kB\n",
      "0, name, uuid, bus, 999999999999999999999999\n",
      "99999999999, name, uuid, bus, 1\n",
      "{\"SPHardwareDataType\": [{\"number_processors\": \"proc 99999999999999:1\"}]}",
      "{\"SPHardwareDataType\": [{\"number_processors\": 99999999999999}]}",
      "{\"SPDisplaysDataType\": [{\"sppci_cores\": \"99999999999999999\"}]}",
      "hw.memsize: 99999999999999999999999999\n",
  };
}

template <typename F>
void survives(const char* name, F parse) {
  for (const auto& input : odd_inputs()) {
    try {
      parse(input);
    } catch (const ProbeParseError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << " threw " << e.what() << " on an input of " << input.size()
                    << " bytes";
    }
  }
}

TEST(parser_robustness_test, odd_and_huge_outputs_never_crash) {
  survives("thunderbolt", [](const std::string& s) { parse_thunderbolt(s); });
  survives("networksetup", [](const std::string& s) { parse_networksetup(s); });
  survives("ibv_devices", [](const std::string& s) { parse_ibv_devices(s); });
  survives("ibv_devinfo", [](const std::string& s) { parse_ibv_devinfo(s); });
  survives("hardware", [](const std::string& s) { parse_system_profiler_hardware(s); });
  survives("sysctl", [](const std::string& s) { parse_sysctl(s); });
  survives("wired_limit", [](const std::string& s) { parse_wired_limit(s); });
  survives("sw_vers", [](const std::string& s) { parse_sw_vers(s); });
  survives("ifconfig", [](const std::string& s) { parse_ifconfig(s); });
  survives("getifaddr", [](const std::string& s) { parse_getifaddr(s); });
  survives("meminfo", [](const std::string& s) { parse_meminfo_total(s); });
  survives("nvidia_smi", [](const std::string& s) { parse_nvidia_smi(s); });
  survives("ip_addr", [](const std::string& s) { parse_ip_addr(s); });
  survives("os_release", [](const std::string& s) { parse_os_release(s); });
  survives("split", [](const std::string& s) { split_probe_output(s, s); });
  for (const auto& spec : probe_specs()) {
    survives(spec.name, [&](const std::string& s) { redact_probe_output(spec.name, s); });
  }
}

}  // namespace
}  // namespace meshplan::parser_robustness_test
