#include "solvers/routed/routed_linked_stages.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <unordered_map>

#include "solvers/routed/routed_stages.hpp"

namespace meshplan {
namespace {

constexpr double kUnlimited = std::numeric_limits<double>::infinity();
constexpr int kHosts = kMostLinkedStageHosts;
// A max flow between two stages, in steps: about what trying that many stages costs.
constexpr int64_t kPushSteps = 4;
constexpr int kLongerBy = 3;

// One stage's hosts: up to kHosts groups, how many hosts of each, and the tokens/s reaching them.
struct LinkedStage {
  int n = 0;
  std::array<size_t, kHosts> group{};
  std::array<int, kHosts> count{};
  std::array<double, kHosts> cap{};   // the group's hosts in the stage together
  std::array<double, kHosts> flow{};  // what reaches them
};

struct LinkedPartial {
  double value = -1;  // tokens/s through the last stage; -1: an empty slot
  int prev_layer = -1;
  size_t prev_used = 0;
  int prev_slot = -1;
  int length = 0;
  size_t added = 0;  // the last stage's hosts, as a code of hosts used
  LinkedStage stage;
};
using LinkedSlots = std::array<LinkedPartial, kLinkedBeam>;  // best first

// The most tokens/s the hosts of `from` (each group giving what reached it) pass to those of `to`
// (each group taking at most its capacity) over the links between them; fills to.flow. The links
// of a pair of groups carry count x count x link: the hosts of a group are alike, so an even split
// among them reaches that.
double push_over_links(const LinkedStage& from, LinkedStage& to,
                       const std::vector<std::vector<double>>& link) {
  constexpr int N = 2 + 2 * kHosts;
  const int a = from.n, b = to.n, n = 2 + a + b, s = 0, t = n - 1;
  double c[N][N] = {};
  for (int x = 0; x < a; ++x) {
    c[s][1 + x] = from.flow[static_cast<size_t>(x)];
    for (int y = 0; y < b; ++y)
      c[1 + x][1 + a + y] =
          from.count[static_cast<size_t>(x)] * to.count[static_cast<size_t>(y)] *
          link[from.group[static_cast<size_t>(x)]][to.group[static_cast<size_t>(y)]];
  }
  for (int y = 0; y < b; ++y)
    c[1 + a + y][t] = to.cap[static_cast<size_t>(y)];
  double total = 0;
  for (;;) {
    int prev[N];
    std::fill(prev, prev + n, -1);
    prev[s] = s;
    int queue[N], head = 0, tail = 0;
    queue[tail++] = s;
    while (head < tail && prev[t] < 0) {
      const int u = queue[head++];
      for (int v = 0; v < n; ++v)
        if (prev[v] < 0 && c[u][v] > 1e-12) {
          prev[v] = u;
          queue[tail++] = v;
        }
    }
    if (prev[t] < 0) break;
    double f = kUnlimited;
    for (int v = t; v != s; v = prev[v])
      f = std::min(f, c[prev[v]][v]);
    for (int v = t; v != s; v = prev[v]) {
      c[prev[v]][v] -= f;
      c[v][prev[v]] += f;
    }
    total += f;
  }
  for (int y = 0; y < b; ++y)
    to.flow[static_cast<size_t>(y)] = to.cap[static_cast<size_t>(y)] - c[1 + a + y][t];
  return total;
}

class LinkedProgram {
 public:
  LinkedProgram(const RoutedInstance& in, const std::vector<std::vector<size_t>>& groups,
                double low, int64_t max_steps)
      : in_(in),
        groups_(groups),
        low_(low),
        L_(in.layers),
        G_(groups.size()),
        counts_(groups),
        max_steps_(max_steps) {
    link_.assign(G_, std::vector<double>(G_, 0));
    for (size_t g = 0; g < G_; ++g)
      for (size_t h = 0; h < G_; ++h)
        link_[g][h] = g != h                 ? in.link_at(groups[g][0], groups[h][0])
                      : groups[g].size() > 1 ? in.link_at(groups[g][0], groups[g][1])
                                             : 0;
    at_.resize(static_cast<size_t>(L_) + 1);
    // One host's capacity per group, start and length (up to its table's).
    for (size_t g = 0; g < G_; ++g) {
      const size_t longest =
          std::min<size_t>(in.hosts[groups[g][0]].table.size(), static_cast<size_t>(L_));
      longest_.push_back(longest);
      cap_.emplace_back(static_cast<size_t>(L_) * longest, 0.0);
      for (int l = 0; l < L_; ++l)
        for (size_t len = 1; len <= longest && l + static_cast<int>(len) <= L_; ++len)
          cap_[g][static_cast<size_t>(l) * longest + len - 1] =
              range_capacity(in, groups[g][0], {l, l + static_cast<int>(len)});
    }
  }

