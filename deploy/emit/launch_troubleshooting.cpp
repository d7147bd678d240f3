#include "deploy/emit/launch_troubleshooting.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "deploy/emit/replica_launch.hpp"
#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/llama_rpc.hpp"
#include "deploy/writers/mlx_cuda_hostfile.hpp"
#include "deploy/writers/mlx_env.hpp"
#include "deploy/writers/mlx_launch.hpp"
#include "deploy/writers/nccl_env.hpp"
#include "deploy/writers/ray_cluster.hpp"
#include "deploy/writers/torchrun_launch.hpp"
#include "deploy/writers/vllm_launch.hpp"
#include "lib/cluster/mlx_backend.hpp"
#include "lib/plan/engine_kind.hpp"
#include "topologies/backend_rules.hpp"
#include "topologies/mlx_hostfile_builder.hpp"
#include "topologies/subnet_plan.hpp"

namespace meshplan {
namespace {

// One launch: its input, layout and which of its files were written.
struct Launch {
  const EmitInput& in;
  const LaunchLayout& layout;
  const std::map<std::string, std::string>& files;
  std::string_view folder;
  std::string_view heading;

  bool has(std::string_view file) const {
    return files.count(std::string(folder) + std::string(file)) > 0;
  }
  const std::string& name(size_t node) const { return layout.nodes[node].host->name; }
  std::string title(std::string_view text) const {
    return fmt::format("\n### {}{}\n\n", heading, text);
  }
  // "hgx-b connects" / "node-c, node-a connect": every node but `skip`.
  std::string others_connect(size_t skip) const {
    std::vector<std::string> names;
    for (size_t i = 0; i < layout.nodes.size(); ++i)
      if (i != skip) names.push_back(name(i));
    return fmt::format("{} {}", fmt::join(names, ", "), names.size() == 1 ? "connects" : "connect");
  }
  bool any_mac() const {
    return std::any_of(layout.nodes.begin(), layout.nodes.end(),
                       [](const LaunchNode& n) { return n.mac; });
  }
};

// The engines that start NCCL (Gloo beside it) between the hosts, by the file that launches them.
constexpr std::pair<std::string_view, std::string_view> kNcclEngines[] = {
    {"vllm.sh", "vLLM"},
    {"ray-cluster.yaml", "vLLM on Ray"},
    {"torchrun.sh", "torchrun"},
    {"deepspeed.hostfile", "DeepSpeed"},
    {"openmpi.hostfile", "MPI programs"},
};

// The MLX hostfile `emit all` writes (emit_formats.cpp): nccl on NVIDIA hosts, else the checked
// backend with mlx-lm's rank order.
MlxHostfile mlx_hostfile_of(const Launch& l) {
  if (mlx_runs_nccl(l.layout)) return build_mlx_cuda_hostfile(l.layout, l.in.envs);
  const CheckReport report = mlx_rank_report(l.in);
  return build_mlx_hostfile(l.in.topology, require_valid(report), l.in.envs);
}

bool mlx_nccl(const Launch& l) {
  return l.has("mlx-launch.sh") && !l.any_mac() && mlx_runs_nccl(l.layout);
}

std::vector<std::string> nccl_engines(const Launch& l) {
  std::vector<std::string> out;
  for (const auto& [file, engine] : kNcclEngines)
    if (l.has(file)) out.emplace_back(engine);
  if (mlx_nccl(l)) out.emplace_back("MLX");
  return out;
}

// The network of each address the Linux hosts use (management and data), "10.9.0.0/24 (ib0)",
// a direct cable's /30 from `meshplan setup`, or the address alone when its prefix is unknown.
std::vector<std::pair<std::string, std::string>> linux_networks(const TopologyContext& topology,
                                                                const LaunchLayout& layout) {
  std::vector<std::pair<std::string, std::vector<std::string>>> nets;
  auto add = [&](const LaunchNode& n, const std::string& iface, const std::string& address) {
    if (address.empty()) return;
    std::string cidr = direct_cable_subnet(topology, address);
    if (cidr.empty()) cidr = address + "/32";
    const NetInterface* i = n.host->find_interface(iface);
    const auto ip = parse_ipv4_number(address);
    if (i && ip && i->ipv4 == address && i->prefix > 0 && i->prefix <= 32)
      cidr = fmt::format("{}/{}", ipv4_text(*ip & (~uint32_t{0} << (32 - i->prefix))), i->prefix);
    auto at =
        std::find_if(nets.begin(), nets.end(), [&](const auto& e) { return e.first == cidr; });
    if (at == nets.end()) at = nets.insert(nets.end(), {cidr, {}});
    if (std::find(at->second.begin(), at->second.end(), iface) == at->second.end())
      at->second.push_back(iface);
  };
  for (const LaunchNode& n : layout.nodes)
    if (!n.mac) {
      add(n, n.interface, n.address);
      add(n, n.data_interface, n.data_address);
    }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [cidr, ifaces] : nets)
    out.emplace_back(cidr, fmt::format("{}", fmt::join(ifaces, ", ")));
  return out;
}

std::string firewall(const Launch& l, bool nccl) {
  std::vector<std::string> linux_hosts, macs;
  for (const LaunchNode& n : l.layout.nodes)
    (n.mac ? macs : linux_hosts).push_back(n.host->name);
  std::string out = l.title("Firewall (every engine below)");
  if (!linux_hosts.empty()) {
    std::vector<std::string> named, ufw, firewalld;
    for (const auto& [cidr, ifaces] : linux_networks(l.in.topology, l.layout)) {
      named.push_back(fmt::format("{} ({})", cidr, ifaces));
      ufw.push_back(fmt::format("`sudo ufw allow from {} proto tcp`", cidr));
      firewalld.push_back(
          fmt::format("`sudo firewall-cmd --permanent --zone=trusted --add-source={}`", cidr));
    }
    out += fmt::format(
        "- One rule fixes every port below: on {}, allow TCP from the other hosts on {}: {} "
        "(firewalld: {}, then `sudo firewall-cmd --reload`).",
        fmt::join(linux_hosts, ", "), fmt::join(named, " and "), fmt::join(ufw, " and "),
        fmt::join(firewalld, " and "));
    if (nccl)
      out +=
          " Opening only the ports below is not enough: NCCL, Gloo and vLLM's ZMQ sockets also "
          "listen on ephemeral ports (the hosts' `sysctl net.ipv4.ip_local_port_range`).";
    out += "\n";
  }
  if (!macs.empty())
    out += fmt::format(
        "- On {}, with the macOS firewall on: allow incoming connections for the program that "
        "listens (`python3` for MLX, `rpc-server` for llama.cpp) in System Settings › Network › "
        "Firewall › Options.\n",
        fmt::join(macs, ", "));
  return out;
}

// What NCCL_DEBUG=INFO prints on node `i` when it uses the launch's variables (nccl_variables).
std::string nccl_expected(const LaunchLayout& layout, size_t i) {
  std::string iface, hcas, given;
  for (const auto& [key, value] : nccl_variables(layout, i)) {
    if (key == "GLOO_SOCKET_IFNAME") continue;
    given += fmt::format("{}`{}={}`", given.empty() ? "" : ", ", key, value);
    const std::string bare = value.rfind('=', 0) == 0 ? value.substr(1) : value;
    (key == "NCCL_SOCKET_IFNAME" ? iface : hcas) = bare;
  }
  const std::string& address = layout.nodes[i].data_address;
  const std::string at =
      fmt::format("{}:{}<0>", iface, address.empty() ? "ITS_ADDRESS" : address.c_str());
  std::string line = fmt::format("NCCL INFO NET/Socket : Using [0]{}", at);
  if (!hcas.empty()) {
    line = "NCCL INFO NET/IB : Using";
    size_t k = 0, start = 0;
    for (size_t comma; start <= hcas.size(); start = comma + 1, ++k) {
      comma = std::min(hcas.find(',', start), hcas.size());
      line += fmt::format(" [{}]{}/IB", k, hcas.substr(start, comma - start));
    }
    line += " ; OOB " + at;
  }
  return fmt::format("  - {} ({}): `{}`\n", layout.nodes[i].host->name, given, line);
}

std::string nccl_section(const Launch& l, const std::vector<std::string>& engines) {
  const LaunchLayout& layout = l.layout;
  bool rdma = false;
  std::string out = l.title(fmt::format("NCCL ({})", fmt::join(engines, ", ")));
  out +=
      "- Put `NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET` in front of each host's command "
      "(DeepSpeed: in `.deepspeed_env`; mlx.launch: `--env`). NCCL's first lines must name the "
      "interface and HCAs of the launch's variables:\n";
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    out += nccl_expected(layout, i);
    rdma = rdma || nccl_variables(layout, i).size() > 2;
  }
  if (rdma) out += "  (`/RoCE` in place of `/IB` where the HCAs run RoCE.)\n";
  out += fmt::format(
      "- Another interface or HCA there: the variables above did not reach the process (set them "
      "in the shell or container that starts it{}).{}\n",
      l.has("nccl-env.sh") ? "; `nccl-env.sh` has each host's" : "",
      rdma ? " `NET/Socket` where `NET/IB` is expected: NCCL could not open the HCAs "
             "(`ibv_devinfo` on the host; a container needs `/dev/infiniband`)."
           : "");
  out += fmt::format(
      "- Hang at rendezvous: no NCCL line yet, the processes wait for each other (each engine's "
      "symptom below): a port or an address. Hang at the first all-reduce: NCCL's INIT and NET "
      "lines printed on every host, then nothing: the data network{}. `NCCL_P2P_DISABLE=1` only "
      "stops GPU-to-GPU copies inside a host: it is not the cure across hosts.\n",
      rdma ? " or the HCAs; rerun with `NCCL_IB_DISABLE=1` to confirm: if it then starts (over "
             "sockets), the RDMA path is at fault (`ibstat` port state; on RoCE the GID, "
             "`NCCL_IB_GID_INDEX`)"
           : " between the data addresses above (a route, the MTU, the firewall rule)");
  return out;
}

