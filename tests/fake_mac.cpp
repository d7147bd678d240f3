#include "tests/fake_mac.hpp"

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "tests/test_support.hpp"

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

namespace meshplan::testing {

void write_stateful_mac(const std::string& bin_dir, const std::string& state_dir,
                        const std::vector<std::string>& interfaces) {
  std::filesystem::create_directories(state_dir + "/if");
  std::filesystem::create_directories(state_dir + "/route");
  for (const auto& line : interfaces) {
    std::istringstream words(line);
    std::string name, up, address;
    words >> name >> up >> address;
    std::ofstream f(state_dir + "/if/" + name);
    f << up << "\n";
    if (!address.empty()) {
      auto slash = address.find('/');
      f << "inet " << address.substr(0, slash) << " " << address.substr(slash + 1) << "\n";
    }
  }
  const std::string s = "S='" + state_dir + "'\n";
  const std::string fail_check =
      "if [ -f \"$S/fail\" ] && grep -qxF \"$(basename \"$0\") $*\" \"$S/fail\"; then\n"
      "  echo \"$(basename \"$0\"): failed on purpose\" >&2; exit 1\nfi\n";
  write_fake_command(bin_dir, "uname", "echo Darwin\n");
  write_fake_command(bin_dir, "id", "case \"$1\" in -u) echo 501;; *) echo admin;; esac\n");
  write_fake_command(bin_dir, "sudo",
                     s + "[ \"$1\" = -n ] && shift\n"
                         "if [ -f \"$S/sudo_password\" ]; then\n"
                         "  echo 'sudo: a password is required' >&2; exit 1\nfi\nexec \"$@\"\n");
  write_fake_command(
      bin_dir, "ifconfig",
      s +
          "if [ $# -eq 0 ] || [ \"$1\" = -a ]; then\n"
          "  for f in \"$S\"/if/*; do\n"
          "    n=$(basename \"$f\")\n"
          "    if [ \"$(head -n1 \"$f\")\" = 1 ]; then\n"
          "      echo \"$n: flags=8863<UP,BROADCAST,SMART,RUNNING,SIMPLEX,MULTICAST> mtu 1500\"\n"
          "    else\n"
          "      echo \"$n: flags=8822<BROADCAST,SMART,SIMPLEX,MULTICAST> mtu 1500\"\n"
          "    fi\n"
          "    sed -n 's/^inet \\([^ ]*\\) \\([^ ]*\\)$/\tinet \\1 netmask \\2/p' \"$f\"\n"
          "  done\n  exit 0\nfi\n"
          "echo \"ifconfig $*\" >> \"$S/log\"\n" +
          fail_check +
          "f=\"$S/if/$1\"\n"
          "[ -f \"$f\" ] || { echo \"ifconfig: interface $1 does not exist\" >&2; exit 1; }\n"
          "case \"$2\" in\n"
          "up) sed -i '1s/.*/1/' \"$f\";;\n"
          "down) sed -i '1s/.*/0/' \"$f\";;\n"
          "inet)\n"
          "  if [ \"$4\" = delete ]; then\n"
          "    grep -q \"^inet $3 \" \"$f\" || { echo \"ifconfig: ioctl (SIOCDIFADDR): Can't "
          "assign requested address\" >&2; exit 1; }\n"
          "    sed -i \"/^inet $3 /d\" \"$f\"\n"
          "  else\n"
          "    [ -n \"$(sed -n 2p \"$f\")\" ] && sed -i 2d \"$f\"\n"
          "    sed -i \"1a inet $3 $5\" \"$f\"\n"
          "  fi;;\n"
          "*) echo \"ifconfig: unknown $2\" >&2; exit 1;;\n"
          "esac\n");
  write_fake_command(bin_dir, "route",
                     s + "echo \"route $*\" >> \"$S/log\"\n" + fail_check +
                         "case \"$1\" in\n"
                         "change) echo \"$4\" > \"$S/route/$2\";;\n"
                         "delete) [ -f \"$S/route/$2\" ] || { echo 'route: writing to routing "
                         "socket: not in table' >&2; exit 1; }\n  rm \"$S/route/$2\";;\n"
                         "*) exit 1;;\nesac\n");
  write_fake_command(
      bin_dir, "netstat",
      s + "printf 'Routing tables\\n\\nInternet:\\n'\n"
          "echo 'Destination        Gateway            Flags               Netif "
          "Expire'\n"
          "echo 'default            10.0.0.1           UGScg                 en0'\n"
          "for f in \"$S\"/route/*; do\n"
          "  [ -f \"$f\" ] && echo \"$(basename \"$f\") link#9 UHLWIi $(cat \"$f\")\"\n"
          "done\nexit 0\n");
}

}  // namespace meshplan::testing

namespace meshplan::testing {

ExecResult LocalShellExecutor::run(const HostTarget& target, const std::string& command,
                                   const std::string& input) {
  std::string dir = temp_dir();
  std::ofstream(dir + "/in") << input;
  std::string cmd = "env -i PATH='" + bin_root_ + "/" + target.name + bin_suffix_ +
                    ":/usr/bin:/bin' " + env_ + " " + command + " < '" + dir + "/in' > '" + dir +
                    "/out' 2> '" + dir + "/err'";
  int status = std::system(cmd.c_str());
  ExecResult r;
  r.exit_status = WEXITSTATUS(status);
  r.out = read_text(dir + "/out");
  r.err = read_text(dir + "/err");
  return r;
}

}  // namespace meshplan::testing
