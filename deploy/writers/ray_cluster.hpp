// Ray on the ranks' hosts. The `ray up` file of the local (on-premises) provider with only keys
// Ray's cluster schema allows at the top level (it sets additionalProperties: false):
// cluster_name, provider {type: local, head_ip, worker_ips}, auth {ssh_user}, min_workers,
// max_workers and the start commands; then, as comments, the `ray start` line of each host for a
// manual start, each with a custom resource node:NAME (so tasks can be pinned to a host) and its
// memory; `ray up`'s one worker command picks the same options by the host's addresses. The head is
// rank 0, addresses are management addresses. For one model's plan over NVIDIA hosts, each start
// carries vLLM's variables and the file ends with vLLM's command on Ray's executor.
#pragma once

#include <string>

namespace meshplan {

struct EmitInput;


std::string write_ray_cluster(const EmitInput& in);

// Whether the file also starts an engine on Ray (vLLM with --distributed-executor-backend ray, for
// one model's plan over NVIDIA hosts); `emit all` writes Ray only then.
bool ray_runs_an_engine(const EmitInput& in);

}  // namespace meshplan
