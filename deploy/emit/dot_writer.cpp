#include "deploy/emit/dot_writer.hpp"

#include <fmt/format.h>

#include <set>

#include "lib/core/text_template.hpp"

namespace meshplan {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string memory_text(uint64_t bytes) {
  double gib = static_cast<double>(bytes) / kGiB;
  if (gib == static_cast<double>(static_cast<uint64_t>(gib)))
    return fmt::format("{} GiB", static_cast<uint64_t>(gib));
  return fmt::format("{:.1f} GiB", gib);
}

// "m3-ultra-1 en2" for one end of a cable (its host, then its interface, or "port 1" when the
// interface is unknown), so that a reader can tell which end is which.
std::string end_label(const Host& host, const Endpoint& end) {
  if (!end.interface.empty()) return host.name + " " + end.interface;
  const std::string& port = end.port;
  if (port.empty()) return "";
  const ThunderboltPort* p = host.find_port(port);
  if (!p || p->interface.empty()) return host.name + " port " + port;
  return host.name + " " + p->interface;
}

std::string speed_text(double gbps) {
  return gbps > 0 ? fmt::format("{} Gb/s", gbps) : "";
}

std::string cable_edge(const Cluster& cluster, const LinkFigures& link) {
  const Cable& c = cluster.cables[static_cast<size_t>(link.cable)];
  const Host& a = *cluster.find_host(c.a.host);
  const Host& b = *cluster.find_host(c.b.host);
  std::string ends = end_label(a, c.a) + " / " + end_label(b, c.b);
  if (ends == " / ") ends = "";
  std::string kind, style;
  if (link.rdma) {
    kind = "TB5 RDMA";
    style = "color=\"#1a9850\", penwidth=2.5";
  } else if (link.thunderbolt) {
    kind = link.kind == LinkKind::kTb5 ? "TB5" : link.kind == LinkKind::kTb4 ? "TB4" : "TB3";
    style = "color=\"#2166ac\", penwidth=1.5";
  } else {
    kind = link_kind_name(link.kind);
    style = "color=\"#762a83\", penwidth=1.5";
  }
  std::string label = ends;
  std::string speed = speed_text(c.speed_gbps);
  label += (label.empty() ? "" : "\n") + kind + (speed.empty() ? "" : " " + speed);
  return fmt::format("  {} -- {} [label={}, {}];\n", dot_quote(c.a.host), dot_quote(c.b.host),
                     dot_quote(label), style);
}

std::string node_line(const Host& h, const DotOptions& o) {
  std::string label = h.name;
  std::string detail = h.chip;
  if (h.memory) detail += (detail.empty() ? "" : ", ") + memory_text(h.memory);
  if (!detail.empty()) label += "\n" + detail;
  auto note = o.host_notes.find(h.name);
  if (note != o.host_notes.end()) label += "\n" + note->second;
  std::string style;
  if (o.dim_unnoted && note == o.host_notes.end())
    style = ", style=\"rounded,dashed\", fontcolor=gray40, color=gray60";
  return fmt::format("  {} [label={}{}];\n", dot_quote(h.name), dot_quote(label), style);
}

// How good a link between two GPUs is, best first: NVLink, then the PCIe paths as
// `nvidia-smi topo -m` orders them.
int gpu_link_rank(const std::string& link) {
  if (link.rfind("NV", 0) == 0) return 0;
  static const char* const kPcie[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};
  for (int i = 0; i < 5; ++i)
    if (link == kPcie[i]) return i + 1;
  return 6;
}

// A host of several GPUs: a box holding the host itself (where its cables end) and a node per
// GPU. When every pair is joined alike, the box's label says so; otherwise the pairs joined
// better than the worst are edges and the label names the worst for the rest,
// which keeps a two-socket box readable.
std::string gpu_box(const Host& h, const DotOptions& o) {
  const size_t n = h.gpus.size();
  std::string body;
  const auto& m = h.gpu_links;
  const bool matrix = m.size() == n;
  std::string worst;
  bool uniform = matrix;
  for (size_t i = 0; matrix && i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      if (i == j || j >= m[i].size()) continue;
      if (worst.empty() || gpu_link_rank(m[i][j]) > gpu_link_rank(worst)) worst = m[i][j];
      uniform = uniform && (m[i][j] == m[0][1]);
    }
  std::string label = h.name;
  if (!matrix || worst.empty())
    label += ": links between its GPUs unknown";
  else
    label += uniform ? fmt::format(": {} between every pair of GPUs", worst)
                     : fmt::format(": {} between the GPUs without an edge", worst);
  body += fmt::format("  subgraph {} {{\n    label={}; style=rounded; color=gray50;\n  ",
                      dot_quote("cluster_" + h.name), dot_quote(label));
  body += node_line(h, o);
  auto notes = o.gpu_notes.find(h.name);
  for (size_t g = 0; g < n; ++g) {
    std::string text = fmt::format("gpu{}", g);
    const Gpu& gpu = h.gpus[g];
    std::string detail = gpu.chip;
    if (gpu.memory) detail += (detail.empty() ? "" : ", ") + memory_text(gpu.memory);
    if (!detail.empty()) text += "\n" + detail;
    if (notes != o.gpu_notes.end() && g < notes->second.size() && !notes->second[g].empty())
      text += "\n" + notes->second[g];
    body += fmt::format(
        "    {} [label={}, shape=box, style=\"rounded,filled\", fillcolor=\"#fff7e6\"];\n",
        dot_quote(fmt::format("{}/gpu{}", h.name, g)), dot_quote(text));
  }
  for (size_t i = 0; matrix && !uniform && i < n; ++i)
    for (size_t j = i + 1; j < n && j < m[i].size(); ++j)
      if (gpu_link_rank(m[i][j]) < gpu_link_rank(worst))
        body += fmt::format("    {} -- {} [label={}, color=\"#b35806\"];\n",
                            dot_quote(fmt::format("{}/gpu{}", h.name, i)),
                            dot_quote(fmt::format("{}/gpu{}", h.name, j)), dot_quote(m[i][j]));
  return body + "  }\n";
}

std::string plug_label(const CablePlug& p) {
  if (p.port.empty()) return "no free port";
  return p.interface.empty() ? "port " + p.port : fmt::format("port {} ({})", p.port, p.interface);
}

}  // namespace

