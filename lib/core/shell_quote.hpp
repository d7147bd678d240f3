// The one quoting rule for values printed into shell commands (POSIX sh on macOS and Linux):
// Python's shlex.quote, so that what mlx.launch prints and what meshplan prints agree. A value of
// letters, digits and @%+=:,./-_ stays as it is; anything else is single-quoted.
#pragma once

#include <string>
#include <string_view>

namespace meshplan {

std::string shell_quote(std::string_view value);

}  // namespace meshplan
