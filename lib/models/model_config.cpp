#include "lib/models/model_config.hpp"

#include <fmt/format.h>

#include <array>

#include "lib/core/error.hpp"
#include "lib/models/arch_fields.hpp"

namespace meshplan {
namespace {

using namespace arch;

constexpr std::array<std::string_view, 10> kTypes = {
    "llama",   "mistral",     "qwen2",   "qwen3",   "qwen3_moe",
    "mixtral", "deepseek_v3", "kimi_k2", "gpt_oss", "dbrx"};

bool supported(std::string_view type) {
  for (auto t : kTypes) {
    if (t == type) return true;
  }
  return false;
}

// One MLX quantization entry: {"bits", "group_size", "mode"}; `false` means left unquantized.
QuantSpec read_mlx_spec(const DocNode& q, int default_bits, int default_group,
                        const std::string& default_mode) {
  if (q.is_bool()) {
    if (q.as_bool()) return QuantSpec::affine(default_bits, default_group);
    return QuantSpec::bf16();
  }
  q.require_object();
  std::string mode = q.find("mode") ? q.at("mode").as_string() : default_mode;
  int bits = q.find("bits") ? static_cast<int>(q.at("bits").as_int()) : default_bits;
  int group = q.find("group_size") ? static_cast<int>(q.at("group_size").as_int()) : default_group;
  if (mode == "mxfp4") return QuantSpec::mxfp4();
  if (mode != "affine")
    q.fail(fmt::format("expected quantization mode \"affine\" or \"mxfp4\", got \"{}\"", mode));
  if (bits < 2 || bits > 8 || bits == 7)
    q.fail(fmt::format("expected bits of 2, 3, 4, 5, 6 or 8, got {}", bits));
  if (group < 16 || group > 1024 || (group & (group - 1)) != 0)
    q.fail(
        fmt::format("expected a group_size that is a power of two from 16 to 1024, got {}", group));
  return QuantSpec::affine(bits, group);
}

// MLX writes "quantization" (and a copy as "quantization_config"): default bits and group size
// plus per-module entries. Hugging Face releases name their format in "quantization_config".
void read_quantization(const DocNode& root, ArchConfig& c) {
  const DocNode* q = root.find("quantization");
  if (q && !q->is_null()) {
    q->require_object();
    std::string mode = q->find("mode") ? q->at("mode").as_string() : "affine";
    int default_bits = 4, default_group = mode == "mxfp4" ? 32 : 64;
    QuantSpec base = read_mlx_spec(*q, default_bits, default_group, mode);
    QuantScheme s;
    s.base = base;
    s.name = base.mode == QuantSpec::Mode::kMxfp4 ? "mxfp4"
             : base.group_size == 64              ? fmt::format("{}bit", base.bits)
                                     : fmt::format("{}bit-g{}", base.bits, base.group_size);
    for (const auto& [path, v] : q->fields()) {
      if (!v.is_object() && !v.is_bool()) continue;
      s.overrides.emplace_back(path + ".weight",
                               read_mlx_spec(v, base.bits, base.group_size, mode));
    }
    if (!s.overrides.empty()) s.name += "-mixed";
    s.router = RouterQuant::kBase;  // per-module entries say exactly what the files hold
    c.quantization = s;
    return;
  }
  const DocNode* hf = root.find("quantization_config");
  if (!hf || hf->is_null()) return;
  hf->require_object();
  std::string method = hf->find("quant_method") ? hf->at("quant_method").as_string() : "";
  if (method == "fp8") {
    c.quantization = quant_scheme("fp8");
  } else if (method == "mxfp4") {
    c.quantization = quant_scheme("mxfp4-bf16");
  } else {
    c.unsupported_quantization = method.empty() ? "an unnamed quant_method" : method;
  }
}

}  // namespace

std::string supported_architectures() {
  std::string list;
  for (auto t : kTypes)
    list += fmt::format("{}{}", list.empty() ? "" : ", ", t);
  return list;
}

ArchConfig read_arch_config(const DocNode& root) {
  root.require_object();
  // Multimodal wrappers keep the language model under text_config.
  const DocNode* text = root.find("text_config");
  const DocNode& cfg = text && !text->is_null() ? text->require_object() : root;
  ArchConfig c;
  const DocNode& type = cfg.find("model_type") ? cfg.at("model_type") : root.at("model_type");
  c.model_type = type.as_string();
  if (!supported(c.model_type))
    type.fail(fmt::format("unknown architecture \"{}\"; supported: {}", c.model_type,
                          supported_architectures()));
  if (const DocNode* d = cfg.find("torch_dtype"); d && d->is_string())
    c.torch_dtype = d->as_string();
  if (c.torch_dtype.empty()) {
    if (const DocNode* d = cfg.find("dtype"); d && d->is_string()) c.torch_dtype = d->as_string();
  }

  if (c.model_type == "dbrx") {
    read_dbrx(cfg, c);
  } else {
    c.hidden_size = read_dim(cfg, "hidden_size", kMaxDim);
    c.num_layers = read_dim(cfg, "num_hidden_layers", kMaxLayers);
    c.num_heads = read_dim(cfg, "num_attention_heads", kMaxHeads);
    c.num_kv_heads = read_dim_or(cfg, "num_key_value_heads", kMaxHeads, c.num_heads);
    if (c.num_kv_heads == 0 || c.num_heads % c.num_kv_heads != 0)
      cfg.at("num_key_value_heads")
          .fail(fmt::format("expected a divisor of num_attention_heads ({}), got {}", c.num_heads,
                            c.num_kv_heads));
    c.head_dim = read_dim_or(cfg, "head_dim", kMaxHeads, c.hidden_size / c.num_heads);
    if (c.head_dim == 0)
      cfg.at("num_attention_heads")
          .fail("the head dimension (hidden_size / num_attention_heads) is 0");
    c.intermediate_size = read_dim(cfg, "intermediate_size", kMaxDim);
    c.vocab_size = read_dim(cfg, "vocab_size", kMaxVocab);
    c.tie_embeddings = read_bool_or(cfg, "tie_word_embeddings", false);
    c.attention_bias = read_bool_or(cfg, "attention_bias", c.model_type == "qwen2");
    c.qk_norm = c.model_type == "qwen3" || c.model_type == "qwen3_moe";
    read_sliding_window(cfg, c);
    if (c.model_type == "deepseek_v3" || c.model_type == "kimi_k2")
      read_deepseek(cfg, c);
    else if (c.model_type == "qwen3_moe")
      read_qwen_moe(cfg, c);
    else if (c.model_type == "mixtral")
      read_mixtral(cfg, c);
    else if (c.model_type == "gpt_oss")
      read_gpt_oss(cfg, c);
  }
  if (c.is_moe() && c.experts_per_token > c.num_experts)
    cfg.fail(fmt::format("num_experts_per_tok ({}) exceeds the number of experts ({})",
                         c.experts_per_token, c.num_experts));
  for (const char* key : {"max_position_embeddings", "max_seq_len"})
    if (const DocNode* v = cfg.find(key); v && c.max_context == 0) {
      c.max_context = v->as_int();
      if (c.max_context <= 0)
        v->fail(fmt::format("expected a positive number of tokens, got {}", v->text()));
    }
  if (c.sliding_window.size() != static_cast<size_t>(c.num_layers))
    c.sliding_window.assign(static_cast<size_t>(c.num_layers), 0);
  read_quantization(root, c);
  return c;
}

uint64_t kv_bytes_per_token(const ArchConfig& c, int layer) {
  (void)layer;
  // bf16 cache: MLA keeps the compressed latent and the rope key; GQA keeps K and V per KV head.
  if (c.mla) return static_cast<uint64_t>(c.kv_lora_rank + c.qk_rope_head_dim) * 2;
  return 2ull * static_cast<uint64_t>(c.num_kv_heads) * static_cast<uint64_t>(c.head_dim) * 2;
}

}  // namespace meshplan
