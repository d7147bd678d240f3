#include "lib/core/error.hpp"

namespace meshplan {

int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kFailed:
      return 1;
    case ErrorKind::kBadInput:
      return 2;
    case ErrorKind::kHostsFailed:
      return 3;
    case ErrorKind::kHostsUnsettled:
      return 4;
    case ErrorKind::kInternal:
      return 70;
  }
  return 70;
}

}  // namespace meshplan
