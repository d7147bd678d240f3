#include "lib/cluster/cluster_writer.hpp"

namespace meshplan {
namespace {

ojson port_json(const ThunderboltPort& p) {
  ojson j;
  j["id"] = p.id;
  if (p.generation) j["generation"] = p.generation;
  if (p.speed_gbps > 0) j["speed_gbps"] = json_number(p.speed_gbps);
  if (!p.interface.empty()) j["interface"] = p.interface;
  if (!p.rdma_device.empty()) j["rdma_device"] = p.rdma_device;
  if (!p.rdma_state.empty()) j["rdma_state"] = p.rdma_state;
  if (!p.domain_uuid.empty()) j["domain_uuid"] = p.domain_uuid;
  if (!p.ipv4.empty()) j["ipv4"] = p.ipv4;
  if (p.prefix) j["prefix"] = p.prefix;
  return j;
}

ojson interface_json(const NetInterface& i) {
  ojson j;
  j["name"] = i.name;
  if (!i.kind.empty()) j["kind"] = i.kind;
  if (!i.ipv4.empty()) j["ipv4"] = i.ipv4;
  if (i.prefix) j["prefix"] = i.prefix;
  if (i.speed_gbps > 0) j["speed_gbps"] = json_number(i.speed_gbps);
  if (!i.mac.empty()) j["mac"] = i.mac;
  if (!i.state.empty()) j["state"] = i.state;
  if (!i.rdma_device.empty()) j["rdma_device"] = i.rdma_device;
  if (i.mtu > 0) j["mtu"] = i.mtu;
  return j;
}

ojson host_json(const Host& h) {
  ojson j;
  j["name"] = h.name;
  if (!h.ssh.empty()) j["ssh"] = h.ssh;
  if (!h.os.kind.empty() || !h.os.version.empty() || !h.os.build.empty()) {
    ojson os;
    if (!h.os.kind.empty()) os["kind"] = h.os.kind;
    if (!h.os.version.empty()) os["version"] = h.os.version;
    if (!h.os.build.empty()) os["build"] = h.os.build;
    j["os"] = os;
  }
  if (!h.chip.empty()) j["chip"] = h.chip;
  if (!h.machine.empty()) j["machine"] = h.machine;
  if (!h.hw_model.empty()) j["hw_model"] = h.hw_model;
  if (h.gpu_cores) j["gpu_cores"] = *h.gpu_cores;
  if (h.memory) j["memory"] = h.memory;
  if (h.usable_memory) j["usable_memory"] = *h.usable_memory;
  if (h.wired_limit_mb) j["wired_limit_mb"] = *h.wired_limit_mb;
  if (h.mem_bandwidth) j["mem_bandwidth"] = json_number(*h.mem_bandwidth);
  if (h.flops) j["flops"] = json_number(*h.flops);
  if (h.bandwidth_efficiency) j["bandwidth_efficiency"] = json_number(*h.bandwidth_efficiency);
  if (h.flops_efficiency) j["flops_efficiency"] = json_number(*h.flops_efficiency);
  if (h.stage_overhead_s) j["stage_overhead_ms"] = json_number(*h.stage_overhead_s * 1e3);
  if (h.gpu_link_latency_s) j["gpu_link_latency_us"] = json_number(*h.gpu_link_latency_s * 1e6);
  if (h.gpu_link_step_s) j["gpu_link_step_us"] = json_number(*h.gpu_link_step_s * 1e6);
  if (h.gpu_link_bandwidth)
    j["gpu_link_bandwidth_gbps"] = json_number(*h.gpu_link_bandwidth * 8 / 1e9);
  if (!h.measured.empty()) j["measured"] = h.measured;
  if (h.disk_read) j["disk_read"] = json_number(*h.disk_read);
  if (h.rdma_enabled) j["rdma_enabled"] = *h.rdma_enabled;
  if (h.slurm) j["slurm"] = true;
  if (h.thunderbolt_bridge) {
    ojson b;
    b["up"] = h.thunderbolt_bridge->up;
    b["members"] = h.thunderbolt_bridge->members;
    if (!h.thunderbolt_bridge->ipv4.empty()) b["ipv4"] = h.thunderbolt_bridge->ipv4;
    j["thunderbolt_bridge"] = b;
  }
  if (!h.gpus.empty()) {
    ojson gpus = ojson::array();
    for (const auto& g : h.gpus) {
      ojson x;
      if (!g.name.empty()) x["name"] = g.name;
      if (!g.chip.empty()) x["chip"] = g.chip;
      if (g.memory) x["memory"] = g.memory;
      if (!g.uuid.empty()) x["uuid"] = g.uuid;
      if (!g.pci_bus.empty()) x["pci_bus"] = g.pci_bus;
      if (!g.nic.empty()) x["nic"] = g.nic;
      if (g.nvlinks > 0) x["nvlinks"] = g.nvlinks;
      if (g.nvlink_GBps > 0) x["nvlink_GBps"] = g.nvlink_GBps;
      gpus.push_back(x);
    }
    j["gpus"] = gpus;
    if (!h.gpu_links.empty()) j["gpu_links"] = h.gpu_links;
  }
  if (!h.ports.empty()) {
    ojson ports = ojson::array();
    for (const auto& p : h.ports)
      ports.push_back(port_json(p));
    j["ports"] = ports;
  }
  if (!h.interfaces.empty()) {
    ojson ifs = ojson::array();
    for (const auto& i : h.interfaces)
      ifs.push_back(interface_json(i));
    j["interfaces"] = ifs;
  }
  return j;
}

ojson endpoint_json(const Endpoint& e) {
  ojson j;
  j["host"] = e.host;
  if (!e.port.empty()) j["port"] = e.port;
  if (!e.interface.empty()) j["interface"] = e.interface;
  return j;
}

// One level measured by `meshplan measure`.
ojson measured_serving_json(const MeasuredServing& m) {
  ojson j;
  j["date"] = m.date;
  j["url"] = m.url;
  if (!m.engine.empty()) j["engine"] = m.engine;
  j["model"] = m.model;
  j["hosts"] = m.hosts;
  j["concurrency"] = m.concurrency;
  j["ttft_ms"] = json_number(m.ttft_ms);
  j["stream_tps"] = json_number(m.stream_tps);
  j["total_tps"] = json_number(m.total_tps);
  return j;
}

}  // namespace

ojson cluster_to_json(const Cluster& cluster) {
  ojson j;
  j["schema"] = kClusterSchema;
  if (!cluster.name.empty()) j["name"] = cluster.name;
  ojson hosts = ojson::array();
  for (const auto& h : cluster.hosts)
    hosts.push_back(host_json(h));
  j["hosts"] = hosts;
  ojson links = ojson::array();
  for (const auto& c : cluster.cables) {
    ojson l;
    l["a"] = endpoint_json(c.a);
    l["b"] = endpoint_json(c.b);
    l["kind"] = link_kind_name(c.kind);
    l["speed_gbps"] = json_number(c.speed_gbps);
    l["rdma"] = c.rdma;
    if (c.latency_us) l["latency_us"] = json_number(*c.latency_us);
    if (c.bandwidth_gbps) l["bandwidth_gbps"] = json_number(*c.bandwidth_gbps);
    if (c.round_trip_us) l["round_trip_us"] = json_number(*c.round_trip_us);
    if (!c.measured.empty()) l["measured"] = c.measured;
    links.push_back(l);
  }
  for (const auto& n : cluster.networks) {
    ojson l;
    l["kind"] = link_kind_name(n.kind);
    if (n.all_hosts)
      l["hosts"] = "all";
    else
      l["hosts"] = n.hosts;
    if (!n.subnet.empty()) l["subnet"] = n.subnet;
    // Only where it differs from the reader's default (InfiniBand is RDMA unless it says no).
    if (n.rdma != is_infiniband(n.kind)) l["rdma"] = n.rdma;
    if (n.latency_us) l["latency_us"] = json_number(*n.latency_us);
    if (n.bandwidth_gbps) l["bandwidth_gbps"] = json_number(*n.bandwidth_gbps);
    links.push_back(l);
  }
  j["links"] = links;
  if (!cluster.findings.empty()) {
    ojson fs = ojson::array();
    for (const auto& f : cluster.findings) {
      ojson x;
      x["kind"] = f.kind;
      if (!f.host.empty()) x["host"] = f.host;
      if (!f.port.empty()) x["port"] = f.port;
      if (!f.peer.empty()) x["peer"] = f.peer;
      if (!f.message.empty()) x["message"] = f.message;
      fs.push_back(x);
    }
    j["findings"] = fs;
  }
  if (!cluster.measured_serving.empty()) {
    ojson ms = ojson::array();
    for (const auto& m : cluster.measured_serving)
      ms.push_back(measured_serving_json(m));
    j["measured_serving"] = ms;
  }
  return j;
}

std::string write_cluster_json(const Cluster& cluster) {
  return cluster_to_json(cluster).dump(2) + "\n";
}

}  // namespace meshplan
