#include "solvers/problem/throughput_profile.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"
#include "tests/plan_fixtures.hpp"

namespace meshplan::throughput_profile_test {
namespace {

using testing::test_host;
using testing::tiny_model;

// The message of the input error `text` raises, "" when it parses.
std::string parse_error(const std::string& text, const std::string& file = "prof.yaml") {
  try {
    parse_throughput_profile(text, file);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput) << e.what();
    return e.what();
  }
  return "";
}

TEST(throughput_profile_test, reads_hosts_and_chips_from_yaml_and_json) {
  ThroughputProfile p = parse_throughput_profile(R"(
model: llama-3.3-70b-4bit
streams_per_host: 8
hosts:
  studio-1:
    tokens_per_s: [2485.5, 1145.0, 763.5]
chips:
  m4-pro-20c: {tokens_per_s: [900, 450]}
)",
                                                 "p.yaml");
  EXPECT_EQ(p.model, "llama-3.3-70b-4bit");
  EXPECT_EQ(p.streams_per_host, 8);
  ASSERT_EQ(p.hosts.size(), 1u);
  EXPECT_EQ(p.hosts.at("studio-1"), (std::vector<double>{2485.5, 1145.0, 763.5}));
  EXPECT_EQ(p.chips.at("m4-pro-20c"), (std::vector<double>{900, 450}));
  ThroughputProfile j = parse_throughput_profile(
      R"({"schema": "meshplan.profile/1", "model": "m", "chips": {"h100-sxm": {"tokens_per_s": [5]}}})",
      "p.json");
  EXPECT_EQ(j.streams_per_host, 0);
  EXPECT_TRUE(j.hosts.empty());
  EXPECT_EQ(j.chips.at("h100-sxm"), std::vector<double>{5});
}

TEST(throughput_profile_test, errors_name_the_file_the_key_and_the_expected_form) {
  struct Case {
    std::string text, expect;
  };
  const std::vector<Case> cases = {
      {"hosts: {a: {tokens_per_s: [1]}}\n", "model"},
      {"model: m\n", "at least one table"},
      {"model: m\nhosts: {}\n", "at least one table"},
      {"model: m\nhosts: {a: {tokens_per_s: []}}\n", "/hosts/a/tokens_per_s"},
      {"model: m\nhosts: {a: {tokens_per_s: [10, 0]}}\n", "/hosts/a/tokens_per_s/1"},
      {"model: m\nhosts: {a: {tokens_per_s: [10, -3]}}\n", "above 0"},
      {"model: m\nhosts: {a: {tokens_per_s: [10, .inf]}}\n", "/hosts/a/tokens_per_s/1"},
      {"model: m\nhosts: {a: {tokens_per_s: [fast]}}\n", "expected a number"},
      {"model: m\nhosts: {a: {tokens_per_sec: [1]}}\n", "tokens_per_s"},
      {"model: m\nhsots: {a: {tokens_per_s: [1]}}\n", "did you mean \"hosts\""},
      {"model: m\nstreams_per_host: 0\nhosts: {a: {tokens_per_s: [1]}}\n", "/streams_per_host"},
      {"model: m\nconcurrency: 8\nhosts: {a: {tokens_per_s: [1]}}\n", "give streams_per_host"},
      {"schema: meshplan.plan/2\nmodel: m\nhosts: {a: {tokens_per_s: [1]}}\n", "/schema"},
      {"model: m\nhosts: [a]\n", "/hosts"},
      {"model: m\nhosts: {\"-oProxyCommand=x\": {tokens_per_s: [1]}}\n", "host name or chip key"},
      {"model: m\nchips: {\"a b\": {tokens_per_s: [1]}}\n", "host name or chip key"},
      {"model: \"a\\x01b\"\nhosts: {a: {tokens_per_s: [1]}}\n", "/model"},
  };
  for (const Case& c : cases) {
    std::string e = parse_error(c.text);
    EXPECT_NE(e.find("prof.yaml"), std::string::npos) << c.text << " -> " << e;
    EXPECT_NE(e.find(c.expect), std::string::npos) << c.text << " -> " << e;
  }
  // A table longer than any model's layer count is refused with the limit.
  std::string big = "model: m\nhosts: {a: {tokens_per_s: [";
  for (size_t i = 0; i <= kMaxProfileLayers; ++i)
    big += i ? ", 1" : "1";
  big += "]}}\n";
  EXPECT_NE(parse_error(big).find(std::to_string(kMaxProfileLayers)), std::string::npos);
}

