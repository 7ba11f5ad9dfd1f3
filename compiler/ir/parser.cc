// A recursive-descent parser over a character cursor; no separate token stream, since the grammar
// is small and names need context-dependent lexing (after % and @ they may start with a digit).
#include "compiler/ir/parser.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "compiler/ir/printer.h"
#include "runtime/core/checked_math.h"

namespace loom::ir {
namespace {

class Parser {
 public:
  Parser(std::string_view text, Graph* g) : text_(text), g_(g) {}

  Status ParseGraph() {
    LOOM_RETURN_IF_ERROR(Keyword("graph"));
    if (Accept('@')) LOOM_RETURN_IF_ERROR(Name(&g_->name));
    LOOM_RETURN_IF_ERROR(Expect('('));
    if (!Accept(')')) {
      do {
        std::string name;
        Mark();
        LOOM_RETURN_IF_ERROR(Expect('%'));
        LOOM_RETURN_IF_ERROR(Name(&name));
        LOOM_RETURN_IF_ERROR(Expect(':'));
        Value type;
        LOOM_RETURN_IF_ERROR(Type(&type));
        if (g_->FindValue(name) != kNoValue) return ErrorAtMark("%" + name + " is defined twice");
        const ValueId id = g_->AddInput(name, type.dtype, type.shape);
        g_->value(id).quant = type.quant;
        g_->value(id).layout = type.layout;
      } while (Accept(','));
      LOOM_RETURN_IF_ERROR(Expect(')'));
    }
    LOOM_RETURN_IF_ERROR(Expect('{'));
    while (!PeekWord("return")) LOOM_RETURN_IF_ERROR(Statement());
    LOOM_RETURN_IF_ERROR(Keyword("return"));
    // An empty list parses (the verifier then rejects the graph, with a clearer message).
    while (Peek() != '}') {
      ValueId id = kNoValue;
      LOOM_RETURN_IF_ERROR(Ref(&id));
      g_->AddOutput(id);
      if (!Accept(',')) break;
    }
    LOOM_RETURN_IF_ERROR(Expect('}'));
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the graph");
    return Status::Ok();
  }

 private:
  // --- lexing ---
  void SkipSpace() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        line_start_ = ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }
  char Peek() {
    SkipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool Accept(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  Status Expect(char c) {
    if (Accept(c)) return Status::Ok();
    return Error(std::string("expected '") + c + "'");
  }
  static bool IsWordChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' ||
           c == '/';
  }
  std::string_view Word() {
    SkipSpace();
    size_t end = pos_;
    while (end < text_.size() && IsWordChar(text_[end])) ++end;
    return text_.substr(pos_, end - pos_);
  }
  bool PeekWord(std::string_view w) { return Word() == w; }
  bool AcceptWord(std::string_view w) {
    if (!PeekWord(w)) return false;
    pos_ += w.size();
    return true;
  }
  Status Keyword(std::string_view w) {
    if (AcceptWord(w)) return Status::Ok();
    return Error("expected '" + std::string(w) + "'");
  }
  Status Error(const std::string& msg) const { return ErrorAt(line_, pos_ - line_start_, msg); }
  // For errors about a whole item (a name, a type, a constant): point at where it starts.
  Status ErrorAtMark(const std::string& msg) const { return ErrorAt(mark_line_, mark_col_, msg); }
  static Status ErrorAt(int line, size_t col, const std::string& msg) {
    return InvalidArgument("line " + std::to_string(line) + ":" + std::to_string(col + 1) + ": " +
                           msg);
  }
  void Mark() {
    SkipSpace();
    mark_line_ = line_;
    mark_col_ = pos_ - line_start_;
  }

  Status String(std::string* out) {
    if (!Accept('"')) return Error("expected a string");
    out->clear();
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\n') return Error("unterminated string");
      if (c == '\\' && pos_ < text_.size()) {
        c = text_[pos_++];
        if (c == 'x' && pos_ + 2 <= text_.size()) {
          c = static_cast<char>(
              std::strtol(std::string(text_.substr(pos_, 2)).c_str(), nullptr, 16));
          pos_ += 2;
        }
      }
      out->push_back(c);
    }
    if (pos_ >= text_.size()) return Error("unterminated string");
    ++pos_;
    return Status::Ok();
  }
  // A name after % or @: bare word characters or a quoted string.
  Status Name(std::string* out) {
    if (Peek() == '"') return String(out);
    const std::string_view w = Word();
    if (w.empty()) return Error("expected a name");
    pos_ += w.size();
    *out = std::string(w);
    return Status::Ok();
  }

