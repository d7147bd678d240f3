#include "lib/plan/plan_ranks.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "lib/plan/plan.hpp"

namespace meshplan {

std::vector<std::string> PlanRanks::hosts() const {
  std::vector<std::string> out;
  for (const auto& r : ranks)
    out.push_back(r.host);
  return out;
}

PlanRanks read_plan_ranks(const DocNode& root) {
  root.require_object();
  if (auto* s = root.find("schema"); s && s->as_string() != kPlanSchema)
    s->fail(fmt::format("expected schema \"{}\", got \"{}\"", kPlanSchema, s->text()));
  PlanRanks out;
  if (auto* b = root.find("backend"); b && b->is_string()) out.backend = b->text();
  const DocNode& ranks = root.at("ranks").require_array();
  if (ranks.items().empty()) ranks.fail("expected at least one rank");
  for (size_t i = 0; i < ranks.items().size(); ++i) {
    const DocNode& n = ranks.items()[i].require_object();
    PlanRank r;
    r.rank = static_cast<int>(i);
    if (auto* v = n.find("rank")) {
      if (v->as_int() != static_cast<int64_t>(i))
        v->fail(fmt::format("expected rank {} (ranks are listed in order)", i));
    }
    r.host = n.at("host").as_string();
    if (auto* l = n.find("layers"); l && !l->is_null()) {
      const auto& items = l->require_array().items();
      if (items.size() != 2) l->fail("expected layers as [start, end)");
      int64_t a = items[0].as_int(), b = items[1].as_int();
      if (a < 0 || b < a) l->fail(fmt::format("expected 0 <= start <= end, got [{}, {})", a, b));
      r.layers = {static_cast<int>(a), static_cast<int>(b)};
    }
    for (const auto& prev : out.ranks)
      if (prev.host == r.host)
        n.at("host").fail(fmt::format("host {} appears in two ranks", r.host));
    out.ranks.push_back(std::move(r));
  }
  return out;
}

}  // namespace meshplan
