#include "lib/probes/probe_script.hpp"

#include <fmt/format.h>

#include <vector>

namespace meshplan {
namespace {

constexpr std::string_view kBegin = "@@meshplan ";
constexpr std::string_view kExit = "@@meshplan-exit ";
constexpr std::string_view kEnd = "@@meshplan-end";

std::string build_script() {
  // Each command reads /dev/null, never the script on standard input.
  std::string s =
      "PATH=\"$PATH:/usr/sbin:/sbin:/usr/bin:/bin\"; export PATH\n"
      "LC_ALL=C; export LC_ALL\n"
      "mp_run() {\n"
      "  mp_name=$1; shift\n"
      "  printf '\\n@@meshplan %s\\n' \"$mp_name\"; printf '\\n@@meshplan %s\\n' \"$mp_name\" >&2\n"
      "  if command -v \"$1\" >/dev/null 2>&1; then\n"
      "    \"$@\" </dev/null; printf '\\n@@meshplan-exit %s\\n' \"$?\"\n"
      "  else\n"
      "    printf '\\n@@meshplan-exit missing\\n'\n"
      "  fi\n"
      "}\n";
  auto add = [&](ProbeOs os) {
    for (const auto& p : probe_specs()) {
      if (p.os == os) s += fmt::format("mp_run {} {}\n", p.name, p.command);
    }
  };
  s += "mp_run uname uname -s\n";
  s += "case \"$(uname -s 2>/dev/null)\" in\nDarwin)\n";
  add(ProbeOs::kMacos);
  s += ";;\nLinux)\n";
  add(ProbeOs::kLinux);
  s += ";;\nesac\n";
  for (const auto& p : probe_specs()) {
    if (p.os == ProbeOs::kAny && std::string_view(p.name) != "uname")
      s += fmt::format("mp_run {} {}\n", p.name, p.command);
  }
  s += "printf '\\n@@meshplan-end\\n'\n";
  return s;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (true) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      lines.push_back(text.substr(pos));
      break;
    }
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Lines [from, to) joined back; the script prints a newline before every marker, so this gives
// the command's output byte for byte.
std::string join(const std::vector<std::string_view>& lines, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) {
    if (i > from) out += '\n';
    out.append(lines[i]);
  }
  return out;
}

}  // namespace

const std::string& probe_script() {
  static const std::string script = build_script();
  return script;
}

ProbeSet split_probe_output(std::string_view out, std::string_view err) {
  ProbeSet set;
  auto lines = split_lines(out);
  bool ended = false;
  std::string current;
  size_t start = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    if (starts_with(l, kExit) && !current.empty()) {
      ProbeOutput p;
      p.out = join(lines, start, i);
      std::string_view status = l.substr(kExit.size());
      if (status == "missing") {
        p.status = ProbeStatus::kMissing;
        p.exit_status = 127;
      } else {
        int v = 0;
        for (char c : status) {
          // A shell's exit status is 0-255; a longer number is not one (and would overflow).
          if (c < '0' || c > '9' || v > 99999)
            throw ProbeParseError(fmt::format("bad exit marker \"{}\"", l));
          v = v * 10 + (c - '0');
        }
        p.exit_status = v;
        p.status = v == 0 ? ProbeStatus::kOk : ProbeStatus::kFailed;
      }
      set.probes[current] = std::move(p);
      current.clear();
    } else if (l == kEnd) {
      ended = true;
    } else if (starts_with(l, kBegin) && current.empty()) {
      current = std::string(l.substr(kBegin.size()));
      start = i + 1;
    }
  }
  if (set.probes.empty())
    throw ProbeParseError(
        "the probe script printed none of its markers (is /bin/sh a POSIX shell?)");
  if (!ended) throw ProbeParseError("the probe script stopped before its end (output cut off)");

  // Standard error: the same begin markers, no exit markers.
  auto elines = split_lines(err);
  std::string name;
  size_t from = 0;
  auto flush = [&](size_t to) {
    if (name.empty()) return;
    auto it = set.probes.find(name);
    if (it != set.probes.end()) it->second.err = join(elines, from, to);
  };
  for (size_t i = 0; i < elines.size(); ++i) {
    if (starts_with(elines[i], kBegin)) {
      flush(i);
      name = std::string(elines[i].substr(kBegin.size()));
      from = i + 1;
    }
  }
  if (!name.empty()) {
    auto it = set.probes.find(name);
    if (it != set.probes.end()) it->second.err = join(elines, from, elines.size());
  }
  return set;
}

}  // namespace meshplan
