// Every whole cluster file that docs/cluster-file.md shows (a ```yaml block with a top-level
// `hosts:`) loads with the library's loader, so the page and the reader cannot drift apart; a
// failure names the block's line in the page.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/error.hpp"
#include "tests/test_support.hpp"

namespace meshplan::cluster_file_docs_test {
namespace {

constexpr const char* kPage = "docs/cluster-file.md";

struct Block {
  int line = 0;  // of the opening fence, 1-based
  std::string text;
};

// The ```yaml blocks of the page that are cluster files, not fragments of one.
std::vector<Block> cluster_blocks() {
  std::istringstream in(testing::read_text(testing::source_path(kPage)));
  std::vector<Block> out;
  std::optional<Block> open;
  bool whole = false;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (!open) {
      if (line == "```yaml") {
        open = Block{n, ""};
        whole = false;
      }
      continue;
    }
    if (line == "```") {
      if (whole) out.push_back(*open);
      open.reset();
      continue;
    }
    whole = whole || line.rfind("hosts:", 0) == 0;
    open->text += line + "\n";
  }
  if (open) ADD_FAILURE() << kPage << ":" << open->line << ": the block is not closed";
  return out;
}

TEST(cluster_file_docs_test, every_cluster_file_of_the_page_loads) {
  std::vector<Block> blocks = cluster_blocks();
  EXPECT_GE(blocks.size(), 3u) << "a lost block shows here";
  for (const Block& b : blocks) {
    const std::string where = fmt::format("{}:{}", kPage, b.line);
    try {
      load_cluster(b.text, where, Catalog::builtin());
    } catch (const Error& e) {
      ADD_FAILURE() << where << ": " << e.what();
    }
  }
}

// The forms the page promises GPU users are among what it shows, read as it says.
TEST(cluster_file_docs_test, the_page_shows_roce_infiniband_and_ipoib) {
  bool roce_network = false, roce_switch = false, infiniband = false, ipoib = false;
  for (const Block& b : cluster_blocks()) {
    Cluster c;
    try {
      c = load_cluster(b.text, kPage, Catalog::builtin());
    } catch (const Error&) {
      continue;  // reported by the test above
    }
    const bool generated = b.text.find("topology: switch") != std::string::npos;
    for (const Network& n : c.networks) {
      if (n.rdma && !is_infiniband(n.kind)) (generated ? roce_switch : roce_network) = true;
      infiniband = infiniband || (is_infiniband(n.kind) && n.rdma);
    }
    for (const Host& h : c.hosts)
      for (const NetInterface& i : h.interfaces)
        ipoib = ipoib || (i.kind == "infiniband" && !i.rdma_device.empty());
  }
  EXPECT_TRUE(roce_network) << "a network {kind: 100gbe, rdma: true}";
  EXPECT_TRUE(roce_switch) << "a generator {topology: switch, rdma: true}";
  EXPECT_TRUE(infiniband) << "an InfiniBand network, RDMA by default";
  EXPECT_TRUE(ipoib) << "an interface of kind infiniband with its rdma_device";
}

}  // namespace
}  // namespace meshplan::cluster_file_docs_test
