#include "solvers/pipeline/host_classes.hpp"

namespace meshplan {
namespace {

bool same_link(const SearchSpace& s, size_t a1, size_t b1, size_t a2, size_t b2) {
  if (s.hop(a1, b1) != s.hop(a2, b2)) return false;
  const auto& l1 = s.cost().link(a1, b1);
  const auto& l2 = s.cost().link(a2, b2);
  if (l1.has_value() != l2.has_value()) return false;
  return !l1 ||
         (l1->name == l2->name && l1->latency_s == l2->latency_s && l1->bandwidth == l2->bandwidth);
}

bool interchangeable(const SearchSpace& s, size_t i, size_t j,
                     const LinkMatrix::Partners& partners) {
  if (s.pin(i) || s.pin(j) || s.can_head(i) != s.can_head(j)) return false;
  const HostFigures& a = s.cost().host(i);
  const HostFigures& b = s.cost().host(j);
  if (a.usable_bytes != b.usable_bytes || a.bandwidth != b.bandwidth || a.flops != b.flops ||
      a.prefill_flops != b.prefill_flops || a.overhead_s != b.overhead_s)
    return false;
  if (!same_link(s, i, j, j, i)) return false;
  // Hop times first: they are a table, while a link is worked out from the media of a fleet, and
  // hosts that differ mostly differ in a hop. The hosts either has a cable with come first: hosts
  // in different islands differ there.
  auto same_hops = [&](size_t k) {
    return k == i || k == j || (s.hop(i, k) == s.hop(j, k) && s.hop(k, i) == s.hop(k, j));
  };
  // Whether `same` holds toward every other end of i's and j's cables.
  auto at_cable_ends = [&](auto&& same) {
    for (const std::vector<uint32_t>* p : {&partners[i], &partners[j]})
      for (uint32_t k : *p)
        if (!same(k)) return false;
    return true;
  };
  if (!at_cable_ends(same_hops)) return false;
  for (size_t k = 0; k < s.num_hosts(); ++k)
    if (!same_hops(k)) return false;
  // On the same media, a host neither has a cable with is reached from both alike: only their
  // cables' other ends can tell them apart (the hosts of an island, each cabled to the others),
  // so a fleet compares a few links, not one to every host.
  auto same_toward = [&](size_t k) {
    return k == i || k == j || (same_link(s, i, k, j, k) && same_link(s, k, i, k, j));
  };
  if (s.cost().links().same_media(i, j)) return at_cable_ends(same_toward);
  for (size_t k = 0; k < s.num_hosts(); ++k)
    if (!same_toward(k)) return false;
  return true;
}

}  // namespace

double HostClasses::subset_count() const {
  double n = 1;
  for (const auto& m : members)
    n *= static_cast<double>(m.size() + 1);
  return n;
}

HostClasses host_classes(const SearchSpace& space) {
  HostClasses c;
  c.class_of.assign(space.num_hosts(), -1);
  const LinkMatrix::Partners& partners = space.cost().links().own_partners();
  for (size_t h = 0; h < space.num_hosts(); ++h) {
    for (size_t k = 0; k < c.members.size(); ++k) {
      if (interchangeable(space, c.members[k].front(), h, partners)) {
        c.members[k].push_back(h);
        c.class_of[h] = static_cast<int>(k);
        break;
      }
    }
    if (c.class_of[h] < 0) {
      c.class_of[h] = static_cast<int>(c.members.size());
      c.members.push_back({h});
    }
  }
  return c;
}

HostClasses singleton_classes(size_t hosts) {
  HostClasses c;
  for (size_t h = 0; h < hosts; ++h) {
    c.members.push_back({h});
    c.class_of.push_back(static_cast<int>(h));
  }
  return c;
}

}  // namespace meshplan