// `nc -zv ADDRESS PORT` from `from`: the test that the port is open.
std::string probe(std::string_view from, const std::string& address, int port) {
  return fmt::format("from {}, `nc -zv {} {}` must connect", from, address, port);
}

std::string vllm_section(const Launch& l) {
  const std::string master = rendezvous_address(
      l.layout, 0, "vLLM's master (node rank 0) needs an address every node reaches");
  const int port = launch_port(l.in, kVllmDefaultMasterPort);
  const ServingEndpoint api = serving_endpoint(l.in, l.layout, name(EngineKind::kVllm));
  return l.title("vLLM (`vllm.sh`)") +
         fmt::format(
             "- Ports: {} to `{}:{}` on {} (`--master-addr`, `--master-port`); clients reach its "
             "API on `{}:{}`. The nodes also open ZMQ and Gloo sockets to each other's "
             "`VLLM_HOST_IP` on ephemeral ports.\n"
             "- Rendezvous: node 0 waits for the `--headless` nodes to connect, or torch's "
             "`TCPStore` times out on them: {} while {} waits.\n",
             l.others_connect(0), master, port, l.name(0),
             served_address(l.layout, api.node, "vLLM's API"), api.port,
             probe(l.name(l.layout.nodes.size() - 1), master, port), l.name(0));
}