  // False when the budget ran out.
  bool run() {
    LinkedPartial start;
    start.value = kUnlimited;
    at_[0][0][0] = start;
    for (int l = 0; l < L_; ++l)
      for (const auto& [used, beam] : at_[static_cast<size_t>(l)])
        for (int len = 1; l + len <= L_; ++len) {
          candidates_.clear();
          for (size_t g = 0; g < G_; ++g) {
            const size_t left = groups_[g].size() - counts_.digit(used, g);
            const double cap = left > 0 ? capacity(g, l, len) : 0;
            if (cap > 0) candidates_.push_back({g, left, cap});
          }
          // The fastest first, so that a stage that cannot pass `low` is seen early.
          std::stable_sort(candidates_.begin(), candidates_.end(),
                           [](const Candidate& a, const Candidate& b) { return a.cap > b.cap; });
          LinkedStage to;
          if (!extend(l, len, used, beam, 0, to, 0, 0, 0)) return false;
        }
    return true;
  }

  int64_t steps() const { return steps_; }

  Chains best() const {
    Chains out;
    out.layout.assign(in_.hosts.size(), {});
    std::vector<std::pair<double, std::pair<size_t, int>>> ends;
    for (const auto& [used, beam] : at_[static_cast<size_t>(L_)])
      for (size_t k = 0; k < kLinkedBeam; ++k)
        if (beam[k].value > low_) ends.push_back({beam[k].value, {used, static_cast<int>(k)}});
    // The figure is a flow the layout carries; its max flow may carry more, so a few are measured.
    std::sort(ends.begin(), ends.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first > y.first : x.second < y.second;
    });
    for (size_t e = 0; e < std::min<size_t>(ends.size(), 8); ++e) {
      RoutedLayout layout(in_.hosts.size());
      std::vector<size_t> next(G_, 0);
      int l = L_, stages = 0;
      size_t used = ends[e].second.first;
      int slot = ends[e].second.second;
      while (l > 0) {
        const LinkedPartial& p = at_[static_cast<size_t>(l)].at(used)[static_cast<size_t>(slot)];
        for (int x = 0; x < p.stage.n; ++x) {
          const size_t g = p.stage.group[static_cast<size_t>(x)];
          for (int k = 0; k < p.stage.count[static_cast<size_t>(x)]; ++k)
            layout[groups_[g][next[g]++]] = {p.prev_layer, l};
        }
        l = p.prev_layer;
        used = p.prev_used;
        slot = p.prev_slot;
        ++stages;
      }
      const double f = routed_flow_total(in_, layout);
      if (f > out.tokens_per_s) {
        out.tokens_per_s = f;
        out.layout = std::move(layout);
        out.chains = stages;
      }
    }
    return out;
  }

 private:
  struct Candidate {
    size_t group, left;
    double cap;  // one host's, over the stage's range
  };

  double capacity(size_t g, int l, int len) const {
    const size_t k = static_cast<size_t>(len);
    return k <= longest_[g] ? cap_[g][static_cast<size_t>(l) * longest_[g] + k - 1] : 0;
  }

