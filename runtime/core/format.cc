#include "runtime/core/format.h"

#include <cstdio>
#include <cstring>

namespace loom {

void FormatArg::AppendTo(std::string* out) const {
  char digits[32];
  switch (kind_) {
    case Kind::kString:
      out->append(v_.s, length_ == kCString ? std::strlen(v_.s) : length_);
      return;
    case Kind::kDouble: {
      // std::to_string's "%f", which messages printed before this formatter existed.
      const int n = std::snprintf(digits, sizeof digits, "%f", v_.d);
      if (n >= 0 && static_cast<size_t>(n) < sizeof digits) {
        out->append(digits, static_cast<size_t>(n));
      } else {
        std::string big(static_cast<size_t>(n > 0 ? n : 0), '\0');
        std::snprintf(big.data(), big.size() + 1, "%f", v_.d);
        out->append(big);
      }
      return;
    }
    case Kind::kSigned:
    case Kind::kUnsigned: {
      const bool is_signed = kind_ == Kind::kSigned;
      const bool negative = is_signed && v_.i < 0;
      // Negating in unsigned arithmetic is defined for INT64_MIN too.
      uint64_t u = is_signed ? static_cast<uint64_t>(v_.i) : v_.u;
      if (negative) u = 0 - u;
      char* end = digits + sizeof digits;
      char* p = end;
      do {
        *--p = static_cast<char>('0' + u % 10);
        u /= 10;
      } while (u != 0);
      if (negative) *--p = '-';
      out->append(p, static_cast<size_t>(end - p));
      return;
    }
  }
}

void FormatArgsTo(std::string* out, const char* format, const FormatArg* args, size_t count) {
  size_t next = 0;
  const char* p = format;
  while (const char* hole = std::strstr(p, "{}")) {
    if (next == count) break;
    out->append(p, static_cast<size_t>(hole - p));
    args[next++].AppendTo(out);
    p = hole + 2;
  }
  out->append(p);
}

std::string FormatArgs(const char* format, const FormatArg* args, size_t count) {
  std::string out;
  FormatArgsTo(&out, format, args, count);
  return out;
}

}  // namespace loom