std::string ray_section(const Launch& l) {
  // As ray-cluster.yaml writes it: with vLLM on Ray, on the interface NCCL and Gloo use.
  const std::string why = "Ray's head (rank 0) needs an address every node reaches";
  const std::string head =
      ray_runs_an_engine(l.in) ? rendezvous_address(l.layout, 0, why) : l.layout.reachable(0, why);
  const int port = launch_port(l.in, kRayDefaultPort);
  return l.title("Ray (`ray-cluster.yaml`)") +
         fmt::format(
             "- Ports: {} to Ray's GCS at `{}:{}` on {} (`ray start --address`); the raylets and "
             "object managers then connect to each other on further ports.\n"
             "- Rendezvous: a worker's `ray start` cannot reach the GCS, or `ray status` on {} "
             "lists fewer than {} nodes: {}. Ray refuses a node of another Ray or Python "
             "version.\n",
             l.others_connect(0), head, port, l.name(0), l.name(0), l.layout.nodes.size(),
             probe(l.name(l.layout.nodes.size() - 1), head, port));
}

// torchrun and DeepSpeed: every node reaches rank 0's TCPStore.
std::string torch_section(const Launch& l, bool deepspeed) {
  // As each launcher writes it: on the data interface NCCL and Gloo use.
  const std::string why = "torchrun's master (rank 0) needs an address every node reaches";
  const std::string master = rendezvous_address(l.layout, 0, why);
  const int port = launch_port(l.in, kTorchrunDefaultPort);
  const std::string last = l.name(l.layout.nodes.size() - 1);
  if (!deepspeed)
    return l.title("torchrun (`torchrun.sh`)") +
           fmt::format(
               "- Ports: {} to `{}:{}` on {} (`--master_addr`, `--master_port`: torch's "
               "`TCPStore`).\n"
               "- Rendezvous: no NCCL line and torch's `TCPStore` times out (`DistNetworkError`): "
               "{} while {} waits.\n",
               l.others_connect(0), master, port, l.name(0), probe(last, master, port), l.name(0));
  std::vector<std::string> ssh;
  for (size_t i = 1; i < l.layout.nodes.size(); ++i)
    ssh.push_back(fmt::format("`ssh {} true`", l.layout.nodes[i].ssh));
  return l.title("DeepSpeed (`deepspeed.hostfile`)") +
         fmt::format(
             "- Ports: DeepSpeed's launcher on {} opens ssh (port 22) to the others; then {} to "
             "`{}:{}` on {} (`--master_addr`, `--master_port`).\n"
             "- Rendezvous: on {}, {} must run without a prompt; a `TCPStore` timeout after that "
             "is the port, as with torchrun: {}.\n",
             l.name(0), l.others_connect(0), master, port, l.name(0), l.name(0),
             fmt::join(ssh, ", "), probe(last, master, port));
}

