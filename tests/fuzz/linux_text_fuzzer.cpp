// libFuzzer target: see fuzz_entry_points.hpp (fuzz_linux_text).
#include "tests/fuzz/fuzz_entry_points.hpp"

MESHPLAN_FUZZ_TARGET(fuzz_linux_text)
