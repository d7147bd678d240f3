#include "tests/fake_mac.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

namespace meshplan::testing {
namespace {

bool exists(const std::string& path) {
  return std::filesystem::exists(path);
}

}  // namespace

void write_fake_command(const std::string& bin_dir, const std::string& name,
                        const std::string& body) {
  std::filesystem::create_directories(bin_dir);
  std::string path = bin_dir + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "#!/bin/sh\n" << body;
  chmod(path.c_str(), 0755);
}

void write_fake_mac_commands(const std::string& replay_dir, const std::string& host,
                             const std::string& bin_dir) {
  auto file = [&](const std::string& probe_file) {
    return replay_dir + "/" + host + "." + probe_file;
  };
  auto cat_or_fail = [&](const std::string& f, const std::string& name) {
    return exists(f) ? "exec cat '" + f + "'" : "echo '" + name + ": no data' >&2; exit 1";
  };
  write_fake_command(
      bin_dir, "uname",
      exists(file("uname.txt")) ? "exec cat '" + file("uname.txt") + "'\n" : "echo Darwin\n");
  for (const auto& [tool, probe_file] :
       std::vector<std::pair<std::string, std::string>>{{"sw_vers", "sw_vers.txt"},
                                                        {"networksetup", "networksetup.txt"},
                                                        {"ifconfig", "ifconfig.txt"},
                                                        {"ibv_devices", "ibv_devices.txt"},
                                                        {"ibv_devinfo", "ibv_devinfo.txt"}}) {
    if (exists(file(probe_file)))
      write_fake_command(bin_dir, tool, "exec cat '" + file(probe_file) + "'\n");
  }
  if (exists(file("sysctl.txt")))
    write_fake_command(
        bin_dir, "sysctl",
        "case \"$*\" in\n*iogpu.wired_limit_mb*) " +
            (exists(file("wired_limit.txt"))
                 ? "exec cat '" + file("wired_limit.txt") + "'"
                 : std::string("echo \"sysctl: unknown oid 'iogpu.wired_limit_mb'\" >&2; exit 1")) +
            ";;\n*) exec cat '" + file("sysctl.txt") + "';;\nesac\n");
  if (exists(file("system_profiler.json")) || exists(file("hardware.json")))
    write_fake_command(bin_dir, "system_profiler",
                       "case \"$*\" in\n*SPThunderboltDataType*) " +
                           cat_or_fail(file("system_profiler.json"), "system_profiler") +
                           ";;\n*) " + cat_or_fail(file("hardware.json"), "system_profiler") +
                           ";;\nesac\n");
  write_fake_command(bin_dir, "ipconfig",
                     "case \"$2\" in\nen0) " + cat_or_fail(file("en0_ip.txt"), "ipconfig") +
                         ";;\nen1) " + cat_or_fail(file("en1_ip.txt"), "ipconfig") +
                         ";;\nesac\nexit 1\n");
}

}  // namespace meshplan::testing
