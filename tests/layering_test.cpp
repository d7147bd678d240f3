// The libraries depend on each other only as CMakeLists.txt states it: each
// `meshplan_library(NAME FOLDER DEPS...)` line names the libraries its folder may use, those lines
// form no loop, and each top-level folder (lib/, topologies/, solvers/ and deploy/) uses only the
// layers below it. No source of a library includes a header of a library it does not reach
// through them, and neither does a unit test beside it (a tests/ header it includes counts with
// every header that one includes). No unit (a header and its source) includes its way back to
// itself. Tests that need more than their module may use live in tests/.
#include <gtest/gtest.h>

#include <algorithm>
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

// What a tests/ header brings along: its includes, a tests/ header followed to what it includes.
std::vector<std::string> includes_through_tests(const std::string& target,
                                                const std::map<std::string, std::string>& files,
                                                std::set<std::string>& seen) {
  const std::regex include_line(R"re(#include "([^"]+)")re");
  std::vector<std::string> out;
  if (!target.starts_with("tests/")) return {target};
  if (!seen.insert(target).second) return {};
  auto text = files.find(target);
  if (text == files.end()) return {};
  for (std::sregex_iterator it(text->second.begin(), text->second.end(), include_line), end;
       it != end; ++it)
    for (const std::string& t : includes_through_tests((*it)[1], files, seen))
      out.push_back(t);
  return out;
}

// Every file given as path -> text: the includes that climb out of what its folder may use. A
// unit test's include of a tests/ header counts as what that header includes.
std::vector<std::string> climbing_includes(
    const std::map<std::string, std::set<std::string>>& allowed,
    const std::map<std::string, std::string>& files) {
  const std::regex include_line(R"re(#include "([^"]+)")re");
  std::vector<std::string> out;
  for (const auto& [path, text] : files) {
    auto ok = allowed.find(folder_of(path));
    if (ok == allowed.end()) continue;
    const bool test = path.ends_with("_test.cpp");
    for (std::sregex_iterator it(text.begin(), text.end(), include_line), end; it != end; ++it) {
      std::string target = (*it)[1];
      std::set<std::string> seen;
      std::vector<std::string> reached =
          test ? includes_through_tests(target, files, seen) : std::vector<std::string>{target};
      for (const std::string& r : reached) {
        if (ok->second.count(folder_of(r))) continue;
        out.push_back(path + " includes " + target +
                      (r == target ? "" : " (which includes " + r + ")"));
        break;
      }
    }
  }
  return out;
}

// A loop in a graph of names ("a -> b -> a"), or "" when there is none.
std::string loop_in(std::map<std::string, std::set<std::string>> edges) {
  std::map<std::string, int> state;  // 1 on the path, 2 done
  std::vector<std::string> path;
  std::string loop;
  std::function<bool(const std::string&)> visit = [&](const std::string& u) {
    state[u] = 1;
    path.push_back(u);
    for (const std::string& v : edges[u]) {
      if (state[v] == 1) {
        for (auto it = std::find(path.begin(), path.end(), v); it != path.end(); ++it)
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
  for (const auto& [u, _] : std::map<std::string, std::set<std::string>>(edges))
    if (state[u] == 0 && visit(u)) break;
  return loop;
}

// A loop among the libraries' `uses` ("a -> b -> a"), or "" when there is none.
std::string library_loop(const std::map<std::string, Library>& layers) {
  std::map<std::string, std::set<std::string>> edges;
  for (const auto& [name, lib] : layers)
    edges[name].insert(lib.uses.begin(), lib.uses.end());
  return loop_in(edges);
}

// The layer of a library folder: lib/ 0, topologies/ 1, solvers/ and deploy/ 2 (side by side),
// bench/ 3.
int layer_of(const std::string& folder) {
  const std::string top = folder.substr(0, folder.find('/'));
  if (top == "lib") return 0;
  if (top == "topologies") return 1;
  if (top == "solvers" || top == "deploy") return 2;
  return 3;
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
  return loop_in(edges);
}

const std::map<std::string, Library>& layers() {
  static const auto table = read_layers(read_text(source_path("CMakeLists.txt")));
  return table;
}

// Every library source and header of the repository and app/; with `tests`, the unit tests
// beside the libraries and the tests/ headers too.
std::map<std::string, std::string> source_files(bool tests) {
  std::map<std::string, std::string> files;
  std::set<std::string> folders = {"app"};
  for (const auto& [name, lib] : layers())
    folders.insert(lib.folder);
  if (tests) folders.insert("tests");
  for (const std::string& folder : folders) {
    for (const auto& entry : fs::directory_iterator(source_path(folder))) {
      const std::string name = entry.path().filename().string();
      if (name.ends_with("_test.cpp") && (!tests || folder == "tests")) continue;
      if (!name.ends_with(".cpp") && !name.ends_with(".hpp")) continue;
      if (folder == "tests" && !name.ends_with(".hpp")) continue;
      files[folder + "/" + name] = read_text(entry.path().string());
    }
  }
  return files;
}
std::map<std::string, std::string> product_files() {
  return source_files(false);
}

TEST(layering_test, cmake_states_every_library_folder) {
  ASSERT_GE(layers().size(), 16u);
  EXPECT_EQ(layers().at("meshplan_emit").folder, "deploy/emit");
  EXPECT_EQ(layers().at("meshplan_topologies").folder, "topologies");
  EXPECT_EQ(layers().at("meshplan_pipeline").uses, std::vector<std::string>{"meshplan_problem"});
}

TEST(layering_test, no_library_includes_a_library_above_it) {
  auto files = product_files();
  EXPECT_GT(files.size(), 300u);
  for (const std::string& climb : climbing_includes(allowed_folders(layers()), files))
    ADD_FAILURE() << climb;
}

// A unit test beside a module includes only what its module may use; a tests/ header counts with
// what it includes.
TEST(layering_test, no_unit_test_includes_above_its_module) {
  auto files = source_files(true);
  size_t tests = 0;
  for (const auto& [path, text] : files)
    tests += path.ends_with("_test.cpp");
  EXPECT_GT(tests, 80u);
  for (const std::string& climb : climbing_includes(allowed_folders(layers()), files))
    ADD_FAILURE() << climb;
}

TEST(layering_test, cmake_states_no_loop_between_libraries) {
  EXPECT_EQ(library_loop(layers()), "");
}

// Each top-level folder uses only the layers below it (or libraries of its own folder): lib/
// nothing above, topologies/ only lib/, solvers/ and deploy/ neither each other.
TEST(layering_test, each_layer_uses_only_the_layers_below) {
  for (const auto& [name, lib] : layers()) {
    const std::string top = lib.folder.substr(0, lib.folder.find('/'));
    for (const std::string& used : lib.uses) {
      const std::string& folder = layers().at(used).folder;
      const bool same = folder.substr(0, folder.find('/')) == top;
      EXPECT_TRUE(same || layer_of(folder) < layer_of(lib.folder))
          << name << " (" << lib.folder << ") uses " << used << " (" << folder << ")";
    }
  }
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
  // A unit test that reaches a solver through a tests/ header.
  files = {{"lib/emit/a_test.cpp", "#include \"tests/fixtures.hpp\"\n"},
           {"tests/fixtures.hpp", "#include \"solvers/pipeline/b.hpp\"\n"}};
  EXPECT_EQ(
      climbing_includes(allowed_folders(fake), files),
      std::vector<std::string>{"lib/emit/a_test.cpp includes tests/fixtures.hpp (which includes "
                               "solvers/pipeline/b.hpp)"});
  // A loop in the CMake graph.
  EXPECT_EQ(library_loop(fake), "");
  fake["meshplan_core"].uses.push_back("meshplan_emit");
  EXPECT_EQ(library_loop(fake), "meshplan_core -> meshplan_emit -> meshplan_core");
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

// The libraries never print or exit: app/ does both (SPEC section 1).
TEST(layering_test, no_library_prints_or_exits) {
  const std::regex effect(
      R"(std::(cout|cerr|clog|printf|puts|exit|abort|quick_exit)\b|\bprintf\()");
  std::vector<std::string> found;
  for (const auto& [path, text] : product_files()) {
    if (path.starts_with("app/")) continue;
    std::istringstream lines(text);
    int n = 0;
    for (std::string line; std::getline(lines, line);) {
      ++n;
      if (std::regex_search(line, effect)) found.push_back(fmt::format("{}:{}: {}", path, n, line));
    }
  }
  EXPECT_TRUE(found.empty()) << fmt::format("{}", fmt::join(found, "\n"));
}

// The types every translation unit sees (those outside an anonymous namespace), by name, with the
// files that define them. Two definitions of one name are one type to the linker: their inline
// members get merged and a vector of one runs the other's destructor.
std::map<std::string, std::set<std::string>> shared_types(
    const std::map<std::string, std::string>& files) {
  const std::regex definition(R"(^(struct|class) ([A-Za-z_]\w*)(?!\w|::)[^;]*$)");
  std::map<std::string, std::set<std::string>> out;
  for (const auto& [path, text] : files) {
    std::istringstream lines(text);
    bool anonymous = false;
    for (std::string line; std::getline(lines, line);) {
      if (line == "namespace {") anonymous = true;
      if (line == "}  // namespace") anonymous = false;
      std::smatch m;
      if (!anonymous && std::regex_search(line, m, definition)) out[m[2]].insert(path);
    }
  }
  return out;
}

std::string types_defined_twice(const std::map<std::string, std::string>& files) {
  std::vector<std::string> twice;
  for (const auto& [name, paths] : shared_types(files))
    if (paths.size() > 1) twice.push_back(fmt::format("{}: {}", name, fmt::join(paths, ", ")));
  return fmt::format("{}", fmt::join(twice, "; "));
}

TEST(layering_test, no_type_is_defined_twice) {
  std::map<std::string, std::string> files;
  for (const auto& [path, text] : product_files())
    if (!path.starts_with("app/")) files[path] = text;
  EXPECT_EQ(types_defined_twice(files), "");
  // The check itself: two headers defining HostSteps, and a type kept inside its own file.
  EXPECT_EQ(types_defined_twice({{"deploy/a.hpp", "namespace meshplan {\nstruct HostSteps {\n"},
                                 {"deploy/b.hpp", "namespace meshplan {\nstruct HostSteps {\n"},
                                 {"deploy/c.cpp", "namespace {\nstruct Tried {\n}  // namespace"},
                                 {"deploy/d.cpp", "namespace {\nstruct Tried {\n}  // namespace"},
                                 {"deploy/e.hpp", "struct Forward;\nstruct Outer::Inner {\n"},
                                 {"deploy/f.hpp", "struct Forward;\n"}}),
            "HostSteps: deploy/a.hpp, deploy/b.hpp");
}

// lib/, solvers/ and deploy/ hold only library folders (and the embedded data); topologies/ is
// one library.
TEST(layering_test, no_loose_sources) {
  std::set<std::string> folders;
  for (const auto& [name, lib] : layers())
    folders.insert(lib.folder);
  EXPECT_TRUE(folders.count("topologies"));
  for (const std::string top : {"lib", "solvers", "deploy"}) {
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
  for (const std::string top : {"lib", "topologies", "solvers", "deploy", "bench", "tests"}) {
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
