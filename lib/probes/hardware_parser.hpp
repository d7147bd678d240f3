// What a Mac says about itself: `system_profiler -json SPHardwareDataType SPDisplaysDataType`,
// `sysctl hw.memsize hw.model machdep.cpu.brand_string`, `sysctl -n iogpu.wired_limit_mb` and
// `sw_vers`. Each field has several real shapes (see the fixtures): number_processors is
// "proc 8:4:4", "proc 18:6:0:12" or a bare number; physical_memory is "16 GB" (binary GB);
// sppci_cores is a string; under Rosetta chip_type is missing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

struct MacHardware {
  std::string chip_type;       // "Apple M3 Ultra"; empty under Rosetta
  std::string machine_model;   // "Mac15,14"
  std::string machine_name;    // "Mac Studio"
  uint64_t memory = 0;         // bytes, from physical_memory
  int cpu_cores = 0;           // total
  std::vector<int> cpu_tiers;  // cores per tier, fastest first ("proc 18:6:0:12" -> 6, 0, 12)
  int gpu_cores = 0;           // SPDisplaysDataType sppci_cores of the built-in GPU
  std::string gpu_model;       // sppci_model
};

// Either data type may be missing from the document (they are separate files in some captures).
// Throws ProbeParseError when the text is not system_profiler JSON.
MacHardware parse_system_profiler_hardware(std::string_view json_text);

// "proc 8:4:4" -> 8 with tiers {4, 4}; "proc 18:6:0:12" -> 18 with {6, 0, 12}; "3" -> 3.
// False when the text has none of these shapes.
bool parse_number_processors(std::string_view text, int* total, std::vector<int>* tiers);

struct MacSysctl {
  uint64_t memsize = 0;
  std::string model;                          // hw.model
  std::string brand;                          // machdep.cpu.brand_string
  std::map<std::string, std::string> values;  // every "name: value" line
};

// `sysctl NAME...` ("hw.memsize: 137438953472" lines) or `sysctl -n hw.memsize hw.model
// machdep.cpu.brand_string` (bare values in that order). Throws ProbeParseError when neither a
// memory size nor a model can be read.
MacSysctl parse_sysctl(std::string_view text);

// `sysctl -n iogpu.wired_limit_mb`: 0 means the macOS default. nullopt when the output is not a
// number (an older macOS without the setting).
std::optional<int64_t> parse_wired_limit(std::string_view text);

struct SwVers {
  std::string product;  // "macOS"
  std::string version;  // "26.6.2"
  std::string build;    // "25G83"
};

// Throws ProbeParseError when no ProductVersion line is present.
SwVers parse_sw_vers(std::string_view text);

}  // namespace meshplan
