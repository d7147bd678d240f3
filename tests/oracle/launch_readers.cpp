// The oracle's readers of mlx.launch, exo, llama.cpp RPC, torchrun and the MPI and DeepSpeed
// hostfiles.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/oracle/oracle_support.hpp"

namespace meshplan::oracle {
namespace {

// The text after "# rank N: " (or "# node N: "), up to a comma: the host a block is for.
std::optional<std::string> block_host(const std::string& line) {
  if (line.rfind("# rank ", 0) != 0 && line.rfind("# node ", 0) != 0) return std::nullopt;
  const size_t colon = line.find(": ");
  if (colon == std::string::npos) return std::nullopt;
  std::string rest = line.substr(colon + 2);
  if (rest.rfind("on ", 0) == 0) rest.erase(0, 3);
  return rest.substr(0, std::min(rest.find(','), rest.find(' ')));
}

}  // namespace

// mlx.launch (mlx/python/mlx/distributed_run.py): rank i is the hostfile's entry i. mlx-lm's
// --pipeline gives each rank its own equal share, rank 0 the last layers; without it the ranks
// split every layer's heads (mlx_lm/models/llama.py shard: n_heads //= N, n_kv_heads //= N).
void read_mlx(const std::string& hostfile, const std::string& launch, LaunchReading& out,
              const ReadContext& ctx) {
  if (hostfile.empty()) {  // one rank: mlx_lm.server on its host, no mlx.launch
    const size_t on = launch.find("run mlx_lm.server on "), end = launch.find(" itself");
    if (on == std::string::npos || end == std::string::npos) return;
    const std::string name = launch.substr(on + 21, end - on - 21);
    out.hosts.push_back({name, 1, std::pair{0, ctx.model.num_layers()}, std::nullopt});
    return;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(hostfile);
  } catch (const std::exception& e) {
    ctx.flag("mlx-hostfile", std::string("not JSON: ") + e.what());
    return;
  }
  std::vector<std::string> ranks;
  for (const auto& h : j.value("hosts", nlohmann::json::array())) {
    const Host* host = find_host(ctx.cluster, h.value("ssh", ""));
    if (!host) {
      ctx.flag("unknown-host", h.value("ssh", ""));
      continue;
    }
    if (std::find(ranks.begin(), ranks.end(), host->name) != ranks.end() && host->gpus.empty())
      ctx.flag("mlx-one-rank-per-host", host->name + " has two ranks");
    ranks.push_back(host->name);
  }
  const int size = static_cast<int>(ranks.size()), layers = ctx.model.num_layers();
  const bool pipeline = launch.find("--pipeline") != std::string::npos;
  if (!pipeline && size > 1) {
    out.tp = size;
    if ((ctx.model.num_heads % size != 0) || (ctx.model.num_kv_heads % size != 0))
      ctx.flag("mlx-tp-heads",
               fmt::format("{} ranks do not divide {}'s {} heads and {} KV heads", size,
                           ctx.model.name, ctx.model.num_heads, ctx.model.num_kv_heads));
  }
  if (pipeline) out.pp = size;
  std::vector<bool> covered(static_cast<size_t>(layers), false);
  for (int r = 0; r < size; ++r) {
    auto range = pipeline ? mlx_pipeline_range(layers, size, r) : std::pair{0, layers};
    for (int l = range.first; l < range.second; ++l)
      covered[static_cast<size_t>(l)] = true;
    auto same = std::find_if(out.hosts.begin(), out.hosts.end(), [&](const EngineHost& e) {
      return e.host == ranks[static_cast<size_t>(r)];
    });
    if (same != out.hosts.end()) {
      same->processes += 1;
      continue;
    }
    EngineHost h{ranks[static_cast<size_t>(r)], 1, range, std::nullopt};
    if (range.second <= range.first) h.layers.reset();
    out.hosts.push_back(h);
  }
  if (pipeline && std::find(covered.begin(), covered.end(), false) != covered.end())
    ctx.flag("mlx-orphaned-layers",
             fmt::format("--pipeline over {} ranks leaves layers of {} ({} layers) to no rank",
                         size, ctx.model.name, layers));
}

// exo (exo/main.py): every host runs exo in one namespace; one of them is forced master.
void read_exo(const std::string& text, LaunchReading& out, const ReadContext& ctx) {
  std::string host;
  int masters = 0;
  for (const std::string& line : lines_of(text)) {
    if (auto h = block_host(line)) host = *h;
    auto c = line.rfind('#', 0) == 0 ? std::nullopt : read_command(line, {"exo"});
    if (!c) continue;
    if (c->flag("--force-master")) {
      ++masters;
      if (!out.hosts.empty()) ctx.flag("exo-one-master", host + " is forced master but not rank 0");
    }
    out.hosts.push_back({host, 1, std::nullopt, std::nullopt});
  }
  if (out.hosts.size() > 1 && masters != 1)
    ctx.flag("exo-one-master", fmt::format("{} hosts forced master", masters));
}

// llama.cpp RPC (tools/rpc/README.md, src/llama-model.cpp): every rpc-server exposes all of its
// host's accelerators; the devices are the --rpc servers' in order, then the main host's own; a
// layer goes to the device of llama_layer_devices.
void read_llama_rpc(const std::string& text, LaunchReading& out, const ReadContext& ctx) {
  std::map<std::string, std::string> server_host;  // "addr:port" -> host
  std::string host, main_host;
  std::optional<Command> main;
  for (const std::string& line : lines_of(text)) {
    if (auto h = block_host(line)) host = *h;
    if (line.rfind('#', 0) == 0) continue;
    if (auto c = read_command(line, {"rpc-server"})) {
      const std::string addr = c->option({"-H", "--host"}).value_or("127.0.0.1");
      const Host* h = find_host(ctx.cluster, host);
      // An address on none of the file's interfaces may be one `setup` gives a Thunderbolt
      // cable (its /30 plan): only another host's address is surely wrong.
      const Host* owner = nullptr;
      for (const Host& other : ctx.cluster.hosts)
        if (interface_with_address(other, addr)) owner = &other;
      if (h && owner && owner != h)
        ctx.flag("llama-rpc-address", fmt::format("rpc-server -H {} on {} is an address of {}",
                                                  addr, host, owner->name));
      server_host[addr + ":" + c->option({"-p", "--port"}).value_or("50052")] = host;
    } else if (auto m = read_command(line, {"llama-server", "llama-cli"})) {
      main = m;
      main_host = host;
    }
  }
  const Host* head = find_host(ctx.cluster, main_host);
  if (!main || !head) return;
  std::vector<std::string> device_host;
  std::istringstream rpc(main->option({"--rpc"}).value_or(""));
  std::string endpoint;
  bool main_has_server = false;
  while (std::getline(rpc, endpoint, ',')) {
    auto it = server_host.find(endpoint);
    const Host* h = it == server_host.end() ? nullptr : find_host(ctx.cluster, it->second);
    if (!h) {
      ctx.flag("llama-rpc-endpoints", "--rpc " + endpoint + " is no rpc-server of the script");
      continue;
    }
    main_has_server = main_has_server || h == head;
    for (int d = 0; d < device_count(*h); ++d)
      device_host.push_back(h->name);
  }
  if (!main_has_server)
    for (int d = 0; d < device_count(*head); ++d)
      device_host.push_back(head->name);
  std::vector<double> split;
  std::istringstream in(main->option({"--tensor-split", "-ts"}).value_or(""));
  for (std::string item; std::getline(in, item, ',');)
    split.push_back(std::atof(item.c_str()));
  const int layers = ctx.model.num_layers();
  if (split.empty() && device_host.size() == 1) split = {1.0};
  if (split.empty()) return;  // llama.cpp splits by free device memory: not fixed by the files
  if (split.size() != device_host.size()) {
    ctx.flag("llama-tensor-split-count", fmt::format("--tensor-split has {} entries for {} devices",
                                                     split.size(), device_host.size()));
    return;
  }
  if (int_option(*main, {"-ngl", "--n-gpu-layers"}, 0, ctx) < layers + 1)
    ctx.flag("llama-ngl",
             fmt::format("-ngl below {}: layers stay on the main host's CPU", layers + 1));
  const std::vector<int> device = llama_layer_devices(layers, split);
  if (device_host[static_cast<size_t>(device.back())] != head->name)
    ctx.flag("llama-output-on-main",
             "the output layer lands on " + device_host[static_cast<size_t>(device.back())]);
  for (int l = 0; l < layers; ++l) {
    const std::string& h = device_host[static_cast<size_t>(device[static_cast<size_t>(l)])];
    auto it = std::find_if(out.hosts.begin(), out.hosts.end(),
                           [&](const EngineHost& e) { return e.host == h; });
    if (it == out.hosts.end()) {
      out.hosts.push_back({h, 1, std::pair{l, l + 1}, std::nullopt});
    } else {
      if (it->layers->second != l)
        ctx.flag("llama-host-layers", h + "'s layers are not contiguous");
      it->layers->second = l + 1;
    }
  }
}

// Open MPI (`HOST slots=N`), MPICH (`HOST:N`) and DeepSpeed (`HOST slots=N`): N processes on
// the host, one per GPU.
void read_hostfile(const std::string& name, const std::string& text, LaunchReading& out,
                   const ReadContext& ctx) {
  for (std::string line : lines_of(text)) {
    line = line.substr(0, line.find('#'));
    const std::vector<std::string> words = shell_words(line);
    if (words.empty()) continue;
    std::string host = words[0];
    int slots = 1;
    if (name == "mpich.hostfile" && host.find(':') != std::string::npos) {
      slots = std::atoi(host.substr(host.find(':') + 1).c_str());
      host = host.substr(0, host.find(':'));
    }
    for (const std::string& w : words)
      if (w.rfind("slots=", 0) == 0) slots = std::atoi(w.substr(6).c_str());
    const Host* h = find_host(ctx.cluster, host);
    if (!h) {
      ctx.flag("unknown-host", host);
      continue;
    }
    if (slots != device_count(*h))
      ctx.flag("mpi-slots-gpus",
               fmt::format("{} slots on {}, which has {} GPUs", slots, h->name, device_count(*h)));
    out.hosts.push_back({h->name, slots, std::nullopt, std::nullopt});
  }
}

// torchrun (torch/distributed/run.py): --nproc-per-node processes on every node, node ranks in
// order, rendezvous at node 0's --master-addr.
void read_torchrun(const std::string& text, LaunchReading& out, const ReadContext& ctx) {
  std::string host;
  for (const std::string& line : lines_of(text)) {
    if (auto h = block_host(line)) host = *h;
    auto c = line.rfind('#', 0) == 0 ? std::nullopt : read_command(line, {"torchrun"});
    const Host* h = find_host(ctx.cluster, host);
    if (!c || !h) continue;
    const int nproc = int_option(*c, {"--nproc-per-node", "--nproc_per_node"}, 1, ctx);
    if (nproc != device_count(*h))
      ctx.flag("torchrun-nproc-gpus", fmt::format("--nproc-per-node {} on {}, which has {} GPUs",
                                                  nproc, h->name, device_count(*h)));
    if (int_option(*c, {"--node-rank", "--node_rank"}, 0, ctx) !=
        static_cast<int>(out.hosts.size()))
      ctx.flag("torchrun-node-rank", h->name + "'s --node-rank is not its place");
    check_network_env(c->env, *h, ctx);
    out.hosts.push_back({h->name, nproc, std::nullopt, std::nullopt});
  }
}

}  // namespace meshplan::oracle
