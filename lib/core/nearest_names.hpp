// "Did you mean ...": the known names closest to a mistyped one, for every message that rejects
// a name (commands, models, chips, keys).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

// Levenshtein distance.
size_t edit_distance(std::string_view a, std::string_view b);

// Up to `max` of `names` closest to `word`, nearest first: within an edit distance of about a
// third of the word (case ignored), or sharing the word's first two dash-separated parts
// ("deepseek-v3-4bit" -> "deepseek-v3.1-4bit").
std::vector<std::string> nearest_names(std::string_view word, const std::vector<std::string>& names,
                                       size_t max = 3);

// " (did you mean \"a\"?)", " (did you mean \"a\" or \"b\"?)", or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& names);

}  // namespace meshplan
