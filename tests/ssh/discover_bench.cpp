// Wall time of `meshplan discover` for 1 host and for 16 hosts over loopback SSH (16 sshds with
// fake Macs). Discovery probes hosts in parallel, so 16 hosts should take at most about twice
// the time of one. Here the servers run on the same cores as the client, so the CPU they use is
// printed too. Not a CTest test: run build/tests/meshplan_discover_bench [repetitions].
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/ssh/sshd_farm.hpp"
#include "tests/test_support.hpp"

using meshplan::testing::run_meshplan;
using meshplan::testing::SshdFarm;

namespace {

double children_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec +
         usage.ru_stime.tv_usec * 1e-6;
}

double median_seconds(const std::vector<std::string>& args, const SshdFarm& farm, int repetitions) {
  std::vector<double> times;
  for (int i = 0; i < repetitions; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto r = run_meshplan(args, "", {"HOME=" + farm.home(), "SSH_AUTH_SOCK="});
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (r.exit_code != 0) {
      std::fprintf(stderr, "discover failed (%d):\n%s\n", r.exit_code, r.err.c_str());
      std::exit(1);
    }
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int repetitions = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  std::string why = SshdFarm::unavailable_reason();
  if (!why.empty()) {
    std::fprintf(stderr, "cannot run: %s\n", why.c_str());
    return 1;
  }
  SshdFarm farm;
  // The hosts share the four Macs' outputs (so their cables do not pair up): only time matters.
  std::string mesh4 = meshplan::testing::source_path("tests/replays/mesh4");
  std::vector<std::string> names;
  for (int i = 1; i <= 16; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "mac-%02d", i);
    farm.add_fake_mac(name, mesh4, "m3-ultra-" + std::to_string((i - 1) % 4 + 1));
    names.push_back(name);
  }
  double cpu_before = children_cpu_seconds();  // after generating the keys
  farm.start();
  std::string config = farm.write_ssh_config();
  std::string known = farm.write_known_hosts(names, "known_hosts");
  std::vector<std::string> common = {
      "discover", "--ssh-config", config, "--known-hosts",
      known,      "-q",           "-o",   farm.dir() + "/cluster.json"};
  std::vector<std::string> one = common, sixteen = common;
  one.push_back("mac-01");
  sixteen.push_back("mac-[01-16]");
  median_seconds(one, farm, 1);  // warm-up
  double t1 = median_seconds(one, farm, repetitions);
  double t16 = median_seconds(sixteen, farm, repetitions);
  farm.stop();
  double cpu = children_cpu_seconds() - cpu_before;
  int probed = (1 + repetitions) + repetitions * 16;
  std::printf("discover, median of %d runs, loopback sshds with fake Macs:\n", repetitions);
  std::printf("   1 host : %.3f s\n", t1);
  std::printf("  16 hosts: %.3f s  (%.2fx the time of one host)\n", t16, t16 / t1);
  std::printf("CPU used by the sshds and meshplan on this machine: %.1f ms per host probed\n",
              1000 * cpu / probed);
  return 0;
}
