// A plan's hosts renamed: a plan made for some hosts, given to others interchangeable with them
// (the same figures and links, host for host), as the replicas of a fleet reuse one plan per kind
// of group instead of planning each copy. Every field that names a host is renamed, in free text
// too (notes, reasons, the bottleneck): a name is a whole word of letters, digits, '-', '_' and
// '.', so "mini-1" is not renamed inside "mini-10".
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "lib/plan/plan.hpp"

namespace meshplan {

using HostRenames = std::map<std::string, std::string, std::less<>>;

// `text` with every whole-word host name of `to` replaced at once (a swap stays a swap).
std::string renamed(std::string_view text, const HostRenames& to);

// Every host name in the plan replaced through `to`.
void rename_hosts(Plan& plan, const HostRenames& to);

}  // namespace meshplan
