#include "lib/cluster/link_kind.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"

namespace meshplan::link_kind_test {
namespace {

TEST(link_kind_test, every_name_reads_back_as_its_kind) {
  ASSERT_EQ(all_link_kinds().size(), 14u);
  for (LinkKind k : all_link_kinds()) {
    EXPECT_EQ(parse_link_kind(name(k)), k) << name(k);
    EXPECT_EQ(std::string_view(link_kind_name(k)), name(k));
  }
  EXPECT_EQ(link_kind_names(),
            "tb5, tb4, tb3, ib-ndr, ib-hdr, 400gbe, 200gbe, 100gbe, 25gbe, 10gbe, 5gbe, 2.5gbe, "
            "1gbe, wifi");
}

TEST(link_kind_test, display_and_figures_names) {
  EXPECT_EQ(display_name(LinkKind::kTb5), "Thunderbolt 5");
  EXPECT_EQ(display_name(LinkKind::k10gbe), "10gbe");
  EXPECT_EQ(link_figures_name(LinkKind::kTb5, true), "tb5-rdma");
  EXPECT_EQ(link_figures_name(LinkKind::kTb5, false), "tb5");
  EXPECT_EQ(link_figures_name(LinkKind::k100gbe, true), "100gbe");
}

TEST(link_kind_test, rdma_on_tb5_infiniband_and_ethernet_from_10gbe) {
  EXPECT_TRUE(takes_rdma(LinkKind::kTb5));
  EXPECT_FALSE(takes_rdma(LinkKind::kTb4));
  EXPECT_TRUE(takes_rdma(LinkKind::kIbHdr));
  EXPECT_TRUE(takes_rdma(LinkKind::k10gbe));
  EXPECT_FALSE(takes_rdma(LinkKind::k5gbe));
  EXPECT_FALSE(takes_rdma(LinkKind::kWifi));
  EXPECT_EQ(rdma_link_kind_names(true),
            "tb5, ib-ndr, ib-hdr, 400gbe, 200gbe, 100gbe, 25gbe, 10gbe");
  EXPECT_EQ(rdma_link_kind_names(false), "ib-ndr, ib-hdr, 400gbe, 200gbe, 100gbe, 25gbe, 10gbe");
}

TEST(link_kind_test, an_unknown_name_gets_the_nearest_and_the_list) {
  EXPECT_FALSE(find_link_kind("tb6"));
  try {
    parse_link_kind("10gbit");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("unknown link kind \"10gbit\" (did you mean \"10gbe\"", 0), 0u) << what;
    EXPECT_NE(what.find("; expected tb5, tb4, tb3, ib-ndr"), std::string::npos) << what;
    EXPECT_NE(what.find("1gbe or wifi"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace meshplan::link_kind_test
