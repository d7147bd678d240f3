#include "lib/plan/infeasible_plan.hpp"

#include <gtest/gtest.h>

namespace meshplan::infeasible_plan_test {
namespace {

TEST(infeasible_plan_test, the_object_names_the_model_the_error_and_the_exit_code) {
  Error e = failure("does not fit: {} is short of {}", "studio-1", "12.0 GiB");
  EXPECT_EQ(write_infeasible_plan_json("llama-3.3-70b-4bit", e),
            "{\n"
            "  \"schema\": \"meshplan.plan/2\",\n"
            "  \"feasible\": false,\n"
            "  \"model\": \"llama-3.3-70b-4bit\",\n"
            "  \"error\": \"does not fit: studio-1 is short of 12.0 GiB\",\n"
            "  \"exit_code\": 1\n"
            "}\n");
}

}  // namespace
}  // namespace meshplan::infeasible_plan_test
