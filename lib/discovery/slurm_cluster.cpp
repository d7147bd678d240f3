#include "lib/discovery/slurm_cluster.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "lib/core/error.hpp"
#include "lib/core/shell_quote.hpp"
#include "lib/core/units.hpp"

namespace meshplan {

// The names were validated as ssh words and are quoted all the same.
SlurmNodes query_slurm_nodes(const std::vector<HostTarget>& targets, const LocalCommand& command) {
  std::string list;
  for (const auto& t : targets) {
    if (!list.empty()) list += ',';
    list += t.host;
  }
  LocalResult r = command.run("scontrol show node -o " + shell_quote(list) + " 2>&1");
  if (!r.started) throw Error(ErrorKind::kHostsFailed, "could not run scontrol");
  if (r.exit_status != 0) {
    throw Error(ErrorKind::kHostsFailed,
                r.exit_status == 127
                    ? std::string("--source scontrol: scontrol is not installed (slurm-client)")
                    : fmt::format("--source scontrol: `scontrol show node -o {}` failed: {}", list,
                                  trim(r.out)));
  }
  // Keep the node records; scontrol's own warnings ("scontrol: ...") go to the user.
  SlurmNodes result;
  std::string records;
  const std::string& out = r.out;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t eol = out.find('\n', pos);
    if (eol == std::string::npos) eol = out.size();
    std::string line = out.substr(pos, eol - pos);
    if (line.starts_with("scontrol: "))
      result.warnings.push_back(line);
    else
      records += line + "\n";
    pos = eol + 1;
  }
  result.nodes = parse_scontrol_nodes(records, "scontrol");
  return result;
}

Cluster slurm_cluster(const std::vector<HostTarget>& targets, const std::vector<SlurmNode>& nodes,
                      const Catalog& catalog) {
  Cluster c;
  std::vector<std::string> problems;
  for (const auto& t : targets) {
    auto it = std::find_if(nodes.begin(), nodes.end(),
                           [&](const SlurmNode& n) { return n.name == t.host; });
    if (it == nodes.end()) {
      problems.push_back(fmt::format("  {}: not a node of this Slurm cluster", t.name));
      continue;
    }
    if (std::string why = slurm_unavailable(*it); !why.empty()) {
      problems.push_back(fmt::format("  {}: the controller reports it {} (State={}{}{})", t.name,
                                     why, it->state,
                                     it->reason.empty() ? "" : ", Reason=", it->reason));
      continue;
    }
    Host h = slurm_node_host(*it, catalog, c.findings);
    h.name = t.name;
    c.hosts.push_back(std::move(h));
  }
  if (!problems.empty())
    throw Error(ErrorKind::kHostsFailed,
                fmt::format("{} of {} Slurm node{} cannot run the model:\n{}\nnothing written",
                            problems.size(), targets.size(), targets.size() == 1 ? "" : "s",
                            fmt::join(problems, "\n")));
  return c;
}

}  // namespace meshplan
