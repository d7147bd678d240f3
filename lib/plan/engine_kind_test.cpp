#include "lib/plan/engine_kind.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"
#include "lib/plan/engines.hpp"

namespace meshplan::engine_kind_test {
namespace {

TEST(engine_kind_test, every_name_reads_back_as_its_engine) {
  ASSERT_EQ(all_engines().size(), 4u);
  for (EngineKind e : all_engines()) {
    EXPECT_EQ(parse_engine(name(e)), e) << name(e);
    EXPECT_TRUE(is_engine(name(e), e));
  }
  EXPECT_EQ(engine_names(), "mlx-lm, exo, llama-rpc or vllm");
}

TEST(engine_kind_test, the_engine_table_is_keyed_by_the_enum) {
  ASSERT_EQ(engines().size(), all_engines().size());
  for (size_t i = 0; i < engines().size(); ++i) {
    EXPECT_EQ(engines()[i].kind, all_engines()[i]);
    EXPECT_EQ(engines()[i].name, name(all_engines()[i]));
    EXPECT_EQ(engines()[i].title, title(all_engines()[i]));
    EXPECT_EQ(&engine(all_engines()[i]), &engines()[i]);
  }
  EXPECT_EQ(title(EngineKind::kLlamaRpc), "llama.cpp RPC");
}

TEST(engine_kind_test, an_unknown_name_gets_the_nearest_and_the_list) {
  try {
    parse_engine("vlm");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_STREQ(e.what(),
                 "unknown engine \"vlm\" (did you mean \"vllm\"?); expected mlx-lm, exo, "
                 "llama-rpc or vllm");
  }
}

}  // namespace
}  // namespace meshplan::engine_kind_test
