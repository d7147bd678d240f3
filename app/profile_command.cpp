#include <memory>

#include "app/commands.hpp"
#include "app/topology_args.hpp"
#include "lib/core/error.hpp"
#include "lib/models/model_loader.hpp"
#include "solvers/problem/request_flags.hpp"
#include "solvers/problem/throughput_profile.hpp"

namespace meshplan {
namespace {

struct ProfileOptions {
  std::string cluster;
  std::string model;
  std::string quant;
  std::string hosts;
  std::string context = "4096";
  int streams = 1;
  bool json = false;
  std::string output;
};

// Every example is run by tests/profile_command_test.cpp.
constexpr const char* kProfileHelp =
    R"(Write the cost model's throughput profile: tokens/s per host while holding 1, 2, ... layers.

Examples:
  meshplan profile -c examples/clusters/mac-studio-m3-ultra-x4.yaml -m llama-3.3-70b-4bit
  meshplan profile -c examples/clusters/ethernet-5-node.yaml -m llama-3.3-70b-4bit --streams 8 --context 32k
  meshplan profile -c examples/clusters/ethernet-5-node.yaml -m qwen3-32b-4bit --hosts studio-1,studio-2 --json
  meshplan profile -c examples/clusters/mac-mini-m4-pro-x4.yaml -m llama-3.1-8b-4bit -o profile.yaml
  meshplan profile -c examples/clusters/mac-studio-m3-ultra-x4.yaml -m llama-3.1-8b --quant 8bit

For every host (or those of --hosts), entry k is the aggregate decode tokens/s of --streams
streams while the host holds k average layers of the model at --context, without the embedding
and LM head; the list ends at the most layers whose weights and KV fit in the host's usable
memory. A host that cannot hold one layer is left out, with a note on stderr. The output is the
profile format `plan --profile` reads (docs/throughput-profile.md): replace figures with
measured ones, or key a table by chip under chips: to cover every host of that chip.)";

int run_profile(const ProfileOptions& o, AppContext& ctx) {
  const int64_t context = token_count("--context", o.context);
  std::vector<std::string> hosts;
  if (!o.hosts.empty()) hosts = split_list(o.hosts);
  ModelDesc model = load_model(o.model, o.quant, ctx.fs);
  // The model as the user named it; with --quant, the name that says the quantization too.
  const std::string model_id = o.quant.empty() ? o.model : model.name;
  Cluster cluster = read_cluster_arg(ctx, o.cluster);
  CostModelProfile p =
      cost_model_profile(cluster, ctx.catalog, model, model_id, hosts, context, o.streams);
  for (const std::string& line : p.left_out)
    ctx.console.warn(line);
  if (p.profile.hosts.empty())
    throw failure("no host can hold one layer of {} with {} stream(s) at context {}", model_id,
                  o.streams, context);
  std::string text = write_throughput_profile(p.profile, o.json);
  if (o.output.empty())
    ctx.console.data(text);
  else
    write_output(ctx, o.output, text);
  return 0;
}

}  // namespace

void add_profile_command(CLI::App& app, AppContext& ctx) {
  auto o = std::make_shared<ProfileOptions>();
  CLI::App* sub = app.add_subcommand("profile", kProfileHelp);
  sub->add_option("-c,--cluster", o->cluster, "Cluster file (JSON or YAML, - for stdin)")
      ->required();
  sub->add_option("-m,--model", o->model,
                  "Model name (see `meshplan models`), model folder or config.json")
      ->required();
  sub->add_option("--quant", o->quant,
                  "Quantization, overriding the model name's (4bit, 8bit, bf16, ...); the profile "
                  "then names the model with it");
  sub->add_option("--streams", o->streams, "Streams each host decodes together (1 to 4096)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  sub->add_option("--context", o->context,
                  "Context length in tokens each stream's KV cache holds (32768, 32k, 128K)")
      ->capture_default_str();
  sub->add_option("--hosts", o->hosts, "Only these hosts, comma-separated (ranges: mac[1-4])");
  sub->add_flag("--json", o->json, "Write JSON instead of YAML");
  sub->add_option("-o,--output", o->output, "Write the profile here, atomically");
  sub->callback([o, &ctx] { ctx.run = [o, &ctx] { return run_profile(*o, ctx); }; });
}

}  // namespace meshplan
