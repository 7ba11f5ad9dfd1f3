// Message formatting for errors: Format("tensor {} '{}'", i, name). Each "{}" takes the next
// argument, printed as std::to_string prints it (strings as they are). The arguments are wrapped
// in FormatArg at the call site and formatted in one out-of-line function, so an error site costs
// one call instead of a chain of inlined std::string temporaries (docs/firmware.md, "Code size").
// Types are checked by the compiler: FormatArg has constructors only for what it prints.
#ifndef LOOM_RUNTIME_CORE_FORMAT_H_
#define LOOM_RUNTIME_CORE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace loom {

class FormatArg {
 public:
  enum class Kind : uint8_t { kSigned, kUnsigned, kDouble, kString };

  FormatArg(int v) : kind_(Kind::kSigned) { v_.i = v; }
  FormatArg(long v) : kind_(Kind::kSigned) { v_.i = v; }
  FormatArg(long long v) : kind_(Kind::kSigned) { v_.i = v; }
  FormatArg(unsigned v) : kind_(Kind::kUnsigned) { v_.u = v; }
  FormatArg(unsigned long v) : kind_(Kind::kUnsigned) { v_.u = v; }
  FormatArg(unsigned long long v) : kind_(Kind::kUnsigned) { v_.u = v; }
  FormatArg(double v) : kind_(Kind::kDouble) { v_.d = v; }
  FormatArg(const char* s) : length_(kCString), kind_(Kind::kString) { v_.s = s ? s : "(null)"; }
  FormatArg(std::string_view s) : length_(s.size()), kind_(Kind::kString) { v_.s = s.data(); }
  FormatArg(const std::string& s) : length_(s.size()), kind_(Kind::kString) { v_.s = s.data(); }
  // Neither prints the way a reader would guess (a digit or a character), so neither compiles.
  FormatArg(bool) = delete;
  FormatArg(char) = delete;

  // Appends the argument's text to *out.
  void AppendTo(std::string* out) const;

 private:
  static constexpr size_t kCString = static_cast<size_t>(-1);  // length found when printed
  union Value {
    int64_t i;
    uint64_t u;
    double d;
    const char* s;
  } v_;
  size_t length_ = 0;
  Kind kind_;
};

// The formatter behind Format and the Status helpers: "{}" takes the next of `args`; a "{}" with
// no argument left stays as it is, an argument with no "{}" left is dropped.
std::string FormatArgs(const char* format, const FormatArg* args, size_t count);
void FormatArgsTo(std::string* out, const char* format, const FormatArg* args, size_t count);

template <typename A0, typename... A>
std::string Format(const char* format, const A0& a0, const A&... a) {
  const FormatArg list[] = {FormatArg(a0), FormatArg(a)...};
  return FormatArgs(format, list, 1 + sizeof...(A));
}
inline std::string Format(const char* format) { return format; }

// Appends instead of returning.
template <typename A0, typename... A>
void FormatTo(std::string* out, const char* format, const A0& a0, const A&... a) {
  const FormatArg list[] = {FormatArg(a0), FormatArg(a)...};
  FormatArgsTo(out, format, list, 1 + sizeof...(A));
}

}  // namespace loom

#endif  // LOOM_RUNTIME_CORE_FORMAT_H_
