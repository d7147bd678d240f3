// What --record must not write: serial numbers, and the UUIDs of devices that are not Macs
// (drives, docks, displays, GPUs). The domain UUIDs of Mac Thunderbolt buses stay, since cables
// are matched by them.
#pragma once

#include <string>
#include <string_view>

namespace meshplan {

inline constexpr const char* kRedacted = "REDACTED";

// The output of probe `probe` (a name from the probe table) with identifiers replaced by
// "REDACTED"; everything else is left byte for byte.
std::string redact_probe_output(std::string_view probe, std::string_view text);

}  // namespace meshplan
