// A workload file (`meshplan plan --workload FILE`, meshplan.workload/1, JSON or YAML): the models
// a cluster serves, each with its share of the requests, requests in flight, prompt, output and
// context.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/document.hpp"

namespace meshplan {

inline constexpr const char* kWorkloadSchema = "meshplan.workload/1";

struct WorkloadEntry {
  std::string model;           // a name of `meshplan models`, a folder or a config.json
  std::string quant;           // "" = the name's
  double share = 1;            // of the requests, normalised over the entries
  int requests_in_flight = 0;  // over all of the model's replicas; 0 = as many as serve the most
  int64_t prompt = 512;
  int64_t output = 256;
  int64_t context = 4096;
  SourceLocation where;  // of the entry, for messages about its model
};

struct Workload {
  std::string file;
  std::vector<WorkloadEntry> models;
};

// Errors name the file, the position and the expected form.
Workload parse_workload(std::string_view text, const std::string& file_name);

}  // namespace meshplan
