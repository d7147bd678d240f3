// Addresses for the Thunderbolt cables: one /30 per cable from 192.168.0.0/16 in
// mlx.distributed_config's order (first cable 192.168.0.1/.2, then .5/.6, ...), so that setup
// commands and ring hostfiles match MLX's byte for byte. Ranges that collide with a subnet
// already present on a host interface or a network of the cluster are skipped, and the plan says
// why. One plan serves `emit mlx-hostfile`, `setup` and `teardown`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "topologies/tb_fabric.hpp"

namespace meshplan {

struct CableAddresses {
  const FabricCable* cable = nullptr;
  std::string lo_address;  // address of the end on the lower-index host
  std::string hi_address;
  std::string subnet;  // "192.168.0.0/30"

  const std::string& address(size_t host) const {
    return host == cable->lo.host ? lo_address : hi_address;
  }
  const std::string& peer_address(size_t host) const {
    return host == cable->lo.host ? hi_address : lo_address;
  }
};

// What `setup` configures on one host (its steps, commands and undos: topologies/setup_steps).
struct InterfaceAddress {
  std::string interface;     // "en2"
  std::string address;       // this host's end, "192.168.0.1"
  std::string peer_address;  // the other end, "192.168.0.2"
};

struct HostSetup {
  std::string host;    // name in the cluster file
  std::string ssh;     // ssh target, as MLX prints it
  bool linux = false;  // Linux: `ip` commands and no Thunderbolt Bridge
  std::vector<InterfaceAddress> links;
  std::vector<InterfaceAddress> direct;  // direct Ethernet/InfiniBand cables without addresses
  bool restore_bridge =
      true;  // teardown brings bridge0 back up (it was up, or its state is unknown)
};

// A direct network cable (by interface names) whose ends have no address yet: a /30 for it, taken
// after the Thunderbolt cables' so that those stay as MLX numbers them.
struct DirectCableAddresses {
  size_t cable = 0;       // index in cluster.cables
  std::string a_address;  // the cable's `a` end
  std::string b_address;
  std::string subnet;
};

struct SubnetPlan {
  std::vector<CableAddresses> cables;        // in the fabric's (MLX) order
  std::vector<DirectCableAddresses> direct;  // in file order
  std::vector<std::string> notes;            // ranges skipped and why

  const CableAddresses* find(const FabricCable* cable) const;
};

// Throws a failure when 192.168.0.0/16 has no room left for every cable. Direct network cables get
// addresses only when neither end has one.
SubnetPlan plan_subnets(const TbFabric& fabric);

// Per host, in file order, what `setup` configures: for each peer in ascending host order, each
// cable to it in MLX order, then the host's direct network cables in file order. Throws an input
// error when a cable's interface is unknown.
std::vector<HostSetup> host_setups(const TbFabric& fabric, const SubnetPlan& plan);

// An IPv4 network "a.b.c.d/p" or address as a number; nullopt when malformed.
std::optional<uint32_t> parse_ipv4_number(std::string_view text);
std::string ipv4_text(uint32_t address);

}  // namespace meshplan
