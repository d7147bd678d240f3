// The raw outputs of one host's probes, keyed by probe name ("uname", "system_profiler", ...),
// whether they came from a live SSH run or a replay folder, and the fixed table of probes:
// the command each runs and the file name it has in a replay folder (<host>.<probe>.<ext>).
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

enum class ProbeStatus {
  kOk,       // ran and exited 0 (or a replay file exists)
  kMissing,  // the command does not exist on the host
  kFailed,   // ran and exited non-zero
};

struct ProbeOutput {
  ProbeStatus status = ProbeStatus::kOk;
  int exit_status = 0;
  std::string out;
  std::string err;
};

// Probes that are absent from the set were not run (a replay folder without that file).
struct ProbeSet {
  std::map<std::string, ProbeOutput> probes;
  const ProbeOutput* find(std::string_view name) const;
  bool has(std::string_view name) const { return find(name) != nullptr; }
};

enum class ProbeOs { kAny, kMacos, kLinux };

struct ProbeSpec {
  const char* name;     // section and replay-file name: "system_profiler"
  const char* ext;      // replay-file extension: "json"
  ProbeOs os;           // which hosts run it
  const char* command;  // the fixed command line run on the host
  bool essential;       // without it the host cannot be described: a failure fails the host
};

// Every probe, in the order the probe script runs them.
const std::vector<ProbeSpec>& probe_specs();
const ProbeSpec* find_probe_spec(std::string_view name);

// Raised by the parsers when an output is not what the command prints; the message says what
// was expected. Discovery turns it into an "output not understood" report for the host.
class ProbeParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace meshplan
