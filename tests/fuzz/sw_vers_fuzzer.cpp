// libFuzzer target: see fuzz_entry_points.hpp (fuzz_sw_vers).
#include "tests/fuzz/fuzz_entry_points.hpp"

MESHPLAN_FUZZ_TARGET(fuzz_sw_vers)
