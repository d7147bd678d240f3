#include "deploy/writers/deepspeed_files.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/nccl_env.hpp"
#include "deploy/writers/torchrun_launch.hpp"
#include "lib/core/error.hpp"
#include "lib/core/shell_quote.hpp"

namespace meshplan {

std::string write_deepspeed_hostfile(const EmitInput& in) {
  const LaunchLayout& layout = in.layout();
  std::string master = rendezvous_address(
      layout, 0, "DeepSpeed's master (rank 0) needs an address every node reaches");
  std::string program = in.launch.program.empty() ? "train.py" : in.launch.program;
  // DeepSpeed's slots are the GPUs of a host (launcher/runner.py: one process per slot).
  std::string out = fmt::format(
      "# DeepSpeed hostfile, hosts in rank order, slots = GPUs per host:\n#   {}\n",
      shell_command({},
                    {"deepspeed", "--hostfile", "FILE", "--master_addr", master, "--master_port",
                     std::to_string(launch_port(in, kTorchrunDefaultPort)), program}));
  for (const LaunchNode& n : layout.nodes)
    out += fmt::format("{} slots={}\n", hostfile_word(n.ssh_host, "ssh target", n.host->name),
                       n.processes());
  return out;
}

std::string write_deepspeed_env(const EmitInput& in) {
  const LaunchLayout& layout = in.layout();
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    for (const auto& [key, value] : nccl_variables(layout, i)) {
      auto k = std::find(keys.begin(), keys.end(), key);
      if (k == keys.end()) {
        keys.push_back(key);
        values.emplace_back();
        k = keys.end() - 1;
      }
      // "=en0" and "=en0,en1" lists: merge the names after the leading '='.
      std::string body = value.front() == '=' ? value.substr(1) : value;
      auto& list = values[static_cast<size_t>(k - keys.begin())];
      size_t start = 0;
      while (start <= body.size()) {
        size_t comma = body.find(',', start);
        std::string item = body.substr(start, comma == std::string::npos ? comma : comma - start);
        if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    }
  }
  // DeepSpeed's pdsh launcher puts each line into `export KEY=VALUE; ...` run by a remote shell,
  // unquoted: a value that is not one plain word cannot be written safely.
  auto plain = [](const std::string& key, const std::string& value) {
    if (!value.empty() && shell_quote(value) != value)
      throw input_error(
          "deepspeed-env: {} value \"{}\" is not a plain word (letters, digits and @%+=:,./-_); "
          "DeepSpeed exports .deepspeed_env lines through a remote shell without quoting them",
          key, value);
  };
  for (size_t k = 0; k < keys.size(); ++k)
    for (const std::string& v : values[k])
      plain(keys[k], v);
  for (const std::string& e : in.envs)
    plain(e.substr(0, e.find('=')), e.substr(e.find('=') + 1));
  std::string out;
  for (size_t k = 0; k < keys.size(); ++k) {
    // GLOO_SOCKET_IFNAME takes one name; NCCL's variables take "=" lists.
    if (keys[k] == "GLOO_SOCKET_IFNAME") {
      if (values[k].size() == 1) out += keys[k] + "=" + values[k].front() + "\n";
      continue;
    }
    out += keys[k] + "=" + fmt::format("={}", fmt::join(values[k], ",")) + "\n";
  }
  for (const std::string& e : in.envs)
    out += e + "\n";
  return out;
}

}  // namespace meshplan
