#include "tests/slurm/slurm_farm.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <random>
#include <stdexcept>
#include <thread>

#include "tests/test_support.hpp"

namespace meshplan::testing {
namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// A port nothing listens on now: bind port 0 on loopback, read the port back, close.
int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("no free port on 127.0.0.1");
  ::close(fd);
  return ntohs(addr.sin_port);
}

void stop_pid_file(const std::string& path) {
  std::ifstream in(path);
  pid_t pid = 0;
  if (!(in >> pid) || pid <= 1) return;
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 100 && ::kill(pid, 0) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (::kill(pid, 0) == 0) ::kill(pid, SIGKILL);
}

}  // namespace

ShellResult shell(const std::string& command, const std::string& conf) {
  std::string full = conf.empty() ? command : "export SLURM_CONF='" + conf + "'; " + command;
  full = "(" + full + ") 2>&1";
  ShellResult r;
  FILE* pipe = ::popen(full.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, pipe)) > 0)
    r.out.append(buf, got);
  int status = ::pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string SlurmFarm::unavailable() {
  if (::geteuid() != 0) return "the Slurm tests start munged, slurmctld and slurmd as root";
  for (const char* program : {"slurmctld", "slurmd", "munged", "sbatch", "scontrol"})
    if (shell(fmt::format("command -v {} || test -x /usr/sbin/{}", program, program)).status != 0)
      return fmt::format("{} is not installed (apt-get install slurm-wlm munge)", program);
  return "";
}

SlurmFarm::SlurmFarm(const std::vector<std::pair<std::string, int>>& extra_nodes) {
  dir_ = temp_dir();
  conf_ = dir_ + "/slurm.conf";
  node_ = shell("hostname -s").out;
  while (!node_.empty() && (node_.back() == '\n' || node_.back() == ' '))
    node_.pop_back();
  // munge: a private key and socket, so that no system munged is needed or disturbed.
  shell(fmt::format("head -c 1024 /dev/urandom > {0}/munge.key && chmod 400 {0}/munge.key", dir_));
  ShellResult m = shell(fmt::format(
      "/usr/sbin/munged -f --key-file={0}/munge.key -S {0}/munge.sock --pid-file={0}/munged.pid "
      "--log-file={0}/munged.log --seed-file={0}/seed",
      dir_));
  if (m.status != 0) throw std::runtime_error("munged did not start: " + m.out);
  std::string cpus = shell("nproc").out;
  while (!cpus.empty() && cpus.back() == '\n')
    cpus.pop_back();
  std::string conf = fmt::format(
      "ClusterName=mp\nSlurmctldHost={0}(127.0.0.1)\nSlurmctldPort={1}\nSlurmdPort={2}\n"
      "AuthType=auth/munge\nAuthInfo=socket={3}/munge.sock\nCryptoType=crypto/munge\n"
      "StateSaveLocation={3}/state\nSlurmdSpoolDir={3}/spool\nSlurmctldPidFile={3}/slurmctld.pid\n"
      "SlurmdPidFile={3}/slurmd.pid\nSlurmctldLogFile={3}/slurmctld.log\n"
      "SlurmdLogFile={3}/slurmd.log\nSlurmUser=root\nProctrackType=proctrack/linuxproc\n"
      "TaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\nSelectType=select/cons_tres\n"
      "SelectTypeParameters=CR_Core\nReturnToService=2\nMpiDefault=none\nGresTypes=gpu\n"
      "NodeName={0} NodeAddr=127.0.0.1 CPUs={4} RealMemory=1000 State=UNKNOWN\n",
      node_, free_port(), free_port(), dir_, cpus);
  int addr = 11;
  for (const auto& [name, gpus] : extra_nodes)
    conf += fmt::format("NodeName={} NodeAddr=127.0.0.{} CPUs=8 RealMemory=100000{} State=DOWN\n",
                        name, addr++, gpus > 0 ? fmt::format(" Gres=gpu:h100:{}", gpus) : "");
  conf += "PartitionName=debug Nodes=ALL Default=YES MaxTime=10 State=UP\n";
  shell(fmt::format("mkdir -p {0}/state {0}/spool", dir_));
  write_file(conf_, conf);
  // slurmd's node declares no GPUs itself; the gres.conf of the fake nodes is never read by a
  // slurmd, as none runs for them.
  ShellResult c = shell("/usr/sbin/slurmctld -i", conf_);
  if (c.status != 0) throw std::runtime_error("slurmctld did not start: " + c.out + logs());
  ShellResult d = shell("/usr/sbin/slurmd -N " + node_, conf_);
  if (d.status != 0) throw std::runtime_error("slurmd did not start: " + d.out + logs());
}

bool SlurmFarm::wait_idle(size_t count, int seconds) const {
  for (int i = 0; i < seconds * 2; ++i) {
    ShellResult r = shell("sinfo -h -N -o '%N %t' | grep -c ' idle$'", conf_);
    if (r.status == 0 && std::stoul(r.out) >= count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return false;
}

std::string SlurmFarm::logs() const {
  return shell(fmt::format("tail -n 20 {0}/slurmctld.log {0}/slurmd.log {0}/munged.log", dir_)).out;
}

SlurmFarm::~SlurmFarm() {
  stop_pid_file(dir_ + "/slurmd.pid");
  stop_pid_file(dir_ + "/slurmctld.pid");
  stop_pid_file(dir_ + "/munged.pid");
}

}  // namespace meshplan::testing
