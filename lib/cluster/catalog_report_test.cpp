#include "lib/cluster/catalog_report.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "lib/core/error.hpp"

namespace meshplan::catalog_report_test {
namespace {

const Catalog& catalog() {
  return Catalog::builtin();
}

TEST(catalog_report_test, the_table_lists_every_chip_and_machine_then_the_defaults) {
  const std::string table = catalog_table(catalog());
  for (const auto& chip : catalog().chips())
    EXPECT_NE(table.find(chip.key), std::string::npos) << chip.key;
  for (const auto& m : catalog().machines())
    EXPECT_NE(table.find(m.key), std::string::npos) << m.key;
  EXPECT_NE(table.find("Cost-model defaults:"), std::string::npos);
}

TEST(catalog_report_test, a_family_names_each_of_its_chips_and_json_lists_them) {
  auto list = nlohmann::json::parse(catalog_entry(catalog(), "m3-ultra", true));
  ASSERT_TRUE(list.is_array());
  std::vector<std::string> names;
  for (const auto& chip : list)
    names.push_back(chip.at("name"));
  EXPECT_EQ(names, (std::vector<std::string>{"m3-ultra-60c", "m3-ultra-80c"}));
  EXPECT_EQ(nlohmann::json::parse(catalog_json(catalog())).size(), catalog().chips().size());
}

TEST(catalog_report_test, an_unknown_name_is_an_input_error_with_the_nearest_name) {
  try {
    catalog_entry(catalog(), "m3-ultra-80x", false);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_NE(std::string(e.what()).find("did you mean \"m3-ultra-80c\""), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace meshplan::catalog_report_test
