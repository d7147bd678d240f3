// Every input a fuzz target ever crashed on (tests/fuzz/regressions/<target>/) goes back through
// the same entry point in every build: it must be read, or refused with meshplan's own error.
// The entry points catch those errors themselves, so any other exception fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/fuzz/fuzz_entry_points.hpp"
#include "tests/test_support.hpp"

namespace meshplan::fuzz_regressions_test {
namespace {

namespace fs = std::filesystem;
using testing::source_path;

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(fuzz_regressions_test, every_kept_input_is_read_or_refused_with_meshplans_error) {
  fs::path root = source_path("tests/fuzz/regressions");
  ASSERT_TRUE(fs::is_directory(root)) << root;
  int replayed = 0;
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    std::string target = dir.path().filename().string();
    const fuzz::FuzzTarget* t = fuzz::find_fuzz_target(target);
    ASSERT_NE(t, nullptr) << "tests/fuzz/regressions/" << target << " names no fuzz target";
    for (const auto& file : fs::directory_iterator(dir.path())) {
      if (!file.is_regular_file()) continue;
      SCOPED_TRACE(file.path().string());
      EXPECT_NO_THROW(t->run(read_bytes(file.path())));
      ++replayed;
    }
  }
  RecordProperty("replayed", replayed);
}

TEST(fuzz_regressions_test, every_target_has_its_fuzzer_file) {
  for (const auto& t : fuzz::fuzz_targets()) {
    EXPECT_TRUE(
        fs::is_regular_file(source_path("tests/fuzz/" + std::string(t.name) + "_fuzzer.cpp")))
        << t.name;
  }
}

}  // namespace
}  // namespace meshplan::fuzz_regressions_test
