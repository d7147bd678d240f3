#include "lib/core/document.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "lib/core/error.hpp"
#include "lib/core/nearest_names.hpp"
#include "lib/core/units.hpp"

namespace meshplan {
namespace {

bool looks_like_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  // Reject things strtod accepts but YAML does not treat as numbers here.
  for (char c : s) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' ||
          c == 'e' || c == 'E'))
      return false;
  }
  return true;
}

// Every file meshplan reads nests a few levels; a deeper one is hostile or broken, and converting
// it recursively would exhaust the stack.
void check_depth(int depth, const SourceLocation& loc) {
  if (depth > kMaxDocumentDepth)
    DocNode(DocNode::Kind::kNull, "", loc)
        .fail(fmt::format("nested deeper than {} levels", kMaxDocumentDepth));
}

DocNode from_json(const nlohmann::json& j, const std::shared_ptr<const std::string>& file,
                  const std::string& pointer, int depth) {
  SourceLocation loc{file, 0, 0, pointer};
  check_depth(depth, loc);
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      return DocNode(DocNode::Kind::kNull, "null", loc);
    case nlohmann::json::value_t::boolean:
      return DocNode(DocNode::Kind::kBool, j.get<bool>() ? "true" : "false", loc);
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      return DocNode(DocNode::Kind::kNumber, j.dump(), loc);
    case nlohmann::json::value_t::string:
      return DocNode(DocNode::Kind::kString, j.get<std::string>(), loc);
    case nlohmann::json::value_t::array: {
      DocNode node(DocNode::Kind::kArray, "", loc);
      size_t i = 0;
      for (const auto& item : j) {
        node.add_item(
            from_json(item, file, pointer_append(pointer, std::to_string(i++)), depth + 1));
      }
      return node;
    }
    case nlohmann::json::value_t::object: {
      DocNode node(DocNode::Kind::kObject, "", loc);
      for (const auto& [k, v] : j.items()) {
        node.add_field(k, from_json(v, file, pointer_append(pointer, k), depth + 1));
      }
      return node;
    }
    default:
      return DocNode(DocNode::Kind::kNull, "null", loc);
  }
}

DocNode from_yaml(const YAML::Node& n, const std::shared_ptr<const std::string>& file,
                  const std::string& pointer, int depth) {
  SourceLocation loc{file, n.Mark().line + 1, n.Mark().column + 1, pointer};
  check_depth(depth, loc);
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return DocNode(DocNode::Kind::kNull, "null", loc);
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      // A quoted scalar carries the tag "!"; only plain scalars are typed by their look.
      if (n.Tag() != "!") {
        if (s == "~" || s == "null" || s == "Null" || s == "NULL")
          return DocNode(DocNode::Kind::kNull, "null", loc);
        if (s == "true" || s == "True" || s == "TRUE")
          return DocNode(DocNode::Kind::kBool, "true", loc);
        if (s == "false" || s == "False" || s == "FALSE")
          return DocNode(DocNode::Kind::kBool, "false", loc);
        if (looks_like_number(s)) return DocNode(DocNode::Kind::kNumber, s, loc);
      }
      return DocNode(DocNode::Kind::kString, s, loc);
    }
    case YAML::NodeType::Sequence: {
      DocNode node(DocNode::Kind::kArray, "", loc);
      size_t i = 0;
      for (const auto& item : n)
        node.add_item(
            from_yaml(item, file, pointer_append(pointer, std::to_string(i++)), depth + 1));
      return node;
    }
    case YAML::NodeType::Map: {
      DocNode node(DocNode::Kind::kObject, "", loc);
      std::unordered_set<std::string> keys;  // a linear find per key would be quadratic
      for (auto it = n.begin(); it != n.end(); ++it) {
        if (!it->first.IsScalar()) {
          SourceLocation kl{file, it->first.Mark().line + 1, it->first.Mark().column + 1, pointer};
          DocNode(DocNode::Kind::kNull, "", kl)
              .fail("expected a plain key, got a collection as key");
        }
        std::string key = it->first.Scalar();
        if (!keys.insert(key).second) {
          SourceLocation kl{file, it->first.Mark().line + 1, it->first.Mark().column + 1,
                            pointer_append(pointer, key)};
          DocNode(DocNode::Kind::kNull, "", kl).fail(fmt::format("duplicate key \"{}\"", key));
        }
        DocNode value = from_yaml(it->second, file, pointer_append(pointer, key), depth + 1);
        if (value.is_null() && it->second.Mark().line < 0) {
          // Empty values have no mark of their own: point at the key.
          value =
              DocNode(DocNode::Kind::kNull, "null",
                      SourceLocation{file, it->first.Mark().line + 1, it->first.Mark().column + 1,
                                     pointer_append(pointer, key)});
        }
        node.add_field(key, std::move(value));
      }
      return node;
    }
  }
  return DocNode(DocNode::Kind::kNull, "null", loc);
}

