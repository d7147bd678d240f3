// The libraries depend on each other only as CMakeLists.txt states it: each
// `meshplan_library(NAME FOLDER DEPS...)` line names the libraries its folder may use, and no
// source of a library includes a header of a library it does not reach through them. No unit (a
// header and its source) includes its way back to itself. Unit tests beside a module may include
// anything; they are skipped.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tests/test_support.hpp"

namespace meshplan::layering_test {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::source_path;

struct Library {
  std::string folder;
  std::vector<std::string> uses;  // libraries named on its line
};

// The meshplan_library lines of a CMakeLists.txt text, by library name.
std::map<std::string, Library> read_layers(const std::string& cmake) {
  std::map<std::string, Library> out;
  const std::regex call(R"(\nmeshplan_library\(([^)]*)\))");
  for (std::sregex_iterator it(cmake.begin(), cmake.end(), call), end; it != end; ++it) {
    std::istringstream words((*it)[1].str());
    std::string name, folder, word;
    words >> name >> folder;
    Library lib{folder, {}};
    while (words >> word)
      if (word.starts_with("meshplan_")) lib.uses.push_back(word);
    out[name] = lib;
  }
  return out;
}

// Folder -> the folders its sources may include from: its own and those of every library it
// reaches.
std::map<std::string, std::set<std::string>> allowed_folders(
    const std::map<std::string, Library>& layers) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& [name, lib] : layers) {
    std::set<std::string>& ok = out[lib.folder];
    std::function<void(const std::string&)> reach = [&](const std::string& n) {
      auto found = layers.find(n);
      if (found == layers.end() || !ok.insert(found->second.folder).second) return;
      for (const std::string& u : found->second.uses)
        reach(u);
    };
    reach(name);
  }
  return out;
}

std::string folder_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

// "folder/stem" of a source or header.
std::string unit_of(const std::string& path) {
  std::string stem = path.substr(0, path.rfind('.'));
  return stem;
}