TEST(throughput_profile_test, written_profiles_read_back_in_both_formats) {
  ThroughputProfile p;
  p.model = "~/models/Llama 3: 70B #4";  // a folder YAML would split unless quoted
  p.streams_per_host = 4;
  p.hosts["studio-1"] = {2485.5, 1145.0, 763.5, 0.000123456789};
  p.hosts["true"] = {1e7};  // names YAML would read as a boolean, a number or null
  p.hosts["1e5"] = {3};
  p.hosts["Null"] = {4};
  p.chips["m4-pro-20c"] = {900, 450.25};
  for (bool json : {false, true}) {
    std::string text = write_throughput_profile(p, json);
    ThroughputProfile back = parse_throughput_profile(text, json ? "p.json" : "p.yaml");
    EXPECT_EQ(back.model, p.model) << text;
    EXPECT_EQ(back.streams_per_host, p.streams_per_host);
    ASSERT_EQ(back.hosts.size(), p.hosts.size()) << text;
    for (const auto& [name, table] : p.hosts) {
      ASSERT_EQ(back.hosts.at(name).size(), table.size()) << name;
      for (size_t i = 0; i < table.size(); ++i)
        EXPECT_NEAR(back.hosts.at(name)[i], table[i], table[i] * 1e-5) << name << " " << i;
    }
    EXPECT_EQ(back.chips.at("m4-pro-20c"), (std::vector<double>{900, 450.25}));
    EXPECT_NE(text.find(kProfileSchema), std::string::npos) << text;
  }
  // Six significant digits, not a float's seventeen.
  std::string yaml = write_throughput_profile(p, false);
  EXPECT_NE(yaml.find("[2485.5, 1145, 763.5, 0.000123457]"), std::string::npos) << yaml;
}

TEST(throughput_profile_test, cost_model_table_by_hand) {
  // tiny_model: 4 layers of 1e8 bytes read and held, 2e8 FLOPs and 1000 KV bytes per token.
  ModelDesc m = tiny_model();
  HostFigures h = test_host("a", /*bandwidth=*/1e11, /*flops=*/1e12, /*usable=*/1e9);
  // Context 1000: 1e6 KV bytes per layer and stream. Two streams, k layers:
  // step = max(2*k*2e8/1e12, (k*1e8 + 2*k*1e6)/1e11) + 0.5 ms = k*1.02 ms + 0.5 ms.
  std::vector<double> t = cost_model_table(h, m, 1000, 2);
  ASSERT_EQ(t.size(), 4u);
  for (int k = 1; k <= 4; ++k)
    EXPECT_NEAR(t[k - 1], 2 / (k * 1.02e-3 + 0.5e-3), 1e-9) << k;
  // 32 streams: FLOPs bind, 32*2e8/1e12 = 6.4 ms per layer against (1e8 + 3.2e7)/1e11 = 1.32 ms.
  // Memory: 1e8 + 32 * 1e6 = 1.32e8 per layer fits 7 times in 1e9; capped at the 4 layers.
  t = cost_model_table(h, m, 1000, 32);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_NEAR(t[0], 32 / (6.4e-3 + 0.5e-3), 1e-9);
  EXPECT_NEAR(t[3], 32 / (4 * 6.4e-3 + 0.5e-3), 1e-9);
}