std::string dot_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string write_cluster_dot(const Cluster& cluster, const LinkGraph& graph, const DotOptions& o) {
  std::string body;
  for (const auto& h : cluster.hosts)
    body += h.gpus.size() > 1 ? gpu_box(h, o) : node_line(h, o);
  for (size_t n = 0; n < cluster.networks.size(); ++n) {
    const Network& net = cluster.networks[n];
    std::string id = dot_quote(fmt::format("network {}", n + 1));
    std::string label = link_kind_name(net.kind);
    if (!net.subnet.empty()) label += "\n" + net.subnet;
    bool wifi = net.kind == LinkKind::kWifi;
    body += fmt::format(
        "  {} [label={}, shape=ellipse, style=filled, fillcolor=\"#f0f0f0\", color=gray50];\n", id,
        dot_quote(label));
    for (const auto& h : cluster.hosts) {
      if (!net.contains(h.name)) continue;
      body += fmt::format("  {} -- {} [color=gray50, style={}];\n", dot_quote(h.name), id,
                          wifi ? "dashed" : "dotted");
    }
  }
  for (size_t a = 0; a < graph.size(); ++a)
    for (size_t b = a + 1; b < graph.size(); ++b)
      for (const LinkFigures& l : graph.links(a, b))
        if (l.cable >= 0) body += cable_edge(cluster, l);
  for (const auto& m : o.missing) {
    std::string label =
        fmt::format("add {}:\n{} / {}", m.kind == name(LinkKind::kTb5) ? "TB5" : "Thunderbolt",
                    plug_label(m.a), plug_label(m.b));
    body +=
        fmt::format("  {} -- {} [label={}, color=red, fontcolor=red, style=dashed, penwidth=2];\n",
                    dot_quote(m.a.host), dot_quote(m.b.host), dot_quote(label));
  }
  std::set<std::string> bought;
  for (const auto& p : o.proposed)
    for (const CablePlug* end : {&p.cable.a, &p.cable.b})
      if (!cluster.find_host(end->host) && bought.insert(end->host).second)
        body += fmt::format(
            "  {} [label={}, shape=box, style=dashed, color=darkorange, fontcolor=darkorange];\n",
            dot_quote(end->host), dot_quote(end->host + "\n(to buy)"));
  for (const auto& p : o.proposed) {
    std::string kind = p.cable.kind == name(LinkKind::kTb5) ? "TB5" : p.cable.kind;
    std::string label =
        fmt::format("{}: {}\n{} / {}", p.label, kind, plug_label(p.cable.a), plug_label(p.cable.b));
    if (p.cable.a.port.empty() && !p.cable.a.interface.empty())
      label =
          fmt::format("{}: {}\n{} / {}", p.label, kind, p.cable.a.interface, p.cable.b.interface);
    body += fmt::format(
        "  {} -- {} [label={}, color=darkorange, fontcolor=darkorange, style=dashed, "
        "penwidth=2];\n",
        dot_quote(p.cable.a.host), dot_quote(p.cable.b.host), dot_quote(label));
  }
  for (const auto& f : o.flows)
    body +=
        fmt::format("  {} -- {} [label={}, dir=forward, color=blue, fontcolor=blue, penwidth=2];\n",
                    dot_quote(f.from), dot_quote(f.to), dot_quote(f.label));
  std::string title = o.title.empty() ? cluster.name : o.title;
  return render_template("cluster.dot",
                         {{"id", dot_quote(cluster.name.empty() ? "cluster" : cluster.name)},
                          {"title", dot_quote(title)},
                          {"body", body}});
}

}  // namespace meshplan
