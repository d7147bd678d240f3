// Files behind a small interface so that tests can use an in-memory file system.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace meshplan {

// The largest text input meshplan reads (cluster, plan, hostfile, workload, config.json, ...):
// a 200,000-host cluster file is about 25 MiB.
inline constexpr uint64_t kMaxInputFileBytes = uint64_t{256} << 20;

// All of `in`, or an input error naming `name` once it passes kMaxInputFileBytes.
std::string read_bounded(std::istream& in, const std::string& name);

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  // The whole file; a missing or unreadable file is an input error naming the path.
  virtual std::string read_file(const std::string& path) const = 0;
  virtual bool exists(const std::string& path) const = 0;
  virtual bool is_directory(const std::string& path) const = 0;
  // Names (not paths) of the entries of a directory, sorted.
  virtual std::vector<std::string> list_directory(const std::string& path) const = 0;
  // Writes through a temporary file in the same directory and renames it over `path`, so that
  // an existing file is replaced only by a complete new one.
  virtual void write_file_atomic(const std::string& path, const std::string& content) = 0;
  virtual void make_directories(const std::string& path) = 0;
  // Creates the folder `path` holding `files` (name -> content) all at once: written into a
  // temporary folder beside it, then renamed. `path` must not exist, or be an empty folder.
  virtual void write_directory_atomic(const std::string& path,
                                      const std::map<std::string, std::string>& files) = 0;
  // Size in bytes of a file; a missing file is an input error naming the path.
  virtual uint64_t file_size(const std::string& path) const { return read_file(path).size(); }
  // At most `length` bytes from `offset` (fewer at the end of the file). Readers of large files
  // (safetensors headers) use it so that nothing beyond what they need is read.
  virtual std::string read_range(const std::string& path, uint64_t offset, uint64_t length) const;
};

class RealFileSystem : public FileSystem {
 public:
  std::string read_file(const std::string& path) const override;
  bool exists(const std::string& path) const override;
  bool is_directory(const std::string& path) const override;
  std::vector<std::string> list_directory(const std::string& path) const override;
  void write_file_atomic(const std::string& path, const std::string& content) override;
  void make_directories(const std::string& path) override;
  void write_directory_atomic(const std::string& path,
                              const std::map<std::string, std::string>& files) override;
  uint64_t file_size(const std::string& path) const override;
  std::string read_range(const std::string& path, uint64_t offset, uint64_t length) const override;
};

// In-memory files, for tests. Directories are implied by file paths ("a/b.txt" makes "a").
class MemoryFileSystem : public FileSystem {
 public:
  std::string read_file(const std::string& path) const override;
  bool exists(const std::string& path) const override;
  bool is_directory(const std::string& path) const override;
  std::vector<std::string> list_directory(const std::string& path) const override;
  void write_file_atomic(const std::string& path, const std::string& content) override;
  void make_directories(const std::string& path) override;
  void write_directory_atomic(const std::string& path,
                              const std::map<std::string, std::string>& files) override;

  std::map<std::string, std::string> files;
};

}  // namespace meshplan
