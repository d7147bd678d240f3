#include "solvers/pipeline/sequence_arrivals.hpp"

#include <algorithm>

namespace meshplan {

std::optional<SequenceArrivals> SequenceArrivals::of(const SearchSpace& space,
                                                     const std::vector<size_t>& q) {
  if (q.size() < kShortest) return std::nullopt;
  const LinkMatrix& links = space.cost().links();
  SequenceArrivals a;
  a.space_ = &space;
  a.q_ = &q;
  a.L_ = space.num_layers();
  // Kinds of media membership, each by its first host; a cut host has no link at all.
  std::vector<size_t> firsts;
  a.media_.assign(q.size(), -1);
  std::vector<int> position(space.num_hosts(), -1);
  for (size_t j = 0; j < q.size(); ++j) {
    position[q[j]] = static_cast<int>(j);
    if (!links.same_media(q[j], q[j])) continue;  // cut
    for (size_t k = 0; k < firsts.size() && a.media_[j] < 0; ++k)
      if (links.same_media(firsts[k], q[j])) a.media_[j] = static_cast<int>(k);
    if (a.media_[j] < 0) {
      a.media_[j] = static_cast<int>(firsts.size());
      firsts.push_back(q[j]);
    }
  }
  const LinkMatrix::Partners& partners = links.own_partners();
  a.partners_.resize(q.size());
  for (size_t j = 0; j < q.size(); ++j) {
    for (uint32_t p : partners[q[j]])
      if (position[p] >= 0) a.partners_[j].push_back(static_cast<size_t>(position[p]));
    // Passing over the partners must leave an entry of each kind to read.
    if (a.partners_[j].size() >= kKept) return std::nullopt;
  }
  a.kept_.assign(firsts.size() * static_cast<size_t>(a.L_), {});
  return a;
}

void SequenceArrivals::add(size_t j, const double* row) {
  if (media_[j] < 0) return;
  const size_t base = static_cast<size_t>(media_[j]) * static_cast<size_t>(L_);
  for (int l = 1; l < L_; ++l) {
    const double v = row[l];
    if (!(v < kInfinity)) continue;
    std::vector<Entry>& kept = kept_[base + static_cast<size_t>(l)];
    if (kept.size() == kKept && !(v < kept.back().value)) continue;
    // After every entry of a value not above it: earlier positions stay first among equals.
    auto at = std::upper_bound(kept.begin(), kept.end(), v,
                               [](double x, const Entry& e) { return x < e.value; });
    kept.insert(at, Entry{v, static_cast<int>(j)});
    if (kept.size() > kKept) kept.pop_back();
  }
}

}  // namespace meshplan
