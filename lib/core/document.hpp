// A JSON or YAML document as one tree that remembers where each value came from, so that every
// input error names the file, the line:column (YAML) or JSON pointer, the key and the expected
// form.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace meshplan {

struct SourceLocation {
  std::shared_ptr<const std::string> file;
  int line = 0;  // 1-based; 0 when the format has no positions (JSON values)
  int column = 0;
  std::string pointer;  // JSON pointer of the value, "" for the root

  // "cluster.yaml:12:5 (/hosts/0/memory)" or "cluster.json (/hosts/0/memory)".
  std::string describe() const;
};

class DocNode {
 public:
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

  DocNode() = default;
  DocNode(Kind kind, std::string text, SourceLocation where)
      : kind_(kind), text_(std::move(text)), where_(std::move(where)) {}

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_object() const { return kind_ == Kind::kObject; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_number() const { return kind_ == Kind::kNumber; }
  bool is_bool() const { return kind_ == Kind::kBool; }

  // The scalar as written (numbers keep their digits).
  const std::string& text() const { return text_; }
  const SourceLocation& where() const { return where_; }
  const std::vector<DocNode>& items() const { return items_; }
  const std::vector<std::pair<std::string, DocNode>>& fields() const { return fields_; }

  const DocNode* find(std::string_view key) const;
  // The member `key`; a missing key is an input error naming this object.
  const DocNode& at(std::string_view key) const;

  // Typed reads: each throws an input error "<where>: expected <form>, got <value>".
  std::string as_string() const;
  double as_number() const;
  int64_t as_int() const;
  bool as_bool() const;
  const DocNode& require_object() const;
  const DocNode& require_array() const;

  // Unknown keys are errors; the message lists the allowed keys and suggests the closest one.
  void check_keys(std::initializer_list<std::string_view> allowed) const;

  [[noreturn]] void fail(std::string_view message) const;
  // "the string \"-5GB\"", "the number 12", "an object" — for messages.
  std::string describe_value() const;

  // Building (used by the parsers).
  void add_item(DocNode node) { items_.push_back(std::move(node)); }
  void add_field(std::string key, DocNode node) {
    fields_.emplace_back(std::move(key), std::move(node));
  }

 private:
  Kind kind_ = Kind::kNull;
  std::string text_;
  SourceLocation where_;
  std::vector<DocNode> items_;
  std::vector<std::pair<std::string, DocNode>> fields_;
};

// Parse `text` read from `file_name`. Malformed input is an input error with the position.
// Documents nested deeper than this are refused (input error naming the place).
inline constexpr int kMaxDocumentDepth = 64;

DocNode parse_json_document(std::string_view text, const std::string& file_name);
DocNode parse_yaml_document(std::string_view text, const std::string& file_name);
// By extension (.json, .yaml, .yml); "-" or anything else: JSON when it starts with { or [.
DocNode parse_document(std::string_view text, const std::string& file_name);

// Appends a JSON-pointer token, escaping ~ and /.
std::string pointer_append(std::string_view pointer, std::string_view token);

}  // namespace meshplan
