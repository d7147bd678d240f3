// Measured routing frequencies of a mixture-of-experts model (`plan --expert-load FILE`), per MoE
// layer and expert, normalised to shares of the layer's routed tokens. Layers the file does not
// name are uniform. Format (JSON or YAML), docs/expert-load-file.md:
//
//   schema: meshplan.expert-load/1      # optional
//   layers:
//     - layer: 3                        # one MoE layer (0-based index)
//       load: [812, 90, 0, ...]         # one non-negative number per routed expert
//     - layers: 4-60                    # an inclusive range sharing one distribution
//       load: [...]
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/document.hpp"
#include "lib/models/model.hpp"

namespace meshplan {

inline constexpr const char* kExpertLoadSchema = "meshplan.expert-load/1";

struct ExpertLoad {
  std::string source;                              // file name, for reports
  std::vector<std::vector<double>> distributions;  // each sums to 1
  std::map<int, int> layer_distribution;           // layer index -> index into distributions

  // The distribution of `layer`, or nullptr when the file leaves it uniform.
  const std::vector<double>* find(int layer) const;
  // The index into distributions, or -1 (uniform).
  int distribution_index(int layer) const;
};

// Reads a parsed document; every error names the position and the expected form (exit 2).
ExpertLoad read_expert_load(const DocNode& doc, const ModelDesc& model);
// Parses JSON or YAML text (by file extension, JSON when it starts with '{').
ExpertLoad parse_expert_load(std::string_view text, const std::string& file_name,
                             const ModelDesc& model);

}  // namespace meshplan
