#include "lib/probes/probe_script.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "lib/probes/linux_parsers.hpp"
#include "tests/test_support.hpp"

namespace meshplan::probe_script_test {
namespace {

using testing::read_text;
using testing::temp_dir;

void write_file(const std::string& path, const std::string& text, bool executable = false) {
  std::ofstream(path, std::ios::binary) << text;
  if (executable) chmod(path.c_str(), 0755);
}

// Runs the probe script with /bin/sh -s as sshd would, with `bin` first in PATH.
ProbeSet run_script(const std::string& bin) {
  std::string dir = temp_dir();
  write_file(dir + "/script", probe_script());
  std::string cmd = "cd / && env -i PATH='" + bin + ":/usr/bin:/bin' " + kProbeShell + " < '" +
                    dir + "/script' > '" + dir + "/out' 2> '" + dir + "/err'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return split_probe_output(read_text(dir + "/out"), read_text(dir + "/err"));
}

TEST(probe_script_test, script_is_fixed_text_with_every_probe) {
  const std::string& s = probe_script();
  for (const auto& spec : probe_specs()) {
    EXPECT_NE(s.find(std::string("mp_run ") + spec.name + " " + spec.command + "\n"),
              std::string::npos)
        << spec.name;
  }
  EXPECT_NE(s.find("PATH=\"$PATH:/usr/sbin:/sbin:/usr/bin:/bin\""), std::string::npos);
  EXPECT_NE(s.find("</dev/null"), std::string::npos)
      << "commands must not read the script from stdin";
}

TEST(probe_script_test, runs_on_this_linux_machine) {
  ProbeSet set = run_script(temp_dir());
  const ProbeOutput* uname = set.find("uname");
  ASSERT_NE(uname, nullptr);
  EXPECT_EQ(uname->out, "Linux\n");
  const ProbeOutput* mem = set.find("meminfo");
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->status, ProbeStatus::kOk);
  EXPECT_EQ(parse_meminfo_total(mem->out), parse_meminfo_total(read_text("/proc/meminfo")));
  EXPECT_FALSE(set.has("system_profiler")) << "macOS probes do not run on Linux";
  EXPECT_TRUE(set.has("ibv_devinfo"));
}

TEST(probe_script_test, macos_branch_with_fake_commands) {
  std::string bin = temp_dir();
  write_file(bin + "/uname", "#!/bin/sh\necho Darwin\n", true);
  write_file(bin + "/networksetup",
             "#!/bin/sh\nprintf 'Hardware Port: Thunderbolt 1\\nDevice: en2'\n", true);
  write_file(bin + "/system_profiler", "#!/bin/sh\necho \"args: $*\"\necho 'no data' >&2\nexit 3\n",
             true);
  write_file(bin + "/sw_vers",
             "#!/bin/sh\nread x && echo \"stdin: $x\"\necho 'ProductVersion: 26.2'\n", true);
  ProbeSet set = run_script(bin);
  EXPECT_EQ(set.find("uname")->out, "Darwin\n");
  const ProbeOutput* ns = set.find("networksetup");
  ASSERT_NE(ns, nullptr);
  EXPECT_EQ(ns->status, ProbeStatus::kOk);
  EXPECT_EQ(ns->out,
            "Hardware Port: Thunderbolt 1\nDevice: en2");  // byte for byte, no newline added
  const ProbeOutput* sp = set.find("system_profiler");
  ASSERT_NE(sp, nullptr);
  EXPECT_EQ(sp->status, ProbeStatus::kFailed);
  EXPECT_EQ(sp->exit_status, 3);
  EXPECT_EQ(sp->out, "args: SPThunderboltDataType -json\n");
  EXPECT_EQ(sp->err, "no data\n");
  // Commands read /dev/null, never the rest of the script.
  EXPECT_EQ(set.find("sw_vers")->out, "ProductVersion: 26.2\n");
  const ProbeOutput* ip = set.find("en0_ip");  // there is no ipconfig on Linux
  ASSERT_NE(ip, nullptr);
  EXPECT_EQ(ip->status, ProbeStatus::kMissing);
  EXPECT_FALSE(set.has("meminfo"));
}

TEST(probe_script_test, split_keeps_output_exact_and_needs_the_end_marker) {
  std::string out =
      "\n@@meshplan uname\nDarwin\n\n@@meshplan-exit 0\n"
      "\n@@meshplan en0_ip\n\n@@meshplan-exit 1\n"
      "\n@@meshplan ibv_devices\n\n@@meshplan-exit missing\n"
      "\n@@meshplan networksetup\n\n\n@@meshplan-exit 0\n"
      "\n@@meshplan-end\n";
  std::string err =
      "\n@@meshplan uname\n\n@@meshplan en0_ip\nfailed\n\n@@meshplan ibv_devices\nnot found";
  ProbeSet s = split_probe_output(out, err);
  EXPECT_EQ(s.find("uname")->out, "Darwin\n");
  EXPECT_EQ(s.find("uname")->err, "");
  EXPECT_EQ(s.find("en0_ip")->out, "");
  EXPECT_EQ(s.find("en0_ip")->err, "failed\n");
  EXPECT_EQ(s.find("en0_ip")->status, ProbeStatus::kFailed);
  EXPECT_EQ(s.find("ibv_devices")->status, ProbeStatus::kMissing);
  EXPECT_EQ(s.find("ibv_devices")->err, "not found");
  EXPECT_EQ(s.find("networksetup")->out, "\n");
  EXPECT_THROW(split_probe_output(out.substr(0, out.find("@@meshplan-end")), ""), ProbeParseError);
  EXPECT_THROW(split_probe_output("Welcome to fish\n", ""), ProbeParseError);
}

TEST(probe_script_test, an_exit_status_too_long_for_a_shell_is_refused) {
  EXPECT_THROW(split_probe_output("@@meshplan uname\nDarwin\n@@meshplan-exit 99999999999999\n"
                                  "@@meshplan-end\n",
                                  ""),
               ProbeParseError);
}

}  // namespace
}  // namespace meshplan::probe_script_test
