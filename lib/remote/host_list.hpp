// Host lists as people type them: "mac[1-4]", "mac[01-04],studio", "admin@mac-1:2222", and
// inventory files. Every name and user is validated here, once, so that nothing that reaches
// SSH can read as an option or carry shell syntax.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/remote/slurm_hostlist.hpp"

namespace meshplan {

// One host to probe: the name it gets in the cluster file and how to reach it.
struct HostTarget {
  std::string name;  // cluster host name
  std::string user;  // empty: --user, then ssh config, then the local user
  std::string host;  // ssh host (alias from ~/.ssh/config, DNS name or IPv4 address)
  int port = 0;      // 0: --port, then ssh config, then 22

  // "user@host:port" with the parts that are set; what the cluster file's `ssh` key holds.
  std::string spec() const;
  bool operator==(const HostTarget&) const = default;
};

// Splits "a,b,c" at commas outside brackets and expands ranges such as mac[1-4], mac[01-04] and
// Slurm's gpu[01-04,07] (zero-padded to the width of the low bound). Empty items are dropped.
// Unlike Slurm's own lists (lib/remote/slurm_hostlist), text may follow a bracket
// (mac[1-2].local) and the first bracket always varies slowest.
std::vector<std::string> expand_host_list(std::string_view text);

// Expands the ranges of one item: "mac[1-3]" -> mac1, mac2, mac3.
std::vector<std::string> expand_ranges(std::string_view item);

// A host name or user as accepted for SSH: letters, digits, '.', '_', '-', not starting with '-'.
bool valid_ssh_word(std::string_view word);

// "[user@]host[:port]" -> target named after the host. Throws an input error naming `where`.
HostTarget parse_target(std::string_view text, std::string_view where);

// Inventory file: one host per line, '#' starts a comment, blank lines are ignored.
//   [user@]host[:port]            name = host
//   NAME [user@]host[:port]       name given explicitly
// Ranges expand in both columns; when both have ranges they must expand to the same count and
// are paired in order (mac[1-4] 10.0.0.[1-4]).
std::vector<HostTarget> parse_inventory(std::string_view text, const std::string& file_name);

// Throws an input error when two targets share a name.
void check_unique_names(const std::vector<HostTarget>& targets);

}  // namespace meshplan
