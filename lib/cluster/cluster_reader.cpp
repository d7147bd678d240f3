#include "lib/cluster/cluster_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "lib/cluster/value_readers.hpp"
#include "lib/core/error.hpp"
#include "lib/core/units.hpp"

namespace meshplan {
namespace {

// "mac-1" or "mac-1:3" or {host, port} or {host, interface} (a direct network cable).
Endpoint read_endpoint(const DocNode& n, const Cluster& cluster) {
  Endpoint e;
  if (n.is_string()) {
    auto colon = n.text().find(':');
    e.host = n.text().substr(0, colon);
    if (colon != std::string::npos) e.port = n.text().substr(colon + 1);
  } else {
    n.check_keys({"host", "port", "interface"});
    e.host = n.at("host").as_string();
    if (auto* p = n.find("port")) e.port = p->as_string();
    if (auto* i = n.find("interface")) {
      if (!e.port.empty()) i->fail("give a Thunderbolt port or an interface, not both");
      e.interface = read_device_name(*i);
    }
  }
  const Host* h = cluster.find_host(e.host);
  if (!h) n.fail(fmt::format("unknown host \"{}\"; hosts must be listed under hosts", e.host));
  if (!e.port.empty() && !h->ports.empty() && !h->find_port(e.port)) {
    std::string ids;
    for (const auto& p : h->ports)
      ids += (ids.empty() ? "" : ", ") + p.id;
    n.fail(fmt::format("host {} has no Thunderbolt port \"{}\"; its ports are {}", e.host, e.port,
                       ids));
  }
  if (!e.interface.empty() && !h->interfaces.empty() && !h->find_interface(e.interface)) {
    std::string names;
    for (const auto& i : h->interfaces)
      names += (names.empty() ? "" : ", ") + i.name;
    n.fail(fmt::format("host {} has no interface \"{}\"; its interfaces are {}", e.host,
                       e.interface, names));
  }
  return e;
}

// The rdma key of a cable, network or generator: InfiniBand is always RDMA, so it is the
// default there; elsewhere RDMA is off unless the file turns it on.
bool read_rdma(const DocNode& n, LinkKind kind) {
  if (auto* v = n.find("rdma")) return v->as_bool();
  return is_infiniband(kind);
}

// The refusal of `rdma: true` on Wi-Fi or Ethernet below 10 Gb/s: no RDMA NICs are made for them.
[[noreturn]] void refuse_rdma(const DocNode& rdma, LinkKind kind, bool thunderbolt_too,
                              std::string_view or_else = "") {
  rdma.fail(fmt::format(
      "rdma needs one of the kinds {}{}; got {}, which has no RDMA NICs (RoCE needs 10 GbE or "
      "faster)",
      rdma_link_kind_names(thunderbolt_too), or_else, name(kind)));
}

void read_host_refs(const DocNode& n, const Cluster& cluster, bool* all,
                    std::vector<std::string>* hosts) {
  if (n.is_string() && n.text() == "all") {
    *all = true;
    return;
  }
  if (!n.is_array())
    n.fail(fmt::format("expected \"all\" or a list of host names, got {}", n.describe_value()));
  for (const auto& item : n.items()) {
    std::string name = item.as_string();
    if (!cluster.find_host(name))
      item.fail(fmt::format("unknown host \"{}\"; hosts must be listed under hosts", name));
    hosts->push_back(name);
  }
}

// A generator {topology, kind, hosts}: expanded once the whole file is read.
void read_generator(const DocNode& n, Cluster* cluster) {
  n.check_keys(
      {"topology", "kind", "rdma", "hosts", "center", "subnet", "latency_us", "bandwidth_gbps"});
  GeneratorSpec g;
  const DocNode& t = n.at("topology");
  g.topology = t.as_string();
  static const std::set<std::string> topologies = {"full-mesh", "ring", "chain", "star", "switch"};
  if (!topologies.count(g.topology))
    t.fail(fmt::format(
        "unknown topology \"{}\"; expected one of: full-mesh, ring, chain, star, switch",
        g.topology));
  g.kind = read_kind(n.at("kind"));
  g.rdma = read_rdma(n, g.kind);
  read_host_refs(n.at("hosts"), *cluster, &g.all_hosts, &g.hosts);
  if (auto* v = n.find("center")) {
    if (g.topology != "star") v->fail("center is only for topology: star");
    g.center = v->as_string();
    if (!cluster->find_host(g.center)) v->fail(fmt::format("unknown host \"{}\"", g.center));
  }
  if (auto* v = n.find("subnet")) g.subnet = v->as_string();
  if (auto* v = n.find("latency_us")) g.latency_us = read_positive(*v, "latency in microseconds");
  if (auto* v = n.find("bandwidth_gbps")) g.bandwidth_gbps = read_positive(*v, "bandwidth in Gb/s");
  if (g.rdma && is_thunderbolt(g.kind) && g.kind != LinkKind::kTb5)
    n.at("rdma").fail("rdma needs kind tb5 (RDMA over Thunderbolt needs Thunderbolt 5)");
  if (g.rdma && !takes_rdma(g.kind)) refuse_rdma(n.at("rdma"), g.kind, true);
  g.where = n.where().describe();
  g.position = cluster->cables.size();
  cluster->generators.push_back(std::move(g));
}

// A cable {a, b, kind}: two ports, or two interfaces for a direct network cable.
void read_cable(const DocNode& n, const Catalog& catalog, Cluster* cluster) {
  n.check_keys({"a", "b", "kind", "speed_gbps", "rdma", "latency_us", "bandwidth_gbps",
                "round_trip_us", "measured"});
  Cable c;
  c.a = read_endpoint(n.at("a"), *cluster);
  c.b = read_endpoint(n.at("b"), *cluster);
  if (c.a.host == c.b.host)
    n.at("b").fail(fmt::format("a cable needs two different hosts, got {} twice", c.a.host));
  for (const auto& other : cluster->cables) {
    for (const auto& [end, node] : {std::pair{c.a, "a"}, std::pair{c.b, "b"}}) {
      if (end.port.empty() && end.interface.empty()) continue;
      if (other.a == end || other.b == end)
        n.at(node).fail(fmt::format("{} {} of {} is already used by the cable {} - {}",
                                    end.port.empty() ? "interface" : "port",
                                    end.port.empty() ? end.interface : end.port, end.host,
                                    other.a.host, other.b.host));
    }
  }
  c.kind = read_kind(n.at("kind"));
  c.speed_gbps = catalog.default_speed_gbps(c.kind);
  if (auto* v = n.find("speed_gbps")) c.speed_gbps = read_positive(*v, "speed in Gb/s");
  c.rdma = read_rdma(n, c.kind);
  // A direct network cable records RDMA (RoCE, InfiniBand) when both of its ends have it,
  // whatever its kind (discovery names the kind from the port's speed).
  bool network_ends = !c.a.interface.empty() && !c.b.interface.empty();
  if (c.rdma && !takes_rdma(c.kind) && !network_ends) {
    if (is_thunderbolt(c.kind))
      n.at("rdma").fail(
          "rdma needs kind tb5 (RDMA over Thunderbolt needs Thunderbolt 5) or, for a direct "
          "network cable, an interface at both ends");
    refuse_rdma(n.at("rdma"), c.kind, true,
                " or, for a direct network cable, an interface at both ends");
  }
  if (auto* v = n.find("latency_us")) c.latency_us = read_positive(*v, "latency in microseconds");
  if (auto* v = n.find("bandwidth_gbps")) c.bandwidth_gbps = read_positive(*v, "bandwidth in Gb/s");
  if (auto* v = n.find("round_trip_us"))
    c.round_trip_us = read_positive(*v, "round trip in microseconds");
  if (auto* v = n.find("measured")) {
    c.measured = read_date(*v);
    if (!c.latency_us && !c.bandwidth_gbps && !c.round_trip_us)
      v->fail("measured needs latency_us, bandwidth_gbps or round_trip_us beside it");
  }
  cluster->cables.push_back(std::move(c));
}

// A shared network {kind, hosts}, RoCE or InfiniBand when it says rdma.
void read_network(const DocNode& n, Cluster* cluster) {
  n.check_keys({"kind", "hosts", "subnet", "rdma", "latency_us", "bandwidth_gbps"});
  Network net;
  net.kind = read_kind(n.at("kind"));
  if (is_thunderbolt(net.kind))
    n.at("kind").fail("a shared network cannot be Thunderbolt; use cables or topology: full-mesh");
  read_host_refs(n.at("hosts"), *cluster, &net.all_hosts, &net.hosts);
  if (auto* v = n.find("subnet")) net.subnet = v->as_string();
  net.rdma = read_rdma(n, net.kind);
  if (net.rdma && !takes_rdma(net.kind)) refuse_rdma(n.at("rdma"), net.kind, false);
  if (auto* v = n.find("latency_us")) net.latency_us = read_positive(*v, "latency in microseconds");
  if (auto* v = n.find("bandwidth_gbps"))
    net.bandwidth_gbps = read_positive(*v, "bandwidth in Gb/s");
  cluster->networks.push_back(std::move(net));
}

void read_link(const DocNode& n, const Catalog& catalog, Cluster* cluster) {
  n.require_object();
  if (n.find("topology")) {
    read_generator(n, cluster);
  } else if (n.find("a") || n.find("b")) {
    read_cable(n, catalog, cluster);
  } else if (n.find("hosts")) {
    read_network(n, cluster);
  } else {
    n.fail(
        "expected a cable {a, b, kind}, a network {kind, hosts} or a generator {topology, kind, "
        "hosts}");
  }
}

// One level of `meshplan measure`: {date, url, model, hosts, concurrency, ttft_ms, stream_tps,
// total_tps}, engine when the plan named one.
MeasuredServing read_measured_serving(const DocNode& n) {
  n.require_object();
  n.check_keys({"date", "url", "engine", "model", "hosts", "concurrency", "ttft_ms", "stream_tps",
                "total_tps"});
  MeasuredServing m;
  m.date = read_date(n.at("date"));
  m.url = n.at("url").as_string();
  if (auto* v = n.find("engine")) m.engine = v->as_string();
  m.model = n.at("model").as_string();
  const DocNode& hosts = n.at("hosts");
  if (!hosts.is_array() || hosts.items().empty())
    hosts.fail(
        fmt::format("expected a list of the plan's host names, got {}", hosts.describe_value()));
  for (const auto& h : hosts.items())
    m.hosts.push_back(h.as_string());
  const DocNode& level = n.at("concurrency");
  const int64_t c = level.as_int();
  if (c < 1 || c > 100000)
    level.fail(fmt::format("expected the requests in flight, 1-100000, got {}", c));
  m.concurrency = static_cast<int>(c);
  m.ttft_ms = read_positive(n.at("ttft_ms"), "time to first token in milliseconds");
  m.stream_tps = read_positive(n.at("stream_tps"), "decode tokens/s of one stream");
  m.total_tps = read_positive(n.at("total_tps"), "tokens/s of all streams");
  return m;
}

}  // namespace

Cluster read_cluster(const DocNode& root, const Catalog& catalog) {
  root.require_object();
  // Another meshplan file where a cluster is expected: say which, rather than "unknown key".
  std::string schema =
      root.find("schema") && root.find("schema")->is_string() ? root.find("schema")->text() : "";
  if (schema.rfind("meshplan.plan/", 0) == 0 ||
      (schema.empty() && root.find("ranks") && root.find("predicted")))
    root.fail(
        "this is a plan file (meshplan.plan/2), not a cluster file; give the cluster file "
        "with -c and the plan with --plan");
  if (schema == "meshplan.check/1" ||
      (schema.empty() && root.find("backends") && root.find("chosen")))
    root.fail(
        "this is a check report (meshplan.check/1), not a cluster file; give the cluster "
        "file that was checked");
  root.check_keys({"schema", "name", "hosts", "links", "findings", "measured_serving"});
  Cluster cluster;
  if (auto* s = root.find("schema")) {
    if (s->as_string() != kClusterSchema)
      s->fail(fmt::format("expected schema \"{}\", got \"{}\"", kClusterSchema, s->text()));
  }
  if (auto* n = root.find("name")) cluster.name = n->as_string();
  const DocNode& hosts = root.at("hosts").require_array();
  if (hosts.items().empty()) hosts.fail("expected at least one host");
  if (hosts.items().size() > kMaxClusterHosts)
    hosts.fail(
        fmt::format("expected at most {} hosts, got {}", kMaxClusterHosts, hosts.items().size()));
  cluster.hosts.reserve(hosts.items().size());
  for (const auto& h : hosts.items()) {
    Host host = read_host(h, catalog, cluster.warnings);
    if (cluster.find_host(host.name))
      h.at("name").fail(fmt::format("duplicate host name \"{}\"", host.name));
    cluster.hosts.push_back(std::move(host));
  }
  if (auto* links = root.find("links")) {
    for (const auto& l : links->require_array().items())
      read_link(l, catalog, &cluster);
  }
  if (auto* findings = root.find("findings")) {
    for (const auto& f : findings->require_array().items()) {
      f.check_keys({"kind", "host", "port", "peer", "message"});
      Finding x;
      x.kind = f.at("kind").as_string();
      if (auto* v = f.find("host")) x.host = v->as_string();
      if (auto* v = f.find("port")) x.port = v->as_string();
      if (auto* v = f.find("peer")) x.peer = v->as_string();
      if (auto* v = f.find("message")) x.message = v->as_string();
      cluster.findings.push_back(std::move(x));
    }
  }
  if (auto* measured = root.find("measured_serving")) {
    for (const auto& m : measured->require_array().items())
      cluster.measured_serving.push_back(read_measured_serving(m));
  }
  return cluster;
}

}  // namespace meshplan
