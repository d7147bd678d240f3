// write_directory_atomic: the folder appears complete or not at all, never over one in use.
#include "lib/core/file_system.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lib/core/error.hpp"
#include "tests/test_support.hpp"

namespace meshplan::file_system_test {
namespace {

namespace fs = std::filesystem;

TEST(file_system_test, a_folder_is_written_whole_and_only_where_nothing_is) {
  RealFileSystem real;
  std::string base = testing::temp_dir();
  real.write_directory_atomic(base + "/out", {{"a.txt", "A"}, {".hidden", "H"}});
  EXPECT_EQ(real.read_file(base + "/out/a.txt"), "A");
  EXPECT_EQ(real.read_file(base + "/out/.hidden"), "H");
  // An empty folder may be filled; a folder with files is refused and left as it was.
  fs::create_directory(base + "/empty");
  real.write_directory_atomic(base + "/empty/", {{"b.txt", "B"}});
  EXPECT_EQ(real.read_file(base + "/empty/b.txt"), "B");
  try {
    real.write_directory_atomic(base + "/out", {{"c.txt", "C"}});
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 2);
  }
  EXPECT_FALSE(fs::exists(base + "/out/c.txt"));
  // Nothing but the two folders: no temporary folder is left behind.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(base))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"empty", "out"}));

  MemoryFileSystem memory;
  memory.write_directory_atomic("d", {{"x", "1"}});
  EXPECT_EQ(memory.read_file("d/x"), "1");
  EXPECT_THROW(memory.write_directory_atomic("d", {{"y", "2"}}), Error);
}

// `emit all` of a replica plan writes replica-1/, replica-2/ ... inside its folder.
TEST(file_system_test, a_folder_may_hold_subfolders_and_nothing_outside_it) {
  const std::map<std::string, std::string> files = {
      {"nginx.conf", "N"}, {"replica-1/mlx-launch.sh", "M1"}, {"replica-2/deep/vllm.sh", "V2"}};
  RealFileSystem real;
  std::string base = testing::temp_dir();
  real.write_directory_atomic(base + "/launch", files);
  EXPECT_EQ(real.read_file(base + "/launch/nginx.conf"), "N");
  EXPECT_EQ(real.read_file(base + "/launch/replica-1/mlx-launch.sh"), "M1");
  EXPECT_EQ(real.read_file(base + "/launch/replica-2/deep/vllm.sh"), "V2");
  EXPECT_EQ(real.list_directory(base + "/launch"),
            (std::vector<std::string>{"nginx.conf", "replica-1", "replica-2"}));
  for (const std::string bad : {"../escape.sh", "/etc/escape.sh", "a/../../b", ""}) {
    EXPECT_THROW(real.write_directory_atomic(base + "/bad", {{"ok.txt", "1"}, {bad, "2"}}), Error)
        << bad;
    EXPECT_FALSE(fs::exists(base + "/bad")) << "nothing is written when a name is refused";
  }
  EXPECT_FALSE(fs::exists(base + "/escape.sh"));
  EXPECT_EQ(real.list_directory(base), (std::vector<std::string>{"launch"}));

  MemoryFileSystem memory;
  memory.write_directory_atomic("launch", files);
  EXPECT_EQ(memory.read_file("launch/replica-2/deep/vllm.sh"), "V2");
  EXPECT_TRUE(memory.is_directory("launch/replica-1"));
  EXPECT_EQ(memory.list_directory("launch"),
            (std::vector<std::string>{"nginx.conf", "replica-1", "replica-2"}));
  EXPECT_EQ(memory.list_directory("launch/replica-1"), (std::vector<std::string>{"mlx-launch.sh"}));
  EXPECT_THROW(memory.write_directory_atomic("other", {{"../x", "1"}}), Error);
  EXPECT_FALSE(memory.exists("x"));
}

// An input past kMaxInputFileBytes is refused before it is read (a sparse file: no disk used), and
// a stream without a size (a pipe, standard input) is cut off once it passes the limit.
TEST(file_system_test, inputs_larger_than_the_limit_are_refused) {
  RealFileSystem real;
  std::string big = testing::temp_dir() + "/huge.yaml";
  { std::ofstream(big) << "hosts: []\n"; }
  fs::resize_file(big, kMaxInputFileBytes + 1);
  try {
    real.read_file(big);
    ADD_FAILURE() << "read a file past the limit";
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 2);
    EXPECT_NE(std::string(e.what()).find("huge.yaml: larger than 256 MiB"), std::string::npos)
        << e.what();
  }
  std::istringstream small("name: x\n");
  EXPECT_EQ(read_bounded(small, "standard input"), "name: x\n");
}

}  // namespace
}  // namespace meshplan::file_system_test
