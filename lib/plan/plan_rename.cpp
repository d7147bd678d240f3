#include "lib/plan/plan_rename.hpp"

#include <cctype>

namespace meshplan {
namespace {

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

void rename(std::string& s, const HostRenames& to) {
  s = renamed(s, to);
}

void rename(std::vector<std::string>& v, const HostRenames& to) {
  for (std::string& s : v)
    rename(s, to);
}

void rename(RankPlan& r, const HostRenames& to) {
  rename(r.host, to);
  rename(r.tp_group, to);
  for (RankPlan::GpuStage& g : r.gpu_stages)
    rename(g.devices, to);
}

}  // namespace

std::string renamed(std::string_view text, const HostRenames& to) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (!name_char(text[i])) {
      out += text[i++];
      continue;
    }
    size_t j = i;
    while (j < text.size() && name_char(text[j]))
      ++j;
    std::string_view word = text.substr(i, j - i);
    // A sentence's full stop is not part of the name before it.
    size_t end = word.size();
    auto it = to.find(word);
    while (it == to.end() && end > 0 && word[end - 1] == '.') {
      --end;
      it = to.find(word.substr(0, end));
    }
    if (it != to.end()) {
      out += it->second;
      out += word.substr(end);
    } else {
      out += word;
    }
    i = j;
  }
  return out;
}

void rename_hosts(Plan& plan, const HostRenames& to) {
  for (RankPlan& r : plan.ranks)
    rename(r, to);
  rename(plan.predicted.bottleneck, to);
  if (plan.bound) rename(plan.bound->method, to);
  for (BaselineInfo& b : plan.baselines) {
    rename(b.hosts, to);
    rename(b.note, to);
  }
  rename(plan.solver.note, to);
  for (Alternative& a : plan.alternatives) {
    rename(a.hosts, to);
    rename(a.reason, to);
  }
  rename(plan.notes, to);
  for (HostInfo& h : plan.hosts) {
    rename(h.name, to);
    rename(h.left_out, to);
    rename(h.usable_rule, to);
  }
  for (ClusterPrint::HostPrint& h : plan.cluster.hosts)
    rename(h.name, to);
  for (ClusterPrint::LinkPrint& l : plan.cluster.links) {
    rename(l.a, to);
    rename(l.b, to);
  }
  if (plan.serving) {
    rename(plan.serving->bound_by, to);
    rename(plan.serving->bound_method, to);
  }
  for (ReplicaInfo& r : plan.replicas) {
    rename(r.hosts, to);
    for (RankPlan& rank : r.ranks)
      rename(rank, to);
  }
  for (ShapeInfo& s : plan.shapes) {
    rename(s.shape, to);
    rename(s.prefill_hosts, to);
    rename(s.decode_hosts, to);
  }
  if (plan.routing) {
    for (RoutedHostInfo& h : plan.routing->hosts) {
      rename(h.host, to);
      rename(h.table, to);
    }
    for (RoutedLinkInfo& l : plan.routing->links) {
      rename(l.from, to);
      rename(l.to, to);
    }
    rename(plan.routing->proof, to);
  }
  if (plan.frontier) {
    for (FrontierSeries& s : plan.frontier->series) {
      rename(s.shape, to);
      rename(s.hosts, to);
    }
    rename(plan.frontier->chosen_shape, to);
  }
  rename(plan.engine_reason, to);
}

}  // namespace meshplan
