// One status type for the whole SDK: success is code kOk (0); every failure carries a message a
// user can act on. No exceptions, so the same code builds for bare-metal ARM.
//
// A Status is one pointer: null when ok, else an owned {code, message}. Every call site returns,
// moves and destroys statuses, so keeping those inline operations to a pointer test is what keeps
// the runtime small (docs/firmware.md, "Code size"); the error path allocates, the ok path never.
#ifndef LOOM_RUNTIME_CORE_STATUS_H_
#define LOOM_RUNTIME_CORE_STATUS_H_

#include <cstddef>
#include <string>
#include <utility>

#include "runtime/core/format.h"

#if defined(__GNUC__)
#define LOOM_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define LOOM_ALWAYS_INLINE inline
#endif

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
  // A kOk code makes an ok status; the message is then dropped.
  Status(StatusCode code, std::string message);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&& other) noexcept : rep_(other.rep_) { other.rep_ = nullptr; }
  Status& operator=(Status&& other) noexcept {
    std::swap(rep_, other.rep_);
    return *this;
  }
  // Always inline: after `if (!s.ok()) return s;` the compiler then knows the pointer is null
  // and drops the destructor, instead of calling it at every LOOM_RETURN_IF_ERROR.
  LOOM_ALWAYS_INLINE ~Status() {
    if (rep_ != nullptr) Free(rep_);
  }

  static Status Ok() { return Status(); }
  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const;
  // Empty when ok.
  const std::string& message() const;
  // "invalid-argument: <message>", or "ok".
  std::string ToString() const;

  // Prefixes the message with context ("config 1x8x8.json: "), keeping the code.
  Status WithContext(const std::string& context) const;
  // The same with a formatted context (runtime/core/format.h), built only for an error.
  template <typename A0, typename... A>
  Status WithContext(const char* format, const A0& a0, const A&... a) const {
    if (ok()) return Status();
    const FormatArg list[] = {FormatArg(a0), FormatArg(a)...};
    return WithContextArgs(format, list, 1 + sizeof...(A));
  }
  Status WithContextArgs(const char* format, const FormatArg* args, size_t count) const;

 private:
  struct Rep;
  static void Free(Rep* rep);
  Rep* rep_ = nullptr;
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

// The same with a formatted message: InvalidArgument("{}: rank {} is above {}", where, n, 8)
// (runtime/core/format.h). The text is built in one out-of-line call, so an error site costs
// the call and its arguments instead of inlined std::string concatenations.
Status MakeStatus(StatusCode code, const char* format, const FormatArg* args, size_t count);

#define LOOM_STATUS_FORMATTED_(Name, Code)                               \
  template <typename A0, typename... A>                                  \
  Status Name(const char* format, const A0& a0, const A&... a) {         \
    const FormatArg list[] = {FormatArg(a0), FormatArg(a)...};           \
    return MakeStatus(StatusCode::Code, format, list, 1 + sizeof...(A)); \
  }
LOOM_STATUS_FORMATTED_(InvalidArgument, kInvalidArgument)
LOOM_STATUS_FORMATTED_(NotFound, kNotFound)
LOOM_STATUS_FORMATTED_(OutOfRange, kOutOfRange)
LOOM_STATUS_FORMATTED_(FailedPrecondition, kFailedPrecondition)
LOOM_STATUS_FORMATTED_(DataLoss, kDataLoss)
LOOM_STATUS_FORMATTED_(Unimplemented, kUnimplemented)
LOOM_STATUS_FORMATTED_(Internal, kInternal)
#undef LOOM_STATUS_FORMATTED_

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
