#include "runtime/core/status.h"

namespace loom {

struct Status::Rep {
  StatusCode code;
  std::string message;
};

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

Status::Status(StatusCode code, std::string message)
    : rep_(code == StatusCode::kOk ? nullptr : new Rep{code, std::move(message)}) {}

Status::Status(const Status& other) : rep_(other.rep_ ? new Rep(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) *this = Status(other);
  return *this;
}

void Status::Free(Rep* rep) { delete rep; }

StatusCode Status::code() const { return rep_ ? rep_->code : StatusCode::kOk; }

const std::string& Status::message() const {
  static const std::string* const kEmpty = new std::string();  // never destroyed
  return rep_ ? rep_->message : *kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(StatusCodeName(rep_->code)) + ": " + rep_->message;
}

Status Status::WithContext(const std::string& context) const {
  return ok() ? Status() : Status(rep_->code, context + ": " + rep_->message);
}

Status Status::WithContextArgs(const char* format, const FormatArg* args, size_t count) const {
  if (ok()) return Status();
  std::string context = FormatArgs(format, args, count);
  context += ": ";
  context += rep_->message;
  return Status(rep_->code, std::move(context));
}

Status MakeStatus(StatusCode code, const char* format, const FormatArg* args, size_t count) {
  return Status(code, FormatArgs(format, args, count));
}

}  // namespace loom
