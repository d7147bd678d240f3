// The one shell script discovery runs on every host (over a single SSH channel, fed to
// `/bin/sh -s` on standard input so that the login shell does not matter), and the splitter that
// turns its marked output back into one ProbeOutput per probe.
//
// The script is built from the fixed probe table only; nothing a user typed ever enters it.
// Before each probe it prints "@@meshplan NAME" on stdout and stderr, after it
// "@@meshplan-exit STATUS" (a number, or "missing" when the command does not exist), and at the
// very end "@@meshplan-end", so a cut-off run is told apart from a complete one.
#pragma once

#include <string>
#include <string_view>

#include "lib/probes/probe_set.hpp"

namespace meshplan {

// The command line run on the host; the script goes to its standard input.
inline constexpr const char* kProbeShell = "/bin/sh -s";

// The probe script (macOS and Linux branches chosen by `uname -s` on the host).
const std::string& probe_script();

// Splits the script's output into probes. Throws ProbeParseError when the output does not hold
// the markers (not a POSIX shell, or the run was cut off).
ProbeSet split_probe_output(std::string_view out, std::string_view err);

}  // namespace meshplan
