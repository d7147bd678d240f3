// DeepSpeed's two files. The hostfile: `HOST slots=N` lines (runner.py's rule
// `^(\S+)\s+slots=(\d+)`, a host at most once), one slot per plan rank, in rank order, with the
// launch command as a comment. `.deepspeed_env`: KEY=VALUE lines only (the runner splits every
// line at its first '=' and has no comments), the same on every node, so interface names are the
// union of the nodes' exact names (NCCL takes a comma list of "=" names).
#pragma once

#include <string>

namespace meshplan {

struct EmitInput;

std::string write_deepspeed_hostfile(const EmitInput& in);
std::string write_deepspeed_env(const EmitInput& in);

}  // namespace meshplan
