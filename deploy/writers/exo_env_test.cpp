// exo 1.x (exo-explore/exo @b5375f8, src/exo/main.py): --api-port / --zenoh-port /
// --discovery-port, --force-master, and --namespace, the discovery namespace that keeps clusters
// apart (nodes of different namespaces do not connect). EXO_ZENOH_NAMESPACE is only logged there.
#include "deploy/writers/exo_env.hpp"

#include <gtest/gtest.h>

#include "tests/launch_inputs.hpp"

namespace meshplan::exo_env_test {
namespace {

TEST(exo_env_test, one_line_per_host_with_the_namespace_and_ports) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  std::string text = write_exo_env(in->input());
  auto lines = testing::command_lines(text);
  ASSERT_EQ(lines.size(), 3u);
  std::string common =
      "exo --api-port 52415 --zenoh-port 52414 --discovery-port 52413 --namespace loopback";
  EXPECT_EQ(lines[0], common + " --force-master");
  EXPECT_EQ(lines[1], common);
  EXPECT_EQ(lines[2], common);
  EXPECT_NE(text.find("# rank 0: node-b\n"), std::string::npos);
  EXPECT_EQ(text.find("LIBP2P"), std::string::npos);
  EXPECT_EQ(text.find("EXO_ZENOH_NAMESPACE"), std::string::npos);
}

}  // namespace
}  // namespace meshplan::exo_env_test
