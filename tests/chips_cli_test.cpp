// `meshplan chips`: the catalog as a user reads it, through the real binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "tests/test_support.hpp"

namespace meshplan::chips_cli_test {
namespace {

using nlohmann::json;
using testing::read_text;
using testing::run_meshplan;

// Lines of the machine table: the rows after the "machine" header up to the blank line.
std::vector<std::string> machine_rows(const std::string& out) {
  std::vector<std::string> rows;
  size_t at = out.find("\nmachine ");
  EXPECT_NE(at, std::string::npos) << out;
  at = out.find('\n', at + 1);
  while (at != std::string::npos && at + 1 < out.size() && out[at + 1] != '\n') {
    size_t end = out.find('\n', at + 1);
    rows.push_back(out.substr(at + 1, end - at - 1));
    at = end;
  }
  return rows;
}

TEST(chips_cli_test, each_machine_is_listed_once_with_its_chips) {
  auto r = run_meshplan({"chips"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = machine_rows(r.out);
  ASSERT_GT(rows.size(), 20u);
  for (const std::string key : {"mac-mini-m4-pro", "mac-studio-m3-ultra", "macbook-pro-m5-max"}) {
    std::regex word("(^|[\\s,])" + std::string(key) + "($|[\\s,])");
    size_t count = 0;
    std::sregex_iterator it(r.out.begin(), r.out.end(), word), end;
    for (; it != end; ++it)
      ++count;
    EXPECT_EQ(count, 1u) << key << " appears " << count << " times in:\n" << r.out;
  }
  bool found = false;
  for (const auto& row : rows) {
    if (row.starts_with("mac-studio-m3-ultra ")) {
      found = true;
      EXPECT_NE(row.find("m3-ultra-60c, m3-ultra-80c"), std::string::npos) << row;
    }
  }
  EXPECT_TRUE(found);
}

TEST(chips_cli_test, the_m5_family_and_the_gpus_users_run_are_known_with_sources) {
  auto r = run_meshplan({"chips", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json chips = json::parse(r.out);
  std::map<std::string, json> by_key;
  for (const auto& c : chips)
    by_key[c["name"]] = c;
  for (const char* key :
       {"m5-10c", "m5-pro-20c", "m5-max-40c", "a100-40gb", "a100-80gb", "l40s", "rtx-3090",
        "rtx-4090", "rtx-5090", "rtx-pro-6000", "h100-sxm", "h100-pcie", "h200", "b200", "gb10"}) {
    ASSERT_TRUE(by_key.count(key)) << key;
    const json& c = by_key[key];
    for (const char* figure : {"mem_bandwidth_GBps", "fp16_tflops", "max_memory_GiB"}) {
      ASSERT_TRUE(c["sources"].contains(figure)) << key << " " << figure;
      // Every source resolves to its description ("key: text").
      EXPECT_NE(c["sources"][figure].get<std::string>().find(": "), std::string::npos)
          << key << " " << figure << ": " << c["sources"][figure];
    }
  }
  EXPECT_EQ(by_key["m5-max-40c"]["mem_bandwidth_bytes_per_s"].get<double>(), 614e9);
  EXPECT_EQ(by_key["m5-max-40c"]["machines"][0], "macbook-pro-m5-max");
  // A decode step's products run on the M5's shader ALUs: a quarter of the FP16 figure, at the
  // decode efficiency; elsewhere the decode peak is the FP16 figure.
  EXPECT_EQ(by_key["m5-max-40c"]["decode_fp16_flops"].get<double>(), 17.2e12);
  EXPECT_EQ(by_key["m5-max-40c"]["fp16_flops"].get<double>(), 68.8e12);
  EXPECT_NE(by_key["m5-max-40c"]["sources"]["decode_tflops"].get<std::string>().find("m5-shader"),
            std::string::npos);
  EXPECT_EQ(by_key["m5-max-40c"]["decode_flops_efficiency"].get<double>(), 0.4);
  EXPECT_EQ(by_key["h200"]["decode_fp16_flops"], by_key["h200"]["fp16_flops"]);
  EXPECT_EQ(by_key["h200"]["nvlink"], "nvlink4");
  EXPECT_EQ(by_key["b200"]["nvlink"], "nvlink5");
}

TEST(chips_cli_test, one_family_or_machine_shows_its_figures_and_sources) {
  auto r = run_meshplan({"chips", "m3-ultra"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Apple M3 Ultra (60-core GPU) (m3-ultra-60c)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Apple M3 Ultra (80-core GPU) (m3-ultra-80c)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("819 GB/s  [techpowerup"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("m4-"), std::string::npos) << r.out;

  r = run_meshplan({"chips", "macbook-pro-m5-max"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ports 1..3 = en1, en6, en2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Mac17,6"), std::string::npos) << r.out;
}

TEST(chips_cli_test, an_unknown_name_gets_the_nearest_and_exit_2) {
  auto r = run_meshplan({"chips", "m5-maxx-40c"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("unknown chip or machine \"m5-maxx-40c\" (did you mean \"m5-max-40c\""),
            std::string::npos)
      << r.err;
}

TEST(chips_cli_test, the_docs_list_every_catalog_source) {
  std::string page = read_text(std::string(MESHPLAN_SOURCE_DIR) + "/docs/chips.md");
  for (const char* file : {"lib/data/chips.json", "lib/data/machines.json"}) {
    json catalog = json::parse(read_text(std::string(MESHPLAN_SOURCE_DIR) + "/" + file));
    for (const auto& [key, text] : catalog["sources"].items())
      EXPECT_NE(page.find("* `" + key + "`: " + text.get<std::string>()), std::string::npos)
          << file << " source " << key << " is not in docs/chips.md";
  }
}

}  // namespace
}  // namespace meshplan::chips_cli_test
