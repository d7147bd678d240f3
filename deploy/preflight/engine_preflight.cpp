#include "deploy/preflight/engine_preflight.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <set>

#include "deploy/layout/emit_input.hpp"
#include "deploy/layout/launch_layout.hpp"
#include "deploy/writers/engine_connections.hpp"
#include "lib/core/error.hpp"
#include "lib/plan/engines.hpp"

namespace meshplan {
namespace {

std::optional<uint32_t> ipv4(const std::string& text) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  char end = 0;
  if (std::sscanf(text.c_str(), "%u.%u.%u.%u%c", &a, &b, &c, &d, &end) != 4 || a > 255 || b > 255 ||
      c > 255 || d > 255)
    return std::nullopt;
  return a << 24 | b << 16 | c << 8 | d;
}

// The cluster's network whose subnet holds `address`; else the connecting node's address alone.
std::string source_range(const Cluster& cluster, const std::string& address,
                         const std::string& from) {
  auto host = ipv4(address);
  for (const Network& n : cluster.networks) {
    size_t slash = n.subnet.find('/');
    auto net = ipv4(n.subnet.substr(0, slash));
    int prefix = slash == std::string::npos ? -1 : std::atoi(n.subnet.c_str() + slash + 1);
    if (!host || !net || prefix < 0 || prefix > 32) continue;
    uint32_t mask = prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
    if ((*host & mask) == (*net & mask)) return n.subnet;
  }
  return from;
}

std::string one_rule_fix(const std::string& listen_host, const std::string& range) {
  return fmt::format(
      "allow TCP between the nodes on their network: on {}, `iptables -I INPUT -p tcp -s {} -j "
      "ACCEPT` (or the same rule in nftables or firewalld)",
      listen_host, range);
}

std::string summary_of(const std::string& engine, bool ray,
                       const std::vector<EngineConnection>& fixed, size_t pairs) {
  auto port_of = [&](const char* what) {
    for (const auto& c : fixed)
      if (c.what == what) return c.port;
    return 0;
  };
  if (is_engine(engine, EngineKind::kLlamaRpc))
    return fmt::format("llama.cpp RPC launch: rpc-server port {}", port_of("llama.cpp rpc-server"));
  return fmt::format("{}: {} {}, API {}, {} ephemeral per pair",
                     ray ? "vLLM on Ray" : "vLLM launch", ray ? "GCS port" : "master port",
                     port_of(ray ? "Ray GCS" : "vLLM --master-port"),
                     port_of("vLLM API (vllm serve --port)"), pairs ? 1 : 0);
}

void compare_versions(const std::map<std::string, LinuxLaunchFacts>& facts, const char* key,
                      const std::string& what, const std::string& fix,
                      std::vector<LiveFinding>& out) {
  std::set<std::string> values;
  std::vector<std::string> parts;
  for (const auto& [host, f] : facts)
    if (auto it = f.versions.find(key); it != f.versions.end()) {
      values.insert(it->second);
      parts.push_back(host + " " + it->second);
    }
  if (values.size() > 1)
    out.push_back({"", "", fmt::format("{} differs: {}", what, fmt::join(parts, ", ")), fix});
}

void gpu_findings(const EngineNode& n, const LinuxLaunchFacts& f, const Catalog& catalog,
                  std::vector<LiveFinding>& out, std::vector<std::string>& notes) {
  if (!f.nvidia_smi) {
    if (n.gpus > 0)
      notes.push_back(fmt::format("nvidia-smi is not on {}: its GPUs were not compared", n.host));
    return;
  }
  const std::string file =
      fmt::format("{} x {}", n.gpus, n.chip.empty() ? std::string("GPU") : n.chip);
  if (f.gpus.size() != n.gpus) {
    std::vector<std::string> names;
    for (const auto& g : f.gpus)
      names.push_back(g.name);
    out.push_back(
        {n.host, "",
         fmt::format("nvidia-smi lists {} GPU{}{}, the cluster file {}", f.gpus.size(),
                     f.gpus.size() == 1 ? "" : "s",
                     !f.nvidia_smi_error.empty() ? " (" + f.nvidia_smi_error + ")"
                     : names.empty()             ? ""
                                     : " (" + fmt::format("{}", fmt::join(names, ", ")) + ")",
                     file),
         fmt::format("find the missing GPU (nvidia-smi -q, Xid errors in dmesg; a reboot or "
                     "reseat), or rediscover {} (meshplan discover) and plan again",
                     n.host)});
    return;
  }
  if (n.chip.empty()) return;
  for (const auto& g : f.gpus) {
    const ChipSpec* c = catalog.chip_for_brand(g.name, 0);
    if (!c || c->key == n.chip) continue;
    out.push_back(
        {n.host, "",
         fmt::format("nvidia-smi names {} ({}), the cluster file {}", g.name, c->key, file),
         "correct the host's gpus: in CLUSTER (meshplan discover reads them) and plan "
         "again"});
    return;
  }
}

void hca_findings(const EngineNode& n, const LinuxLaunchFacts& f, std::vector<LiveFinding>& out,
                  std::vector<std::string>& notes) {
  if (n.hcas.empty()) return;
  if (!f.ibv_devinfo) {
    notes.push_back(fmt::format("ibv_devinfo is not on {}: the state of {} was not read", n.host,
                                fmt::join(n.hcas, ", ")));
    return;
  }
  for (const std::string& hca : n.hcas) {
    std::vector<const IbvPort*> ports;
    for (const auto& p : f.rdma)
      if (p.device == hca) ports.push_back(&p);
    bool active = false;
    for (const IbvPort* p : ports)
      active = active || p->state == "PORT_ACTIVE";
    if (ports.empty())
      out.push_back({n.host, "",
                     fmt::format("HCA {} (NCCL_IB_HCA) is not listed by ibv_devinfo", hca),
                     "load its driver (mlx5_ib) and check `ibv_devices`; or rediscover the host "
                     "and plan again"});
    else if (!active)
      out.push_back({n.host, "",
                     fmt::format("HCA {} (NCCL_IB_HCA) port {} is {}, not PORT_ACTIVE", hca,
                                 ports.front()->port, ports.front()->state),
                     "check its cable and link (ibstat); on InfiniBand a subnet manager must run "
                     "(opensm or the switch's)"});
  }
}

}  // namespace

