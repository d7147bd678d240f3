#include "lib/cluster/mlx_backend.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"

namespace meshplan::mlx_backend_test {
namespace {

TEST(mlx_backend_test, every_name_reads_back_as_its_backend) {
  for (MlxBackend b :
       {MlxBackend::kJaccl, MlxBackend::kJacclRing, MlxBackend::kRing, MlxBackend::kEthernet,
        MlxBackend::kNccl, MlxBackend::kAuto, MlxBackend::kNone}) {
    ASSERT_TRUE(find_mlx_backend(name(b))) << name(b);
    EXPECT_EQ(*find_mlx_backend(name(b)), b);
  }
  for (const std::string& choice : mlx_backend_choices())
    EXPECT_EQ(name(parse_mlx_backend(choice)), choice);
}

TEST(mlx_backend_test, check_order_and_choices) {
  EXPECT_EQ(mlx_backend_choices_text(), "auto, jaccl, jaccl-ring, ring or ethernet");
  ASSERT_EQ(all_mlx_backends().size(), 4u);
  EXPECT_EQ(all_mlx_backends().front(), MlxBackend::kJaccl);
  EXPECT_TRUE(is_jaccl("jaccl-ring"));
  EXPECT_FALSE(is_jaccl("ring"));
}

TEST(mlx_backend_test, an_unknown_name_gets_the_nearest_and_the_list) {
  try {
    parse_mlx_backend("jacl");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_STREQ(e.what(),
                 "unknown backend \"jacl\" (did you mean \"jaccl\"?); expected auto, jaccl, "
                 "jaccl-ring, ring or ethernet");
  }
  // "none" and "nccl" label plans and hostfiles; --backend does not take them.
  EXPECT_THROW(parse_mlx_backend("none"), Error);
  EXPECT_THROW(parse_mlx_backend("nccl"), Error);
}

}  // namespace
}  // namespace meshplan::mlx_backend_test
