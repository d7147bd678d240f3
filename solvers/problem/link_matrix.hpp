// The best link between each ordered pair of candidate hosts for one transport, kept in memory
// that grows with the hosts and the links rather than with the pairs (issue 51): a shared network
// (a switch) is one medium that each host on it joins, not a link per pair; only pairs with their
// own cable carry a link of their own. A pair's link is its own when it has one, else the fastest
// medium both hosts are on. Up to kDenseHosts hosts, an index per pair is kept beside that (4
// bytes a pair, at most 256 KiB) so that the solvers' inner loops read a link in one step.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "lib/cluster/link_graph.hpp"

namespace meshplan {

class LinkMatrix {
 public:
  static constexpr size_t kDenseHosts = 256;

  LinkMatrix() = default;
  explicit LinkMatrix(size_t hosts);
  // Every link given pair by pair ([a][b], the diagonal ignored), as tests write them.
  LinkMatrix(
      const std::vector<std::vector<std::optional<LinkFigures>>>& pairs);  // NOLINT: implicit

  size_t size() const { return cut_.size(); }

  // The link from a to b, if any (none from a host to itself).
  const std::optional<LinkFigures>& at(size_t a, size_t b) const;
  class Row {
   public:
    const std::optional<LinkFigures>& operator[](size_t b) const { return m_->at(a_, b); }

   private:
    friend class LinkMatrix;
    Row(const LinkMatrix* m, size_t a) : m_(m), a_(a) {}
    const LinkMatrix* m_;
    size_t a_;
  };
  Row operator[](size_t a) const { return Row(this, a); }

  // A shared medium with its figures; `rank` orders media (lower is better: the hop time of one
  // message), ties going to the medium added first.
  size_t add_medium(const LinkFigures& figures, double rank);
  // Host `host` is on `medium`.
  void join(size_t host, size_t medium);
  // The link from a to b is `link` (none: no link), whatever media they share.
  void set(size_t a, size_t b, const std::optional<LinkFigures>& link);
  // No link touches `host` from now on.
  void cut(size_t host);
  // Every link's latency (and its latency over TCP) grows by `s`.
  void add_latency(double s);

  // Hosts `members` in that order.
  LinkMatrix subset(const std::vector<size_t>& members) const;
  // Each group of hosts as one host: between two groups, the link of the smallest rank among
  // their members' (a medium ranks as added; a pair's own link by `rank_of`).
  template <typename Rank>
  LinkMatrix grouped(const std::vector<std::vector<size_t>>& groups, Rank rank_of) const;

  // For each host, the hosts with which it has a link of its own, either way, other than what
  // their media give (sorted): what `swappable` reads. Interchangeable hosts on the same media
  // have as many.
  using Partners = std::vector<std::vector<uint32_t>>;
  const Partners& own_partners() const;
  // Whether a and b see the same link to every other host, each way, and the same link to each
  // other both ways, so that swapping them changes no link. Read from the structure: hosts on the
  // same media compare only where either has a link of its own; O(links of a and b) then.
  bool swappable(size_t a, size_t b, const Partners& partners) const;
  // Whether a and b are on the same media and neither is cut: then a host that neither has a link
  // of its own with (own_partners) is reached from both by the same link.
  bool same_media(size_t a, size_t b) const;

  // For each host, every distinct link from it to another host (into it, with `into`), none among
  // them when some other host has no link with it: what the least of a function over a host's
  // links needs, in time that grows with the links and the kinds of membership in media rather
  // than with the pairs.
  using Distinct = std::vector<std::vector<std::optional<LinkFigures>>>;
  const Distinct& distinct_links(bool into) const;

  // No link between two of its hosts has a lower latency (infinity without links).
  double least_latency() const;

  // Entries kept: the media joined and the pairs with a link of their own (what grows with the
  // cluster), for the memory benchmark.
  size_t stored_links() const;

 private:
  size_t value(const std::optional<LinkFigures>& link);  // its index in Links::values
  size_t best_medium(size_t a, size_t b) const;          // an index into Links::values, 0: none
  size_t compute(size_t a, size_t b) const;              // what dense_ holds for (a, b)
  void refresh(size_t host);                             // dense_'s row and column of `host`
  void fill_dense();
  static uint64_t key(size_t a, size_t b) { return uint64_t{a} << 32 | b; }

  struct Medium {
    size_t value;
    double rank;
  };
  // What copies share until one of them changes it (copies are many: every sub-problem and cost
  // model holds its matrices).
  struct Links {
    std::vector<std::optional<LinkFigures>> values{std::nullopt};  // 0: no link
    std::vector<Medium> media;
    std::vector<std::vector<size_t>> host_media;  // per host, best medium first
    std::unordered_map<uint64_t, size_t> own;     // pairs with a link of their own
  };
  // own_partners and distinct_links, worked out once for every copy that is still the same
  // matrix (a plan's sub-problems copy the matrices for each of their searches); a change
  // leaves the copies sharing it and starts an empty one.
  struct Derived {
    std::optional<Partners> partners;
    std::optional<Distinct> distinct[2];  // from, into
  };
  Links& edit();  // this matrix's own Links, copied first when shared; forgets what was derived
  std::shared_ptr<Links> links_ = std::make_shared<Links>();
  std::vector<bool> cut_;
  std::vector<uint32_t> dense_;
  mutable std::shared_ptr<Derived> derived_ =
      std::make_shared<Derived>();  // n x n indices into Links::values while n <= kDenseHosts
};

template <typename Rank>
LinkMatrix LinkMatrix::grouped(const std::vector<std::vector<size_t>>& groups, Rank rank_of) const {
  LinkMatrix out(groups.size());
  std::vector<size_t> group_of(size(), SIZE_MAX);
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t h : groups[g])
      if (!cut_[h]) group_of[h] = g;
  // Media: a group is on every medium one of its members is on.
  std::vector<size_t> medium_id(links_->media.size(), SIZE_MAX);
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t h : groups[g]) {
      if (cut_[h]) continue;
      for (size_t m : links_->host_media[h]) {
        if (medium_id[m] == SIZE_MAX)
          medium_id[m] =
              out.add_medium(*links_->values[links_->media[m].value], links_->media[m].rank);
        out.join(g, medium_id[m]);
      }
    }
  // A pair's own link between members of two groups competes with the media they share.
  std::unordered_map<uint64_t, std::optional<LinkFigures>> best;
  for (const auto& [k, v] : links_->own) {
    const size_t a = group_of[k >> 32], b = group_of[k & 0xffffffffu];
    if (a == SIZE_MAX || b == SIZE_MAX || a == b || !links_->values[v]) continue;
    auto& slot = best[key(a, b)];
    if (!slot) {
      slot = out.at(a, b);  // the media's best so far
    }
    if (!slot || rank_of(*links_->values[v]) < rank_of(*slot)) slot = links_->values[v];
  }
  for (const auto& [k, v] : best)
    out.set(k >> 32, k & 0xffffffffu, v);
  return out;
}

}  // namespace meshplan
