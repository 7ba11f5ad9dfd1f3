// .npy reading and writing. The format (numpy/lib/format.py):
//   "\x93NUMPY" major minor  header_len (uint16 LE for 1.0, uint32 LE for 2.0 and 3.0)
//   header: a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//           padded with spaces and a final '\n' so the data starts on a 64-byte boundary
//   data:   the elements, C order, NumElements() * itemsize bytes, nothing after them.
// The header is parsed by a small recursive-descent reader for exactly that subset of Python
// literals; it never reads past the header it was given.
#include "runtime/io/npy.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <limits>

#include "runtime/io/file.h"

namespace loom {
namespace {

constexpr uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr size_t kMagicLen = sizeof(kMagic);
constexpr size_t kArrayAlign = 64;           // numpy's ARRAY_ALIGN
constexpr size_t kGrowthAxisMaxDigits = 21;  // numpy's GROWTH_AXIS_MAX_DIGITS
constexpr size_t kMaxHeaderExcerpt = 72;     // how much of a bad header an error message quotes

struct DtypeInfo {
  DType dtype;
  const char* descr;  // as numpy writes it
};

constexpr DtypeInfo kDtypes[] = {
    {DType::kF32, "<f4"},  {DType::kF64, "<f8"}, {DType::kF16, "<f2"}, {DType::kI8, "|i1"},
    {DType::kU8, "|u1"},   {DType::kI16, "<i2"}, {DType::kI32, "<i4"}, {DType::kI64, "<i8"},
    {DType::kBool, "|b1"}, {DType::kU16, "<u2"}, {DType::kU32, "<u4"}, {DType::kU64, "<u8"},
};
static_assert(sizeof(kDtypes) / sizeof(kDtypes[0]) == sizeof(kAllDTypes) / sizeof(kAllDTypes[0]),
              "every DType has a descr");

// "supported: float32 '<f4', ..." from the table above.
std::string SupportedList() {
  std::string s = "supported:";
  for (const DtypeInfo& info : kDtypes) {
    s += std::string(&info == kDtypes ? " " : ", ") + DTypeLongName(info.dtype) + " '" +
         info.descr + "'";
  }
  return s;
}

// `text` for an error message: at most `max` bytes, then "..."; control bytes, non-ASCII, '"' and
// '\' shown as \xNN, a newline as \n.
std::string Printable(const std::string& text, size_t max) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      static const char kHex[] = "0123456789abcdef";
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > max) out += "...";
  return out;
}

