// Kinds of links, one name table: Thunderbolt generations and networks, named as written in
// cluster files ("tb5", "10gbe"). Ethernet kinds carry RoCE when the link says rdma; ib-hdr and
// ib-ndr are InfiniBand (200 and 400 Gb/s), always RDMA.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

enum class LinkKind {
  kTb5,
  kTb4,
  kTb3,
  kIbNdr,
  kIbHdr,
  k400gbe,
  k200gbe,
  k100gbe,
  k25gbe,
  k10gbe,
  k5gbe,
  k2_5gbe,
  k1gbe,
  kWifi
};

std::string_view name(LinkKind kind);
const char* link_kind_name(LinkKind kind);  // name(kind), for the C-string callers
// "Thunderbolt 5" for tb5; the name for networks.
std::string_view display_name(LinkKind kind);
// Throws an input error naming the nearest names and every valid one.
LinkKind parse_link_kind(std::string_view name);
std::optional<LinkKind> find_link_kind(std::string_view name);
// Every kind, fastest Thunderbolt first, then InfiniBand and Ethernet by speed, then Wi-Fi.
const std::vector<LinkKind>& all_link_kinds();
// The comma-separated list of kind names, for messages.
std::string link_kind_names();
// The link figures' name of a cable: the kind's, or "tb5-rdma" for a TB5 cable carrying RDMA
// (the catalog's key for its figures).
std::string_view link_figures_name(LinkKind kind, bool rdma);

bool is_thunderbolt(LinkKind kind);
bool is_infiniband(LinkKind kind);
// Whether a link of this kind may carry RDMA: Thunderbolt 5, InfiniBand, and RoCE on Ethernet of
// 10 Gb/s and faster (RDMA NICs start there; Wi-Fi and slower Ethernet have none).
bool takes_rdma(LinkKind kind);
// The kinds that take rdma, comma-separated in table order, for messages; a shared network
// cannot be Thunderbolt, so `with_thunderbolt` false leaves tb5 out.
std::string rdma_link_kind_names(bool with_thunderbolt);
// The Ethernet kind of a port running at this speed (Gb/s): 400gbe down to 1gbe.
LinkKind ethernet_kind_for_speed(double speed_gbps);

}  // namespace meshplan
