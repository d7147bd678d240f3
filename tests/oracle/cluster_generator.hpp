// Seeded random clusters for the launch property test: Macs of every size and port count, DGX
// Sparks on direct cables, NVIDIA nodes of one to eight GPUs, InfiniBand, RoCE, Ethernet,
// Thunderbolt and Wi-Fi, written as cluster-file YAML and read back through the real loader, with
// a model and an objective to plan them for. The cluster stays a plain description so that a
// failing case can be shrunk (hosts, links, interfaces dropped) and saved as a fixture.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"

namespace meshplan::oracle {

struct GenInterface {
  std::string name;
  std::string kind;  // ethernet, wifi, infiniband
  std::string ipv4;
  int prefix = 24;
  double speed_gbps = 0;
  std::string rdma_device;
};

struct GenHost {
  std::string name;
  bool linux = false;
  std::string chip;         // a Mac's or a Spark's chip; empty for a node of discrete GPUs
  std::string machine;      // a Mac's machine model (fixes its Thunderbolt ports)
  std::string memory;       // "64GiB"; empty for a node of discrete GPUs
  std::string gpus;         // "8 x h100-sxm"
  double capacity_gib = 0;  // what it can hold, roughly: to pick models that may fit
  std::vector<GenInterface> interfaces;
};

// A generator (`topology` set), a shared network (`subnet` set) or a direct cable between two
// named interfaces (`a_host`/`b_host` set).
struct GenLink {
  std::string topology;
  std::string kind;
  bool rdma = false;
  std::vector<std::string> hosts;
  std::string subnet;
  std::string a_host, a_interface, b_host, b_interface;
};

struct GenCase {
  uint64_t seed = 0;
  std::vector<GenHost> hosts;
  std::vector<GenLink> links;
  std::string model;      // a catalog name
  std::string objective;  // "" (latency) or "throughput"
};

// The case of `seed` (std::mt19937_64, nothing else): the same seed gives the same case.
GenCase generate_case(uint64_t seed, const std::string& objective);

// The cluster file of a case, as YAML, with `# model:` and `# options:` comment lines on top.
std::string to_yaml(const GenCase& c);

// A case read back from to_yaml's text (the fixture format): the comments give the model and the
// options; the cluster itself is loaded from the same text by load_case_cluster.
struct FixtureCase {
  std::string yaml;
  std::string model;
  std::string objective;
};
FixtureCase read_fixture(const std::string& text);

// The cluster of a case through the real loader (an input error when the text is refused).
Cluster load_case_cluster(const std::string& yaml, const Catalog& catalog);

// Smaller cases than `c`: each with one host, one link or one interface fewer.
std::vector<GenCase> shrink_candidates(const GenCase& c);

}  // namespace meshplan::oracle