// Every file given as path -> text: the includes that climb out of what its folder may use.
std::vector<std::string> climbing_includes(
    const std::map<std::string, std::set<std::string>>& allowed,
    const std::map<std::string, std::string>& files) {
  const std::regex include_line(R"re(#include "([^"]+)")re");
  std::vector<std::string> out;
  for (const auto& [path, text] : files) {
    auto ok = allowed.find(folder_of(path));
    if (ok == allowed.end()) continue;
    for (std::sregex_iterator it(text.begin(), text.end(), include_line), end; it != end; ++it) {
      std::string target = (*it)[1];
      if (!ok->second.count(folder_of(target))) out.push_back(path + " includes " + target);
    }
  }
  return out;
}

// A loop of units through their includes ("a -> b -> a"), or "" when there is none.
std::string unit_loop(const std::map<std::string, std::string>& files) {
  const std::regex include_line(R"re(#include "([^"]+)")re");
  std::map<std::string, std::set<std::string>> edges;
  for (const auto& [path, text] : files) {
    std::string from = unit_of(path);
    for (std::sregex_iterator it(text.begin(), text.end(), include_line), end; it != end; ++it) {
      std::string to = unit_of((*it)[1]);
      if (to != from) edges[from].insert(to);
    }
  }
  std::map<std::string, int> state;  // 1 on the path, 2 done
  std::vector<std::string> path;
  std::string loop;
  std::function<bool(const std::string&)> visit = [&](const std::string& u) {
    state[u] = 1;
    path.push_back(u);
    for (const std::string& v : edges[u]) {
      if (state[v] == 1) {
        auto start = std::find(path.begin(), path.end(), v);
        for (auto it = start; it != path.end(); ++it)
          loop += *it + " -> ";
        loop += v;
        return true;
      }
      if (state[v] == 0 && visit(v)) return true;
    }
    path.pop_back();
    state[u] = 2;
    return false;
  };
  for (const auto& [u, _] : edges)
    if (state[u] == 0 && visit(u)) break;
  return loop;
}

const std::map<std::string, Library>& layers() {
  static const auto table = read_layers(read_text(source_path("CMakeLists.txt")));
  return table;
}

// Every library source and header of the repository (tests beside them left out), and app/.
std::map<std::string, std::string> product_files() {
  std::map<std::string, std::string> files;
  std::set<std::string> folders = {"app"};
  for (const auto& [name, lib] : layers())
    folders.insert(lib.folder);
  for (const std::string& folder : folders) {
    for (const auto& entry : fs::directory_iterator(source_path(folder))) {
      const std::string name = entry.path().filename().string();
      if (name.ends_with("_test.cpp")) continue;
      if (!name.ends_with(".cpp") && !name.ends_with(".hpp")) continue;
      files[folder + "/" + name] = read_text(entry.path().string());
    }
  }
  return files;
}

TEST(layering_test, cmake_states_every_library_folder) {
  ASSERT_GE(layers().size(), 16u);
  EXPECT_EQ(layers().at("meshplan_emit").folder, "lib/emit");
  EXPECT_EQ(layers().at("meshplan_pipeline").uses, std::vector<std::string>{"meshplan_problem"});
}

TEST(layering_test, no_library_includes_a_library_above_it) {
  auto files = product_files();
  EXPECT_GT(files.size(), 300u);
  for (const std::string& climb : climbing_includes(allowed_folders(layers()), files))
    ADD_FAILURE() << climb;
}

// The check itself: a lib/ source that includes a solver is caught, and so is a loop.
TEST(layering_test, the_checks_catch_a_climbing_include_and_a_loop) {
  std::map<std::string, Library> fake = {
      {"meshplan_core", {"lib/core", {}}},
      {"meshplan_emit", {"lib/emit", {"meshplan_core"}}},
      {"meshplan_pipeline", {"solvers/pipeline", {"meshplan_core"}}},
  };
  std::map<std::string, std::string> files = {
      {"lib/emit/a.cpp", "#include \"lib/core/error.hpp\"\n#include \"solvers/pipeline/b.hpp\"\n"},
      {"solvers/pipeline/b.cpp", "#include \"lib/core/error.hpp\"\n"},
  };
  EXPECT_EQ(climbing_includes(allowed_folders(fake), files),
            std::vector<std::string>{"lib/emit/a.cpp includes solvers/pipeline/b.hpp"});
  EXPECT_EQ(unit_loop(files), "");
  files["solvers/pipeline/b.cpp"] += "#include \"lib/emit/a.hpp\"\n";
  EXPECT_EQ(unit_loop(files), "lib/emit/a -> solvers/pipeline/b -> lib/emit/a");
}

TEST(layering_test, lib_uses_only_lib) {
  for (const auto& [name, lib] : layers()) {
    if (!lib.folder.starts_with("lib/")) continue;
    for (const std::string& used : lib.uses)
      EXPECT_TRUE(layers().at(used).folder.starts_with("lib/"))
          << name << " uses " << used << " (" << layers().at(used).folder << ")";
  }
}

TEST(layering_test, no_unit_includes_its_way_back_to_itself) {
  EXPECT_EQ(unit_loop(product_files()), "");
}

// lib/ and solvers/ hold only library folders (and the embedded data).
TEST(layering_test, no_loose_sources) {
  std::set<std::string> folders;
  for (const auto& [name, lib] : layers())
    folders.insert(lib.folder);
  for (const std::string top : {"lib", "solvers"}) {
    for (const auto& entry : fs::directory_iterator(source_path(top))) {
      std::string folder = top + "/" + entry.path().filename().string();
      EXPECT_TRUE(entry.is_directory()) << folder;
      if (entry.is_directory()) {
        EXPECT_TRUE(folders.count(folder) || folder == "lib/data")
            << folder << " is not a library folder";
      }
    }
  }
}

// The test programs compile as unity files, where the test files of one program meet in one
// translation unit: each test file's code lives in its own namespace, named after the file, so a
// helper of one file can neither clash with nor silently overload another file's.
TEST(layering_test, each_test_file_has_its_own_namespace) {
  std::vector<std::string> wrong;
  size_t files = 0;
  for (const std::string top : {"lib", "solvers", "bench", "tests"}) {
    for (const auto& entry : fs::recursive_directory_iterator(source_path(top))) {
      std::string name = entry.path().filename().string();
      if (!entry.is_regular_file() || !name.ends_with("_test.cpp")) continue;
      ++files;
      std::string stem = entry.path().stem().string();
      std::istringstream text(read_text(entry.path().string()));
      size_t openings = 0;
      for (std::string line; std::getline(text, line);) {
        if (!line.starts_with("namespace ") || !line.ends_with(" {") || line == "namespace {")
          continue;
        ++openings;
        std::string ns = line.substr(10, line.size() - 12);
        if (!ns.starts_with("meshplan::") || !ns.ends_with("::" + stem))
          wrong.push_back(fmt::format("{}: namespace {}", name, ns));
      }
      if (openings == 0) wrong.push_back(name + ": no namespace");
    }
  }
  EXPECT_GT(files, 100u);
  EXPECT_TRUE(wrong.empty()) << "expected namespace meshplan::<file stem> in:\n"
                             << fmt::format("{}", fmt::join(wrong, "\n"));
}

}  // namespace
}  // namespace meshplan::layering_test
