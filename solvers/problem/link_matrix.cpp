#include "solvers/problem/link_matrix.hpp"

#include <algorithm>

#include "lib/core/error.hpp"

namespace meshplan {
namespace {

const std::optional<LinkFigures> kNoLink;

}  // namespace

LinkMatrix::LinkMatrix(size_t hosts) : host_media_(hosts), cut_(hosts, false) {
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
  if (!dense_.empty()) return values_[dense_[a * size() + b]];
  return values_[compute(a, b)];
}

size_t LinkMatrix::compute(size_t a, size_t b) const {
  if (a == b || cut_[a] || cut_[b]) return 0;
  if (!own_.empty())
    if (auto it = own_.find(key(a, b)); it != own_.end()) return it->second;
  return best_medium(a, b);
}

size_t LinkMatrix::best_medium(size_t a, size_t b) const {
  const std::vector<size_t>& on_b = host_media_[b];
  for (size_t m : host_media_[a])  // best first
    if (std::find(on_b.begin(), on_b.end(), m) != on_b.end()) return media_[m].value;
  return 0;
}

size_t LinkMatrix::value(const std::optional<LinkFigures>& link) {
  if (!link) return 0;
  values_.push_back(link);
  return values_.size() - 1;
}

size_t LinkMatrix::add_medium(const LinkFigures& figures, double rank) {
  media_.push_back({value(figures), rank});
  return media_.size() - 1;
}

void LinkMatrix::join(size_t host, size_t medium) {
  std::vector<size_t>& on = host_media_.at(host);
  if (std::find(on.begin(), on.end(), medium) != on.end()) return;
  // Kept best first: by rank, then the medium added first.
  auto at = std::upper_bound(on.begin(), on.end(), medium, [&](size_t x, size_t y) {
    return media_[x].rank < media_[y].rank || (media_[x].rank == media_[y].rank && x < y);
  });
  on.insert(at, medium);
  refresh(host);
}

void LinkMatrix::set(size_t a, size_t b, const std::optional<LinkFigures>& link) {
  if (a >= size() || b >= size() || a == b) throw internal_error("link matrix pair out of range");
  own_[key(a, b)] = value(link);
  if (!dense_.empty()) dense_[a * size() + b] = static_cast<uint32_t>(compute(a, b));
}

void LinkMatrix::cut(size_t host) {
  cut_.at(host) = true;
  refresh(host);
}

void LinkMatrix::add_latency(double s) {
  for (std::optional<LinkFigures>& v : values_)
    if (v) {
      v->latency_s += s;
      v->tcp_latency_s += s;
    }
  for (Medium& m : media_)
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
  LinkMatrix out;
  const size_t n = members.size();
  out.host_media_.resize(n);
  out.cut_.assign(n, false);
  out.values_ = values_;
  out.media_ = media_;
  std::vector<size_t> index(size(), SIZE_MAX);
  for (size_t k = 0; k < n; ++k) {
    const size_t h = members.at(k);
    index.at(h) = k;
    out.host_media_[k] = host_media_[h];
    out.cut_[k] = cut_[h];
  }
  for (const auto& [k, v] : own_) {
    const size_t a = index[k >> 32], b = index[k & 0xffffffffu];
    if (a != SIZE_MAX && b != SIZE_MAX) out.own_[key(a, b)] = v;
  }
  if (n <= kDenseHosts) {
    out.dense_.assign(n * n, 0);
    out.fill_dense();
  }
  return out;
}

size_t LinkMatrix::stored_links() const {
  size_t joined = 0;
  for (const auto& on : host_media_)
    joined += on.size();
  return joined + own_.size();
}

}  // namespace meshplan