// Python's repr of a shape tuple: "()", "(3,)", "(2, 3)".
std::string ShapeRepr(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

Status NpyDescrToDType(const std::string& descr, DType* out) {
  for (const DtypeInfo& info : kDtypes) {
    if (descr == info.descr) {
      *out = info.dtype;
      return Status::Ok();
    }
    // numpy writes 1-byte types with '|', but '<' and '>' mean the same for them.
    if (info.descr[0] == '|' && descr.size() == 3 && (descr[0] == '<' || descr[0] == '>') &&
        descr.compare(1, 2, info.descr + 1) == 0) {
      *out = info.dtype;
      return Status::Ok();
    }
  }

  const std::string quoted = "'" + Printable(descr, 32) + "'";
  const char order = descr.empty() ? '\0' : descr[0];
  const std::string type =
      (order == '<' || order == '>' || order == '|' || order == '=') ? descr.substr(1) : descr;
  if (!type.empty() && type[0] == 'O') {
    return Unimplemented("object arrays (dtype " + quoted +
                         ") are not supported: they hold pickled Python objects, not numbers");
  }
  if (order == '>') {
    for (const DtypeInfo& info : kDtypes) {
      if (type == std::string(info.descr + 1)) {
        return Unimplemented("big-endian data (dtype " + quoted +
                             ") is not supported; save it as little-endian with a.astype('" +
                             info.descr + "')");
      }
    }
  }
  return Unimplemented("unsupported dtype " + quoted + " (" + SupportedList() + ")");
}

namespace {

// Reader for the header's dict literal.
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : text_(text) {}

  Status Parse(DType* dtype, std::vector<int64_t>* shape) {
    SkipSpace();
    if (!Eat('{')) return Error("the header is not a Python dict literal (it must start with '{')");
    bool have_descr = false, have_order = false, have_shape = false;
    for (;;) {
      SkipSpace();
      if (Eat('}')) break;
      std::string raw_key;
      if (!AtQuote()) return Error("expected a quoted key or '}'");
      LOOM_RETURN_IF_ERROR(ParseString(&raw_key));
      const std::string key = Printable(raw_key, 32);
      SkipSpace();
      if (!Eat(':')) return Error("expected ':' after key '" + key + "'");
      SkipSpace();
      if (raw_key == "descr") {
        if (have_descr) return Error("duplicate key 'descr'");
        have_descr = true;
        if (Peek() == '[') {
          return Unimplemented(
              "structured dtypes (a 'descr' list of fields) are not supported; save one array per "
              "field");
        }
        if (!AtQuote()) return Error("'descr' must be a string such as '<f4'");
        std::string descr;
        LOOM_RETURN_IF_ERROR(ParseString(&descr));
        LOOM_RETURN_IF_ERROR(NpyDescrToDType(descr, dtype));
      } else if (raw_key == "fortran_order") {
        if (have_order) return Error("duplicate key 'fortran_order'");
        have_order = true;
        bool fortran = false;
        if (EatWord("True")) {
          fortran = true;
        } else if (!EatWord("False")) {
          return Error("'fortran_order' must be True or False");
        }
        if (fortran) {
          return Unimplemented(
              "Fortran-order (column-major) data is not supported; save np.ascontiguousarray(a)");
        }
      } else if (raw_key == "shape") {
        if (have_shape) return Error("duplicate key 'shape'");
        have_shape = true;
        LOOM_RETURN_IF_ERROR(ParseShape(shape));
      } else {
        return Error("unexpected key '" + key +
                     "' (a .npy header has exactly 'descr', 'fortran_order' and 'shape')");
      }
      SkipSpace();
      if (Eat(',')) continue;
      if (Eat('}')) break;
      return Error("expected ',' or '}' after the value of '" + key + "'");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the closing '}'");
    if (!have_descr) return Error("missing key 'descr'");
    if (!have_order) return Error("missing key 'fortran_order'");
    if (!have_shape) return Error("missing key 'shape'");
    return Status::Ok();
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool AtQuote() const { return Peek() == '\'' || Peek() == '"'; }
  bool Eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void SkipSpace() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') break;
      ++pos_;
    }
  }
  static bool IsIdentChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
  // Eats `word` only when it is a whole identifier (so "Trueish" is not True).
  bool EatWord(const char* word) {
    const size_t n = std::strlen(word);
    if (text_.compare(pos_, n, word) != 0) return false;
    if (pos_ + n < text_.size() && IsIdentChar(text_[pos_ + n])) return false;
    pos_ += n;
    return true;
  }

  // A '...' or "..." literal; a backslash takes the next character literally.
  Status ParseString(std::string* out) {
    const char quote = text_[pos_++];
    out->clear();
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == quote) return Status::Ok();
      if (c == '\\') {
        if (pos_ >= text_.size()) break;
        c = text_[pos_++];
      }
      *out += c;
    }
    return Error("unterminated string");
  }

  // A tuple of non-negative ints: "()", "(3,)", "(2, 3)", "(2, 3,)". Python 2's "3L" is accepted.
  Status ParseShape(std::vector<int64_t>* shape) {
    if (!Eat('(')) return Error("'shape' must be a tuple of ints such as (2, 3)");
    shape->clear();
    bool trailing_comma = false;
    for (;;) {
      SkipSpace();
      if (Eat(')')) break;
      if (!shape->empty() && !trailing_comma) return Error("expected ',' or ')' in 'shape'");
      if (shape->size() >= kNpyMaxRank) {
        return Error("'shape' has more than " + std::to_string(kNpyMaxRank) + " dimensions");
      }
      int64_t dim = 0;
      LOOM_RETURN_IF_ERROR(ParseDim(&dim));
      shape->push_back(dim);
      SkipSpace();
      trailing_comma = Eat(',');
    }
    if (shape->size() == 1 && !trailing_comma) {
      return Error("'shape' (" + std::to_string((*shape)[0]) +
                   ") is a parenthesized int, not a tuple; a 1-d shape is written (" +
                   std::to_string((*shape)[0]) + ",)");
    }
    return Status::Ok();
  }

  Status ParseDim(int64_t* out) {
    if (Eat('-')) return Error("negative dimension in 'shape'");
    Eat('+');
    if (Peek() < '0' || Peek() > '9') return Error("'shape' must hold only integers");
    uint64_t value = 0;
    while (Peek() >= '0' && Peek() <= '9') {
      const uint64_t digit = static_cast<uint64_t>(text_[pos_++] - '0');
      if (value > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) / 10) {
        return Error("a dimension in 'shape' does not fit in 64 bits");
      }
      value = value * 10 + digit;
    }
    Eat('L');
    if (IsIdentChar(Peek()) || Peek() == '.') return Error("'shape' must hold only integers");
    *out = static_cast<int64_t>(value);
    return Status::Ok();
  }

  // "<problem> (at header offset 17 in "{'descr': ...")".
  Status Error(const std::string& problem) const {
    const std::string excerpt = Printable(text_, kMaxHeaderExcerpt);
    return InvalidArgument("malformed .npy header: " + problem + " (at header offset " +
                           std::to_string(pos_) + " in \"" + excerpt + "\")");
  }

  const std::string& text_;
  size_t pos_ = 0;
};