  // A number as written. Conversions go from the text straight to the target type (strtof for
  // f32, strtoll for integers), so nothing is rounded twice through double.
  struct Num {
    std::string tok;
    bool is_float = false;  // spelled as a float: '.', 'e', inf or nan
    bool has_bits = false;  // "nan(0x7fc00001)": a NaN with this exact f32 bit pattern
    uint32_t bits = 0;
    int line = 0;  // where it was written, for errors about it
    size_t col = 0;
  };

  Status Number(Num* out) {
    Mark();
    out->line = mark_line_;
    out->col = mark_col_;
    size_t end = pos_;
    while (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) ||
                                  text_[end] == '.' || text_[end] == '-' || text_[end] == '+')) {
      ++end;
    }
    out->tok = std::string(text_.substr(pos_, end - pos_));
    if (out->tok.empty()) return Error("expected a number");
    out->is_float = out->tok.find_first_of(".eEin") != std::string::npos;
    out->has_bits = false;
    pos_ = end;
    if ((out->tok == "nan" || out->tok == "-nan") && pos_ < text_.size() && text_[pos_] == '(') {
      const size_t close = text_.find(')', pos_);
      if (close == std::string_view::npos) return ErrorAtMark("unterminated nan(...)");
      const std::string hex(text_.substr(pos_ + 1, close - pos_ - 1));
      char* stop = nullptr;
      const unsigned long long b = std::strtoull(hex.c_str(), &stop, 16);
      if (hex.empty() || *stop != '\0' || b > 0xffffffffull) {
        return ErrorAtMark("bad NaN payload '" + hex + "'");
      }
      out->has_bits = true;
      out->bits = static_cast<uint32_t>(b);
      pos_ = close + 1;
    }
    return Status::Ok();
  }
  Status ToF32(const Num& n, float* out) {
    if (n.has_bits) {
      std::memcpy(out, &n.bits, sizeof *out);
      return Status::Ok();
    }
    char* stop = nullptr;
    *out = std::strtof(n.tok.c_str(), &stop);
    if (*stop != '\0') return ErrorAt(n.line, n.col, "bad number '" + n.tok + "'");
    return Status::Ok();
  }
  Status ToI64(const Num& n, int64_t* out) {
    if (n.is_float) return ErrorAt(n.line, n.col, "expected an integer, got '" + n.tok + "'");
    char* stop = nullptr;
    errno = 0;
    const long long v = std::strtoll(n.tok.c_str(), &stop, 10);
    if (*stop != '\0' || errno != 0) return ErrorAt(n.line, n.col, "bad integer '" + n.tok + "'");
    *out = v;
    return Status::Ok();
  }
  Status Int(int64_t* out) {
    Num n;
    LOOM_RETURN_IF_ERROR(Number(&n));
    return ToI64(n, out);
  }

  // --- grammar ---
  Status Ref(ValueId* out) {
    Mark();
    if (Accept('_')) {
      *out = kNoValue;
      return Status::Ok();
    }
    LOOM_RETURN_IF_ERROR(Expect('%'));
    std::string name;
    LOOM_RETURN_IF_ERROR(Name(&name));
    *out = g_->FindValue(name);
    if (*out == kNoValue) return ErrorAtMark("%" + name + " is not defined");
    return Status::Ok();
  }

  Status Type(Value* v) {
    Mark();
    if (Accept('?')) {
      // Not inferred yet (only meaningful as input to shape-inference tests).
      v->dtype = DType::kUndefined;
      v->shape.clear();
      if (Peek() != '[') return Status::Ok();
      return Dims(v);
    }
    const std::string_view w = Word();
    if (!ParseDType(w, &v->dtype)) return ErrorAtMark("unknown dtype '" + std::string(w) + "'");
    pos_ += w.size();
    LOOM_RETURN_IF_ERROR(Dims(v));
    if (AcceptWord("layout")) {
      LOOM_RETURN_IF_ERROR(Expect('('));
      const std::string_view l = Word();
      if (!ParseLayout(l, &v->layout)) return Error("unknown layout '" + std::string(l) + "'");
      pos_ += l.size();
      LOOM_RETURN_IF_ERROR(Expect(')'));
    }
    if (AcceptWord("quant")) LOOM_RETURN_IF_ERROR(Quant(v));
    return Status::Ok();
  }

  Status Dims(Value* v) {
    LOOM_RETURN_IF_ERROR(Expect('['));
    v->shape.clear();
    if (Accept(']')) return Status::Ok();
    do {
      int64_t d = 0;
      LOOM_RETURN_IF_ERROR(Int(&d));
      if (d < 0) return Error("negative dimension");
      v->shape.push_back(d);
    } while (Accept(','));
    LOOM_RETURN_IF_ERROR(Expect(']'));
    // Every later stage trusts a value's element count; bound it where the text first gives it.
    int64_t count = 0;
    if (Status s = NumElements(v->shape, &count); !s.ok()) return ErrorAtMark(s.message());
    return Status::Ok();
  }

  Status Quant(Value* v) {
    QuantParams q;
    LOOM_RETURN_IF_ERROR(Expect('('));
    do {
      const std::string key(Word());
      pos_ += key.size();
      LOOM_RETURN_IF_ERROR(Expect('='));
      std::vector<Num> nums;
      LOOM_RETURN_IF_ERROR(Numbers(&nums));
      for (const Num& n : nums) {
        if (key == "axis" && nums.size() == 1) {
          int64_t axis = 0;
          LOOM_RETURN_IF_ERROR(ToI64(n, &axis));
          if (!CheckedCast(axis, &q.axis)) return ErrorAt(n.line, n.col, "quant axis out of range");
        } else if (key == "scale") {
          float f = 0;
          LOOM_RETURN_IF_ERROR(ToF32(n, &f));
          q.scales.push_back(f);
        } else if (key == "zero_point") {
          int64_t z = 0;
          int32_t z32 = 0;
          LOOM_RETURN_IF_ERROR(ToI64(n, &z));
          if (!CheckedCast(z, &z32)) return ErrorAt(n.line, n.col, "zero point does not fit i32");
          q.zero_points.push_back(z32);
        } else {
          return Error("unknown quant field '" + key + "'");
        }
      }
    } while (Accept(','));
    LOOM_RETURN_IF_ERROR(Expect(')'));
    v->quant = std::move(q);
    return Status::Ok();
  }

  // One number or a bracketed list of numbers.
  Status Numbers(std::vector<Num>* out) {
    out->clear();
    const bool list = Accept('[');
    if (list && Accept(']')) return Status::Ok();
    do {
      out->emplace_back();
      LOOM_RETURN_IF_ERROR(Number(&out->back()));
    } while (list && Accept(','));
    if (list) LOOM_RETURN_IF_ERROR(Expect(']'));
    return Status::Ok();
  }

  // Data of a constant of the given type: ['#' hash] ( '[' numbers ']' | 'splat' '(' n ')' ).
  // `what` names the data in errors ("constant %w", "tensor attribute").
  Status TensorData(DType dtype, const Shape& shape, const std::string& what, Tensor* out) {
    Mark();
    const int item_line = mark_line_;
    const size_t item_col = mark_col_;
    std::string hash;
    if (Accept('#')) {
      const std::string_view h = Word();
      hash = std::string(h);
      pos_ += h.size();
    }
    int64_t count = 0;
    Status s = NumElements(shape, &count);
    if (!s.ok()) return Error(s.message());
    std::vector<Num> nums;
    bool splat = false;
    if (AcceptWord("splat")) {
      LOOM_RETURN_IF_ERROR(Expect('('));
      nums.emplace_back();
      LOOM_RETURN_IF_ERROR(Number(&nums.back()));
      LOOM_RETURN_IF_ERROR(Expect(')'));
      splat = true;
    } else if (Peek() == '[') {
      LOOM_RETURN_IF_ERROR(Numbers(&nums));
      if (static_cast<int64_t>(nums.size()) != count) {
        return ErrorAt(item_line, item_col,
                       "constant needs " + std::to_string(count) + " elements, has " +
                           std::to_string(nums.size()));
      }
    } else {
      return ErrorAt(item_line, item_col,
                     "constant has no data (give [...] or splat(v); a #hash alone is not enough)");
    }
    // Allocated (and its size checked) before anything is expanded, so a splat of a huge shape
    // is an error naming the constant instead of a huge vector of numbers.
    if (Status st = Tensor::Create(dtype, shape, out); !st.ok()) {
      return ErrorAt(item_line, item_col, what + ": " + st.message());
    }
    LOOM_RETURN_IF_ERROR(FillNums(dtype, nums, splat, out));
    if (!hash.empty() && hash != ShortHash(*out)) {
      return ErrorAt(item_line, item_col,
                     "constant data hashes to #" + ShortHash(*out) + ", not #" + hash);
    }
    return Status::Ok();
  }

  // Writes `nums` into the elements of `out`, or nums[0] into every element for a splat.
  Status FillNums(DType dtype, const std::vector<Num>& nums, bool splat, Tensor* out) {
    const size_t es = DTypeSize(dtype);
    uint8_t* bytes = out->mutable_bytes();
    const size_t given = splat && out->byte_size() == 0 ? 0 : nums.size();
    for (size_t i = 0; i < given; ++i) {
      LOOM_RETURN_IF_ERROR(NumToBytes(dtype, nums[i], bytes + i * es));
    }
    if (splat) {
      for (size_t off = es; off < out->byte_size(); off += es) std::memcpy(bytes + off, bytes, es);
    }
    return Status::Ok();
  }

  // One element of `dtype` from a number, range-checked.
  Status NumToBytes(DType dtype, const Num& num, uint8_t* dst) {
    if (dtype == DType::kF32) {
      float f = 0;
      LOOM_RETURN_IF_ERROR(ToF32(num, &f));
      std::memcpy(dst, &f, sizeof f);
      return Status::Ok();
    }
    int64_t lo = 0, hi = 0;
    switch (dtype) {
      case DType::kI8:
        lo = -128, hi = 127;
        break;
      case DType::kU8:
        lo = 0, hi = 255;
        break;
      case DType::kI32:
        lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
        break;
      case DType::kI64:
        lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
        break;
      case DType::kBool:
        lo = 0, hi = 1;
        break;
      case DType::kI16:
        lo = std::numeric_limits<int16_t>::min(), hi = std::numeric_limits<int16_t>::max();
        break;
      case DType::kF32:
        break;
      default:
        return Error(std::string("constants of type ") + DTypeName(dtype) +
                     " cannot be written in the text form");
    }
    int64_t v = 0;
    LOOM_RETURN_IF_ERROR(ToI64(num, &v));
    if (v < lo || v > hi) {
      return ErrorAt(num.line, num.col, "element " + num.tok + " does not fit " + DTypeName(dtype));
    }
    switch (dtype) {
      case DType::kI8: {
        const int8_t b = static_cast<int8_t>(v);
        std::memcpy(dst, &b, 1);
        break;
      }
      case DType::kU8:
      case DType::kBool:
        *dst = static_cast<uint8_t>(v);
        break;
      case DType::kI32: {
        const int32_t w = static_cast<int32_t>(v);
        std::memcpy(dst, &w, sizeof w);
        break;
      }
      case DType::kI16: {
        const int16_t h = static_cast<int16_t>(v);
        std::memcpy(dst, &h, sizeof h);
        break;
      }
      case DType::kI64:
        std::memcpy(dst, &v, sizeof v);
        break;
      default:
        break;
    }
    return Status::Ok();
  }

  Status AttrValue(Attribute* out) {
    const char c = Peek();
    if (c == '"') {
      std::string s;
      LOOM_RETURN_IF_ERROR(String(&s));
      *out = Attribute::String(std::move(s));
      return Status::Ok();
    }
    if (AcceptWord("floats")) {
      LOOM_RETURN_IF_ERROR(Expect('['));
      LOOM_RETURN_IF_ERROR(Expect(']'));
      *out = Attribute::Floats({});
      return Status::Ok();
    }
    if (AcceptWord("tensor")) {
      LOOM_RETURN_IF_ERROR(Expect('<'));
      Value type;
      LOOM_RETURN_IF_ERROR(Type(&type));
      Tensor t;
      LOOM_RETURN_IF_ERROR(TensorData(type.dtype, type.shape, "tensor attribute", &t));
      LOOM_RETURN_IF_ERROR(Expect('>'));
      *out = Attribute::TensorValue(std::move(t));
      return Status::Ok();
    }
    if (c == '[') {
      std::vector<Num> nums;
      LOOM_RETURN_IF_ERROR(Numbers(&nums));
      bool any_float = false;
      for (const Num& n : nums) any_float = any_float || n.is_float;
      if (any_float) {
        std::vector<float> floats(nums.size());
        for (size_t i = 0; i < nums.size(); ++i) LOOM_RETURN_IF_ERROR(ToF32(nums[i], &floats[i]));
        *out = Attribute::Floats(std::move(floats));
      } else {
        std::vector<int64_t> ints(nums.size());
        for (size_t i = 0; i < nums.size(); ++i) LOOM_RETURN_IF_ERROR(ToI64(nums[i], &ints[i]));
        *out = Attribute::Ints(std::move(ints));
      }
      return Status::Ok();
    }
    Num n;
    LOOM_RETURN_IF_ERROR(Number(&n));
    if (n.is_float) {
      float f = 0;
      LOOM_RETURN_IF_ERROR(ToF32(n, &f));
      *out = Attribute::Float(f);
    } else {
      int64_t i = 0;
      LOOM_RETURN_IF_ERROR(ToI64(n, &i));
      *out = Attribute::Int(i);
    }
    return Status::Ok();
  }

  // defs '=' ( 'const' data | Op '(' args ')' [attrs] ['@' name] )
  Status Statement() {
    std::vector<std::pair<std::string, Value>> defs;
    do {
      std::string name;
      Mark();
      LOOM_RETURN_IF_ERROR(Expect('%'));
      LOOM_RETURN_IF_ERROR(Name(&name));
      if (g_->FindValue(name) != kNoValue) return ErrorAtMark("%" + name + " is defined twice");
      LOOM_RETURN_IF_ERROR(Expect(':'));
      Value type;
      LOOM_RETURN_IF_ERROR(Type(&type));
      defs.emplace_back(std::move(name), std::move(type));
    } while (Accept(','));
    LOOM_RETURN_IF_ERROR(Expect('='));
    if (AcceptWord("const")) {
      if (defs.size() != 1) return Error("a constant defines exactly one value");
      Tensor t;
      LOOM_RETURN_IF_ERROR(
          TensorData(defs[0].second.dtype, defs[0].second.shape, "constant %" + defs[0].first, &t));
      const ValueId id = g_->AddConstant(defs[0].first, std::move(t));
      g_->value(id).quant = defs[0].second.quant;
      return Status::Ok();
    }
    const std::string op(Word());
    if (op.empty()) return Error("expected an op name or 'const'");
    pos_ += op.size();
    std::vector<ValueId> inputs;
    LOOM_RETURN_IF_ERROR(Expect('('));
    if (!Accept(')')) {
      do {
        ValueId id = kNoValue;
        LOOM_RETURN_IF_ERROR(Ref(&id));
        inputs.push_back(id);
      } while (Accept(','));
      LOOM_RETURN_IF_ERROR(Expect(')'));
    }
    AttributeMap attrs;
    if (Accept('{')) {
      do {
        std::string key;
        LOOM_RETURN_IF_ERROR(Name(&key));
        LOOM_RETURN_IF_ERROR(Expect('='));
        Attribute a;
        LOOM_RETURN_IF_ERROR(AttrValue(&a));
        if (!attrs.emplace(key, std::move(a)).second)
          return Error("attribute " + key + " repeated");
      } while (Accept(','));
      LOOM_RETURN_IF_ERROR(Expect('}'));
    }
    std::string node_name;
    if (Accept('@')) LOOM_RETURN_IF_ERROR(Name(&node_name));
    std::vector<ValueId> outputs;
    for (auto& [name, type] : defs) {
      const ValueId id = g_->AddValue(name, type.dtype, type.shape);
      g_->value(id).quant = type.quant;
      g_->value(id).layout = type.layout;
      outputs.push_back(id);
    }
    g_->AddNode(op, std::move(inputs), std::move(outputs), std::move(attrs), std::move(node_name));
    return Status::Ok();
  }

  std::string_view text_;
  Graph* g_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  int mark_line_ = 1;
  size_t mark_col_ = 0;
};

}  // namespace

Status ParseGraph(std::string_view text, Graph* out) {
  Graph g;
  Parser p(text, &g);
  LOOM_RETURN_IF_ERROR(p.ParseGraph());
  *out = std::move(g);
  return Status::Ok();
}

}  // namespace loom::ir
