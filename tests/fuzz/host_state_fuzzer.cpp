// libFuzzer target: see fuzz_entry_points.hpp (fuzz_host_state).
#include "tests/fuzz/fuzz_entry_points.hpp"

MESHPLAN_FUZZ_TARGET(fuzz_host_state)
