#include "lib/plan/plan_rank_json.hpp"

#include <cmath>

namespace meshplan {
namespace {

ojson gpu_stages_json(const std::vector<RankPlan::GpuStage>& gpu_stages) {
  ojson stages = ojson::array();
  for (const auto& g : gpu_stages) {
    ojson s;
    s["devices"] = g.devices;
    s["layers"] = ojson::array({g.layer_start, g.layer_end});
    s["bytes_per_gpu"] = json_number(std::round(g.bytes_per_gpu));
    s["usable_per_gpu"] = json_number(std::round(g.usable_per_gpu));
    stages.push_back(s);
  }
  return stages;
}

}  // namespace

ojson hop_json(const HopInfo& h) {
  ojson j;
  j["kind"] = h.kind;
  j["latency_us"] = json_number(std::round(h.latency_s * 1e9) / 1e3);
  j["bandwidth_bytes_per_s"] = json_number(h.bandwidth);
  j["ms"] = json_ms(h.time_s);
  return j;
}

ojson rank_json(const RankPlan& r) {
  ojson x;
  x["rank"] = r.rank;
  x["host"] = r.host;
  x["layers"] = ojson::array({r.layer_start, r.layer_end});
  if (r.share) x["share"] = json_number(*r.share);
  if (!r.tp_group.empty()) x["tp_group"] = r.tp_group;
  if (!r.experts.empty()) x["experts"] = r.experts;
  x["holds_head"] = r.holds_head;
  if (r.wired_limit_mb > 0) x["wired_limit_mb"] = r.wired_limit_mb;
  x["weight_bytes"] = json_number(std::round(r.weight_bytes));
  x["kv_bytes"] = json_number(std::round(r.kv_bytes));
  x["total_bytes"] = json_number(std::round(r.total_bytes));
  x["usable_bytes"] = json_number(std::round(r.usable_bytes));
  x["bandwidth_bytes_per_s"] = json_number(r.bandwidth);
  x["flops_per_s"] = json_number(r.flops);
  x["stage_ms"] = json_ms(r.stage_s);
  x["hop_to_next"] = r.hop_to_next ? hop_json(*r.hop_to_next) : ojson(nullptr);
  if (!r.gpu_stages.empty()) {
    x["tp"] = r.tp;
    x["gpu_stages"] = gpu_stages_json(r.gpu_stages);
  }
  return x;
}

}  // namespace meshplan
