// Every backend, link kind, engine and strategy name is written once, in its name table
// (lib/cluster/mlx_backend.cpp, lib/cluster/link_kind.cpp, lib/plan/engine_kind.cpp,
// lib/plan/strategy_kind.cpp); the product's other sources use the enum and name(). This test
// reads the sources of lib/, solvers/ and app/ (unit tests and lib/data left out, comments
// skipped) and fails on a quoted name anywhere else, except the uses listed below, where the
// same word names something else. "auto" and "none" are not searched for: they are words of
// many other options and values.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace meshplan::name_tables_test {
namespace {

namespace fs = std::filesystem;

struct Table {
  std::string file;
  std::vector<std::string> names;
};

const std::vector<Table>& tables() {
  static const std::vector<Table> t = {
      {"lib/cluster/mlx_backend.cpp", {"jaccl", "jaccl-ring", "ring", "ethernet", "nccl"}},
      {"lib/cluster/link_kind.cpp",
       {"tb5", "tb4", "tb3", "ib-ndr", "ib-hdr", "400gbe", "200gbe", "100gbe", "25gbe", "10gbe",
        "5gbe", "2.5gbe", "1gbe", "wifi", "tb5-rdma"}},
      {"lib/plan/engine_kind.cpp", {"mlx-lm", "exo", "llama-rpc", "vllm"}},
      {"lib/plan/strategy_kind.cpp", {"pipeline", "tensor", "expert", "hybrid", "routed"}},
  };
  return t;
}

// file, name: the same word for another thing.
const std::set<std::pair<std::string, std::string>>& allowed() {
  static const std::set<std::pair<std::string, std::string>> a = {
      // An interface's kind (NetInterface::kind: ethernet, wifi, thunderbolt, bridge, infiniband,
      // other).
      {"lib/cluster/host_reader.cpp", "ethernet"},
      {"lib/cluster/host_reader.cpp", "wifi"},
      {"lib/probes/networksetup_parser.cpp", "ethernet"},
      {"lib/probes/networksetup_parser.cpp", "wifi"},
      {"lib/discovery/network_grouping.cpp", "ethernet"},
      {"lib/discovery/network_grouping.cpp", "wifi"},
      {"lib/discovery/linux_host.cpp", "ethernet"},
      {"lib/discovery/linux_host.cpp", "wifi"},
      {"topologies/host_networks.cpp", "ethernet"},
      {"topologies/host_networks.cpp", "wifi"},
      {"deploy/layout/engine_check.cpp", "wifi"},
      {"solvers/advice/cable_changes.cpp", "ethernet"},
      // A Python package's version as the live script reads it
      // (deploy/configure/linux_launch_facts).
      {"deploy/preflight/engine_preflight.cpp", "vllm"},
      {"deploy/preflight/engine_preflight.cpp", "nccl"},
      // The catalog's key for a machine's Ethernet port (lib/data/machines.json).
      {"lib/cluster/catalog.cpp", "ethernet"},
      // A generated cluster's topology (full-mesh, ring, chain, star).
      {"lib/cluster/cluster_reader.cpp", "ring"},
      {"lib/cluster/generators.cpp", "ring"},
      // A tensor's role in a model (the expert weights).
      {"lib/models/model.cpp", "expert"},
      // Names of emit formats (deploy/emit/emit_formats.cpp's table), in their messages.
      {"deploy/emit/emit_formats.cpp", "vllm"},
      {"deploy/emit/emit_formats.cpp", "llama-rpc"},
      {"deploy/emit/replica_launch.cpp", "vllm"},
      {"deploy/emit/replica_launch.cpp", "llama-rpc"},
      {"deploy/writers/vllm_launch.cpp", "vllm"},
      {"deploy/writers/slurm_batch.cpp", "vllm"},
      {"deploy/writers/llama_rpc.cpp", "llama-rpc"},
      // Programs on a generated command line, and a launch guide's heading.
      {"deploy/writers/vllm_disaggregated.cpp", "vllm"},
      {"deploy/writers/exo_env.cpp", "exo"},
      {"deploy/emit/launch_guide.cpp", "exo"},
  };
  return a;
}

std::vector<std::string> product_sources() {
  std::vector<std::string> out;
  for (const char* root : {"lib", "topologies", "solvers", "deploy", "app"})
    for (const auto& entry : fs::recursive_directory_iterator(testing::source_path(root))) {
      const std::string path = entry.path().string();
      const std::string rel = path.substr(path.find(std::string("/") + root + "/") + 1);
      if (rel.starts_with("lib/data/") || rel.ends_with("_test.cpp")) continue;
      if (rel.ends_with(".cpp") || rel.ends_with(".hpp")) out.push_back(rel);
    }
  return out;
}

// The quoted strings of a source, comments left out, with their line numbers.
std::vector<std::pair<int, std::string>> quoted(const std::string& text) {
  std::vector<std::pair<int, std::string>> out;
  int line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
      --i;
    } else if (c == '\'') {
      i += text[i + 1] == '\\' ? 3 : 2;  // a character literal, '"' included
    } else if (c == 'R' && text.compare(i, 3, "R\"(") == 0) {
      i = text.find(")\"", i);  // raw strings hold help texts, not names
    } else if (c == '"') {
      std::string s;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') s += text[i++];
        s += text[i];
      }
      out.emplace_back(line, s);
    }
  }
  return out;
}

TEST(NameTables, EachNameIsWrittenOnlyInItsTable) {
  std::map<std::string, std::string> home;  // name -> its table file
  for (const Table& t : tables())
    for (const std::string& n : t.names)
      home[n] = t.file;
  std::vector<std::string> found;
  std::set<std::pair<std::string, std::string>> used;
  for (const std::string& file : product_sources()) {
    for (const auto& [line, s] : quoted(testing::read_text(testing::source_path(file)))) {
      auto it = home.find(s);
      if (it == home.end() || it->second == file) continue;
      if (allowed().count({file, s})) {
        used.insert({file, s});
        continue;
      }
      found.push_back(file + ":" + std::to_string(line) + ": \"" + s + "\" (use name() of " +
                      it->second + ")");
    }
  }
  EXPECT_TRUE(found.empty()) << ::testing::PrintToString(found);
  // An exception that no longer occurs is dropped from the list.
  for (const auto& a : allowed())
    EXPECT_TRUE(used.count(a)) << a.first << " no longer writes \"" << a.second << "\"";
}

TEST(NameTables, TheTablesHoldTheirNames) {
  for (const Table& t : tables()) {
    const std::string text = testing::read_text(testing::source_path(t.file));
    std::set<std::string> names;
    for (const auto& [line, s] : quoted(text))
      names.insert(s);
    for (const std::string& n : t.names)
      EXPECT_TRUE(names.count(n)) << t.file << " lacks \"" << n << "\"";
  }
}

}  // namespace
}  // namespace meshplan::name_tables_test