TEST(throughput_profile_test, cost_model_table_ends_where_memory_does) {
  ModelDesc m = tiny_model();
  // 2.5e8 usable: weights 1e8 per layer plus 1e6 of KV per stream at context 1000.
  HostFigures h = test_host("a", 1e11, 1e12, 2.5e8);
  EXPECT_EQ(cost_model_table(h, m, 1000, 1).size(), 2u);  // 1.01e8 per layer
  // 100 streams: 2e8 per layer, one fits; 200 streams: 3e8, none.
  EXPECT_EQ(cost_model_table(h, m, 1000, 100).size(), 1u);
  EXPECT_TRUE(cost_model_table(h, m, 1000, 200).empty());
  // A longer context takes KV the weights would have had.
  EXPECT_EQ(cost_model_table(h, m, 100'000, 1).size(), 1u);  // 1e8 + 1e8 per layer
}

TEST(throughput_profile_test, head_seconds_per_token_by_hand) {
  // Head: 2 * 500 * 1000 = 1e6 FLOPs per token, 2e6 bytes read once per step.
  ModelDesc m = tiny_model();
  HostFigures h = test_host("a", 1e11, 1e12);
  EXPECT_NEAR(head_seconds_per_token(h, m, 1), 2e6 / 1e11, 1e-15);
  // 8 streams share the read: max(8e6/1e12, 2e-5)/8 = 2.5 us per token.
  EXPECT_NEAR(head_seconds_per_token(h, m, 8), 2.5e-6, 1e-15);
  // 100 streams: FLOPs bind, 1e6/1e12 per token.
  EXPECT_NEAR(head_seconds_per_token(h, m, 100), 1e-6, 1e-15);
  // Tied embeddings: the head reads the embedding.
  m.tied_embeddings = true;
  EXPECT_NEAR(head_seconds_per_token(h, m, 1), 1e6 / 1e11, 1e-15);
}

TEST(throughput_profile_test, tables_from_host_then_chip_then_cost_model) {
  Cluster c = testing::load_example("ethernet-5-node.yaml");
  ModelDesc m = tiny_model();
  std::vector<HostFigures> figures;
  for (const Host& h : c.hosts)
    figures.push_back(host_figures(h, Catalog::builtin()));
  ThroughputProfile p;
  p.model = "tiny-measured";
  p.hosts["studio-1"] = {100, 60, 40, 30, 25, 20};  // longer than the model: kept as measured
  p.chips["m2-ultra-76c"] = {90, 50};
  p.chips["m4-max-40c"] = {80};
  auto tables = host_tables(c, figures, m, "tiny-measured", 1000, 1, p, "p.yaml");
  ASSERT_EQ(tables.size(), c.hosts.size());
  std::map<std::string, HostTable> by_name;
  for (size_t i = 0; i < tables.size(); ++i)
    by_name[c.hosts[i].name] = tables[i];
  EXPECT_EQ(by_name["studio-1"].source, "profile host studio-1");
  EXPECT_EQ(by_name["studio-1"].tokens_per_s.size(), 6u);
  EXPECT_EQ(by_name["studio-2"].source, "profile chip m2-ultra-76c");
  EXPECT_EQ(by_name["studio-2"].tokens_per_s, (std::vector<double>{90, 50}));
  EXPECT_EQ(by_name["mbp-m4-max"].source, "profile chip m4-max-40c");
  EXPECT_EQ(by_name["mbp-m3-max"].source, "cost model");
  const Host& mbp = *c.find_host("mbp-m3-max");
  EXPECT_EQ(by_name["mbp-m3-max"].tokens_per_s,
            cost_model_table(host_figures(mbp, Catalog::builtin()), m, 1000, 1));
  // Without a profile every table is the cost model's; the model's own name is accepted too.
  for (const HostTable& t : host_tables(c, figures, m, "x", 1000, 1, std::nullopt, ""))
    EXPECT_EQ(t.source, "cost model");
  p.model = "tiny";
  EXPECT_EQ(host_tables(c, figures, m, "tiny-4bit", 1000, 1, p, "p.yaml")[0].source,
            "profile host studio-1");
}

TEST(throughput_profile_test, host_tables_refuse_another_model_and_unknown_names) {
  Cluster c = testing::load_example("ethernet-5-node.yaml");
  ModelDesc m = tiny_model();
  std::vector<HostFigures> figures = {host_figures(c.hosts[0], Catalog::builtin())};
  auto message = [&](const ThroughputProfile& p) -> std::string {
    try {
      host_tables(c, figures, m, "tiny-4bit", 1000, 1, p, "prof.yaml");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
      return e.what();
    }
    return "";
  };
  ThroughputProfile p;
  p.model = "llama-3.3-70b-4bit";
  p.hosts["studio-1"] = {1};
  std::string e = message(p);
  EXPECT_NE(e.find("prof.yaml"), std::string::npos) << e;
  EXPECT_NE(e.find("llama-3.3-70b-4bit"), std::string::npos) << e;
  EXPECT_NE(e.find("tiny-4bit"), std::string::npos) << e;
  p.model = "tiny-4bit";
  p.hosts = {{"studio-3", {1}}};
  e = message(p);
  EXPECT_NE(e.find("\"studio-3\" is not in the cluster"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean"), std::string::npos) << e;
  p.hosts.clear();
  p.chips = {{"m4-ultra-80c", {1}}};
  e = message(p);
  EXPECT_NE(e.find("/chips/m4-ultra-80c"), std::string::npos) << e;
  EXPECT_NE(e.find("not a chip of the catalog"), std::string::npos) << e;
  // A catalog chip no host of this cluster has is fine (the profile may cover other clusters).
  p.chips = {{"h100-sxm", {1}}};
  EXPECT_EQ(message(p), "");
}

TEST(throughput_profile_test, cost_model_profile_leaves_out_hosts_without_room_for_a_layer) {
  Cluster c = testing::load_example("ethernet-5-node.yaml");
  ModelDesc m = tiny_model();
  // 1e8 KV bytes per stream and layer at context 100,000; 1500 streams need 1.5e11 per layer,
  // more than the 128 GiB laptops and the 64 GiB mini hold, less than the 192 GiB studios.
  CostModelProfile p = cost_model_profile(c, Catalog::builtin(), m, "tiny-4bit", {}, 100000, 1500);
  EXPECT_EQ(p.profile.model, "tiny-4bit");
  EXPECT_EQ(p.profile.streams_per_host, 1500);
  EXPECT_EQ(p.profile.hosts.size(), 2u);
  EXPECT_TRUE(p.profile.hosts.count("studio-1"));
  ASSERT_EQ(p.left_out.size(), 3u);
  EXPECT_NE(p.left_out[0].find("cannot hold one layer"), std::string::npos) << p.left_out[0];
  // --hosts picks and orders; an unknown name is an input error.
  p = cost_model_profile(c, Catalog::builtin(), m, "tiny-4bit", {"mini-m4-pro"}, 1000, 1);
  EXPECT_EQ(p.profile.hosts.size(), 1u);
  EXPECT_EQ(p.profile.hosts.at("mini-m4-pro").size(), 4u);
  EXPECT_THROW(cost_model_profile(c, Catalog::builtin(), m, "t", {"nope"}, 1000, 1), Error);
}

}  // namespace
}  // namespace meshplan::throughput_profile_test
