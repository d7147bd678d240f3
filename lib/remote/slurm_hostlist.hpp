// Slurm's host lists ("gpu[01-04,07]", what SLURM_JOB_NODELIST and `scontrol show hostnames`
// hold), expanded by Slurm's own rules (src/common/hostlist.c, Slurm 22.05):
//  * items are separated by commas outside brackets or by white space; empty items are skipped;
//  * a bracket holds comma-separated numbers and LOW-HIGH ranges; each number is zero-padded to
//    the width of the LOW text as written ("[00-3]" -> 00..03, "[1-10]" -> 1..10); LOW > HIGH,
//    a non-digit or an empty entry is refused ("Invalid range");
//  * an item may hold several brackets but no text after its last one ("n[1-3]-ib" is refused);
//  * with several brackets the last varies fastest, then the first, the second, ..., the one
//    before the last slowest (Slurm recurses from the last bracket outwards: a[1-2]b[3-4]c[5-6]
//    is a1b3c5 a1b3c6 a2b3c5 a2b3c6 a1b4c5 ...);
//  * the order is kept and duplicates stay.
// Unbalanced brackets, which Slurm turns into odd literal names ("n[1-2" -> "n]"), are refused.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

// A host list (discover's hosts, plan --hosts) names at most this many hosts, one item as many:
// mac[1-100000] is refused before anything is built.
inline constexpr size_t kMaxListedHosts = 4097;

// One bracket's numbers, zero-padded as Slurm pads them ("01-03,07" -> 01 02 03 07). Throws an
// input error naming `item` for an entry Slurm refuses, or when there are more than `limit`.
std::vector<std::string> expand_bracket(std::string_view inside, std::string_view item,
                                        size_t limit);

// A whole Slurm host list in Slurm's order; an input error for a list Slurm would refuse, and
// for more than kMaxListedHosts names.
std::vector<std::string> expand_slurm_hostlist(std::string_view text);

}  // namespace meshplan