std::optional<EngineLaunchCheck> engine_launch_check(const TopologyContext& topo,
                                                     const CheckReport& report,
                                                     const std::optional<PlanRanks>& plan,
                                                     std::vector<std::string>& notes) {
  if (!report.engine || (!is_engine(report.engine->engine, EngineKind::kVllm) &&
                         !is_engine(report.engine->engine, EngineKind::kLlamaRpc)))
    return std::nullopt;
  EngineLaunchCheck check;
  check.engine = report.engine->engine;
  const EmitInput in{topo.cluster, topo, report, plan, "auto", {}, {}, {}};
  try {
    const LaunchLayout& layout = in.layout();
    for (const LaunchNode& n : layout.nodes)
      if (n.mac) return std::nullopt;  // MLX's connections on Macs, as before
    std::vector<EngineConnection> fixed = engine_connections(in, check.engine);
    std::vector<EngineConnection> pairs;
    if (is_engine(check.engine, EngineKind::kVllm)) {
      check.ray = vllm_nodes_started_by_ray(layout);
      pairs = ephemeral_connections(layout);
    }
    check.summary = summary_of(check.engine, check.ray, fixed, pairs.size());
    for (const LaunchNode& n : layout.nodes) {
      std::set<std::string> chips;
      for (const Gpu& g : n.host->gpus)
        chips.insert(g.chip);
      check.nodes.push_back({n.host->name, static_cast<size_t>(n.cuda_gpus()),
                             chips.size() == 1 ? *chips.begin() : "", n.rdma_devices});
    }
    auto address_of = [&](const std::string& host) {
      for (const LaunchNode& n : layout.nodes)
        if (n.host->name == host) return n.data_address.empty() ? n.address : n.data_address;
      return std::string();
    };
    for (const auto* list : {&fixed, &pairs})
      for (const EngineConnection& c : *list)
        check.probes.push_back(
            {c.listen_host, c.connect_host, c.address, c.port, c.what,
             one_rule_fix(c.listen_host,
                          source_range(topo.cluster, c.address, address_of(c.connect_host)))});
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kFailed && e.kind() != ErrorKind::kBadInput) throw;
    const Engine* engine = find_engine(check.engine);
    notes.push_back(fmt::format("{}'s TCP connections not tried ({}); mlx.launch's are",
                                engine ? engine->title : check.engine, e.what()));
    return std::nullopt;
  }
  if (check.probes.empty()) return std::nullopt;
  return check;
}

