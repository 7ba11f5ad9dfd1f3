#include "runtime/core/status.h"

namespace loom {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid-argument";
    case StatusCode::kNotFound: return "not-found";
    case StatusCode::kOutOfRange: return "out-of-range";
    case StatusCode::kFailedPrecondition: return "failed-precondition";
    case StatusCode::kDeadlock: return "deadlock";
    case StatusCode::kDataLoss: return "data-loss";
    case StatusCode::kUnimplemented: return "unimplemented";
    case StatusCode::kInternal: return "internal";
    case StatusCode::kDeadlineExceeded: return "deadline-exceeded";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

}  // namespace loom
