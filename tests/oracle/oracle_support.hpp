// What the oracle's readers share: the host behind a name or ssh target, the facts a host shows
// an engine (its addresses and interfaces), a command's environment and options.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/cluster/cluster.hpp"
#include "tests/oracle/launch_oracle.hpp"

namespace meshplan::oracle {

struct ReadContext {
  const Cluster& cluster;
  const ModelDesc& model;
  std::string file;  // for the violations' details
  std::vector<Violation>& violations;
  void flag(const std::string& rule, const std::string& detail) const {
    violations.push_back({rule, file + ": " + detail});
  }
};

// The host named `name` or reached as `name` by ssh; nullptr when none.
const Host* find_host(const Cluster& cluster, const std::string& name);
// The GPUs an engine sees on a host: its discrete GPUs, else 1 (a Mac, a Spark, a CPU host).
int device_count(const Host& host);
// The interface of `host` holding `address`, nullptr when none.
const NetInterface* interface_with_address(const Host& host, const std::string& address);

// A command line read as words: KEY=VALUE words before the program (and after `export`) as the
// environment, the program's index, its options.
struct Command {
  std::map<std::string, std::string> env;
  std::vector<std::string> words;  // from the program on
  std::optional<std::string> option(const std::vector<std::string>& names) const;
  bool flag(const std::string& name) const;
};
// The command of `line` whose program is one of `programs` (the first such word), or none.
std::optional<Command> read_command(const std::string& line,
                                    const std::vector<std::string>& programs);

// The lines of `text`.
std::vector<std::string> lines_of(const std::string& text);
// An integer option, with a violation when it is not one.
int int_option(const Command& c, const std::vector<std::string>& names, int fallback,
               const ReadContext& ctx);

// NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME, NCCL_IB_HCA and VLLM_HOST_IP of one process on `host`
// against the host's interfaces and RDMA devices (NCCL src/misc/socket.cc and ibvwrap: a leading
// '=' asks for exact names; `mlx5_0:1` is device and port).
void check_network_env(const std::map<std::string, std::string>& env, const Host& host,
                       const ReadContext& ctx);

// Readers of the launchers other than vLLM and Ray (launch_readers.cpp).
void read_mlx(const std::string& hostfile, const std::string& launch, LaunchReading& out,
              const ReadContext& ctx);
void read_exo(const std::string& text, LaunchReading& out, const ReadContext& ctx);
void read_llama_rpc(const std::string& text, LaunchReading& out, const ReadContext& ctx);
void read_hostfile(const std::string& name, const std::string& text, LaunchReading& out,
                   const ReadContext& ctx);
void read_torchrun(const std::string& text, LaunchReading& out, const ReadContext& ctx);

}  // namespace meshplan::oracle