std::string mpi_section(const Launch& l) {
  const LaunchLayout& layout = l.layout;
  const size_t n = layout.nodes.size();
  const std::string& iface = layout.nodes[0].data_interface;
  const bool one_iface =
      std::all_of(layout.nodes.begin(), layout.nodes.end(),
                  [&](const LaunchNode& node) { return node.data_interface == iface; });
  std::string pin;
  if (one_iface && l.has("openmpi.hostfile"))
    pin +=
        fmt::format("Open MPI `--mca oob_tcp_if_include {0} --mca btl_tcp_if_include {0}`", iface);
  if (one_iface && l.has("mpich.hostfile"))
    pin += fmt::format("{}MPICH `-iface {}`", pin.empty() ? "" : ", ", iface);
  // A process per host, whatever the slots, so that every host answers.
  const std::string openmpi =
      fmt::format("`mpirun --hostfile openmpi.hostfile --map-by node -np {} hostname`", n);
  const std::string mpich = fmt::format("`mpiexec -f mpich.hostfile -ppn 1 -n {} hostname`", n);
  const std::string test = !l.has("openmpi.hostfile") ? mpich
                           : l.has("mpich.hostfile")  ? openmpi + " (MPICH: " + mpich + ")"
                                                      : openmpi;
  return l.title("MPI (`openmpi.hostfile`, `mpich.hostfile`)") +
         fmt::format(
             "- Ports: mpirun on {} opens ssh (port 22) to the others and the daemons it starts "
             "there connect back to it on ephemeral ports.{}\n"
             "- Rendezvous: {} must print every host; when it does, a hang after that is the "
             "program's (NCCL above).\n",
             l.name(0), pin.empty() ? "" : fmt::format(" Keep them on {}: {}.", iface, pin), test);
}

std::string llama_section(const Launch& l) {
  const LlamaRpcLaunch launch = llama_rpc_launch(l.in, l.layout);
  const size_t main = l.layout.nodes.size() - 1;
  std::vector<std::string> to;
  for (size_t i = 0; i < launch.servers.size(); ++i)
    to.push_back(fmt::format("`{}` ({})", launch.endpoints[i], l.name(i)));
  const std::string& first = launch.servers.front()[2];
  const std::string& port = launch.servers.front()[4];
  return l.title("llama.cpp RPC (`llama-rpc.sh`)") +
         fmt::format(
             "- Ports: llama-server on {} connects to each rpc-server: {}. No NCCL: nothing else "
             "crosses between the hosts.\n"
             "- Hang: llama-server stops before loading the model or cannot connect: from {}, "
             "`nc -zv {} {}` must connect (rpc-server listens only on its `-H` address). "
             "rpc-server and llama-server must come from one llama.cpp version: the RPC protocol "
             "changes between versions.\n",
             l.name(main), fmt::join(to, ", "), l.name(main), first, port);
}

