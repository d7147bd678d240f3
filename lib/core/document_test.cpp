#include "lib/core/document.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"

namespace meshplan::document_test {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    return e.what();
  }
  return "no error";
}

TEST(document_test, yaml_values_keep_line_and_column) {
  DocNode root = parse_yaml_document("hosts:\n  - name: a\n    memory: 512GiB\n", "c.yaml");
  const DocNode& memory = root.at("hosts").items()[0].at("memory");
  EXPECT_EQ(memory.where().line, 3);
  EXPECT_EQ(memory.where().column, 13);
  EXPECT_EQ(memory.where().pointer, "/hosts/0/memory");
  EXPECT_EQ(memory.where().describe(), "c.yaml:3:13 (/hosts/0/memory)");
}

TEST(document_test, yaml_plain_scalars_are_typed_and_quoted_ones_are_strings) {
  DocNode root = parse_yaml_document("a: 12\nb: \"12\"\nc: true\nd: ~\ne: 1e3\n", "t.yaml");
  EXPECT_TRUE(root.at("a").is_number());
  EXPECT_TRUE(root.at("b").is_string());
  EXPECT_TRUE(root.at("c").is_bool());
  EXPECT_TRUE(root.at("d").is_null());
  EXPECT_DOUBLE_EQ(root.at("e").as_number(), 1000);
}

TEST(document_test, malformed_yaml_names_file_and_position) {
  std::string msg = error_of([] { parse_yaml_document("hosts:\n  - name: [a\n", "bad.yaml"); });
  EXPECT_NE(msg.find("bad.yaml:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("malformed YAML"), std::string::npos) << msg;
}

TEST(document_test, malformed_json_names_line_and_column) {
  std::string msg = error_of(
      [] { parse_json_document("{\n  \"hosts\": [\n    {\"name\": }\n  ]\n}", "bad.json"); });
  EXPECT_NE(msg.find("bad.json:3:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("malformed JSON"), std::string::npos) << msg;
}

TEST(document_test, json_type_errors_name_the_pointer) {
  DocNode root = parse_json_document(R"({"hosts": [{"memory": true}]})", "c.json");
  std::string msg = error_of([&] { root.at("hosts").items()[0].at("memory").as_number(); });
  EXPECT_EQ(msg, "c.json (/hosts/0/memory): expected a number, got the boolean true");
}

TEST(document_test, unknown_keys_list_the_allowed_ones_and_suggest) {
  DocNode root = parse_yaml_document("nme: a\n", "c.yaml");
  std::string msg = error_of([&] { root.check_keys({"name", "ssh"}); });
  EXPECT_NE(msg.find("c.yaml:1:6"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown key \"nme\" (did you mean \"name\"?)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected one of: name, ssh"), std::string::npos) << msg;
}

TEST(document_test, duplicate_yaml_keys_are_errors) {
  std::string msg = error_of([] { parse_yaml_document("a: 1\na: 2\n", "d.yaml"); });
  EXPECT_NE(msg.find("d.yaml:2:1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("duplicate key \"a\""), std::string::npos) << msg;
}

TEST(document_test, format_by_extension_or_content) {
  EXPECT_TRUE(parse_document("{\"a\": 1}", "-").is_object());
  EXPECT_TRUE(parse_document("a: 1", "-").is_object());
  EXPECT_TRUE(parse_document("a: 1", "x.yml").at("a").is_number());
}

TEST(document_test, pointer_escapes) {
  EXPECT_EQ(pointer_append("/a", "b/c~d"), "/a/b~1c~0d");
}

// Nesting past kMaxDocumentDepth is an input error at the place it goes too deep, for JSON and
// YAML alike, not a crash of the recursive conversion.
TEST(document_test, nesting_deeper_than_the_limit_is_refused) {
  std::string deep_json = std::string(100000, '[') + std::string(100000, ']');
  std::string e = error_of([&] { parse_document(deep_json, "deep.json"); });
  EXPECT_NE(e.find("deep.json"), std::string::npos) << e;
  EXPECT_NE(e.find("nested deeper than 64 levels"), std::string::npos) << e;
  std::string deep_yaml = "a: " + std::string(70, '[') + std::string(70, ']') + "\n";
  e = error_of([&] { parse_document(deep_yaml, "deep.yaml"); });
  EXPECT_NE(e.find("deep.yaml:1:"), std::string::npos) << e;
  EXPECT_NE(e.find("nested deeper than 64 levels"), std::string::npos) << e;
  // 64 levels are fine.
  std::string ok = std::string(63, '[') + std::string(63, ']');
  EXPECT_EQ(parse_document(ok, "ok.json").items().size(), 1u);
}

TEST(document_test, duplicate_yaml_keys_are_found_among_many) {
  std::string yaml;
  for (int i = 0; i < 20000; ++i)
    yaml.append("k").append(std::to_string(i)).append(": 1\n");
  EXPECT_EQ(parse_document(yaml, "m.yaml").fields().size(), 20000u);
  std::string e = error_of([&] { parse_document(yaml + "k17: 2\n", "m.yaml"); });
  EXPECT_NE(e.find("m.yaml:20001:1"), std::string::npos) << e;
  EXPECT_NE(e.find("duplicate key \"k17\""), std::string::npos) << e;
}

TEST(document_test, a_json_number_beyond_a_double_is_a_bad_input) {
  try {
    parse_json_document("{\"memory\": 1e400}", "c.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_NE(std::string(e.what()).find("c.json: malformed JSON: number overflow"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace meshplan::document_test
