#include "lib/probes/hardware_parser.hpp"

#include <gtest/gtest.h>

#include "lib/probes/probe_set.hpp"
#include "tests/test_support.hpp"

namespace meshplan::hardware_parser_test {
namespace {

using testing::fixture_path;
using testing::read_text;

constexpr uint64_t kGiB = 1024ull * 1024 * 1024;

TEST(hardware_parser_test, sphardware_captures_in_all_three_processor_shapes) {
  struct Case {
    const char* file;
    const char* chip;
    const char* model;
    uint64_t memory;
    int cores;
    std::vector<int> tiers;
  };
  for (const Case& c : {
           Case{"SPHardwareDataType_M1_MacBookAir10-1.json",
                "Apple M1",
                "MacBookAir10,1",
                16 * kGiB,
                8,
                {4, 4}},
           Case{"SPHardwareDataType_M2_MacBookPro_Mac14-7.json",
                "Apple M2",
                "Mac14,7",
                16 * kGiB,
                8,
                {4, 4}},
           Case{"SPHardwareDataType_M5Max_MacBookPro_Mac17-6.json",
                "Apple M5 Max",
                "Mac17,6",
                128 * kGiB,
                18,
                {6, 0, 12}},
           Case{"SPHardwareDataType_GitHubRunner_macos26_M1_Virtual.json",
                "Apple M1 (Virtual)",
                "VirtualMac2,1",
                7 * kGiB,
                3,
                {}},
           Case{"SPHardwareDataType_M1_MacBookAir10-1_under_Rosetta.json",
                "",
                "MacBookAir10,1",
                16 * kGiB,
                8,
                {}},
       }) {
    MacHardware hw =
        parse_system_profiler_hardware(read_text(fixture_path(std::string("macos/") + c.file)));
    EXPECT_EQ(hw.chip_type, c.chip) << c.file;
    EXPECT_EQ(hw.machine_model, c.model) << c.file;
    EXPECT_EQ(hw.memory, c.memory) << c.file;
    EXPECT_EQ(hw.cpu_cores, c.cores) << c.file;
    EXPECT_EQ(hw.cpu_tiers, c.tiers) << c.file;
    EXPECT_EQ(hw.gpu_cores, 0) << c.file;  // no SPDisplaysDataType in these captures
  }
}

TEST(hardware_parser_test, spdisplays_cores_are_a_string) {
  MacHardware hw = parse_system_profiler_hardware(read_text(
      fixture_path("macos/SPDisplaysDataType_M1Pro_14core_builtin_plus_2_displays.json")));
  EXPECT_EQ(hw.gpu_cores, 14);
  EXPECT_EQ(hw.gpu_model, "Apple M1 Pro");
  EXPECT_EQ(hw.memory, 0u);
  EXPECT_THROW(
      parse_system_profiler_hardware(R"({"SPDisplaysDataType": [{"sppci_cores": "many"}]})"),
      ProbeParseError);
  EXPECT_THROW(parse_system_profiler_hardware(read_text(fixture_path(
                   "macos/system_profiler_SPDisplaysDataType_text_M3_10core_EXCERPT.txt"))),
               ProbeParseError);
  EXPECT_THROW(parse_system_profiler_hardware(
                   R"({"SPHardwareDataType": [{"number_processors": "proc x"}]})"),
               ProbeParseError);
  // The text form (-detailLevel mini) is not what the probe asks for.
  EXPECT_THROW(parse_system_profiler_hardware(read_text(fixture_path(
                   "macos/system_profiler_detailLevel_mini_SPHardwareDataType_M1Pro_M2Pro.txt"))),
               ProbeParseError);
}

TEST(hardware_parser_test, number_processors_shapes) {
  int total = 0;
  std::vector<int> tiers;
  EXPECT_TRUE(parse_number_processors("proc 8:4:4", &total, &tiers));
  EXPECT_EQ(total, 8);
  EXPECT_TRUE(parse_number_processors("proc 18:6:0:12", &total, &tiers));
  EXPECT_EQ(tiers, (std::vector<int>{6, 0, 12}));
  EXPECT_TRUE(parse_number_processors("3", &total, &tiers));
  EXPECT_EQ(total, 3);
  EXPECT_TRUE(tiers.empty());
  EXPECT_FALSE(parse_number_processors("eight", &total, &tiers));
  EXPECT_FALSE(parse_number_processors("proc 8:x", &total, &tiers));
}

TEST(hardware_parser_test, sysctl_keyed_and_positional) {
  MacSysctl vm =
      parse_sysctl(read_text(fixture_path("macos/sysctl_GitHubRunner_macos26_M1_Virtual.txt")));
  EXPECT_EQ(vm.memsize, 7516192768u);
  EXPECT_EQ(vm.model, "VirtualMac2,1");
  EXPECT_EQ(vm.brand, "Apple M1 (Virtual)");
  EXPECT_EQ(vm.values.at("hw.perflevel0.name"), "Standard");

  MacSysctl early = parse_sysctl(
      read_text(fixture_path("macos/sysctl_machdep.cpu_early_M1_Apple_processor_EXCERPT.txt")));
  EXPECT_EQ(early.brand, "Apple processor");
  EXPECT_EQ(early.memsize, 0u);
  EXPECT_EQ(early.values.at("machdep.cpu.core_count"), "8");

  MacSysctl m5 = parse_sysctl(read_text(fixture_path("macos/sysctl_hw.perflevel_M5Max.txt")));
  EXPECT_EQ(m5.values.at("hw.perflevel0.name"), "Super");
  EXPECT_EQ(m5.values.at("hw.perflevel1.physicalcpu"), "12");
  MacSysctl m1pro = parse_sysctl(read_text(fixture_path("macos/sysctl_-a_hw_M1Pro_EXCERPT.txt")));
  EXPECT_EQ(m1pro.values.at("hw.ncpu"), "10");

  // `sysctl -n hw.memsize hw.model machdep.cpu.brand_string`
  MacSysctl bare = parse_sysctl("549755813888\nMac15,14\nApple M3 Ultra\n");
  EXPECT_EQ(bare.memsize, 549755813888u);
  EXPECT_EQ(bare.model, "Mac15,14");
  EXPECT_EQ(bare.brand, "Apple M3 Ultra");

  EXPECT_THROW(parse_sysctl(""), ProbeParseError);
  EXPECT_THROW(parse_sysctl("hw.memsize: lots\n"), ProbeParseError);
}

TEST(hardware_parser_test, wired_limit_zero_value_or_unknown) {
  EXPECT_EQ(parse_wired_limit("0\n"), 0);
  EXPECT_EQ(parse_wired_limit("235520\n"), 235520);
  EXPECT_EQ(parse_wired_limit("iogpu.wired_limit_mb: 98304\n"), 98304);
  EXPECT_EQ(parse_wired_limit("sysctl: unknown oid 'iogpu.wired_limit_mb'"), std::nullopt);
  EXPECT_EQ(parse_wired_limit(""), std::nullopt);
}

TEST(hardware_parser_test, sw_vers_capture) {
  SwVers v =
      parse_sw_vers(read_text(fixture_path("macos/sw_vers_uname-m_GitHubRunner_macos26.txt")));
  EXPECT_EQ(v.product, "macOS");
  EXPECT_EQ(v.version, "26.6.2");
  EXPECT_EQ(v.build, "25G83");
  EXPECT_THROW(parse_sw_vers("Darwin\n"), ProbeParseError);
}

}  // namespace
}  // namespace meshplan::hardware_parser_test
