#include "deploy/configure/undo_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <thread>

#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"
#include "lib/core/shell_quote.hpp"

namespace meshplan {
namespace {

constexpr std::string_view kMarker = "MESHPLAN_UNDO";
constexpr std::string_view kOpen = " /bin/sh -s <<'MESHPLAN_UNDO'";

// An -o option: OpenSSH splits its value at spaces, so a path with spaces is double-quoted.
std::string ssh_option(const std::string& name, const std::string& value) {
  bool spaced = value.find_first_of(" \t") != std::string::npos;
  std::string v = spaced ? fmt::format("\"{}\"", value) : value;
  return fmt::format("-o {}", shell_quote(fmt::format("{}={}", name, v)));
}

}  // namespace

std::string ssh_command(const SshOptions& o) {
  std::vector<std::string> words{"ssh"};
  if (!o.config_file.empty()) words.push_back(fmt::format("-F {}", shell_quote(o.config_file)));
  if (!o.identity.empty()) words.push_back(fmt::format("-i {}", shell_quote(o.identity)));
  if (!o.known_hosts.empty()) words.push_back(ssh_option("UserKnownHostsFile", o.known_hosts));
  words.push_back(ssh_option("StrictHostKeyChecking",
                             o.policy == HostKeyPolicy::kAcceptNew ? "accept-new" : "yes"));
  return fmt::format("{}", fmt::join(words, " "));
}

std::string undo_script(const std::vector<HostApply>& hosts, const SshOptions& options,
                        const std::string& heading) {
  std::string out = "#!/bin/sh\n";
  if (!heading.empty()) out += "# " + heading + "\n";
  out +=
      "# Each command may fail harmlessly when its change was never made or is undone already.\n";
  const std::string ssh = ssh_command(options);
  for (const auto& h : hosts) {
    if (h.steps.empty()) continue;
    std::string port = h.target.port > 0 ? fmt::format(" -p {}", h.target.port) : "";
    std::string dest = h.target.user.empty() ? h.target.host : h.target.user + "@" + h.target.host;
    out += fmt::format("\n# {}\n{}{} {}{}\n", h.host, ssh, port, shell_quote(dest), kOpen);
    for (auto it = h.steps.rbegin(); it != h.steps.rend(); ++it)
      out += it->undo + "\n";
    out += fmt::format("{}\n", kMarker);
  }
  return out;
}

std::vector<UndoBlock> parse_undo_script(std::string_view text, const std::string& where) {
  std::vector<UndoBlock> blocks;
  std::istringstream in{std::string(text)};
  std::string line, host;
  size_t n = 0;
  UndoBlock* open = nullptr;
  while (std::getline(in, line)) {
    ++n;
    if (open) {
      if (line == kMarker)
        open = nullptr;
      else if (!line.empty())
        open->lines.push_back(line);
      continue;
    }
    if (line.empty()) continue;
    if (line[0] == '#') {
      host = line.size() > 2 && line[1] == ' ' ? line.substr(2) : "";
      continue;
    }
    bool ssh_line = line.rfind("ssh ", 0) == 0 && line.size() > kOpen.size() &&
                    line.compare(line.size() - kOpen.size(), kOpen.size(), kOpen) == 0;
    if (!ssh_line)
      throw input_error(
          "{}:{}: expected `ssh ... /bin/sh -s <<'MESHPLAN_UNDO'`, a `# HOST` line or a blank line "
          "(is this an undo script written by `setup --apply`?)",
          where, n);
    if (host.empty())
      throw input_error("{}:{}: the ssh line is not preceded by a `# HOST` line naming its host",
                        where, n);
    blocks.push_back({host, {}, n});
    open = &blocks.back();
    host.clear();
  }
  if (open)
    throw input_error("{}:{}: the block for {} has no closing {} line (is the file cut short?)",
                      where, open->line, open->host, kMarker);
  if (blocks.empty())
    throw input_error("{}: holds no host block (`ssh ... <<'MESHPLAN_UNDO'`): nothing to undo",
                      where);
  return blocks;
}

std::vector<UndoRun> run_undo_blocks(const std::vector<UndoBlock>& blocks,
                                     const std::vector<HostTarget>& targets,
                                     RemoteExecutor& executor, int jobs, int attempts,
                                     int pause_ms) {
  std::vector<UndoRun> runs(blocks.size());
  parallel_for(blocks.size(), jobs, [&](size_t b) {
    UndoRun& r = runs[b];
    r.host = blocks[b].host;
    // Each line's status is printed after it, so the report can say which ones did nothing.
    std::string script;
    for (size_t i = 0; i < blocks[b].lines.size(); ++i)
      script += fmt::format("{}\necho \"@@undo {} $?\"\n", blocks[b].lines[i], i);
    for (int attempt = 0; attempt < std::max(1, attempts); ++attempt) {
      if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
      ExecResult e = executor.run(targets[b], "/bin/sh -s", script);
      r.failure = e.failure;
      r.message = e.message;
      r.unknown = !e.ok() && e.command_sent;
      if (!e.ok()) continue;
      r.ran = 0;
      r.refused.clear();
      std::istringstream out(e.out);
      std::string line;
      while (std::getline(out, line)) {
        size_t i = 0;
        int status = 0;
        if (std::sscanf(line.c_str(), "@@undo %zu %d", &i, &status) != 2 ||
            i >= blocks[b].lines.size())
          continue;
        if (status == 0)
          ++r.ran;
        else
          r.refused.push_back(blocks[b].lines[i]);
      }
      if (r.ran + r.refused.size() < blocks[b].lines.size()) {
        r.failure = HostFailureKind::kOutputNotUnderstood;
        r.message = fmt::format("the host reported {} of the {} undo lines",
                                r.ran + r.refused.size(), blocks[b].lines.size());
      }
      return;
    }
  });
  return runs;
}

}  // namespace meshplan
