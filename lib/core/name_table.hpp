// What every name table shares (backends, link kinds, engines, strategies): one row per value with
// its name as written in files and on the command line, lookup both ways, and the one message for
// an unknown name (the nearest names, then every valid one).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/nearest_names.hpp"

namespace meshplan {

template <class E>
struct NameRow {
  E value;
  std::string_view name;
  std::string_view summary;  // one line for help texts; may be empty
};

template <class E, class Table>
std::string_view name_in(const Table& table, E value) {
  for (const NameRow<E>& row : table)
    if (row.value == value) return row.name;
  return "?";
}

template <class E, class Table>
const NameRow<E>* find_row(const Table& table, std::string_view name) {
  for (const NameRow<E>& row : table)
    if (row.name == name) return &row;
  return nullptr;
}

template <class E, class Table>
std::optional<E> find_in(const Table& table, std::string_view name) {
  const NameRow<E>* row = find_row<E>(table, name);
  return row ? std::optional<E>(row->value) : std::nullopt;
}

template <class E, class Table>
std::string_view summary_in(const Table& table, E value) {
  for (const NameRow<E>& row : table)
    if (row.value == value) return row.summary;
  return "?";
}

// Every value, in the table's order.
template <class E, class Table>
std::vector<E> values_in(const Table& table) {
  std::vector<E> out;
  for (const NameRow<E>& row : table)
    out.push_back(row.value);
  return out;
}

template <class E, class Table>
std::vector<std::string> names_in(const Table& table) {
  std::vector<std::string> out;
  for (const NameRow<E>& row : table)
    out.emplace_back(row.name);
  return out;
}

// "a, b or c".
inline std::string either_of(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

// Throws the input error `unknown <what> "x" (did you mean "y"?); expected a, b or c`.
template <class E, class Table>
E parse_in(const Table& table, std::string_view what, std::string_view name) {
  if (const NameRow<E>* row = find_row<E>(table, name)) return row->value;
  const std::vector<std::string> names = names_in<E>(table);
  throw input_error("unknown {} \"{}\"{}; expected {}", what, name, did_you_mean(name, names),
                    either_of(names));
}

}  // namespace meshplan