std::pair<int, int> line_column(std::string_view text, size_t byte) {
  int line = 1, col = 1;
  for (size_t i = 0; i < text.size() && i + 1 < byte; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

}  // namespace

std::string pointer_append(std::string_view pointer, std::string_view token) {
  std::string out(pointer);
  out += '/';
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string SourceLocation::describe() const {
  std::string name = file ? *file : std::string("<input>");
  std::string ptr = pointer.empty() ? "/" : pointer;
  if (line > 0) return fmt::format("{}:{}:{} ({})", name, line, column, ptr);
  return fmt::format("{} ({})", name, ptr);
}

const DocNode* DocNode::find(std::string_view key) const {
  for (const auto& [k, v] : fields_) {
    if (k == key) return &v;
  }
  return nullptr;
}

const DocNode& DocNode::at(std::string_view key) const {
  require_object();
  const DocNode* n = find(key);
  if (n == nullptr) fail(fmt::format("missing required key \"{}\"", key));
  return *n;
}

void DocNode::fail(std::string_view message) const {
  throw Error(ErrorKind::kBadInput, fmt::format("{}: {}", where_.describe(), message));
}

std::string DocNode::describe_value() const {
  switch (kind_) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return fmt::format("the boolean {}", text_);
    case Kind::kNumber:
      return fmt::format("the number {}", text_);
    case Kind::kString:
      return fmt::format("the string \"{}\"", text_);
    case Kind::kArray:
      return "a list";
    case Kind::kObject:
      return "an object";
  }
  return "a value";
}

std::string DocNode::as_string() const {
  if (kind_ == Kind::kString) return text_;
  // YAML users write `port: 1` or `build: 25G83`; accept plain scalars where text is wanted.
  if (where_.line > 0 && (kind_ == Kind::kNumber || kind_ == Kind::kBool)) return text_;
  fail(fmt::format("expected a string, got {}", describe_value()));
}

double DocNode::as_number() const {
  if (kind_ != Kind::kNumber) fail(fmt::format("expected a number, got {}", describe_value()));
  double v = std::strtod(text_.c_str(), nullptr);
  if (!std::isfinite(v)) fail(fmt::format("expected a finite number, got {}", text_));
  return v;
}

int64_t DocNode::as_int() const {
  if (kind_ != Kind::kNumber) fail(fmt::format("expected an integer, got {}", describe_value()));
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text_.data(), text_.data() + text_.size(), v);
  if (ec == std::errc() && p == text_.data() + text_.size()) return v;
  double d = std::strtod(text_.c_str(), nullptr);
  if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18)
    return static_cast<int64_t>(d);
  fail(fmt::format("expected an integer, got {}", text_));
}

bool DocNode::as_bool() const {
  if (kind_ != Kind::kBool) fail(fmt::format("expected true or false, got {}", describe_value()));
  return text_ == "true";
}

const DocNode& DocNode::require_object() const {
  if (kind_ != Kind::kObject)
    fail(fmt::format("expected an object (key: value pairs), got {}", describe_value()));
  return *this;
}

const DocNode& DocNode::require_array() const {
  if (kind_ != Kind::kArray) fail(fmt::format("expected a list, got {}", describe_value()));
  return *this;
}

void DocNode::check_keys(std::initializer_list<std::string_view> allowed) const {
  require_object();
  for (const auto& [key, value] : fields_) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string_view best;
    size_t best_d = 3;  // suggest only close matches
    std::string list;
    for (auto a : allowed) {
      size_t d = edit_distance(key, a);
      if (d < best_d) {
        best_d = d;
        best = a;
      }
      if (!list.empty()) list += ", ";
      list += a;
    }
    std::string hint = best.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", best);
    value.fail(fmt::format("unknown key \"{}\"{}; expected one of: {}", key, hint, list));
  }
}

DocNode parse_json_document(std::string_view text, const std::string& file_name) {
  auto file = std::make_shared<const std::string>(file_name);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    auto [line, col] = line_column(text, e.byte);
    std::string what = e.what();
    // Keep nlohmann's reason, drop its own prefix and position.
    auto pos = what.find(": ", what.find("parse error"));
    std::string reason = pos == std::string::npos ? what : what.substr(pos + 2);
    throw input_error("{}:{}:{}: malformed JSON: {}", file_name, line, col, reason);
  } catch (const nlohmann::json::exception& e) {
    // A number beyond a double (1e400): nlohmann gives no position for it.
    std::string what = e.what();
    auto pos = what.find("] ");
    std::string reason = pos == std::string::npos ? what : what.substr(pos + 2);
    throw input_error("{}: malformed JSON: {}", file_name, reason);
  }
  return from_json(j, file, "", 0);
}

DocNode parse_yaml_document(std::string_view text, const std::string& file_name) {
  auto file = std::make_shared<const std::string>(file_name);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::ParserException& e) {
    throw input_error("{}:{}:{}: malformed YAML: {}", file_name, e.mark.line + 1, e.mark.column + 1,
                      e.msg);
  } catch (const YAML::Exception& e) {
    throw input_error("{}: malformed YAML: {}", file_name, e.what());
  }
  return from_yaml(root, file, "", 0);
}

DocNode parse_document(std::string_view text, const std::string& file_name) {
  std::string lower = to_lower(file_name);
  auto ends_with = [&](std::string_view s) {
    return lower.size() >= s.size() && lower.compare(lower.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with(".json")) return parse_json_document(text, file_name);
  if (ends_with(".yaml") || ends_with(".yml")) return parse_yaml_document(text, file_name);
  std::string t = trim(text);
  if (!t.empty() && (t[0] == '{' || t[0] == '[')) return parse_json_document(text, file_name);
  return parse_yaml_document(text, file_name);
}

}  // namespace meshplan
