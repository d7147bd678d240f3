#include "lib/cluster/mlx_backend.hpp"

#include <array>

#include "lib/core/name_table.hpp"

namespace meshplan {
namespace {

constexpr std::array<NameRow<MlxBackend>, 7> kBackends = {{
    {MlxBackend::kJaccl, "jaccl", "RDMA over Thunderbolt 5, every pair cabled"},
    {MlxBackend::kJacclRing, "jaccl-ring", "RDMA over Thunderbolt 5 in a ring"},
    {MlxBackend::kRing, "ring", "TCP over Thunderbolt cables in a ring"},
    {MlxBackend::kEthernet, "ethernet", "the ring backend over a shared network"},
    {MlxBackend::kNccl, "nccl", "MLX on NVIDIA hosts over NCCL"},
    {MlxBackend::kAuto, "auto", "the best backend that passes"},
    {MlxBackend::kNone, "none", "one host, no backend"},
}};

}  // namespace

std::string_view name(MlxBackend backend) {
  return name_in(kBackends, backend);
}

MlxBackend parse_mlx_backend(std::string_view name) {
  const std::vector<std::string> choices = mlx_backend_choices();
  const auto backend = find_mlx_backend(name);
  if (!backend || *backend == MlxBackend::kNone || *backend == MlxBackend::kNccl)
    throw input_error("unknown backend \"{}\"{}; expected {}", name, did_you_mean(name, choices),
                      either_of(choices));
  return *backend;
}

std::optional<MlxBackend> find_mlx_backend(std::string_view name) {
  return find_in<MlxBackend>(kBackends, name);
}

const std::vector<MlxBackend>& all_mlx_backends() {
  static const std::vector<MlxBackend> all = {MlxBackend::kJaccl, MlxBackend::kJacclRing,
                                              MlxBackend::kRing, MlxBackend::kEthernet};
  return all;
}

std::vector<std::string> mlx_backend_choices() {
  std::vector<std::string> out = {std::string(name(MlxBackend::kAuto))};
  for (MlxBackend b : all_mlx_backends())
    out.emplace_back(name(b));
  return out;
}

std::string mlx_backend_choices_text() {
  return either_of(mlx_backend_choices());
}

bool is_backend(std::string_view name, MlxBackend backend) {
  return name == meshplan::name(backend);
}

bool is_jaccl(std::string_view name) {
  return is_backend(name, MlxBackend::kJaccl) || is_backend(name, MlxBackend::kJacclRing);
}

}  // namespace meshplan