uint32_t LoadLe(const uint8_t* p, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint32_t{p[i]} << (8 * i);
  return v;
}

// Validates the preamble and header; on success *data_offset is where the elements start and
// *data_bytes how many bytes they take (already checked against `size`).
Status ParseHeader(const uint8_t* data, size_t size, DType* dtype, std::vector<int64_t>* shape,
                   size_t* data_offset, size_t* data_bytes) {
  if (size < kMagicLen + 2) {
    return DataLoss("truncated: " + std::to_string(size) +
                    " bytes is too short for a .npy file (the preamble alone is 10 bytes)");
  }
  if (std::memcmp(data, kMagic, kMagicLen) != 0) {
    return InvalidArgument("not a .npy file: it does not start with the magic \"\\x93NUMPY\"");
  }
  const int major = data[kMagicLen], minor = data[kMagicLen + 1];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return Unimplemented("unsupported .npy format version " + std::to_string(major) + "." +
                         std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t prefix = kMagicLen + 2 + len_bytes;
  if (size < prefix) {
    return DataLoss("truncated: " + std::to_string(size) + " bytes ends inside the header length");
  }
  const size_t header_len = LoadLe(data + kMagicLen + 2, len_bytes);
  if (header_len > size - prefix) {
    return DataLoss("truncated header: the header length field says " + std::to_string(header_len) +
                    " bytes but only " + std::to_string(size - prefix) + " follow");
  }
  const std::string header(reinterpret_cast<const char*>(data + prefix), header_len);
  LOOM_RETURN_IF_ERROR(HeaderParser(header).Parse(dtype, shape));

  int64_t count = 0;
  LOOM_RETURN_IF_ERROR(NpyElementCount(*shape, *dtype, &count));
  const size_t need = static_cast<size_t>(count) * DTypeSize(*dtype);
  const size_t have = size - prefix - header_len;
  if (have != need) {
    return DataLoss(std::string(have < need ? "truncated data" : "trailing bytes after the data") +
                    ": shape " + ShapeRepr(*shape) + " of " + DTypeLongName(*dtype) + " needs " +
                    std::to_string(need) + " data bytes, the file has " + std::to_string(have));
  }
  *data_offset = prefix + header_len;
  *data_bytes = need;
  return Status::Ok();
}

Status ForFile(const Status& s, const std::string& source) { return s.WithContext(source); }

}  // namespace

const char* NpyDescr(DType dtype) {
  for (const DtypeInfo& info : kDtypes) {
    if (info.dtype == dtype) return info.descr;
  }
  return "";
}

int64_t NpyArray::NumElements() const {
  uint64_t n = 1;  // unsigned: an unchecked shape may overflow, which must not be UB
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  return static_cast<int64_t>(n);
}

Status NpyElementCount(const std::vector<int64_t>& shape, DType dtype, int64_t* count) {
  const size_t itemsize = DTypeSize(dtype);
  if (itemsize == 0) return InvalidArgument("invalid dtype value");
  if (shape.size() > kNpyMaxRank) {
    return InvalidArgument("shape has " + std::to_string(shape.size()) + " dimensions, at most " +
                           std::to_string(kNpyMaxRank) + " are supported");
  }
  // The byte size must fit both int64 and size_t. Zero-length dimensions do not excuse the
  // others: a shape is rejected when the product of its non-zero dimensions overflows.
  const uint64_t limit =
      std::min<uint64_t>(std::numeric_limits<int64_t>::max(), std::numeric_limits<size_t>::max()) /
      itemsize;
  uint64_t nonzero = 1;
  bool any_zero = false;
  for (int64_t d : shape) {
    if (d < 0) return InvalidArgument("negative dimension in shape " + ShapeRepr(shape));
    if (d == 0) {
      any_zero = true;
      continue;
    }
    if (static_cast<uint64_t>(d) > limit / nonzero) {
      return InvalidArgument("shape " + ShapeRepr(shape) + " of " + DTypeLongName(dtype) +
                             " has too many elements (the byte size overflows 64 bits)");
    }
    nonzero *= static_cast<uint64_t>(d);
  }
  *count = any_zero ? 0 : static_cast<int64_t>(nonzero);
  return Status::Ok();
}

