#include "deploy/writers/routing_table.hpp"

#include <cmath>

#include "lib/core/error.hpp"
#include "lib/core/json_util.hpp"

namespace meshplan {
namespace {

ojson weight(double part, double whole) {
  return json_number(whole > 0 ? std::round(part / whole * 1e6) / 1e6 : 0.0);
}

ojson tokens(double v) {
  return json_number(std::round(v * 1000) / 1000);
}

}  // namespace

std::string write_routing_table(const std::optional<PlanRanks>& plan) {
  if (!plan || !plan->routing)
    throw failure(
        "routing: the plan has no routing table; make it with `meshplan plan --strategy routed`");
  const RoutingInfo& r = *plan->routing;
  double total = 0;
  for (const RoutedHostInfo& h : r.hosts)
    total += h.entry;
  ojson j;
  j["schema"] = kRoutingSchema;
  j["aggregate_tokens_per_s"] = tokens(total);
  j["streams_per_host"] = r.streams;
  ojson entry = ojson::array();
  for (const RoutedHostInfo& h : r.hosts)
    if (h.entry > 0) entry.push_back(ojson{{"host", h.host}, {"weight", weight(h.entry, total)}});
  j["entry"] = entry;
  ojson hosts = ojson::array();
  for (const RoutedHostInfo& h : r.hosts) {
    ojson x;
    x["host"] = h.host;
    x["layers"] = ojson::array({h.layer_start, h.layer_end});
    x["tokens_per_s"] = tokens(h.flow);
    ojson next = ojson::array();
    for (const RoutedLinkInfo& l : r.links)
      if (l.from == h.host && l.flow > 0)
        next.push_back(ojson{{"host", l.to}, {"weight", weight(l.flow, h.flow)}});
    x["next"] = next;
    x["exit"] = weight(h.exit, h.flow);
    hosts.push_back(x);
  }
  j["hosts"] = hosts;
  return j.dump(2) + "\n";
}

}  // namespace meshplan
