// Every example in README.md and docs/*.md marked `<!-- example: run -->` is the real output: the
// fenced block after the marker starts with `$ meshplan ARGS...`, run under sh from the
// repository root with NO_COLOR=1, and its other lines are exactly what the command prints on
// stdout. `<!-- example: run exit N -->` expects exit code N instead of 0.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace meshplan::docs_examples_test {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::source_path;

struct Example {
  std::string where;  // file:line of the marker
  std::string args;   // what follows `$ meshplan `
  std::string expected;
  int exit_code = 0;
};

std::vector<std::string> documentation_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(source_path("docs")))
    if (entry.path().extension() == ".md")
      files.push_back("docs/" + entry.path().filename().string());
  std::sort(files.begin(), files.end());
  files.insert(files.begin(), "README.md");
  return files;
}

// The examples of one file; a marker without a well-formed block after it is a test failure.
std::vector<Example> examples_in(const std::string& file) {
  std::vector<Example> found;
  std::istringstream in(read_text(source_path(file)));
  const std::regex marker(R"(^<!-- example: run( exit ([0-9]+))? -->$)");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(lines[i], m, marker)) continue;
    Example e;
    e.where = file + ":" + std::to_string(i + 1);
    e.exit_code = m[2].matched ? std::stoi(m[2]) : 0;
    // Prose may sit between the marker and its block, but no other block.
    size_t open = i + 1;
    while (open < lines.size() && lines[open].rfind("```", 0) != 0)
      ++open;
    if (open + 1 >= lines.size() || lines[open + 1].rfind("$ meshplan ", 0) != 0) {
      ADD_FAILURE() << e.where << ": the marker is not followed by a block starting `$ meshplan `";
      continue;
    }
    e.args = lines[open + 1].substr(11);
    size_t close = open + 2;
    for (; close < lines.size() && lines[close] != "```"; ++close)
      e.expected += lines[close] + "\n";
    if (close == lines.size()) {
      ADD_FAILURE() << e.where << ": the block is not closed";
      continue;
    }
    found.push_back(e);
    i = close;
  }
  return found;
}

TEST(docs_examples_test, every_marked_example_is_the_real_output) {
  const std::string out = testing::temp_dir() + "/stdout";
  int n = 0;
  std::map<std::string, int> per_file;
  for (const std::string& file : documentation_files()) {
    for (const Example& e : examples_in(file)) {
      ++n;
      ++per_file[file];
      // One command that prints: no pipes, redirections or files written into the source tree.
      EXPECT_EQ(e.args.find_first_of("|;&<>`$"), std::string::npos) << e.where << ": " << e.args;
      EXPECT_EQ((" " + e.args + " ").find(" -o "), std::string::npos) << e.where << ": " << e.args;
      const std::string command = "cd '" + source_path("") + "' && NO_COLOR=1 '" + MESHPLAN_BINARY +
                                  "' " + e.args + " >'" + out + "' 2>/dev/null";
      const int status = std::system(command.c_str());
      ASSERT_TRUE(WIFEXITED(status)) << e.where;
      EXPECT_EQ(WEXITSTATUS(status), e.exit_code) << e.where << ": meshplan " << e.args;
      EXPECT_EQ(read_text(out), e.expected) << e.where << ": meshplan " << e.args;
    }
  }
  EXPECT_GE(n, 17);  // a lost marker shows here
  // Every command page shows its command's real output, but for advise and bench, whose output
  // holds the time they took.
  for (const char* command : {"discover", "check", "dot", "plan", "emit", "setup", "teardown",
                              "models", "chips", "profile"})
    EXPECT_GE(per_file["docs/" + std::string(command) + ".md"], 1) << command;
}

// The README's first section gives the two commands for a fresh Debian 12 machine; CI runs the
// second (the test command) as written, so they cannot drift apart, and the first command's plan
// is a test of its own (example_main_job).
TEST(docs_examples_test, ci_runs_the_readme_test_command_as_written) {
  std::string readme = read_text(source_path("README.md"));
  std::vector<std::string> commands;
  for (size_t at = readme.find("```sh\n"); at != std::string::npos && commands.size() < 2;
       at = readme.find("```sh\n", at + 1)) {
    size_t begin = at + 6;
    commands.push_back(readme.substr(begin, readme.find('\n', begin) - begin));
  }
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_NE(commands[0].find("./build/meshplan plan -c examples/clusters/"), std::string::npos);
  EXPECT_NE(commands[1].find("ctest"), std::string::npos);
  std::istringstream ci(read_text(source_path(".ci/run")));
  std::vector<std::string> lines;
  for (std::string line; std::getline(ci, line);)
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  EXPECT_NE(std::find(lines.begin(), lines.end(), commands[1]), lines.end())
      << ".ci/run does not run the README's test command:\n"
      << commands[1];
  // The first command's plan, as the README writes it, is what example_main_job runs.
  const std::string cmake = read_text(source_path("tests/CMakeLists.txt"));
  const std::string plan = commands[0].substr(commands[0].find("plan -c examples/"));
  EXPECT_NE(cmake.find(plan.substr(8, plan.find(" -m ") - 8)), std::string::npos) << plan;
  EXPECT_NE(cmake.find(plan.substr(plan.find(" -m "))), std::string::npos) << plan;
}

}  // namespace
}  // namespace meshplan::docs_examples_test
