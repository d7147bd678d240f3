#include "bench/routed_families.hpp"

#include <gtest/gtest.h>

#include <set>

#include "lib/core/error.hpp"

namespace meshplan::routed_families_test {
namespace {

TEST(RoutedFamilies, SeededAndShapedLikeHelix) {
  for (const std::string& family : routed_family_names()) {
    const RoutedInstance a = generate_routed_instance(family, 42, 80, 7);
    const RoutedInstance b = generate_routed_instance(family, 42, 80, 7);
    ASSERT_EQ(a.hosts.size(), 42u);
    EXPECT_EQ(a.layers, 80);
    std::set<std::vector<double>> tables;
    bool rises = false;
    for (size_t i = 0; i < a.hosts.size(); ++i) {
      EXPECT_EQ(a.hosts[i].table, b.hosts[i].table) << family << ": the same seed";
      const auto& t = a.hosts[i].table;
      EXPECT_GE(t.size(), 4u);
      EXPECT_LE(t.size(), 18u);
      for (size_t k = 1; k < t.size(); ++k)
        rises = rises || t[k] > t[k - 1];
      tables.insert(t);
    }
    EXPECT_GE(tables.size(), 3u) << family << ": several kinds";
    EXPECT_LE(tables.size(), 7u) << family;
    EXPECT_TRUE(rises) << family << ": some table rises with more layers";
    EXPECT_EQ(a.link, b.link);
  }
  EXPECT_NE(generate_routed_instance("one-region", 24, 80, 1).hosts[0].table,
            generate_routed_instance("one-region", 24, 80, 2).hosts[0].table);
}

TEST(RoutedFamilies, RegionsAreJoinedBySlowLinks) {
  const RoutedInstance one = generate_routed_instance("one-region", 24, 80, 3);
  for (size_t i = 0; i < 24; ++i)
    for (size_t j = 0; j < 24; ++j)
      if (i != j) {
        EXPECT_EQ(one.link[i][j], 61035);
      }
  const RoutedInstance four = generate_routed_instance("four-regions", 24, 80, 3);
  int slow = 0;
  for (size_t i = 0; i < 24; ++i)
    for (size_t j = 0; j < 24; ++j)
      if (i != j && four.link[i][j] < 61035) {
        ++slow;
        EXPECT_GE(four.link[i][j], 300);
        EXPECT_LE(four.link[i][j], 2000);
      }
  EXPECT_GT(slow, 0);
}

TEST(RoutedFamilies, UnknownFamilyNamesTheFamilies) {
  try {
    generate_routed_instance("three-regions", 10, 60, 1);
    FAIL() << "expected an input error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_NE(std::string(e.what()).find("one-region, two-regions, four-regions"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace meshplan::routed_families_test
