#include "solvers/problem/link_matrix.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "lib/core/error.hpp"

namespace meshplan {
namespace {

const std::optional<LinkFigures> kNoLink;

}  // namespace

LinkMatrix::LinkMatrix(size_t hosts) : cut_(hosts, false) {
  links_->host_media.resize(hosts);
  if (hosts > UINT32_MAX) throw internal_error("too many hosts for a link matrix");
  if (hosts <= kDenseHosts) dense_.assign(hosts * hosts, 0);
}

LinkMatrix::LinkMatrix(const std::vector<std::vector<std::optional<LinkFigures>>>& pairs)
    : LinkMatrix(pairs.size()) {
  for (size_t a = 0; a < pairs.size(); ++a)
    for (size_t b = 0; b < pairs[a].size() && b < pairs.size(); ++b)
      if (a != b && pairs[a][b]) set(a, b, pairs[a][b]);
}

const std::optional<LinkFigures>& LinkMatrix::at(size_t a, size_t b) const {
  if (!dense_.empty()) return links_->values[dense_[a * size() + b]];
  return links_->values[compute(a, b)];
}

size_t LinkMatrix::compute(size_t a, size_t b) const {
  if (a == b || cut_[a] || cut_[b]) return 0;
  if (!links_->own.empty())
    if (auto it = links_->own.find(key(a, b)); it != links_->own.end()) return it->second;
  return best_medium(a, b);
}

size_t LinkMatrix::best_medium(size_t a, size_t b) const {
  const std::vector<size_t>& on_b = links_->host_media[b];
  for (size_t m : links_->host_media[a])  // best first
    if (std::find(on_b.begin(), on_b.end(), m) != on_b.end()) return links_->media[m].value;
  return 0;
}

LinkMatrix::Links& LinkMatrix::edit() {
  derived_ = std::make_shared<Derived>();
  if (links_.use_count() > 1) links_ = std::make_shared<Links>(*links_);
  return *links_;
}

size_t LinkMatrix::value(const std::optional<LinkFigures>& link) {
  if (!link) return 0;
  Links& l = edit();
  l.values.push_back(link);
  return l.values.size() - 1;
}

size_t LinkMatrix::add_medium(const LinkFigures& figures, double rank) {
  const size_t v = value(figures);
  edit().media.push_back({v, rank});
  return links_->media.size() - 1;
}

void LinkMatrix::join(size_t host, size_t medium) {
  Links& l = edit();
  std::vector<size_t>& on = l.host_media.at(host);
  if (std::find(on.begin(), on.end(), medium) != on.end()) return;
  // Kept best first: by rank, then the medium added first.
  auto at = std::upper_bound(on.begin(), on.end(), medium, [&](size_t x, size_t y) {
    return l.media[x].rank < l.media[y].rank || (l.media[x].rank == l.media[y].rank && x < y);
  });
  on.insert(at, medium);
  refresh(host);
}

void LinkMatrix::set(size_t a, size_t b, const std::optional<LinkFigures>& link) {
  if (a >= size() || b >= size() || a == b) throw internal_error("link matrix pair out of range");
  const size_t v = value(link);
  edit().own[key(a, b)] = v;
  if (!dense_.empty()) dense_[a * size() + b] = static_cast<uint32_t>(compute(a, b));
}

void LinkMatrix::cut(size_t host) {
  derived_ = std::make_shared<Derived>();
  cut_.at(host) = true;
  refresh(host);
}

void LinkMatrix::add_latency(double s) {
  Links& l = edit();
  for (std::optional<LinkFigures>& v : l.values)
    if (v) {
      v->latency_s += s;
      v->tcp_latency_s += s;
    }
  for (Medium& m : l.media)
    m.rank += s;
}

void LinkMatrix::refresh(size_t host) {
  if (dense_.empty()) return;
  const size_t n = size();
  for (size_t o = 0; o < n; ++o) {
    dense_[host * n + o] = static_cast<uint32_t>(compute(host, o));
    dense_[o * n + host] = static_cast<uint32_t>(compute(o, host));
  }
}

void LinkMatrix::fill_dense() {
  if (dense_.empty()) return;
  const size_t n = size();
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b)
      dense_[a * n + b] = static_cast<uint32_t>(compute(a, b));
}

LinkMatrix LinkMatrix::subset(const std::vector<size_t>& members) const {
  const size_t n = members.size();
  bool same = n == size();
  for (size_t k = 0; k < n && same; ++k)
    same = members[k] == k;
  if (same) return *this;
  LinkMatrix out;
  Links& to = *out.links_;
  to.host_media.resize(n);
  out.cut_.assign(n, false);
  // A small matrix copies this one's index per pair, so it keeps the values' numbering; a
  // fleet's subset keeps only the values its media and pairs use (a fleet's cables each have one).
  const bool renumber = dense_.empty();
  std::vector<size_t> kept(renumber ? links_->values.size() : 0, SIZE_MAX);
  auto keep = [&](size_t v) {
    if (!renumber) return v;
    if (kept[v] == SIZE_MAX) {
      kept[v] = to.values.size();
      to.values.push_back(links_->values[v]);
    }
    return kept[v];
  };
  if (renumber) {
    kept[0] = 0;  // to.values starts with "no link"
  } else {
    to.values = links_->values;
  }
  to.media = links_->media;
  for (Medium& m : to.media)
    m.value = keep(m.value);
  std::vector<size_t> index(size(), SIZE_MAX);
  for (size_t k = 0; k < n; ++k) {
    const size_t h = members.at(k);
    index.at(h) = k;
    to.host_media[k] = links_->host_media[h];
    out.cut_[k] = cut_[h];
  }
  for (const auto& [k, v] : links_->own) {
    const size_t a = index[k >> 32], b = index[k & 0xffffffffu];
    if (a != SIZE_MAX && b != SIZE_MAX) to.own[key(a, b)] = keep(v);
  }
  if (n <= kDenseHosts) {
    out.dense_.assign(n * n, 0);
    if (dense_.empty()) {
      out.fill_dense();
    } else {  // read from this one's index, without a lookup per pair
      for (size_t a = 0; a < n; ++a)
        for (size_t b = 0; b < n; ++b)
          out.dense_[a * n + b] = a == b ? 0 : dense_[members[a] * size() + members[b]];
    }
  }
  return out;
}

