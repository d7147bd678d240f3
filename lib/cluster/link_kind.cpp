#include "lib/cluster/link_kind.hpp"

#include <array>

#include "lib/core/name_table.hpp"

namespace meshplan {
namespace {

constexpr std::array<NameRow<LinkKind>, 14> kKinds = {{
    {LinkKind::kTb5, "tb5", "Thunderbolt 5"},
    {LinkKind::kTb4, "tb4", "Thunderbolt 4"},
    {LinkKind::kTb3, "tb3", "Thunderbolt 3"},
    {LinkKind::kIbNdr, "ib-ndr", "InfiniBand NDR"},
    {LinkKind::kIbHdr, "ib-hdr", "InfiniBand HDR"},
    {LinkKind::k400gbe, "400gbe", ""},
    {LinkKind::k200gbe, "200gbe", ""},
    {LinkKind::k100gbe, "100gbe", ""},
    {LinkKind::k25gbe, "25gbe", ""},
    {LinkKind::k10gbe, "10gbe", ""},
    {LinkKind::k5gbe, "5gbe", ""},
    {LinkKind::k2_5gbe, "2.5gbe", ""},
    {LinkKind::k1gbe, "1gbe", ""},
    {LinkKind::kWifi, "wifi", "Wi-Fi"},
}};

constexpr std::string_view kTb5Rdma = "tb5-rdma";

}  // namespace

std::string_view name(LinkKind kind) {
  return name_in(kKinds, kind);
}

// The table's names are literals, so their data is NUL-terminated.
const char* link_kind_name(LinkKind kind) {
  return name(kind).data();
}

std::string_view display_name(LinkKind kind) {
  for (const auto& row : kKinds)
    if (row.value == kind) return row.summary.empty() ? row.name : row.summary;
  return "?";
}

LinkKind parse_link_kind(std::string_view name) {
  return parse_in<LinkKind>(kKinds, "link kind", name);
}

std::optional<LinkKind> find_link_kind(std::string_view name) {
  return find_in<LinkKind>(kKinds, name);
}

const std::vector<LinkKind>& all_link_kinds() {
  static const std::vector<LinkKind> all = values_in<LinkKind>(kKinds);
  return all;
}

std::string link_kind_names() {
  std::string out;
  for (const auto& k : kKinds) {
    if (!out.empty()) out += ", ";
    out += k.name;
  }
  return out;
}

std::string_view link_figures_name(LinkKind kind, bool rdma) {
  return kind == LinkKind::kTb5 && rdma ? kTb5Rdma : name(kind);
}

bool is_thunderbolt(LinkKind kind) {
  return kind == LinkKind::kTb5 || kind == LinkKind::kTb4 || kind == LinkKind::kTb3;
}

bool is_infiniband(LinkKind kind) {
  return kind == LinkKind::kIbNdr || kind == LinkKind::kIbHdr;
}

bool takes_rdma(LinkKind kind) {
  switch (kind) {
    case LinkKind::kTb4:
    case LinkKind::kTb3:
    case LinkKind::k5gbe:
    case LinkKind::k2_5gbe:
    case LinkKind::k1gbe:
    case LinkKind::kWifi:
      return false;
    default:
      return true;
  }
}

std::string rdma_link_kind_names(bool with_thunderbolt) {
  std::string out;
  for (const auto& k : kKinds) {
    if (!takes_rdma(k.value) || (!with_thunderbolt && is_thunderbolt(k.value))) continue;
    if (!out.empty()) out += ", ";
    out += k.name;
  }
  return out;
}

LinkKind ethernet_kind_for_speed(double speed_gbps) {
  if (speed_gbps >= 400) return LinkKind::k400gbe;
  if (speed_gbps >= 200) return LinkKind::k200gbe;
  if (speed_gbps >= 100) return LinkKind::k100gbe;
  if (speed_gbps >= 25) return LinkKind::k25gbe;
  if (speed_gbps >= 10) return LinkKind::k10gbe;
  if (speed_gbps >= 5) return LinkKind::k5gbe;
  if (speed_gbps >= 2.5) return LinkKind::k2_5gbe;
  return LinkKind::k1gbe;
}

}  // namespace meshplan
