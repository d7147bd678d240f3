// Throughput profiles (`plan --profile FILE`, `meshplan profile`): for each host, the aggregate
// tokens/s it sustains (all its concurrent streams together) while holding k = 1, 2, ... layers,
// not counting the embedding and LM head. The list's length is the most layers the host can hold.
// Measured tables may rise or fall with k; nothing here assumes either. Hosts without a table use
// the cost model's own (cost_model_table), which `meshplan profile` writes in the same format.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/cluster/cluster.hpp"
#include "lib/cluster/host_figures.hpp"
#include "lib/models/model.hpp"

namespace meshplan {

inline constexpr const char* kProfileSchema = "meshplan.profile/1";

struct ThroughputProfile {
  std::string model;         // the model id or folder the figures were measured with
  int streams_per_host = 0;  // streams each host decoded together for its table; 0 = not stated
  std::map<std::string, std::vector<double>> hosts;  // by host name
  std::map<std::string, std::vector<double>> chips;  // by catalog chip / GPU key
};

// Reads a profile (YAML or JSON; JSON is YAML). `where` names the file in errors, which are input
// errors naming the key and the expected form: a missing `model`, a table that is empty, longer
// than kMaxProfileLayers, or holds a value that is not a positive finite number.
ThroughputProfile parse_throughput_profile(std::string_view text, const std::string& where);
inline constexpr size_t kMaxProfileLayers = 4096;

// YAML (or JSON when `json`), in the documented format, read back by parse_throughput_profile.
std::string write_throughput_profile(const ThroughputProfile& profile, bool json);

// The cost model's table for one host: entry k-1 is the aggregate tokens/s of `streams` streams
// decoded together while the host holds k average layers of `model` (each step reads the k layers'
// weights once and every stream's KV at `context`; FLOPs scale with the streams), plus the host's
// per-stage overhead once per step. Its length is the most layers whose weights and KV for the
// streams fit in the host's usable memory (at most the model's layer count; empty when not one).
std::vector<double> cost_model_table(const HostFigures& host, const ModelDesc& model,
                                     int64_t context, int streams);

// Seconds per token the LM head adds on a host serving `streams` streams (charged to the host that
// holds the last layer), and the bytes the embedding and head take besides the layers.
double head_seconds_per_token(const HostFigures& host, const ModelDesc& model, int streams);

// Where a candidate's table comes from: the profile's entry for its name, else for its chip, else
// the cost model.
struct HostTable {
  std::vector<double> tokens_per_s;
  std::string source;  // "profile host studio-1", "profile chip m3-ultra-80c", "cost model"
};

// Tables for `hosts` (with their figures, same order). Errors (input, exit 2): the profile names
// another model than `model_id` (the name the user gave with -m, or the model's catalog name), or
// a host that is not in the cluster.
std::vector<HostTable> host_tables(const Cluster& cluster, const std::vector<HostFigures>& hosts,
                                   const ModelDesc& model, const std::string& model_id,
                                   int64_t context, int streams,
                                   const std::optional<ThroughputProfile>& profile,
                                   const std::string& profile_where);

// `meshplan profile`: the cost model's table for each of `hosts` (every host of the cluster when
// empty; unknown names are input errors), as a profile for `model_id` at `streams` streams. Hosts
// that cannot hold one layer are not in the profile; `left_out` says why, one line each.
struct CostModelProfile {
  ThroughputProfile profile;
  std::vector<std::string> left_out;
};
CostModelProfile cost_model_profile(const Cluster& cluster, const Catalog& catalog,
                                    const ModelDesc& model, const std::string& model_id,
                                    const std::vector<std::string>& hosts, int64_t context,
                                    int streams);

}  // namespace meshplan
