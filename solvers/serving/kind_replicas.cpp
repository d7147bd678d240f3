#include "solvers/serving/kind_replicas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "solvers/serving/replica_splits.hpp"

namespace meshplan {
namespace {

// Per host: its place in its island and the island's number ((0, 0) for a host of none).
std::vector<std::pair<size_t, size_t>> island_places(const KindSplitInputs& in) {
  std::vector<std::pair<size_t, size_t>> place(in.memory.size(), {0, 0});
  const std::vector<std::vector<size_t>> islands = in.kinds->islands();
  for (size_t i = 0; i < islands.size(); ++i)
    for (size_t p = 0; p < islands[i].size(); ++p)
      place[islands[i][p]] = {p, i};
  return place;
}

// The hosts of `hosts` by kind of machine, each kind's in the order its groups take them: by
// their own kind (cables included), then the first host of every island, the second of every
// island, and so on. A group then holds hosts of one kind from different islands, and groups of
// one size plan alike (one plan, not one per group).
// `place`: island_places.
std::map<int, std::vector<size_t>> by_machine(const KindSplitInputs& in,
                                              const std::vector<std::pair<size_t, size_t>>& place,
                                              const std::vector<size_t>& hosts) {
  const GroupKinds& kinds = *in.kinds;
  std::map<int, std::vector<size_t>> out;
  for (size_t h : hosts)
    out[kinds.machine(h)].push_back(h);
  for (auto& [machine, members] : out)
    std::stable_sort(members.begin(), members.end(), [&](size_t a, size_t b) {
      return std::make_pair(kinds.kind(a), place[a]) < std::make_pair(kinds.kind(b), place[b]);
    });
  return out;
}

struct Sized {
  std::vector<size_t> sizes;  // that hold a copy, on the kind's first hosts
  std::vector<double> values;
};

Sized sizes_of(const KindSplitInputs& in, const std::vector<size_t>& members,
               const GroupServes& serves) {
  const size_t fewest = static_cast<size_t>(
      std::max(1.0, std::ceil(in.weights / std::max(in.memory[members.front()], 1.0))));
  // Past the window of sizes near the fewest, doubling goes on only while a group serves more
  // per host than any smaller one: a group of 96 H100 nodes is not planned to learn that one
  // node alone serves more per node.
  Sized out;
  double per_host = 0;
  for (size_t size : replica_sizes(fewest, members.size(), in.most_in_group)) {
    const std::optional<double> v =
        serves(std::vector<size_t>(members.begin(), members.begin() + size));
    const double here = v ? *v / static_cast<double>(size) : 0;
    if (v) {
      out.sizes.push_back(size);
      out.values.push_back(*v);
    }
    if (size > 2 * fewest + 1 && here <= per_host) break;
    per_host = std::max(per_host, here);
  }
  return out;
}

// Every kind of machine of `hosts` in its best mix of group sizes; the hosts no group takes go
// to `left`.
std::vector<std::vector<size_t>> kind_groups(const KindSplitInputs& in, const GroupServes& serves,
                                             const std::vector<size_t>& hosts,
                                             std::vector<size_t>& left) {
  std::vector<std::vector<size_t>> groups;
  const std::vector<std::pair<size_t, size_t>> place = island_places(in);
  for (const auto& [machine, members] : by_machine(in, place, hosts)) {
    // The best mix of sizes for the machine's hosts, weighed on its first ones; its groups are
    // then formed among hosts of one kind with their cables where they fit (so that groups of one
    // size plan alike), the others from what those leave over.
    const Sized s = sizes_of(in, members, serves);
    std::map<size_t, size_t, std::greater<>> wanted;  // size -> groups, largest first
    for (size_t size : best_group_sizes(members.size(), s.sizes, s.values))
      ++wanted[size];
    std::vector<size_t> over;
    auto take = [&](const std::vector<size_t>& from, std::vector<size_t>& rest) {
      size_t next = 0;
      for (auto& [size, count] : wanted)
        for (; count > 0 && next + size <= from.size(); --count, next += size)
          groups.emplace_back(from.begin() + next, from.begin() + next + size);
      rest.insert(rest.end(), from.begin() + next, from.end());
    };
    for (size_t a = 0, b = 0; a < members.size(); a = b) {
      for (b = a; b < members.size() && in.kinds->kind(members[b]) == in.kinds->kind(members[a]);)
        ++b;
      take(std::vector<size_t>(members.begin() + a, members.begin() + b), over);
    }
    // What is left over, again island by island, so that no group holds a cable of its own.
    std::stable_sort(over.begin(), over.end(),
                     [&](size_t a, size_t b) { return place[a] < place[b]; });
    take(over, left);
  }
  return groups;
}

}  // namespace

std::vector<std::vector<std::vector<size_t>>> kind_splits(const KindSplitInputs& in,
                                                          const GroupServes& serves) {
  std::vector<std::vector<std::vector<size_t>>> out;
  // Under a number of requests in flight each group takes one at least: the groups that serve
  // most at their own best then, as many as there are requests.
  auto add = [&](std::vector<std::vector<size_t>> groups) {
    const size_t most = static_cast<size_t>(in.concurrency);
    if (in.concurrency > 0 && groups.size() > most) {
      std::vector<double> value;
      for (const auto& g : groups)
        value.push_back(serves(g).value_or(-1));
      std::vector<size_t> order(groups.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return value[a] > value[b]; });
      std::vector<std::vector<size_t>> kept;
      for (size_t i = 0; i < most; ++i)
        kept.push_back(std::move(groups[order[i]]));
      groups = std::move(kept);
    }
    out.push_back(std::move(groups));
  };
  auto with_left = [&](std::vector<std::vector<size_t>> groups, std::vector<size_t> left) {
    add(groups);
    if (left.empty()) return;
    std::sort(left.begin(), left.end());
    groups.push_back(std::move(left));
    add(std::move(groups));
  };
  const size_t n = in.memory.size();
  std::vector<size_t> all(n), left;
  std::iota(all.begin(), all.end(), 0);
  with_left(kind_groups(in, serves, all, left), left);
  // Thunderbolt islands that hold a copy are replicas of their own; the other hosts by kind.
  std::vector<bool> taken(n, false);
  std::vector<std::vector<size_t>> groups;
  for (const auto& island : in.kinds->islands())
    if (serves(island)) {
      groups.push_back(island);
      for (size_t h : island)
        taken[h] = true;
    }
  if (!groups.empty()) {
    std::vector<size_t> others, left_over;
    for (size_t h = 0; h < n; ++h)
      if (!taken[h]) others.push_back(h);
    for (auto& g : kind_groups(in, serves, others, left_over))
      groups.push_back(std::move(g));
    with_left(std::move(groups), std::move(left_over));
  }
  return out;
}

