#include "topologies/check_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lib/cluster/link_kind.hpp"
#include "lib/cluster/mlx_backend.hpp"
#include "lib/core/text_table.hpp"

namespace meshplan {
namespace {

std::string plug_text(const CablePlug& p) {
  if (p.port.empty()) return p.host;
  if (p.interface.empty()) return fmt::format("{} port {}", p.host, p.port);
  return fmt::format("{} port {} ({})", p.host, p.port, p.interface);
}

std::string_view kind_text(const std::string& kind) {
  const auto k = find_link_kind(kind);
  return k && is_thunderbolt(*k) ? display_name(*k) : "Thunderbolt";
}

ojson plug_json(const CablePlug& p) {
  ojson j;
  j["host"] = p.host;
  j["port"] = p.port.empty() ? ojson(nullptr) : ojson(p.port);
  j["interface"] = p.interface.empty() ? ojson(nullptr) : ojson(p.interface);
  return j;
}

ojson issue_json(const CheckIssue& i) {
  ojson j;
  j["code"] = i.code;
  j["severity"] = severity_name(i.severity);
  j["backend"] = i.backend.empty() ? ojson(nullptr) : ojson(i.backend);
  j["hosts"] = i.hosts;
  j["message"] = i.message;
  j["fix"] = i.fix.empty() ? ojson(nullptr) : ojson(i.fix);
  ojson cables = ojson::array();
  for (const auto& c : i.add_cables) {
    ojson x;
    x["a"] = plug_json(c.a);
    x["b"] = plug_json(c.b);
    x["kind"] = c.kind;
    cables.push_back(x);
  }
  j["add_cables"] = cables;
  return j;
}

ojson issues_json(const std::vector<CheckIssue>& issues) {
  ojson a = ojson::array();
  for (const auto& i : issues)
    a.push_back(issue_json(i));
  return a;
}

size_t count(const std::vector<CheckIssue>& issues, Severity s) {
  size_t n = 0;
  for (const auto& i : issues)
    n += i.severity == s;
  return n;
}

std::string plural(size_t n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string status_text(const BackendVerdict& v) {
  if (v.valid) return "valid";
  return fmt::format("not valid ({})", plural(count(v.issues, Severity::kError), "error"));
}

std::string ranks_text(const BackendVerdict& v) {
  if (!v.valid) return "";
  bool ring =
      is_backend(v.backend, MlxBackend::kRing) || is_backend(v.backend, MlxBackend::kJacclRing);
  std::string out;
  for (const auto& r : v.ranks)
    out += (out.empty() ? "" : (ring ? " > " : ", ")) + r;
  if (ring && v.transport != "network")
    out += fmt::format(" ({} per hop)", plural(static_cast<size_t>(v.cables_per_hop), "cable"));
  if (v.transport == "network") out += " (over the network)";
  return out;
}

void append_issues(std::string& out, const std::vector<CheckIssue>& issues) {
  for (const auto& i : issues)
    out += render_issue(i);
}

ojson engine_json(const EngineVerdict& e) {
  ojson j;
  j["engine"] = e.engine;
  j["network"] = e.network.empty() ? ojson(nullptr) : ojson(e.network);
  j["transport"] = e.transport;
  j["ok"] = !e.has_errors();
  ojson hosts = ojson::array();
  for (const EngineHostPath& h : e.hosts) {
    ojson x;
    x["host"] = h.host;
    x["interface"] = h.interface.empty() ? ojson(nullptr) : ojson(h.interface);
    x["address"] = h.address.empty() ? ojson(nullptr) : ojson(h.address);
    x["hcas"] = h.hcas;
    x["gpus"] = h.gpus;
    x["gpu_part"] = h.gpu_part.empty() ? ojson(nullptr) : ojson(h.gpu_part);
    hosts.push_back(x);
  }
  j["hosts"] = hosts;
  j["issues"] = issues_json(e.issues);
  return j;
}

// The engine's section: the network, each node's path, the problems.
std::string render_engine(const EngineVerdict& e) {
  std::string out = fmt::format("{}'s launch: ", e.title.empty() ? e.engine : e.title);
  out += e.network.empty() ? "no data network joins every node\n"
                           : fmt::format("data over {}, NCCL over {}\n", e.network,
                                         e.transport == "ib" ? "its IB transport (RDMA)"
                                                             : "sockets (no RDMA device)");
  TextTable table({"host", "interface", "address", "NCCL_IB_HCA", "GPUs"});
  for (const EngineHostPath& h : e.hosts)
    table.add_row(
        {h.host, h.interface.empty() ? "-" : h.interface, h.address.empty() ? "-" : h.address,
         h.hcas.empty() ? "-" : fmt::format("{}", fmt::join(h.hcas, ",")),
         h.gpus == 0 ? "-"
                     : fmt::format("{} x {}", h.gpus, h.gpu_part.empty() ? "?" : h.gpu_part)});
  out += table.render();
  if (!e.issues.empty()) {
    out += "\n";
    append_issues(out, e.issues);
  }
  return out;
}

std::string render_engine_only(const CheckReport& r) {
  std::string out;
  if (r.engine) out += render_engine(*r.engine);
  if (!r.general.empty()) {
    out += "\nall engines:\n";
    append_issues(out, r.general);
  }
  out += "\n";
  if (!r.engine)
    out += "FAILED: no engine was checked.\n";
  else if (!r.ok())
    out += fmt::format("FAILED: {}'s launch would not start on this cluster as it is.\n",
                       r.engine->title.empty() ? r.engine->engine : r.engine->title);
  else
    out += fmt::format(
        "OK: {}'s launch has a data network to every node (MLX's backends not checked: no Mac; "
        "--backend NAME checks one).\n",
        r.engine->title.empty() ? r.engine->engine : r.engine->title);
  return out;
}

}  // namespace

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

std::string CableToAdd::describe() const {
  std::string out =
      fmt::format("connect {} to {} with a {} cable", plug_text(a), plug_text(b), kind_text(kind));
  std::vector<std::string> full;
  for (const CablePlug* p : {&a, &b})
    if (p->port.empty()) full.push_back(p->host);
  if (!full.empty()) {
    out += fmt::format(" ({} no free {} port: unplug a cable that is not needed)",
                       full.size() == 1 ? full[0] + " has" : full[0] + " and " + full[1] + " have",
                       kind == name(LinkKind::kTb5) ? display_name(LinkKind::kTb5) : "Thunderbolt");
  }
  return out;
}

bool BackendVerdict::has_errors() const {
  return count(issues, Severity::kError) > 0;
}

bool HostfileVerdict::valid() const {
  return count(issues, Severity::kError) == 0;
}

const BackendVerdict* CheckReport::find(std::string_view backend) const {
  for (const auto& b : backends)
    if (b.backend == backend) return &b;
  return nullptr;
}

bool EngineVerdict::has_errors() const {
  return count(issues, Severity::kError) > 0;
}

bool CheckReport::ok() const {
  if (engine && engine->has_errors()) return false;
  if (hostfile && !hostfile->valid()) return false;
  if (!mlx_checked) return engine.has_value();
  const BackendVerdict* v = chosen.empty() ? nullptr : find(chosen);
  return v && v->valid;
}

std::string render_issue(const CheckIssue& i) {
  std::string out = fmt::format("  {}: {}\n", severity_name(i.severity), i.message);
  if (!i.fix.empty()) out += fmt::format("    fix: {}\n", i.fix);
  return out;
}

ojson check_report_json(const CheckReport& r) {
  ojson j;
  j["schema"] = kCheckSchema;
  j["cluster"] = r.cluster;
  j["hosts"] = r.hosts;
  j["thunderbolt_cables"] = r.thunderbolt_cables;
  j["network_cables"] = r.network_cables;
  j["rdma_cables"] = r.rdma_cables;
  j["networks"] = r.networks;
  j["requested"] = r.requested;
  // Without Macs the backends were checked only to lay the engine's launch out: not reported.
  j["backend"] = r.chosen.empty() || !r.mlx_checked ? ojson(nullptr) : ojson(r.chosen);
  j["ok"] = r.ok();
  ojson backends = ojson::array();
  for (const auto& b : r.backends) {
    if (!r.mlx_checked) break;
    ojson x;
    x["backend"] = b.backend;
    x["valid"] = b.valid;
    x["transport"] = b.transport.empty() ? ojson(nullptr) : ojson(b.transport);
    x["ranks"] = b.ranks;
    x["cables_per_hop"] = b.cables_per_hop;
    x["issues"] = issues_json(b.issues);
    backends.push_back(x);
  }
  j["backends"] = backends;
  j["issues"] = issues_json(r.general);
  ojson links = ojson::array();
  for (const auto& l : r.links) {
    ojson x;
    x["a"] = l.a;
    x["b"] = l.b;
    x["kind"] = l.kind;
    x["cables"] = l.cables;
    x["latency_us"] = json_number(l.latency_s * 1e6);
    x["bandwidth_bytes_per_s"] = json_number(l.bandwidth);
    links.push_back(x);
  }
  j["links"] = links;
  j["links_complete"] = r.links_complete;
  ojson subnets = ojson::array();
  for (const auto& s : r.subnets) {
    ojson x;
    x["subnet"] = s.subnet;
    x["a"] = plug_json(s.a);
    x["a"]["address"] = s.a_address;
    x["b"] = plug_json(s.b);
    x["b"]["address"] = s.b_address;
    subnets.push_back(x);
  }
  j["subnets"] = subnets;
  j["mlx_backends_checked"] = r.mlx_checked;
  j["engine"] = r.engine ? engine_json(*r.engine) : ojson(nullptr);
  if (r.hostfile) {
    ojson h;
    h["path"] = r.hostfile->path;
    h["backend"] = r.hostfile->backend;
    h["valid"] = r.hostfile->valid();
    h["ranks"] = r.hostfile->ranks;
    h["issues"] = issues_json(r.hostfile->issues);
    j["hostfile"] = h;
  } else {
    j["hostfile"] = nullptr;
  }
  return j;
}

std::string render_check_report(const CheckReport& r) {
  std::string out = fmt::format(
      "Cluster{}: {}, {} ({} with RDMA), {}{}.\n\n", r.cluster.empty() ? "" : " " + r.cluster,
      plural(r.hosts, "host"), plural(r.thunderbolt_cables, "Thunderbolt cable"), r.rdma_cables,
      r.network_cables ? plural(r.network_cables, "direct network cable") + ", " : "",
      plural(r.networks, "network"));
  if (!r.mlx_checked) return out + render_engine_only(r);
  TextTable table({"backend", "status", "ranks"});
  for (const auto& b : r.backends)
    table.add_row({b.backend, status_text(b), ranks_text(b)});
  out += table.render();
  const bool all = is_backend(r.requested, MlxBackend::kAuto);
  bool any_listed = false;
  for (const auto& b : r.backends) {
    if (b.issues.empty() || (!all && b.backend != r.requested)) continue;
    out += fmt::format("\n{}:\n", b.backend);
    append_issues(out, b.issues);
    any_listed = true;
  }
  if (!r.general.empty()) {
    out += "\nall backends:\n";
    append_issues(out, r.general);
    any_listed = true;
  }
  if (r.hostfile) {
    const HostfileVerdict& h = *r.hostfile;
    out += fmt::format("\nhostfile {} (backend {}, {}):\n", h.path,
                       h.backend.empty() ? "\"\"" : h.backend, plural(h.ranks.size(), "rank"));
    if (h.issues.empty()) out += "  every pair the backend uses has a working link\n";
    append_issues(out, h.issues);
  }
  (void)any_listed;
  out += "\n";
  // mlx.distributed_config's words when no Thunderbolt backend works.
  const BackendVerdict *mesh = r.find(name(MlxBackend::kJaccl)),
                       *rdma_ring = r.find(name(MlxBackend::kJacclRing)),
                       *ring = r.find(name(MlxBackend::kRing));
  bool no_thunderbolt = all && mesh && !mesh->valid && rdma_ring && !rdma_ring->valid && ring &&
                        (!ring->valid || ring->transport == "network");
  if (no_thunderbolt && r.thunderbolt_cables > 0)
    out += "Neither thunderbolt mesh nor ring found.\n";
  if (r.chosen.empty()) {
    out += all ? "FAILED: no backend is valid for this cabling.\n"
               : fmt::format("FAILED: {} is not valid for this cabling.\n", r.requested);
  } else if (!r.ok()) {
    const BackendVerdict* v = r.find(r.chosen);
    if (v && !v->valid)
      out += fmt::format("FAILED: {} is not valid for this cabling.\n", r.chosen);
    else
      out += "FAILED: the hostfile does not match the cabling.\n";
  } else {
    std::vector<std::string_view> order;
    for (MlxBackend b : all_mlx_backends())
      order.push_back(name(b));
    out += all ? fmt::format("OK: {} (auto picks the first valid of {}).\n", r.chosen,
                             fmt::join(order, ", "))
               : fmt::format("OK: {} is valid.\n", r.chosen);
  }
  return out;
}

CheckIssue make_issue(std::string code, Severity severity, std::string backend,
                      std::vector<std::string> hosts, std::string message, std::string fix) {
  CheckIssue i;
  i.code = std::move(code);
  i.severity = severity;
  i.backend = std::move(backend);
  i.hosts = std::move(hosts);
  i.message = std::move(message);
  i.fix = std::move(fix);
  return i;
}

}  // namespace meshplan
