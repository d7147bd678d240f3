#include "lib/core/file_system.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "lib/core/error.hpp"

namespace meshplan {

namespace fs = std::filesystem;

namespace {

// A name inside a folder being written: relative, in subfolders at most ("replica-1/vllm.sh"),
// never leaving the folder.
void check_entry_name(const std::string& folder, const std::string& name) {
  fs::path p(name);
  bool ok = !name.empty() && p.is_relative() && name.back() != '/';
  for (const auto& part : p)
    ok = ok && !part.empty() && part != "." && part != "..";
  if (!ok)
    throw input_error("{}: cannot write \"{}\": expected a relative file name inside the folder",
                      folder, name);
}

}  // namespace

std::string read_bounded(std::istream& in, const std::string& name) {
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    // Checked while reading: a pipe or /dev/zero has no size to look at first.
    if (text.size() > kMaxInputFileBytes)
      throw input_error("{}: larger than {} MiB, the most meshplan reads from one input", name,
                        kMaxInputFileBytes >> 20);
  }
  if (in.bad()) throw input_error("{}: read error", name);
  return text;
}

std::string RealFileSystem::read_file(const std::string& path) const {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw input_error("{}: is a directory, expected a file", path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error("{}: cannot read: {}", path, std::strerror(errno));
  if (fs::is_regular_file(path, ec) && fs::file_size(path, ec) > kMaxInputFileBytes && !ec)
    throw input_error("{}: larger than {} MiB, the most meshplan reads from one input", path,
                      kMaxInputFileBytes >> 20);
  return read_bounded(in, path);
}

bool RealFileSystem::exists(const std::string& path) const {
  std::error_code ec;
  return fs::exists(path, ec);
}

bool RealFileSystem::is_directory(const std::string& path) const {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

std::vector<std::string> RealFileSystem::list_directory(const std::string& path) const {
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(path, ec))
    names.push_back(entry.path().filename().string());
  if (ec) throw input_error("{}: cannot list directory: {}", path, ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

void RealFileSystem::write_file_atomic(const std::string& path, const std::string& content) {
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::random_device rd;
  std::string tmp =
      (dir / fmt::format(".{}.tmp{}", target.filename().string(), rd() % 1000000)).string();
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw input_error("{}: cannot write: {}", path, std::strerror(errno));
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw input_error("{}: cannot write: {}", path, std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw input_error("{}: cannot write: {}", path, std::strerror(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw input_error("{}: cannot replace: {}", path, std::strerror(err));
  }
}

void RealFileSystem::make_directories(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) throw input_error("{}: cannot create directory: {}", path, ec.message());
}

void RealFileSystem::write_directory_atomic(const std::string& path,
                                            const std::map<std::string, std::string>& files) {
  fs::path target = fs::path(path).lexically_normal();
  if (target.filename().empty()) target = target.parent_path();
  std::error_code ec;
  if (fs::exists(target, ec) && !(fs::is_directory(target, ec) && fs::is_empty(target, ec)))
    throw input_error("{}: already exists and is not an empty folder; name a new one", path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::random_device rd;
  fs::path tmp = dir / fmt::format(".{}.tmp{}", target.filename().string(), rd() % 1000000);
  if (!fs::create_directory(tmp, ec) || ec)
    throw input_error("{}: cannot create folder: {}", tmp.string(),
                      ec ? ec.message() : std::string("it exists"));
  try {
    for (const auto& [name, content] : files) {
      check_entry_name(path, name);
      fs::path file = tmp / name;
      // Subfolders (replica-1/...) are made inside the temporary folder, so they appear with it.
      if (fs::path(name).has_parent_path()) make_directories(file.parent_path().string());
      write_file_atomic(file.string(), content);
    }
    if (::rename(tmp.c_str(), target.c_str()) != 0)
      throw input_error("{}: cannot create: {}", path, std::strerror(errno));
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
}

std::string FileSystem::read_range(const std::string& path, uint64_t offset,
                                   uint64_t length) const {
  std::string all = read_file(path);
  if (offset >= all.size()) return {};
  return all.substr(offset, length);
}

uint64_t RealFileSystem::file_size(const std::string& path) const {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw input_error("{}: is a directory, expected a file", path);
  auto size = fs::file_size(path, ec);
  if (ec) throw input_error("{}: cannot read: {}", path, ec.message());
  return size;
}

std::string RealFileSystem::read_range(const std::string& path, uint64_t offset,
                                       uint64_t length) const {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error("{}: cannot read: {}", path, std::strerror(errno));
  uint64_t size = file_size(path);
  if (offset >= size) return {};
  uint64_t n = std::min(length, size - offset);
  std::string out(static_cast<size_t>(n), '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(out.data(), static_cast<std::streamsize>(n));
  out.resize(static_cast<size_t>(in.gcount()));
  return out;
}

std::string MemoryFileSystem::read_file(const std::string& path) const {
  auto it = files.find(path);
  if (it == files.end()) throw input_error("{}: cannot read: No such file or directory", path);
  return it->second;
}

bool MemoryFileSystem::exists(const std::string& path) const {
  return files.count(path) || is_directory(path);
}

bool MemoryFileSystem::is_directory(const std::string& path) const {
  std::string prefix = path.empty() || path.back() == '/' ? path : path + "/";
  for (const auto& [p, _] : files) {
    if (p.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

std::vector<std::string> MemoryFileSystem::list_directory(const std::string& path) const {
  std::string prefix = path.empty() || path.back() == '/' ? path : path + "/";
  std::vector<std::string> names;
  for (const auto& [p, _] : files) {
    if (p.rfind(prefix, 0) != 0) continue;
    std::string rest = p.substr(prefix.size());
    std::string name = rest.substr(0, rest.find('/'));
    if (names.empty() || names.back() != name) names.push_back(name);
  }
  if (names.empty())
    throw input_error("{}: cannot list directory: No such file or directory", path);
  return names;
}

void MemoryFileSystem::write_file_atomic(const std::string& path, const std::string& content) {
  files[path] = content;
}

void MemoryFileSystem::make_directories(const std::string&) {}

void MemoryFileSystem::write_directory_atomic(const std::string& path,
                                              const std::map<std::string, std::string>& add) {
  if (files.count(path) || is_directory(path))
    throw input_error("{}: already exists and is not an empty folder; name a new one", path);
  for (const auto& [name, _] : add)
    check_entry_name(path, name);
  for (const auto& [name, content] : add)
    files[path + "/" + name] = content;
}

}  // namespace meshplan
