#include "solvers/problem/throughput_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/host_reader.hpp"
#include "lib/core/document.hpp"
#include "lib/core/error.hpp"
#include "lib/core/nearest_names.hpp"
#include "lib/core/units.hpp"
#include "lib/models/step_reads.hpp"
#include "solvers/problem/planning_problem.hpp"

namespace meshplan {
namespace {

// One table: `tokens_per_s: [..]`, 1 to kMaxProfileLayers positive finite numbers.
std::vector<double> read_table(const DocNode& entry) {
  entry.require_object();
  entry.check_keys({"tokens_per_s"});
  const DocNode& list = entry.at("tokens_per_s").require_array();
  if (list.items().empty())
    list.fail("expected the tokens/s for k = 1, 2, ... layers, at least one (e.g. [2485.5, 1145])");
  if (list.items().size() > kMaxProfileLayers)
    list.fail(fmt::format("expected at most {} entries (one per layer held), got {}",
                          kMaxProfileLayers, list.items().size()));
  std::vector<double> out;
  out.reserve(list.items().size());
  for (const DocNode& v : list.items()) {
    double x = v.as_number();
    if (!(x > 0)) v.fail(fmt::format("expected tokens/s above 0, got {}", v.text()));
    out.push_back(x);
  }
  return out;
}

// Host names and chip keys as the cluster file allows them, so that every written profile reads
// back (and a name no cluster can have is caught here).
void read_tables(const DocNode& node, std::map<std::string, std::vector<double>>& into) {
  node.require_object();
  for (const auto& [name, entry] : node.fields()) {
    if (!valid_host_name(name))
      entry.fail(
          "expected a host name or chip key as the key: letters, digits, '.', '_' and '-', "
          "not starting with '-'");
    into[name] = read_table(entry);
  }
}

// What a model name or folder can be written as: text the JSON writer takes (valid UTF-8), with no
// control characters.
bool writable_text(const std::string& s) {
  if (std::any_of(s.begin(), s.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    return false;
  try {
    (void)nlohmann::json(s).dump();
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  return true;
}

// A key or string scalar that YAML reads back as the same string: plain when it looks like a
// name, else double-quoted with JSON escapes (a subset of YAML's).
std::string yaml_string(const std::string& s) {
  bool plain = !s.empty() && std::isalpha(static_cast<unsigned char>(s[0])) &&
               std::all_of(s.begin(), s.end(), [](char c) {
                 return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                        c == '.' || c == '/';
               });
  static const char* const kWords[] = {"true", "false", "null", "yes", "no", "on", "off", "y", "n"};
  for (const char* w : kWords)
    if (plain && std::equal(s.begin(), s.end(), w, w + std::char_traits<char>::length(w),
                            [](char a, char b) { return std::tolower(a) == b; }))
      plain = false;
  return plain ? s : nlohmann::json(s).dump();
}

// Six significant digits: measured figures carry no more, and the files stay readable.
std::string number(double v) {
  return fmt::format("{:.6g}", v);
}

std::string number_list(const std::vector<double>& t) {
  std::string out = "[";
  for (size_t i = 0; i < t.size(); ++i)
    out += (i ? ", " : "") + number(t[i]);
  return out + "]";
}

// Averages over the model's layers: what one "average layer" costs.
struct AverageLayer {
  double weight = 0, read = 0, flops = 0, kv = 0;  // kv: one stream at the context
  double moe = 0;                                  // the share of mixture-of-experts layers
};

// `read` is a step's of `streams` streams (a mixture of experts reads the union of their experts).
AverageLayer average_layer(const ModelDesc& model, int64_t context, int streams) {
  AverageLayer a;
  const double n = model.num_layers();
  for (const LayerInfo& l : model.layers) {
    a.weight += static_cast<double>(l.weight_bytes) / n;
    a.read += step_read_bytes(l, streams) / n;
    a.flops += l.flops / n;
    a.kv += l.kv_bytes(context) / n;
    if (l.moe) a.moe += 1 / n;
  }
  return a;
}

// The catalog key a chips: entry of a profile matches: the host's chip, or the GPU of a host with
// one GPU. A host with several GPUs is one stage over all of them, so a table measured on one GPU
// does not describe it; it takes a hosts: entry.
std::string chip_key(const Host& host) {
  if (host.gpus.size() > 1) return "";
  if (!host.chip.empty()) return host.chip;
  return host.gpus.empty() ? "" : host.gpus.front().chip;
}

std::vector<std::string> host_names(const Cluster& cluster) {
  std::vector<std::string> out;
  for (const Host& h : cluster.hosts)
    out.push_back(h.name);
  return out;
}

}  // namespace

ThroughputProfile parse_throughput_profile(std::string_view text, const std::string& where) {
  DocNode root = parse_document(text, where);
  root.require_object();
  if (const DocNode* old = root.find("concurrency"))
    old->fail(
        "\"concurrency\" is gone from profiles: give streams_per_host, the streams each host "
        "decoded together when its table was measured");
  root.check_keys({"schema", "model", "streams_per_host", "hosts", "chips"});
  if (const DocNode* s = root.find("schema"); s && s->as_string() != kProfileSchema)
    s->fail(fmt::format("expected \"{}\"", kProfileSchema));
  ThroughputProfile p;
  const DocNode& model = root.at("model");
  p.model = model.as_string();
  if (p.model.empty() || !writable_text(p.model))
    model.fail("expected the model the figures were measured with (a name or folder)");
  if (const DocNode* c = root.find("streams_per_host")) {
    int64_t v = c->as_int();
    if (v < 1 || v > 4096)
      c->fail("expected the streams each host decoded together for its table, 1 to 4096");
    p.streams_per_host = static_cast<int>(v);
  }
  if (const DocNode* h = root.find("hosts")) read_tables(*h, p.hosts);
  if (const DocNode* c = root.find("chips")) read_tables(*c, p.chips);
  if (p.hosts.empty() && p.chips.empty())
    root.fail("expected at least one table under hosts: (by host name) or chips: (by chip key)");
  return p;
}

std::string write_throughput_profile(const ThroughputProfile& profile, bool json) {
  std::string out;
  if (json) {
    // By hand rather than through nlohmann's dump: one line per table keeps long tables readable.
    auto q = [](const std::string& s) { return nlohmann::json(s).dump(); };
    out +=
        fmt::format("{{\n  \"schema\": {},\n  \"model\": {}", q(kProfileSchema), q(profile.model));
    if (profile.streams_per_host > 0)
      out += fmt::format(",\n  \"streams_per_host\": {}", profile.streams_per_host);
    for (const auto& [key, tables] :
         {std::pair{"hosts", &profile.hosts}, {"chips", &profile.chips}}) {
      if (tables->empty()) continue;
      out += fmt::format(",\n  \"{}\": {{", key);
      bool first = true;
      for (const auto& [name, t] : *tables) {
        out += fmt::format("{}\n    {}: {{\"tokens_per_s\": {}}}", first ? "" : ",", q(name),
                           number_list(t));
        first = false;
      }
      out += "\n  }";
    }
    return out + "\n}\n";
  }
  out +=
      fmt::format("# {}: aggregate decode tokens/s per host while holding k = 1, 2, ... layers\n",
                  kProfileSchema);
  out += fmt::format("model: {}\n", yaml_string(profile.model));
  if (profile.streams_per_host > 0)
    out += fmt::format("streams_per_host: {}\n", profile.streams_per_host);
  for (const auto& [key, tables] :
       {std::pair{"hosts", &profile.hosts}, {"chips", &profile.chips}}) {
    if (tables->empty()) continue;
    out += fmt::format("{}:\n", key);
    for (const auto& [name, t] : *tables)
      out += fmt::format("  {}:\n    tokens_per_s: {}\n", yaml_string(name), number_list(t));
  }
  return out;
}

std::vector<double> cost_model_table(const HostFigures& host, const ModelDesc& model,
                                     int64_t context, int streams) {
  std::vector<double> out;
  if (model.num_layers() == 0 || !(host.flops > 0) || !(host.bandwidth > 0)) return out;
  const double n = std::max(1, streams);
  const AverageLayer a = average_layer(model, context, static_cast<int>(n));
  // The same memory rule as every plan: weights once, KV for every stream.
  const double per_layer = a.weight + n * a.kv;
  double fit = per_layer > 0 ? std::floor(host.usable_bytes / per_layer) : model.num_layers();
  const int most = static_cast<int>(std::clamp(fit, 0.0, static_cast<double>(model.num_layers())));
  out.reserve(static_cast<size_t>(most));
  for (int k = 1; k <= most; ++k) {
    // As solvers/batched_decode.cpp charges a rank: FLOPs for every stream, weights read once
    // per step (the streams' experts once each) and every stream's KV, plus the per-stage
    // overhead.
    double step =
        std::max(n * k * a.flops / host.flops, (k * a.read + n * k * a.kv) / host.bandwidth) +
        k * layer_extra_s(host, model.hidden_size, n, a.moe) + host.overhead_s;
    out.push_back(n / step);
  }
  return out;
}

double head_seconds_per_token(const HostFigures& host, const ModelDesc& model, int streams) {
  const double n = std::max(1, streams);
  const double step = std::max(n * model.head_flops() / host.flops,
                               static_cast<double>(model.head_read_bytes()) / host.bandwidth);
  return step / n;
}

std::vector<HostTable> host_tables(const Cluster& cluster, const std::vector<HostFigures>& hosts,
                                   const ModelDesc& model, const std::string& model_id,
                                   int64_t context, int streams,
                                   const std::optional<ThroughputProfile>& profile,
                                   const std::string& profile_where) {
  if (profile) {
    if (profile->model != model_id && profile->model != model.name)
      throw input_error(
          "{}: the profile was measured with model \"{}\", but the plan is for \"{}\"; measure "
          "this model (or write its cost-model tables with `meshplan profile`)",
          profile_where, profile->model, model_id);
    for (const auto& [name, table] : profile->hosts)
      if (cluster.host_index(name) < 0)
        throw input_error("{} (/hosts/{}): host \"{}\" is not in the cluster{}", profile_where,
                          name, name, did_you_mean(name, host_names(cluster)));
    // A chip key is the catalog's, or one a host of this cluster names (a host may give its own
    // figures under a chip the catalog does not know).
    const Catalog& catalog = Catalog::builtin();
    for (const auto& [key, table] : profile->chips) {
      bool known = catalog.find_chip(key) != nullptr;
      for (const Host& h : cluster.hosts)
        known = known || chip_key(h) == key;
      if (!known)
        throw input_error(
            "{} (/chips/{}): \"{}\" is not a chip of the catalog{} (see `meshplan chips`)",
            profile_where, key, key, catalog.suggest_chip(key));
    }
  }
  std::vector<HostTable> out;
  out.reserve(hosts.size());
  for (const HostFigures& f : hosts) {
    HostTable t;
    const Host* host = cluster.find_host(f.name);
    if (profile) {
      if (auto it = profile->hosts.find(f.name); it != profile->hosts.end()) {
        t.tokens_per_s = it->second;
        t.source = "profile host " + f.name;
      } else if (std::string key = host ? chip_key(*host) : "";
                 !key.empty() && profile->chips.count(key)) {
        t.tokens_per_s = profile->chips.at(key);
        t.source = "profile chip " + key;
      }
    }
    if (t.source.empty()) {
      t.tokens_per_s = cost_model_table(f, model, context, streams);
      t.source = "cost model";
    }
    out.push_back(std::move(t));
  }
  return out;
}

CostModelProfile cost_model_profile(const Cluster& cluster, const Catalog& catalog,
                                    const ModelDesc& model, const std::string& model_id,
                                    const std::vector<std::string>& hosts, int64_t context,
                                    int streams) {
  PlanRequest request;
  request.hosts = hosts;
  CostModelProfile out;
  out.profile.model = model_id;
  out.profile.streams_per_host = std::max(1, streams);
  const std::vector<size_t> candidates = candidate_hosts(cluster, request);
  if (candidates.empty()) throw input_error("the cluster has no hosts");
  const AverageLayer a = average_layer(model, context, out.profile.streams_per_host);
  for (size_t i : candidates) {
    const Host& host = cluster.hosts[i];
    HostFigures f = host_figures(host, catalog);
    std::vector<double> table = cost_model_table(f, model, context, streams);
    if (table.empty()) {
      out.left_out.push_back(fmt::format(
          "{}: left out, it cannot hold one layer of {} ({} of weights and KV for {} stream{} at "
          "context {}; usable {})",
          host.name, model_id, format_gib(a.weight + out.profile.streams_per_host * a.kv),
          out.profile.streams_per_host, out.profile.streams_per_host == 1 ? "" : "s", context,
          format_gib(f.usable_bytes)));
      continue;
    }
    out.profile.hosts[host.name] = std::move(table);
  }
  return out;
}

}  // namespace meshplan
