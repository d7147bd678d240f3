#include "deploy/writers/mlx_env.hpp"

#include <fmt/format.h>

#include "lib/cluster/mlx_backend.hpp"
#include "lib/core/error.hpp"
#include "lib/core/shell_quote.hpp"
#include "lib/core/text_template.hpp"
#include "topologies/mlx_hostfile_writer.hpp"

namespace meshplan {
namespace {

bool valid_env_key(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string where(const MlxHost& h) {
  return h.where.file ? h.where.describe() + ": " : "";
}

// Each rank's "ip:port" entries, with a port counter across all hosts, as mlx.launch counts.
std::vector<std::vector<std::pair<std::string, int>>> ring_addresses(const MlxHostfile& f,
                                                                     const MlxEnvOptions& o) {
  int port = o.starting_port;
  std::vector<std::vector<std::pair<std::string, int>>> out;
  for (size_t i = 0; i < f.hosts.size(); ++i) {
    const MlxHost& h = f.hosts[i];
    if (h.ips.empty())
      throw input_error(
          "{}rank {} ({}) has no IPs; the ring backend needs the addresses of each rank", where(h),
          i, h.ssh);
    out.emplace_back();
    for (const auto& ip : h.ips)
      for (int c = 0; c < o.connections_per_ip; ++c)
        out.back().emplace_back(ip, port++);
  }
  return out;
}

// [["ip:port", ...], ...] as mlx.launch writes it.
std::string ring_hostfile(const MlxHostfile& f, const MlxEnvOptions& o) {
  if (f.hosts.size() == 1) return "";
  std::string out = "[";
  for (const auto& rank : ring_addresses(f, o)) {
    out += out.size() > 1 ? ", [" : "[";
    for (size_t k = 0; k < rank.size(); ++k)
      out +=
          (k ? ", " : "") + python_json_string(fmt::format("{}:{}", rank[k].first, rank[k].second));
    out += "]";
  }
  return out + "]";
}

void check_rdma_rows(const MlxHostfile& f) {
  for (size_t i = 0; i < f.hosts.size(); ++i) {
    const MlxHost& h = f.hosts[i];
    if (h.rdma.size() != f.hosts.size() || h.rdma[i].present)
      throw input_error(
          "{}rank {} ({}): malformed hostfile for jaccl: rdma needs {} entries with null at index "
          "{}",
          where(h), i, h.ssh, f.hosts.size(), i);
  }
}

}  // namespace

std::string mlx_launch_backend(const MlxHostfile& f) {
  std::string b = f.backend.value_or("");
  return b.empty() ? std::string(name(MlxBackend::kRing)) : b;
}

std::vector<MlxRankEnv> mlx_rank_envs(const MlxHostfile& f, const MlxEnvOptions& o) {
  std::string backend = mlx_launch_backend(f);
  std::vector<std::pair<std::string, std::string>> common;
  for (const auto& e : f.envs) {
    auto eq = e.find('=');
    std::string key = e.substr(0, eq);
    if (eq == std::string::npos || !valid_env_key(key))
      throw input_error("envs entry \"{}\": expected KEY=VALUE with a key of letters, digits and _",
                        e);
    common.emplace_back(key, e.substr(eq + 1));
  }
  std::vector<MlxEnvFile> files;
  if (is_backend(backend, MlxBackend::kRing)) {
    if (o.verbose) common.emplace_back("MLX_RING_VERBOSE", "1");
    files.push_back({"MLX_HOSTFILE", ring_hostfile(f, o)});
  } else if (is_jaccl(backend)) {
    check_rdma_rows(f);
    if (f.hosts.front().ips.empty())
      throw input_error(
          "{}rank 0 ({}) has no IP; it should have one reachable from all other ranks (the JACCL "
          "coordinator)",
          where(f.hosts.front()), f.hosts.front().ssh);
    common.emplace_back("MLX_JACCL_COORDINATOR",
                        fmt::format("{}:{}", f.hosts.front().ips.front(), o.starting_port));
    if (is_backend(backend, MlxBackend::kJacclRing)) common.emplace_back("MLX_JACCL_RING", "1");
    files.push_back({"MLX_IBV_DEVICES", python_rdma_matrix(f.hosts)});
  } else if (is_backend(backend, MlxBackend::kNccl)) {
    if (f.hosts.front().ips.empty())
      throw input_error(
          "{}rank 0 ({}) has no IP; it should have one reachable from all other ranks (the NCCL "
          "rendezvous)",
          where(f.hosts.front()), f.hosts.front().ssh);
    if (o.verbose) common.emplace_back("NCCL_DEBUG", "INFO");
    common.emplace_back("NCCL_HOST_IP", f.hosts.front().ips.front());
    common.emplace_back("NCCL_PORT", std::to_string(o.nccl_port));
    common.emplace_back("MLX_WORLD_SIZE", std::to_string(f.hosts.size()));
  } else {
    throw input_error("backend \"{}\": mlx-env supports ring, jaccl, jaccl-ring and nccl hostfiles",
                      backend);
  }
  std::vector<MlxRankEnv> out;
  for (size_t i = 0; i < f.hosts.size(); ++i) {
    MlxRankEnv r;
    r.rank = static_cast<int>(i);
    r.ssh = f.hosts[i].ssh;
    r.variables = common;
    r.files = files;
    if (is_backend(backend, MlxBackend::kNccl)) {
      // A host is listed once per GPU in a row: its n-th entry runs on GPU n.
      int gpu = 0;
      for (size_t k = 0; k < i; ++k)
        gpu += f.hosts[k].ssh == f.hosts[i].ssh;
      r.variables.emplace_back("CUDA_VISIBLE_DEVICES", std::to_string(gpu));
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<MlxConnection> mlx_connections(const MlxHostfile& f, const MlxEnvOptions& o) {
  std::vector<MlxConnection> out;
  size_t n = f.hosts.size();
  if (n < 2) return out;
  std::string backend = mlx_launch_backend(f);
  if (is_backend(backend, MlxBackend::kRing)) {
    auto ranks = ring_addresses(f, o);
    for (size_t r = 0; r < n; ++r)
      for (const auto& [ip, port] : ranks[r])
        out.push_back({r, (r + n - 1) % n, ip, port});
  } else if (f.hosts.front().ips.empty()) {
    throw input_error("{}rank 0 ({}) has no IP; it should have one reachable from all other ranks",
                      where(f.hosts.front()), f.hosts.front().ssh);
  } else {
    const int port = is_backend(backend, MlxBackend::kNccl) ? o.nccl_port : o.starting_port;
    for (size_t r = 1; r < n; ++r)
      out.push_back({0, r, f.hosts.front().ips.front(), port});
  }
  return out;
}

std::string render_mlx_env(const MlxHostfile& f, const std::vector<MlxRankEnv>& ranks) {
  // One rank has no peer to find: no hostfile, coordinator or MLX_RANK to export.
  if (ranks.size() == 1)
    return fmt::format(
        "# One rank ({}): mlx.launch would export nothing it needs. Run the program on the host "
        "alone, without mlx.launch (`meshplan emit mlx-launch` writes the command).\n",
        ranks.front().ssh);
  std::string out = render_template(
      "mlx_env.sh", {{"backend", mlx_launch_backend(f)}, {"ranks", std::to_string(ranks.size())}});
  for (const auto& r : ranks) {
    out += r.plan_rank < 0
               ? fmt::format("\n# rank {}: {}\n", r.rank, r.ssh)
               : fmt::format("\n# MLX rank {} (plan rank {}): {}\n", r.rank, r.plan_rank, r.ssh);
    for (const auto& [k, v] : r.variables)
      out += fmt::format("export {}={}\n", k, shell_quote(v));
    for (const auto& file : r.files) {
      out += fmt::format("{}=$(mktemp)\ncat >\"${}\" <<'MLX_EOF'\n{}\nMLX_EOF\nexport {}\n",
                         file.variable, file.variable, file.content, file.variable);
    }
    out += fmt::format("export MLX_RANK={}\n", r.rank);
  }
  return out;
}

}  // namespace meshplan