void set_ephemeral_ports(EngineLaunchCheck& check, const LiveReport& live) {
  size_t pair = 0;
  for (TcpProbe& p : check.probes) {
    if (p.port != 0) continue;
    std::pair<int, int> range{0, 0};
    if (auto it = live.launch_facts.find(p.listen_host);
        it != live.launch_facts.end() && it->second.port_range)
      range = *it->second.port_range;
    p.port = ephemeral_probe_port(range.first, range.second, pair++);
  }
}

void engine_host_findings(const EngineLaunchCheck& check, const Catalog& catalog,
                          const LiveReport& live, std::vector<LiveFinding>& findings,
                          std::vector<std::string>& notes) {
  std::map<std::string, LinuxLaunchFacts> facts;
  for (const EngineNode& n : check.nodes) {
    auto it = live.launch_facts.find(n.host);
    if (it == live.launch_facts.end()) continue;  // not answered: a failure already
    const LinuxLaunchFacts& f = it->second;
    facts[n.host] = f;
    gpu_findings(n, f, catalog, findings, notes);
    hca_findings(n, f, findings, notes);
    if (is_engine(check.engine, EngineKind::kLlamaRpc)) continue;  // no Python in its launch
    std::vector<std::string> unread;
    if (!f.python) {
      notes.push_back(
          fmt::format("python3 is not on {}: its Python, torch, CUDA, NCCL{} "
                      "versions were not read",
                      n.host, check.ray ? ", vLLM and Ray" : " and vLLM"));
      continue;
    }
    if (!f.versions.count("torch")) unread.push_back("torch, CUDA and NCCL (no torch)");
    if (!f.versions.count("vllm")) unread.push_back("vLLM");
    if (check.ray && !f.versions.count("ray")) unread.push_back("Ray");
    if (!unread.empty())
      notes.push_back(fmt::format("versions not read on {}: {}", n.host, fmt::join(unread, ", ")));
  }
  if (is_engine(check.engine, EngineKind::kLlamaRpc)) return;
  compare_versions(facts, "python", "the Python version",
                   "use one Python (the same minor version) on every node", findings);
  const std::string torch_fix =
      "install the same torch build on every node (pip install torch==X; its CUDA runtime and "
      "NCCL come with it)";
  compare_versions(facts, "torch", "the torch version", torch_fix, findings);
  compare_versions(facts, "cuda", "the CUDA runtime (torch.version.cuda)", torch_fix, findings);
  compare_versions(facts, "nccl", "the NCCL version (torch.cuda.nccl.version())", torch_fix,
                   findings);
  compare_versions(facts, "vllm", "the vLLM version",
                   "install the same vllm on every node (pip install vllm==X)", findings);
  if (check.ray)
    compare_versions(facts, "ray", "the Ray version",
                     "install the same ray on every node (pip install ray==X)", findings);
}

}  // namespace meshplan
