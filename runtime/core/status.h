// One status type for the whole SDK: success is code kOk (0); every failure carries a message a
// user can act on. No exceptions, so the same code builds for bare-metal ARM.
#ifndef LOOM_RUNTIME_CORE_STATUS_H_
#define LOOM_RUNTIME_CORE_STATUS_H_

#include <string>
#include <utility>

namespace loom {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,  // bad input from the caller: a file, a flag, a field out of range
  kNotFound = 2,         // a named thing (config, board, file, tensor) does not exist
  kOutOfRange = 3,       // an access outside a buffer, DRAM or tensor
  kFailedPrecondition = 4,  // state does not allow the call (e.g. config mismatch)
  kDeadlock = 5,            // the instruction stream can never finish
  kDataLoss = 6,            // corrupted or truncated data
  kUnimplemented = 7,       // this driver or build does not provide the call
  kInternal = 8,            // a bug in Loom itself
  kDeadlineExceeded = 9,    // a wait ran out of time
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid-argument: <message>", or "ok".
  std::string ToString() const;

  // Prefixes the message with context ("config 1x8x8.json: "), keeping the code.
  Status WithContext(const std::string& context) const {
    return ok() ? *this : Status(code_, context + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status OutOfRange(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
inline Status FailedPrecondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
inline Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
inline Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

}  // namespace loom

#define LOOM_STATUS_CONCAT_INNER_(a, b) a##b
#define LOOM_STATUS_CONCAT_(a, b) LOOM_STATUS_CONCAT_INNER_(a, b)

// Returns the status from the enclosing function if `expr` is not ok.
#define LOOM_RETURN_IF_ERROR(expr)                                              \
  do {                                                                          \
    ::loom::Status LOOM_STATUS_CONCAT_(loom_status_, __LINE__) = (expr);        \
    if (!LOOM_STATUS_CONCAT_(loom_status_, __LINE__).ok())                      \
      return LOOM_STATUS_CONCAT_(loom_status_, __LINE__);                       \
  } while (0)

#endif  // LOOM_RUNTIME_CORE_STATUS_H_
