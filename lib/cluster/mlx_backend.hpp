// The MLX distributed backends, one name table: what `check` rules on, what a plan is labelled
// with and what --backend takes. "auto" (any, the best that passes) and "none" (a plan on one
// host) sit in the same table so that no name is written twice.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

enum class MlxBackend {
  kJaccl,      // RDMA over Thunderbolt 5, a full mesh
  kJacclRing,  // RDMA over Thunderbolt 5, a ring
  kRing,       // TCP over Thunderbolt cables in a ring
  kEthernet,   // the ring backend over a shared network
  kNccl,       // MLX on NVIDIA hosts (a hostfile's backend, not one `check` rules on)
  kAuto,       // a request: every backend, the best that passes
  kNone,       // a plan's: one host, no backend
};

std::string_view name(MlxBackend backend);
// What --backend takes (auto or one of the four); otherwise throws an input error naming the
// nearest names and every valid one.
MlxBackend parse_mlx_backend(std::string_view name);
std::optional<MlxBackend> find_mlx_backend(std::string_view name);
// The four backends in the order `check` tries them (the first that passes is chosen).
const std::vector<MlxBackend>& all_mlx_backends();
// --backend's choices: auto, then the four.
std::vector<std::string> mlx_backend_choices();
// "auto, jaccl, jaccl-ring, ring or ethernet": the choices, for help texts.
std::string mlx_backend_choices_text();
// Whether `name` is `backend`'s name.
bool is_backend(std::string_view name, MlxBackend backend);
// jaccl or jaccl-ring: RDMA.
bool is_jaccl(std::string_view name);

}  // namespace meshplan
