// The one error type of meshplan. Library code throws it; app/ catches it at the top and maps
// its kind to the documented exit code (docs/exit-codes.md).
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace meshplan {

enum class ErrorKind {
  kFailed,          // 1: a check failed or a plan is infeasible
  kBadInput,        // 2: bad usage or a bad input file
  kHostsFailed,     // 3: one or more hosts could not be probed or configured
  kHostsUnsettled,  // 4: an apply failed and left a host unknown or still changed
  kInternal,        // 70: a bug
};

int exit_code(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message)
      : std::runtime_error(std::move(message)), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

// Shorthands: input_error("{}: expected {}", where, what).
template <typename... Args>
Error input_error(fmt::format_string<Args...> f, Args&&... args) {
  return Error(ErrorKind::kBadInput, fmt::format(f, std::forward<Args>(args)...));
}

template <typename... Args>
Error failure(fmt::format_string<Args...> f, Args&&... args) {
  return Error(ErrorKind::kFailed, fmt::format(f, std::forward<Args>(args)...));
}

template <typename... Args>
Error internal_error(fmt::format_string<Args...> f, Args&&... args) {
  return Error(ErrorKind::kInternal, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace meshplan
