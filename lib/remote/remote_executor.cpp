#include "lib/remote/remote_executor.hpp"

namespace meshplan {

const char* host_failure_name(HostFailureKind kind) {
  switch (kind) {
    case HostFailureKind::kNone:
      return "ok";
    case HostFailureKind::kUnreachable:
      return "unreachable";
    case HostFailureKind::kTimedOut:
      return "timed out";
    case HostFailureKind::kHostKeyUnknown:
      return "host key unknown";
    case HostFailureKind::kHostKeyChanged:
      return "host key changed";
    case HostFailureKind::kAuthRefused:
      return "authentication refused";
    case HostFailureKind::kCommandMissing:
      return "command missing";
    case HostFailureKind::kCommandFailed:
      return "command failed";
    case HostFailureKind::kOutputNotUnderstood:
      return "output not understood";
  }
  return "failed";
}

}  // namespace meshplan
