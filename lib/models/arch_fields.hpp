// Shared by the config readers (lib/model_config.cpp, lib/arch_families.cpp): typed, bounded reads
// of config.json fields, so that an absurd value is rejected, naming its field, before anything is
// sized from it.
#pragma once

#include <cstdint>
#include <string_view>

#include "lib/core/document.hpp"
#include "lib/models/arch_config.hpp"

namespace meshplan::arch {

constexpr int64_t kMaxDim = 1 << 20;
constexpr int64_t kMaxHeads = 1 << 16;
constexpr int64_t kMaxLayers = 4096;
constexpr int64_t kMaxExperts = 1 << 16;
constexpr int64_t kMaxVocab = 1 << 24;

// A required integer in [1, max_value].
int read_dim(const DocNode& config, std::string_view key, int64_t max_value);
// An optional integer in [0, max_value]; `fallback` when missing or null.
int read_dim_or(const DocNode& config, std::string_view key, int64_t max_value, int fallback);
bool read_bool_or(const DocNode& config, std::string_view key, bool fallback);

// Family readers: each fills what its family adds to the common fields.
void read_deepseek(const DocNode& config, ArchConfig& c);
void read_qwen_moe(const DocNode& config, ArchConfig& c);
void read_mixtral(const DocNode& config, ArchConfig& c);
void read_gpt_oss(const DocNode& config, ArchConfig& c);
// DBRX names every field differently, so it reads the common ones itself.
void read_dbrx(const DocNode& config, ArchConfig& c);
// Sliding windows of the llama-like families (Mistral's "sliding_window", Qwen's
// "use_sliding_window" with "max_window_layers").
void read_sliding_window(const DocNode& config, ArchConfig& c);

}  // namespace meshplan::arch
