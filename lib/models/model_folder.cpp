#include "lib/models/model_folder.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

#include "lib/core/error.hpp"
#include "lib/models/model_builder.hpp"
#include "lib/models/model_config.hpp"
#include "lib/models/safetensors.hpp"
#include "lib/models/tensor_naming.hpp"

namespace meshplan {
namespace {

std::string join(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

std::string base_name(std::string path) {
  while (path.size() > 1 && path.back() == '/')
    path.pop_back();
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string parent_dir(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string dtype_label(const std::string& dtype) {
  if (dtype == "BF16") return "bf16";
  if (dtype == "F16") return "fp16";
  if (dtype == "F32") return "fp32";
  if (dtype == "F8_E4M3" || dtype == "F8_E5M2") return "fp8";
  std::string out;
  for (char c : dtype)
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The stored tensors that make up one logical tensor.
struct Parts {
  TensorName name;
  const SafetensorsTensor* values = nullptr;  // plain or packed values
  const SafetensorsTensor* scales = nullptr;
  const SafetensorsTensor* biases = nullptr;
  uint64_t bytes = 0;
  std::string file;
};

// Group size of an MLX-quantized tensor: its per-module entry, else the config's default.
int mlx_group_size(const ArchConfig& c, const std::string& logical) {
  if (!c.quantization) return 64;
  for (const auto& [suffix, spec] : c.quantization->overrides) {
    if (std::string_view(logical).ends_with(suffix)) return spec.group_size;
  }
  return c.quantization->base.group_size > 0 ? c.quantization->base.group_size : 64;
}

// Logical shape, parameter count and storage label of one logical tensor.
TensorInfo logical_tensor(const Parts& p, const ArchConfig& c, int packed_bits) {
  const SafetensorsTensor& v = *p.values;
  TensorInfo t;
  t.name = p.name.logical;
  t.layer = p.name.layer;
  t.role = p.name.role;
  t.bytes = p.bytes;
  t.shape = v.shape;
  t.params = v.elements();
  t.dtype = dtype_label(v.dtype);
  auto fail = [&](const std::string& why) -> void {
    throw input_error("{}: tensor {}: {}", p.file, v.name, why);
  };
  if (std::string_view(v.name).ends_with("_blocks")) {
    // Two fp4 values per byte in blocks of 32: [..., groups, 16] -> [..., groups * 32].
    if (v.shape.size() < 2 || v.shape.back() != 16)
      fail("expected MXFP4 blocks of 16 bytes in the last dimension");
    t.shape.pop_back();
    t.shape.back() *= 32;
    t.params = v.elements() * 2;
    t.dtype = "mxfp4";
  } else if (std::string_view(v.name).ends_with(".weight_packed")) {
    if (v.dtype != "I32" || v.shape.empty()) fail("expected packed int32 values");
    const int per_word = 32 / packed_bits;
    t.shape.back() *= per_word;
    t.params = v.elements() * static_cast<uint64_t>(per_word);
    t.dtype = fmt::format("int{}", packed_bits);
  } else if (p.scales && (v.dtype == "U32" || v.dtype == "U8" || v.dtype == "I32")) {
    // MLX: packed uint32 values; uint8 scales without biases mean MXFP4, else affine with biases.
    const SafetensorsTensor& s = *p.scales;
    if (v.shape.empty() || s.shape.size() != v.shape.size())
      fail(fmt::format("scales {} do not match the packed values' rank", s.name));
    const bool mxfp4 = s.dtype == "U8" && !p.biases;
    const int group = mxfp4 ? 32 : mlx_group_size(c, p.name.logical);
    const int64_t in = s.shape.back() * group;
    const int64_t packed_bits_total = v.shape.back() * 32;
    if (in <= 0 || packed_bits_total % in != 0)
      fail(
          fmt::format("{} packed words and {} groups of {} do not give whole bits per value; check "
                      "quantization.group_size",
                      v.shape.back(), s.shape.back(), group));
    const int bits = static_cast<int>(packed_bits_total / in);
    if (bits < 2 || bits > 8 || (mxfp4 && bits != 4))
      fail(
          fmt::format("{} bits per value from {} packed words and {} groups of {}; expected 2 to 8",
                      bits, v.shape.back(), s.shape.back(), group));
    t.shape.back() = in;
    t.params = t.params / static_cast<uint64_t>(v.shape.back()) * static_cast<uint64_t>(in);
    t.dtype = mxfp4 ? "mxfp4" : fmt::format("q{}g{}", bits, group);
  } else if (p.scales && (v.dtype == "F8_E4M3" || v.dtype == "F8_E5M2")) {
    t.dtype = "fp8";
  }
  if (p.name.stacked) t.experts = c.num_experts;
  return t;
}

// Bits per packed value in compressed-tensors checkpoints (quantization_config.config_groups).
int compressed_tensors_bits(const DocNode& root) {
  const DocNode* cfg = root.find("text_config");
  for (const DocNode* n : {&root, cfg}) {
    if (!n || !n->is_object()) continue;
    const DocNode* q = n->find("quantization_config");
    if (!q || !q->is_object()) continue;
    const DocNode* groups = q->find("config_groups");
    if (!groups || !groups->is_object()) continue;
    for (const auto& [_, g] : groups->fields()) {
      const DocNode* w = g.is_object() ? g.find("weights") : nullptr;
      const DocNode* bits = w && w->is_object() ? w->find("num_bits") : nullptr;
      if (bits) {
        int64_t b = bits->as_int();
        if (b != 2 && b != 4 && b != 8)
          bits->fail(fmt::format("expected num_bits of 2, 4 or 8, got {}", b));
        return static_cast<int>(b);
      }
    }
  }
  return 4;
}

// The weight files of a folder: those the index names (all must be present), else every
// *.safetensors file. Empty when the folder holds none.
std::vector<std::string> weight_files(const std::string& dir, const FileSystem& fs,
                                      std::map<std::string, std::string>& index_map) {
  const std::string index_path = join(dir, "model.safetensors.index.json");
  std::vector<std::string> files;
  if (fs.exists(index_path)) {
    DocNode index = parse_json_document(fs.read_file(index_path), index_path);
    const DocNode& map = index.at("weight_map").require_object();
    std::set<std::string> seen;
    std::vector<std::string> missing;
    for (const auto& [tensor, file] : map.fields()) {
      std::string f = file.as_string();
      if (f.empty() || f.find('/') != std::string::npos || f == "." || f == "..")
        file.fail(fmt::format("expected a file name in this folder, got \"{}\"", f));
      index_map[tensor] = f;
      if (!seen.insert(f).second) continue;
      files.push_back(f);
      if (!fs.exists(join(dir, f))) missing.push_back(f);
    }
    if (missing.size() == files.size())
      return {};  // config and index only: compute from the config
    if (!missing.empty())
      throw input_error(
          "{}: {} (listed in model.safetensors.index.json) is missing; incomplete download?",
          join(dir, missing.front()),
          missing.size() == 1 ? "this file"
                              : fmt::format("this file and {} more", missing.size() - 1));
    return files;
  }
  for (const auto& name : fs.list_directory(dir)) {
    if (std::string_view(name).ends_with(".safetensors")) files.push_back(name);
  }
  return files;
}

std::vector<TensorInfo> read_tensors(const std::string& dir, const std::vector<std::string>& files,
                                     const std::map<std::string, std::string>& index_map,
                                     const ArchConfig& config, const DocNode& root,
                                     const FileSystem& fs) {
  std::vector<SafetensorsHeader> headers;
  headers.reserve(files.size());
  std::map<std::string, Parts> logical;
  std::map<std::string, std::string> where;  // stored name -> file
  for (const auto& f : files)
    headers.push_back(read_safetensors_header(fs, join(dir, f)));
  for (size_t i = 0; i < headers.size(); ++i) {
    for (const auto& t : headers[i].tensors) {
      auto [it, fresh] = where.emplace(t.name, files[i]);
      if (!fresh)
        throw input_error("{}: tensor {} is also stored in {}", headers[i].file, t.name,
                          it->second);
      if (!index_map.empty()) {
        auto listed = index_map.find(t.name);
        if (listed != index_map.end() && listed->second != files[i])
          throw input_error("{}: tensor {} is listed in model.safetensors.index.json under {}",
                            headers[i].file, t.name, listed->second);
      }
      TensorName n = classify_tensor(t.name);
      Parts& p = logical[n.logical];
      p.name = n;
      p.bytes += t.bytes();
      if (p.file.empty()) p.file = headers[i].file;
      switch (n.part) {
        case TensorPart::kPlain:
        case TensorPart::kValues:
          p.values = &t;
          break;
        case TensorPart::kScales:
          p.scales = &t;
          break;
        case TensorPart::kBiases:
          p.biases = &t;
          break;
        case TensorPart::kMeta:
          break;
      }
    }
  }
  for (const auto& [tensor, file] : index_map) {
    if (!where.count(tensor))
      throw input_error(
          "{}: model.safetensors.index.json lists tensor {} here, but the file does not hold it",
          join(dir, file), tensor);
  }
  const int packed_bits = compressed_tensors_bits(root);
  std::vector<TensorInfo> out;
  out.reserve(logical.size());
  for (auto& [name, p] : logical) {
    if (!p.values) {
      const SafetensorsTensor* part = p.scales ? p.scales : p.biases;
      throw input_error("{}: tensor {} is the {} of {}, but no file holds its values", p.file,
                        part ? part->name : name, p.scales ? "scales" : "quantization biases",
                        name);
    }
    out.push_back(logical_tensor(p, config, packed_bits));
  }
  return out;
}

// The scheme a bare config describes: --quant, else its quantization block, else its dtype.
QuantScheme config_scheme(const ArchConfig& c, std::string_view quant, const DocNode& root,
                          const std::string& file) {
  if (!quant.empty() && quant != "native") {
    auto s = quant_scheme(quant);
    if (!s)
      throw input_error("--quant {}: unknown quantization; expected one of: {}", quant,
                        quant_names());
    return *s;
  }
  if (c.quantization) return *c.quantization;
  if (!c.unsupported_quantization.empty()) {
    const DocNode* q = root.find("quantization_config");
    std::string msg = fmt::format(
        "cannot compute the bytes of \"{}\" weights from the config alone; give the folder with "
        "its .safetensors "
        "files, or --quant",
        c.unsupported_quantization);
    if (q) q->fail(msg);
    throw input_error("{}: {}", file, msg);
  }
  std::string name = c.torch_dtype == "float32"   ? "fp32"
                     : c.torch_dtype == "float16" ? "fp16"
                                                  : "bf16";
  return *quant_scheme(name);
}

}  // namespace

ModelDesc load_model_folder(const std::string& path, std::string_view quant, const FileSystem& fs) {
  const bool is_dir = fs.is_directory(path);
  const std::string dir = is_dir ? path : parent_dir(path);
  const std::string config_path = is_dir ? join(path, "config.json") : path;
  if (is_dir && !fs.exists(config_path))
    throw input_error(
        "{}: no config.json in this folder; expected a Hugging Face or MLX model folder", path);
  if (!is_dir && !std::string_view(path).ends_with(".json"))
    throw input_error("{}: expected a model folder or its config.json", path);
  const DocNode root = parse_json_document(fs.read_file(config_path), config_path);
  const ArchConfig config = read_arch_config(root);

  ModelMeta meta;
  meta.display_name = base_name(is_dir ? path : dir);
  meta.name = meta.display_name;
  meta.family = config.model_type;

  std::map<std::string, std::string> index_map;
  const std::vector<std::string> files =
      is_dir && quant.empty() ? weight_files(dir, fs, index_map) : std::vector<std::string>{};
  if (files.empty()) {
    QuantScheme scheme = config_scheme(config, quant, root, config_path);
    meta.quantization = scheme.name;
    meta.source = quant.empty() ? fmt::format("{} (architecture; no weight files)", config_path)
                                : fmt::format("{} (architecture at {})", config_path, scheme.name);
    if (!quant.empty()) meta.name = fmt::format("{}-{}", meta.name, scheme.name);
    return model_from_config(config, scheme, meta);
  }

  std::vector<TensorInfo> tensors = read_tensors(dir, files, index_map, config, root, fs);
  std::vector<bool> seen(static_cast<size_t>(config.num_layers), false);
  for (const auto& t : tensors) {
    if (t.layer >= 0 && t.layer < config.num_layers) seen[static_cast<size_t>(t.layer)] = true;
  }
  for (int l = 0; l < config.num_layers; ++l) {
    if (!seen[static_cast<size_t>(l)])
      throw input_error(
          "{}: the safetensors files hold no tensor of layer {}, but config.json has {} layers "
          "(num_hidden_layers); incomplete download?",
          dir, l, config.num_layers);
  }
  meta.quantization = config.quantization                        ? config.quantization->name
                      : !config.unsupported_quantization.empty() ? config.unsupported_quantization
                      : config.torch_dtype == "float32"          ? "fp32"
                      : config.torch_dtype == "float16"          ? "fp16"
                                                                 : "bf16";
  meta.source = fmt::format("{} ({} and {} safetensors header{})", dir, "config.json", files.size(),
                            files.size() == 1 ? "" : "s");
  return build_model(config, std::move(tensors), meta);
}

}  // namespace meshplan
