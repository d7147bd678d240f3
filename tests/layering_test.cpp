// The libraries depend on each other only along the data flow (ARCHITECTURE.md): no source of a
// library includes a header of a library above it. Unit tests beside a module may include
// anything; they are skipped.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "tests/test_support.hpp"

namespace meshplan {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::source_path;

// Folder -> the folders its sources may include from (itself included).
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::map<std::string, std::set<std::string>> table = {
      {"lib/core", {"lib/core"}},
      {"lib/cluster", {"lib/core", "lib/cluster"}},
      {"lib/discovery", {"lib/core", "lib/cluster", "lib/discovery"}},
      {"lib/models", {"lib/core", "lib/models"}},
      {"lib/plan", {"lib/core", "lib/cluster", "lib/models", "lib/plan"}},
      {"topologies", {"lib/core", "lib/cluster", "topologies"}},
      {"solvers", {"lib/core", "lib/cluster", "lib/models", "lib/plan", "topologies", "solvers"}},
      {"lib/emit", {"lib/core", "lib/cluster", "lib/models", "lib/plan", "topologies", "lib/emit"}},
      {"lib/configure",
       {"lib/core", "lib/cluster", "lib/discovery", "topologies", "lib/configure"}},
  };
  return table;
}

std::string folder_of(const std::string& include) {
  auto slash = include.rfind('/');
  return slash == std::string::npos ? "" : include.substr(0, slash);
}

TEST(layering_test, no_library_includes_a_library_above_it) {
  const std::regex include_line(R"re(#include "([^"]+)")re");
  int checked = 0;
  for (const auto& [folder, ok] : allowed()) {
    for (const auto& entry : fs::directory_iterator(source_path(folder))) {
      const std::string name = entry.path().filename().string();
      if (name.ends_with("_test.cpp")) continue;
      if (!name.ends_with(".cpp") && !name.ends_with(".hpp")) continue;
      std::string text = read_text(entry.path().string());
      for (std::sregex_iterator it(text.begin(), text.end(), include_line), end; it != end; ++it) {
        std::string target = folder_of((*it)[1]);
        EXPECT_TRUE(ok.count(target)) << folder << "/" << name << " includes " << (*it)[1];
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 200);
}

TEST(layering_test, lib_has_no_loose_sources) {
  for (const auto& entry : fs::directory_iterator(source_path("lib"))) {
    EXPECT_TRUE(entry.is_directory()) << entry.path();
    if (entry.is_directory()) {
      EXPECT_TRUE(allowed().count("lib/" + entry.path().filename().string()) ||
                  entry.path().filename() == "data")
          << entry.path() << " is not a library folder";
    }
  }
}

}  // namespace
}  // namespace meshplan
