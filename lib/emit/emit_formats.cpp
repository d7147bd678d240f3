#include "lib/emit/emit_formats.hpp"

#include <fmt/format.h>

#include <cctype>

#include "lib/core/error.hpp"
#include "lib/emit/cluster_dot.hpp"
#include "lib/emit/mlx_hostfile_builder.hpp"
#include "lib/emit/mlx_hostfile_writer.hpp"
#include "lib/emit/setup_commands.hpp"

namespace meshplan {
namespace {

std::string mlx_hostfile(const EmitInput& in) {
  return write_mlx_hostfile(build_mlx_hostfile(in.topology, require_valid(in.report), in.envs));
}

std::string mlx_env(const EmitInput& in) {
  MlxHostfile f = build_mlx_hostfile(in.topology, require_valid(in.report), in.envs);
  return render_mlx_env(f, mlx_rank_envs(f, in.env_options));
}

std::string setup(const EmitInput& in) {
  require_valid(in.report);
  if (!in.topology.subnet_error.empty()) throw failure("{}", in.topology.subnet_error);
  return render_setup(host_setups(in.topology.fabric, in.topology.subnets));
}

std::string teardown(const EmitInput& in) {
  if (!in.topology.subnet_error.empty()) throw failure("{}", in.topology.subnet_error);
  return render_teardown(host_setups(in.topology.fabric, in.topology.subnets));
}

}  // namespace

const std::vector<EmitFormat>& emit_formats() {
  static const std::vector<EmitFormat> table = {
      {"mlx-hostfile",
       "the hostfile mlx.launch reads, byte for byte as mlx.distributed_config writes it",
       mlx_hostfile},
      {"mlx-env", "per rank, the variables mlx.launch would export (MLX_RANK, MLX_HOSTFILE, ...)",
       mlx_env},
      {"setup", "per host, the interface commands (as `meshplan setup`)", setup},
      {"teardown", "per host, the commands that undo setup", teardown},
      {"dot", "the Graphviz drawing of hosts, cables and the plan (as `meshplan dot`)",
       write_cluster_dot_artifact},
  };
  return table;
}

const EmitFormat* find_emit_format(std::string_view name) {
  for (const EmitFormat& f : emit_formats())
    if (f.name == name) return &f;
  return nullptr;
}

std::string emit_format_names() {
  std::string names;
  const auto& table = emit_formats();
  for (size_t i = 0; i < table.size(); ++i)
    names += fmt::format("{}{}",
                         i == 0                  ? ""
                         : i + 1 == table.size() ? " or "
                                                 : ", ",
                         table[i].name);
  return names;
}

std::string emit_formats_help() {
  size_t width = 0;
  for (const EmitFormat& f : emit_formats())
    width = std::max(width, f.name.size());
  std::string out = "Formats:\n";
  for (const EmitFormat& f : emit_formats())
    out += fmt::format("  {:<{}}  {}\n", f.name, width, f.summary);
  return out;
}

void validate_emit_options(const std::vector<std::string>& envs, const MlxEnvOptions& options) {
  for (const auto& e : envs) {
    auto eq = e.find('=');
    bool ok = eq != std::string::npos && eq > 0;
    for (size_t k = 0; ok && k < eq; ++k)
      ok = std::isalnum(static_cast<unsigned char>(e[k])) || e[k] == '_';
    if (!ok)
      throw input_error("--env {}: expected KEY=VALUE with a key of letters, digits and _", e);
  }
  if (options.connections_per_ip < 1) throw input_error("--connections-per-ip must be at least 1");
}

}  // namespace meshplan
