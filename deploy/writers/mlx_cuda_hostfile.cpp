#include "deploy/writers/mlx_cuda_hostfile.hpp"

#include "lib/cluster/mlx_backend.hpp"
#include "lib/core/error.hpp"

namespace meshplan {

bool mlx_runs_nccl(const LaunchLayout& layout) {
  const LaunchNode* cuda = nullptr;
  const LaunchNode* other = nullptr;
  for (const LaunchNode& n : layout.nodes)
    (n.cuda_gpus() > 0 ? cuda : other) = &n;
  if (cuda && other)
    throw failure(
        "MLX runs one backend on every rank: nccl on {} (NVIDIA GPUs), but {} has none; plan the "
        "GPU hosts on their own (--hosts)",
        cuda->host->name, other->host->name);
  return cuda != nullptr;
}

bool mlx_runs_on(const LaunchLayout& layout) {
  int cuda = 0;
  for (const LaunchNode& n : layout.nodes)
    cuda += n.cuda_gpus() > 0;
  if (cuda == 0) return true;
  if (cuda != static_cast<int>(layout.nodes.size())) return false;
  for (const LaunchNode& n : layout.nodes)
    if (n.cuda_gpus() != layout.nodes.front().cuda_gpus()) return false;
  return true;
}

int mlx_gpus_per_host(const LaunchLayout& layout) {
  const LaunchNode& first = layout.nodes.front();
  for (const LaunchNode& n : layout.nodes)
    if (n.cuda_gpus() != first.cuda_gpus())
      throw failure(
          "mlx.launch gives each rank the GPU rank % -n, one count for every host, but {} has {} "
          "GPUs and {} has {}; plan hosts of one kind together (--hosts)",
          first.host->name, first.cuda_gpus(), n.host->name, n.cuda_gpus());
  return first.cuda_gpus();
}

MlxHostfile build_mlx_cuda_hostfile(const LaunchLayout& layout,
                                    const std::vector<std::string>& envs) {
  const int gpus = mlx_gpus_per_host(layout);
  MlxHostfile f;
  f.backend = name(MlxBackend::kNccl);
  f.envs = envs;
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    const LaunchNode& n = layout.nodes[i];
    layout.reachable(i,
                     "NCCL's rendezvous (rank 0) and every rank need an address the others reach");
    MlxHost h;
    h.ssh = n.ssh;
    h.ips = {n.data_address.empty() ? n.address : n.data_address};
    for (int g = 0; g < gpus; ++g)
      f.hosts.push_back(h);
  }
  return f;
}

}  // namespace meshplan
