// Fills the text templates in templates/ (embedded at build time): each {{name}} is replaced by
// its value. A placeholder without a value is a bug in the caller, reported as an internal error.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace meshplan {

std::string fill_template(std::string_view text, const std::map<std::string, std::string>& values);

// The embedded templates/<name>, filled.
std::string render_template(std::string_view name,
                            const std::map<std::string, std::string>& values);

}  // namespace meshplan