std::string mlx_section(const Launch& l) {
  const MlxHostfile hostfile = mlx_hostfile_of(l);
  const std::string backend = mlx_launch_backend(hostfile);
  // One line per listener, address and port: the hosts that connect to it, its own left out.
  std::vector<std::string> lines;
  std::vector<std::pair<std::string, std::vector<std::string>>> seen;
  for (const MlxConnection& c : mlx_connections(hostfile, l.in.env_options)) {
    const std::string& listener = hostfile.hosts[c.listener].ssh;
    const std::string& connector = hostfile.hosts[c.connector].ssh;
    if (listener == connector) continue;
    const std::string key = fmt::format("`{}:{}` on {}", c.address, c.port, listener);
    auto at = std::find_if(seen.begin(), seen.end(), [&](const auto& e) { return e.first == key; });
    if (at == seen.end()) at = seen.insert(seen.end(), {key, {}});
    if (std::find(at->second.begin(), at->second.end(), connector) == at->second.end())
      at->second.push_back(connector);
  }
  for (const auto& [key, from] : seen)
    lines.push_back(fmt::format("{} {} to {}", fmt::join(from, ", "),
                                from.size() == 1 ? "connects" : "connect", key));
  const bool ring = is_backend(backend, MlxBackend::kRing);
  const bool nccl = is_backend(backend, MlxBackend::kNccl);
  std::string out = l.title("MLX (`mlx-launch.sh`)");
  out += fmt::format("- Ports ({}): {}.\n",
                     ring   ? "ring, one per address from `--starting-port`, each from the rank "
                              "before"
                     : nccl ? "nccl, rank 0's `NCCL_HOST_IP:NCCL_PORT`, `--nccl-port`"
                            : "the JACCL coordinator, `--starting-port`",
                     fmt::join(lines, "; "));
  if (ring)
    out +=
        "- Hang: `mlx.launch --verbose` (MLX_RING_VERBOSE=1) prints each connection as it is "
        "made; the rank that stops names the address it waits for.\n";
  else if (nccl)
    out += "- Hang: `mlx.launch --env NCCL_DEBUG=INFO`, then the NCCL lines above.\n";
  else
    out +=
        "- Hang: every rank reaches the coordinator first; a hang after that is the RDMA "
        "devices: `ibv_devices` on each Mac lists its `rdma_en*`, and RDMA must be enabled "
        "(`rdma_ctl enable` in recovery mode).\n";
  return out;
}

}  // namespace

std::string troubleshooting_sections(const EmitInput& in,
                                     const std::map<std::string, std::string>& files,
                                     std::string_view folder, std::string_view heading) {
  const LaunchLayout& layout = in.layout();
  if (layout.nodes.size() < 2) return "";
  const Launch l{in, layout, files, folder, heading};
  const std::vector<std::string> nccl = nccl_engines(l);
  // In the order of the guide's steps.
  std::string engines;
  if (l.has("mlx-launch.sh")) engines += mlx_section(l);
  if (l.has("llama-rpc.sh")) engines += llama_section(l);
  if (l.has("torchrun.sh")) engines += torch_section(l, false);
  if (l.has("deepspeed.hostfile")) engines += torch_section(l, true);
  if (l.has("openmpi.hostfile") || l.has("mpich.hostfile")) engines += mpi_section(l);
  if (l.has("vllm.sh")) engines += vllm_section(l);
  if (l.has("ray-cluster.yaml")) engines += ray_section(l);
  if (engines.empty()) return "";
  return firewall(l, !nccl.empty()) + (nccl.empty() ? "" : nccl_section(l, nccl)) + engines;
}

std::string troubleshooting_section(const std::string& sections) {
  if (sections.empty()) return "";
  return "\n## If start-up hangs\n\nMost start-ups across hosts that hang have a closed port, the "
         "wrong interface, or versions that differ between the hosts: run the same versions of the "
         "engine and its Python packages on every host.\n" +
         sections;
}

std::string render_launch_troubleshooting(const EmitInput& in,
                                          const std::map<std::string, std::string>& files) {
  return troubleshooting_section(troubleshooting_sections(in, files));
}

}  // namespace meshplan
