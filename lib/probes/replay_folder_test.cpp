#include "lib/probes/replay_folder.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"
#include "lib/probes/ibv_parser.hpp"
#include "lib/probes/ifconfig_parser.hpp"
#include "lib/probes/networksetup_parser.hpp"
#include "lib/probes/thunderbolt_parser.hpp"
#include "lib/remote/redaction.hpp"
#include "tests/test_support.hpp"

namespace meshplan::replay_folder_test {
namespace {

using testing::fixture_path;
using testing::read_text;
using testing::source_path;

TEST(replay_folder_test, hosts_come_from_file_names_in_natural_order) {
  RealFileSystem fs;
  EXPECT_EQ(replay_hosts(fs, fixture_path("mlx_golden/four_hosts_full_mesh/inputs")),
            (std::vector<std::string>{"m3-ultra-1", "m3-ultra-2", "m3-ultra-3", "m3-ultra-4"}));
  MemoryFileSystem mem;
  for (const char* f :
       {"r/mac-10.uname.txt", "r/mac-2.uname.txt", "r/mac-1.local.sysctl.txt", "r/notes.md"})
    mem.files.emplace(f, "x");
  EXPECT_EQ(replay_hosts(mem, "r"), (std::vector<std::string>{"mac-1.local", "mac-2", "mac-10"}));
  EXPECT_THROW(replay_hosts(mem, "missing"), Error);
  mem.files = {{"e/readme.txt", "x"}};
  EXPECT_THROW(replay_hosts(mem, "e"), Error);
}

TEST(replay_folder_test, read_gives_each_present_probe) {
  RealFileSystem fs;
  ProbeSet s =
      read_replay_probes(fs, fixture_path("mlx_golden/two_hosts_one_cable/inputs"), "mac-a");
  EXPECT_EQ(s.probes.size(), 4u);
  for (const char* p : {"system_profiler", "networksetup", "ibv_devices", "en0_ip"})
    EXPECT_TRUE(s.has(p)) << p;
  EXPECT_FALSE(s.has("uname"));
  EXPECT_TRUE(read_replay_probes(fs, fixture_path("mlx_golden/two_hosts_one_cable/inputs"), "mac-z")
                  .probes.empty());
}

TEST(replay_folder_test, record_writes_ok_probes_only_and_redacts_serials) {
  MemoryFileSystem mem;
  ProbeSet s;
  s.probes["uname"].out = "Darwin\n";
  s.probes["hardware"].out = read_text(source_path("tests/replays/mesh4/m3-ultra-1.hardware.json"));
  s.probes["system_profiler"].out =
      read_text(fixture_path("tb_sample_2_macstudio_m3ultra_tb5.json"));
  s.probes["en1_ip"] = {ProbeStatus::kFailed, 1, "", ""};
  s.probes["ibv_devices"] = {ProbeStatus::kMissing, 127, "", ""};
  write_replay_probes(mem, "rec", "studio", s);
  EXPECT_EQ(mem.files.size(), 3u);
  EXPECT_EQ(mem.files.at("rec/studio.uname.txt"), "Darwin\n");
  const std::string& hw = mem.files.at("rec/studio.hardware.json");
  EXPECT_EQ(hw.find("H9WFQ1XJ7M"), std::string::npos) << "serial number must be redacted";
  EXPECT_EQ(hw.find("6D5A3B0E-1C2F"), std::string::npos) << "platform UUID must be redacted";
  EXPECT_NE(hw.find("\"serial_number\": \"REDACTED\""), std::string::npos);
  EXPECT_NE(hw.find("Apple M3 Ultra"), std::string::npos);
  const std::string& tb = mem.files.at("rec/studio.system_profiler.json");
  // The drive's identifiers go; the Mac buses' and the Mac peer's domain UUIDs stay (cables need
  // them).
  EXPECT_EQ(tb.find("0x80878DFABA68F800"), std::string::npos);
  EXPECT_NE(tb.find("28CA4C30-A263-4C55-B302-953416D0B209"), std::string::npos);
  EXPECT_NE(tb.find("817DCFA4-B481-4100-80FC-91C7AA969F0B"), std::string::npos);
  EXPECT_NE(tb.find("0x05AC714E4ABE9811"), std::string::npos) << "a Mac bus keeps its switch id";
  // Apart from the redactions, the text is unchanged.
  std::string original = read_text(fixture_path("tb_sample_2_macstudio_m3ultra_tb5.json"));
  EXPECT_EQ(tb.size(), original.size() - std::string("0x80878DFABA68F800").size() +
                           std::string("REDACTED").size());
}

// Every file of every mlx_golden scenario is read as its probe and understood by its parser.
TEST(replay_folder_test, every_mlx_golden_input_is_understood) {
  RealFileSystem fs;
  int files = 0;
  for (const char* scenario :
       {"two_hosts_one_cable", "two_hosts_two_cables", "four_hosts_full_mesh"}) {
    std::string dir = fixture_path(std::string("mlx_golden/") + scenario + "/inputs");
    for (const auto& host : replay_hosts(fs, dir)) {
      ProbeSet s = read_replay_probes(fs, dir, host);
      files += static_cast<int>(s.probes.size());
      EXPECT_FALSE(parse_thunderbolt(s.find("system_profiler")->out).empty()) << host;
      EXPECT_FALSE(parse_networksetup(s.find("networksetup")->out).empty()) << host;
      EXPECT_FALSE(parse_ibv_devices(s.find("ibv_devices")->out).empty()) << host;
      EXPECT_FALSE(parse_getifaddr(s.find("en0_ip")->out).empty()) << host;
    }
  }
  EXPECT_EQ(files, 4 * (2 + 2 + 4));
}

TEST(replay_folder_test, gpu_uuids_are_redacted) {
  std::string csv = read_text(fixture_path("linux/nvidia-smi_query-gpu_h100x1.csv"));
  std::string r = redact_probe_output("nvidia_smi", csv);
  EXPECT_EQ(r.find("04a2c780"), std::string::npos);
  EXPECT_NE(r.find("GPU-REDACTED"), std::string::npos);
  EXPECT_NE(r.find("NVIDIA H100 80GB HBM3"), std::string::npos);
}

}  // namespace
}  // namespace meshplan::replay_folder_test