std::vector<std::string> kind_usage(const KindSplitInputs& in, const GroupServes& serves,
                                    const std::vector<std::string>& names,
                                    const std::vector<std::vector<size_t>>& groups) {
  const GroupKinds& kinds = *in.kinds;
  // Per host: the size of its group when the group is of one kind of machine, -1 when mixed.
  std::vector<long> size_of(names.size(), 0);
  for (const auto& g : groups) {
    const bool one = std::all_of(
        g.begin(), g.end(), [&](size_t h) { return kinds.machine(h) == kinds.machine(g.front()); });
    for (size_t h : g)
      size_of[h] = one ? static_cast<long>(g.size()) : -1;
  }
  std::vector<size_t> all(names.size());
  std::iota(all.begin(), all.end(), 0);
  std::vector<std::string> out;
  for (const auto& [machine, members] : by_machine(in, island_places(in), all)) {
    std::map<long, size_t, std::greater<>> hosts_in;  // group size -> hosts (-1: mixed groups)
    size_t idle = 0;
    for (size_t h : members)
      if (size_of[h] == 0)
        ++idle;
      else
        ++hosts_in[size_of[h]];
    std::string text = fmt::format("hosts like {}: {} of {} used", names[members.front()],
                                   members.size() - idle, members.size());
    std::vector<std::string> parts;
    for (const auto& [size, hosts] : hosts_in)
      parts.push_back(size < 0
                          ? fmt::format("{} in groups of mixed kinds", hosts)
                          : fmt::format("{} replica{} of {}", hosts / static_cast<size_t>(size),
                                        hosts == static_cast<size_t>(size) ? "" : "s", size));
    for (size_t i = 0; i < parts.size(); ++i)
      text += (i ? ", " : " (") + parts[i] + (i + 1 == parts.size() ? ")" : "");
    if (idle > 0) {
      const Sized s = sizes_of(in, members, serves);
      if (s.sizes.empty())
        text += fmt::format("; no group of up to {} of them holds a copy",
                            std::min(members.size(), in.most_in_group));
      else if (idle < s.sizes.front())
        text +=
            fmt::format("; {} left over, fewer than the {} a copy needs", idle, s.sizes.front());
      else if (in.concurrency > 0 && groups.size() >= static_cast<size_t>(in.concurrency))
        text += fmt::format("; {} left idle: {} requests in flight keep {} replicas busy at most",
                            idle, in.concurrency, in.concurrency);
      else
        text += fmt::format(
            "; {} left idle: every split found that uses them serves fewer tokens/s", idle);
    }
    out.push_back(text);
  }
  return out;
}

}  // namespace meshplan