const LinkMatrix::Partners& LinkMatrix::own_partners() const {
  if (derived_->partners) return *derived_->partners;
  Partners& out = derived_->partners.emplace(size());
  for (const auto& [k, v] : links_->own) {
    const size_t a = k >> 32, b = k & 0xffffffffu;
    // A link of its own that is what the media give anyway changes nothing.
    if (cut_[a] || cut_[b] || links_->values[v] == links_->values[best_medium(a, b)]) continue;
    out[a].push_back(static_cast<uint32_t>(b));
    out[b].push_back(static_cast<uint32_t>(a));
  }
  for (auto& p : out) {
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
  }
  return out;
}

bool LinkMatrix::same_media(size_t a, size_t b) const {
  return !cut_[a] && !cut_[b] && links_->host_media[a] == links_->host_media[b];
}

bool LinkMatrix::swappable(size_t a, size_t b, const Partners& partners) const {
  if (a == b) return true;
  if (cut_[a] && cut_[b]) return true;  // neither has a link to anyone
  if (at(a, b) != at(b, a)) return false;
  auto same_toward = [&](size_t k) {
    return k == a || k == b || (at(a, k) == at(b, k) && at(k, a) == at(k, b));
  };
  // Hosts on other media may still see the same links (a slower medium that no one else is on):
  // then only comparing every host tells.
  if (!same_media(a, b)) {
    for (size_t k = 0; k < size(); ++k)
      if (!same_toward(k)) return false;
    return true;
  }
  // On the same media, a host neither has a link of its own with sees the same best medium from
  // both (or none, when cut).
  for (const std::vector<uint32_t>* p : {&partners[a], &partners[b]})
    for (uint32_t k : *p)
      if (!same_toward(k)) return false;
  return true;
}

const LinkMatrix::Distinct& LinkMatrix::distinct_links(bool into) const {
  if (derived_->distinct[into]) return *derived_->distinct[into];
  const size_t n = size();
  const Links& l = *links_;
  // Hosts on the same media reach everyone else through the same media: one count per list.
  std::map<std::vector<size_t>, size_t> kinds;
  std::vector<size_t> kind_of(n, SIZE_MAX), members;
  size_t cut_hosts = 0;
  for (size_t h = 0; h < n; ++h) {
    if (cut_[h]) {
      ++cut_hosts;
      continue;
    }
    auto [it, added] = kinds.emplace(l.host_media[h], kinds.size());
    if (added) members.push_back(0);
    kind_of[h] = it->second;
    ++members[it->second];
  }
  std::vector<const std::vector<size_t>*> kind_media(kinds.size());
  for (const auto& [media, k] : kinds)
    kind_media[k] = &media;
  // The pairs with a link of their own, from each host (into it, with `into`).
  std::vector<std::vector<std::pair<size_t, size_t>>> own(n);
  for (const auto& [key, v] : l.own) {
    size_t a = key >> 32, b = key & 0xffffffffu;
    if (into) std::swap(a, b);
    own[a].push_back({b, v});
  }
  std::vector<std::vector<std::optional<LinkFigures>>> out(n);
  std::vector<size_t> others(kinds.size());
  for (size_t a = 0; a < n; ++a) {
    std::vector<size_t> values;
    if (cut_[a]) {
      if (n > 1) values.push_back(0);
    } else {
      if (cut_hosts > 0) values.push_back(0);
      others = members;
      --others[kind_of[a]];
      for (const auto& [b, v] : own[a])
        if (!cut_[b]) {
          --others[kind_of[b]];
          values.push_back(v);
        }
      for (size_t k = 0; k < others.size(); ++k) {
        if (others[k] == 0) continue;
        size_t v = 0;  // the best medium a shares with hosts of this kind (lists run best first)
        for (size_t m : l.host_media[a])
          if (std::find(kind_media[k]->begin(), kind_media[k]->end(), m) != kind_media[k]->end()) {
            v = l.media[m].value;
            break;
          }
        values.push_back(v);
      }
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    for (size_t v : values)  // values of different entries may be the same link
      if (std::find(out[a].begin(), out[a].end(), l.values[v]) == out[a].end())
        out[a].push_back(l.values[v]);
  }
  return derived_->distinct[into].emplace(std::move(out));
}

double LinkMatrix::least_latency() const {
  double least = std::numeric_limits<double>::infinity();
  for (const std::optional<LinkFigures>& v : links_->values)  // a superset of the links in use
    if (v) least = std::min(least, v->latency_s);
  return least;
}

size_t LinkMatrix::stored_links() const {
  size_t joined = 0;
  for (const auto& on : links_->host_media)
    joined += on.size();
  return joined + links_->own.size();
}

}  // namespace meshplan
