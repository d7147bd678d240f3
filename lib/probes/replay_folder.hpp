// A replay folder (SPEC 2.4): canned probe outputs, one file per host and probe, named
// <host>.<probe>.<ext> after the probe table (m3-ultra-1.system_profiler.json,
// m3-ultra-1.networksetup.txt, ...). A missing file means the probe failed or is absent on that
// host. `discover --replay` reads one; `discover --record` writes one from a live run.
#pragma once

#include <string>
#include <vector>

#include "lib/core/file_system.hpp"
#include "lib/probes/probe_set.hpp"

namespace meshplan {

// "m3-ultra-1.system_profiler.json"
std::string replay_file_name(const std::string& host, const ProbeSpec& spec);

// The hosts that have at least one probe file, in natural order (mac-2 before mac-10). Throws an
// input error when the folder does not exist or holds no probe file.
std::vector<std::string> replay_hosts(const FileSystem& fs, const std::string& dir);

// The probes of `host` found in `dir`, each with status ok; empty when there are none.
ProbeSet read_replay_probes(const FileSystem& fs, const std::string& dir, const std::string& host);

// Writes the probes that succeeded, redacted (lib/redaction.hpp); failed or missing probes get no
// file, as the layout defines. Creates `dir` when needed.
void write_replay_probes(FileSystem& fs, const std::string& dir, const std::string& host,
                         const ProbeSet& probes);

// "mac-2" < "mac-10": digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b);

}  // namespace meshplan