  // Every stage of up to kHosts hosts over [l, l + len) from candidates c on, after each partial of
  // `beam`; false when the budget ran out.
  bool extend(int l, int len, size_t used, const LinkedSlots& beam, size_t c, LinkedStage& to,
              size_t added, int hosts, double total) {
    if (c == candidates_.size()) return hosts == 0 || place(l, len, used, beam, to, added, total);
    if (!extend(l, len, used, beam, c + 1, to, added, hosts, total)) return false;
    const Candidate& cand = candidates_[c];
    // No stage from here on passes `low`: every host left at most as fast as this one.
    if (hosts == kHosts || total + (kHosts - hosts) * cand.cap <= low_ * kRoutedBetter) return true;
    const size_t x = static_cast<size_t>(to.n++);
    to.group[x] = cand.group;
    for (size_t m = 1; m <= cand.left && hosts + static_cast<int>(m) <= kHosts; ++m) {
      to.count[x] = static_cast<int>(m);
      to.cap[x] = static_cast<double>(m) * cand.cap;
      if (!extend(l, len, used, beam, c + 1, to, added + m * counts_.unit(cand.group),
                  hosts + static_cast<int>(m), total + to.cap[x]))
        return false;
    }
    --to.n;
    return true;
  }

  // The stage `to` after each partial of `beam`, kept where it is among the best.
  bool place(int l, int len, size_t used, const LinkedSlots& beam, LinkedStage to, size_t added,
             double total) {
    const double low = low_ * kRoutedBetter;
    if (total <= low) return true;
    // A stage whose hosts could hold kLongerBy more layers above `low` wastes them.
    if (l + len + kLongerBy <= L_) {
      double longer = 0;
      for (int x = 0; x < to.n; ++x)
        longer += to.count[static_cast<size_t>(x)] *
                  capacity(to.group[static_cast<size_t>(x)], l, len + kLongerBy);
      if (longer > low) return true;
    }
    std::unordered_map<size_t, LinkedSlots>& layer = at_[static_cast<size_t>(l + len)];
    auto found = layer.find(used + added);
    for (size_t slot = 0; slot < kLinkedBeam; ++slot) {
      const LinkedPartial& from = beam[slot];
      if (from.value <= low) break;  // the slots are best first
      if (++steps_ > max_steps_) return false;
      const double worst = found == layer.end() ? -1 : found->second[kLinkedBeam - 1].value;
      if (std::min(from.value, total) <= worst) continue;
      double value = total;
      if (l == 0) {
        std::copy(to.cap.begin(), to.cap.end(), to.flow.begin());
      } else {
        steps_ += kPushSteps;
        value = push_over_links(from.stage, to, link_);
      }
      if (value <= std::max(low, worst)) continue;
      if (found == layer.end()) found = layer.emplace(used + added, LinkedSlots{}).first;
      LinkedSlots& into = found->second;
      // The same last stage reached another way: only the better one is kept.
      size_t k = 0;
      while (k < kLinkedBeam &&
             !(into[k].value >= 0 && into[k].added == added && into[k].length == len))
        ++k;
      if (k == kLinkedBeam) k = kLinkedBeam - 1;
      if (value <= into[k].value) continue;
      into[k] = LinkedPartial{value, l, used, static_cast<int>(slot), len, added, to};
      for (; k > 0 && into[k].value > into[k - 1].value; --k)
        std::swap(into[k], into[k - 1]);
    }
    return true;
  }

  const RoutedInstance& in_;
  const std::vector<std::vector<size_t>>& groups_;
  const double low_;
  const int L_;
  const size_t G_;
  const GroupCounts counts_;
  const int64_t max_steps_;
  std::vector<std::vector<double>> link_;
  std::vector<std::unordered_map<size_t, LinkedSlots>> at_;  // per layer: by hosts used
  std::vector<Candidate> candidates_;
  std::vector<size_t> longest_;
  std::vector<std::vector<double>> cap_;  // per group: [start * longest + length - 1]
  int64_t steps_ = 0;
};

}  // namespace

Chains linked_stage_layout(const RoutedInstance& in, const std::vector<std::vector<size_t>>& groups,
                           double low, int64_t max_steps, int64_t* steps) {
  if (steps) *steps = 0;
  Chains none;
  none.layout.assign(in.hosts.size(), {});
  if (in.layers <= 0 || groups.empty()) return none;
  // Past kMostLinkedStates counts of hosts used the program would spend its budget and find
  // nothing.
  if (GroupCounts::how_many(groups) > kMostLinkedStates) return none;
  LinkedProgram program(in, groups, std::max(low, 0.0), max_steps);
  const bool finished = program.run();
  if (steps) *steps = program.steps();
  if (!finished) return none;
  return program.best();
}

}  // namespace meshplan