Status ParseNpy(const uint8_t* data, size_t size, const std::string& source, NpyArray* out) {
  if (data == nullptr && size != 0) return InvalidArgument(source + ": null data");
  size_t offset = 0, bytes = 0;
  LOOM_RETURN_IF_ERROR(
      ForFile(ParseHeader(data, size, &out->dtype, &out->shape, &offset, &bytes), source));
  out->bytes.assign(data + offset, data + offset + bytes);
  return Status::Ok();
}

Status ReadNpy(const std::string& path, NpyArray* out) {
  // Bounded and stat-checked: /dev/zero, a FIFO or a file of many GiB is refused before reading.
  std::vector<uint8_t> file;
  LOOM_RETURN_IF_ERROR(ReadFileBytes(path, ".npy file", kMaxTensorFileBytes, &file));
  size_t offset = 0, bytes = 0;
  LOOM_RETURN_IF_ERROR(ForFile(
      ParseHeader(file.data(), file.size(), &out->dtype, &out->shape, &offset, &bytes), path));
  // Drop the header in place instead of copying the data a second time.
  file.erase(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(offset));
  file.shrink_to_fit();
  out->bytes = std::move(file);
  return Status::Ok();
}

Status SerializeNpy(const NpyArray& array, std::vector<uint8_t>* out) {
  int64_t count = 0;
  LOOM_RETURN_IF_ERROR(NpyElementCount(array.shape, array.dtype, &count));
  const size_t need = static_cast<size_t>(count) * DTypeSize(array.dtype);
  if (array.bytes.size() != need) {
    return InvalidArgument("array of shape " + ShapeRepr(array.shape) + " and dtype " +
                           DTypeLongName(array.dtype) + " needs " + std::to_string(need) +
                           " bytes, it holds " + std::to_string(array.bytes.size()));
  }
  // Exactly numpy.lib.format._write_array_header: keys sorted, spare room after the header for
  // the first axis to grow, padding so the data is 64-byte aligned, a final newline.
  std::string header = std::string("{'descr': '") + NpyDescr(array.dtype) +
                       "', 'fortran_order': False, 'shape': " + ShapeRepr(array.shape) + ", }";
  if (!array.shape.empty()) {
    header.append(kGrowthAxisMaxDigits - std::to_string(array.shape[0]).size(), ' ');
  }
  const size_t hlen = header.size() + 1;  // + '\n'
  size_t len_bytes = 2;
  size_t pad = kArrayAlign - (kMagicLen + 2 + len_bytes + hlen) % kArrayAlign;
  int major = 1;
  if (hlen + pad > 0xffff) {
    len_bytes = 4;
    pad = kArrayAlign - (kMagicLen + 2 + len_bytes + hlen) % kArrayAlign;
    major = 2;
  }
  header.append(pad, ' ');
  header += '\n';

  out->clear();
  out->reserve(kMagicLen + 2 + len_bytes + header.size() + array.bytes.size());
  out->insert(out->end(), kMagic, kMagic + kMagicLen);
  out->push_back(static_cast<uint8_t>(major));
  out->push_back(0);
  for (size_t i = 0; i < len_bytes; ++i) {
    out->push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  }
  out->insert(out->end(), header.begin(), header.end());
  out->insert(out->end(), array.bytes.begin(), array.bytes.end());
  return Status::Ok();
}

Status WriteNpy(const std::string& path, const NpyArray& array) {
  std::vector<uint8_t> file;
  LOOM_RETURN_IF_ERROR(ForFile(SerializeNpy(array, &file), path));
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return InvalidArgument(path + ": cannot create: " + std::strerror(errno));
  const size_t wrote = std::fwrite(file.data(), 1, file.size(), f);
  const int err = errno;
  const bool closed = std::fclose(f) == 0;
  if (wrote != file.size() || !closed) {
    return DataLoss(path + ": write failed: " + std::strerror(wrote != file.size() ? err : errno));
  }
  return Status::Ok();
}

}  // namespace loom
