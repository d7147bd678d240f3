// libFuzzer target: see fuzz_entry_points.hpp (fuzz_cluster_yaml).
#include "tests/fuzz/fuzz_entry_points.hpp"

MESHPLAN_FUZZ_TARGET(fuzz_cluster_yaml)
