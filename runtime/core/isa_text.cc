// Text form of instructions and micro-ops (docs/isa.md, "Text form"). The disassembler prints one
// canonical line per instruction; the assembler accepts fields in any order and numbers in decimal
// or 0x-hex, and names the line and field of every error.
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <set>

#include "runtime/core/isa.h"

namespace loom::isa {

namespace {

void AppendDeps(const Deps& d, std::string* s) {
  if (d.pop_prev) *s += " @pop_prev";
  if (d.pop_next) *s += " @pop_next";
  if (d.push_prev) *s += " @push_prev";
  if (d.push_next) *s += " @push_next";
}

void AppendLoops(const Insn& i, std::string* s) {
  FormatTo(s, " uop={}:{} loop={}x{} dst={},{}", i.uop_bgn, i.uop_end, i.loop_out, i.loop_in,
           i.dst_factor_out, i.dst_factor_in);
}

}  // namespace

std::string Disassemble(const Insn& i) {
  std::string s;
  switch (i.opcode) {
    case Opcode::kLoad:
    case Opcode::kStore:
      s = Format("{}.{} sram={} dram={} y={} x={} stride={}", OpcodeName(i.opcode),
                 BufferName(i.buffer), i.sram_base, i.dram_base, i.y_size, i.x_size, i.x_stride);
      if (i.y_pad_top || i.y_pad_bottom || i.x_pad_left || i.x_pad_right) {
        FormatTo(&s, " pad={},{},{},{}", i.y_pad_top, i.y_pad_bottom, i.x_pad_left, i.x_pad_right);
      }
      if (i.pad_value != 0) FormatTo(&s, " padval={}", i.pad_value);
      break;
    case Opcode::kGemm:
      s = i.reset ? "gemm reset" : i.depthwise ? "gemm depthwise" : "gemm";
      AppendLoops(i, &s);
      FormatTo(&s, " src={},{} wgt={},{}", i.src_factor_out, i.src_factor_in, i.wgt_factor_out,
               i.wgt_factor_in);
      break;
    case Opcode::kAlu:
      s = std::string("alu.") + AluOpName(i.alu_op);
      AppendLoops(i, &s);
      if (i.alu_op == AluOp::kRequant) {
        FormatTo(&s, " shift={},{} clip={},{}", i.pre_shift, i.post_shift, i.clip_lo, i.clip_hi);
        if (i.clear) s += " clear";
        if (i.fuse) s += " fuse";
      } else if (i.use_imm) {
        FormatTo(&s, " imm={}", i.imm);
      } else {
        FormatTo(&s, " src={},{}", i.src_factor_out, i.src_factor_in);
      }
      break;
    case Opcode::kFinish:
      s = "finish";
      break;
  }
  AppendDeps(i.deps, &s);
  return s;
}

std::string DisassembleUop(const Uop& u) {
  return Format("uop dst={} src={} wgt={}", u.dst, u.src, u.wgt);
}

namespace {

// One line being parsed: its tokens after the mnemonic, and where it came from for messages.
class LineParser {
 public:
  LineParser(int line_no, std::vector<std::string> tokens)
      : line_no_(line_no), tokens_(std::move(tokens)) {}

  Status Error(const std::string& why) const {
    return InvalidArgument("line " + std::to_string(line_no_) + ": " + why);
  }

  // Splits key=value tokens into fields_ and bare words into words_; rejects duplicates.
  Status Split() {
    for (size_t t = 1; t < tokens_.size(); ++t) {
      const std::string& tok = tokens_[t];
      const size_t eq = tok.find('=');
      if (eq == std::string::npos) {
        if (!words_.insert({tok, false}).second) return Error("'" + tok + "' given twice");
        continue;
      }
      const std::string key = tok.substr(0, eq);
      if (key.empty()) return Error("field without a name in '" + tok + "'");
      if (!fields_.insert({key, tok.substr(eq + 1)}).second) {
        return Error("field '" + key + "' given twice");
      }
    }
    return Status::Ok();
  }

  bool Word(const std::string& w) {
    auto it = words_.find(w);
    if (it == words_.end()) return false;
    it->second = true;
    return true;
  }
  bool Has(const std::string& key) const { return fields_.count(key) != 0; }

  // Parses field `key` as a list of `n` numbers separated by any char in `seps`.
  Status Numbers(const std::string& key, const char* seps, size_t n, int64_t lo, int64_t hi,
                 std::vector<int64_t>* out) {
    auto it = fields_.find(key);
    if (it == fields_.end()) return Error("missing field '" + key + "'");
    used_.insert(key);
    out->clear();
    const std::string& text = it->second;
    size_t pos = 0;
    while (true) {
      size_t end = text.find_first_of(seps, pos);
      std::string part = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
      int64_t v = 0;
      LOOM_RETURN_IF_ERROR(ParseNumber(key, part, lo, hi, &v));
      out->push_back(v);
      if (end == std::string::npos) break;
      pos = end + 1;
    }
    if (out->size() != n) {
      return Error("field '" + key + "' needs " + std::to_string(n) + " values, got '" + text +
                   "'");
    }
    return Status::Ok();
  }

  Status U32(const std::string& key, uint32_t* out) {
    std::vector<int64_t> v;
    LOOM_RETURN_IF_ERROR(Numbers(key, ",", 1, 0, UINT32_MAX, &v));
    *out = static_cast<uint32_t>(v[0]);
    return Status::Ok();
  }

  Status Pair(const std::string& key, const char* sep, uint32_t* a, uint32_t* b) {
    std::vector<int64_t> v;
    LOOM_RETURN_IF_ERROR(Numbers(key, sep, 2, 0, UINT32_MAX, &v));
    *a = static_cast<uint32_t>(v[0]);
    *b = static_cast<uint32_t>(v[1]);
    return Status::Ok();
  }

  // Flags and leftovers: anything not consumed is an error naming it.
  Status Finish(Deps* deps) {
    deps->pop_prev = Word("@pop_prev");
    deps->pop_next = Word("@pop_next");
    deps->push_prev = Word("@push_prev");
    deps->push_next = Word("@push_next");
    for (const auto& [w, used] : words_) {
      if (!used) return Error("unexpected word '" + w + "' for " + tokens_[0]);
    }
    for (const auto& [k, v] : fields_) {
      if (!used_.count(k)) return Error("unknown field '" + k + "' for " + tokens_[0]);
    }
    return Status::Ok();
  }

 private:
  Status ParseNumber(const std::string& key, const std::string& text, int64_t lo, int64_t hi,
                     int64_t* out) const {
    if (text.empty()) return Error("field '" + key + "' has an empty value");
    // Decimal, or hexadecimal with 0x; a leading zero does not mean octal.
    const bool neg = text[0] == '-';
    const std::string digits = text.substr(neg ? 1 : 0);
    const bool hex = digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
    if (digits.empty() || !std::isxdigit(static_cast<unsigned char>(digits[hex ? 2 : 0]))) {
      return Error("field '" + key + "': '" + text + "' is not a number");
    }
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(digits.c_str() + (hex ? 2 : 0), &end, hex ? 16 : 10);
    if (neg) v = -v;
    if (*end != '\0' || errno == ERANGE) {
      return Error("field '" + key + "': '" + text + "' is not a number");
    }
    if (v < lo || v > hi) {
      return Error("field '" + key + "' = " + text + " is outside [" + std::to_string(lo) + ", " +
                   std::to_string(hi) + "]");
    }
    *out = v;
    return Status::Ok();
  }

  int line_no_;
  std::vector<std::string> tokens_;
  std::map<std::string, std::string> fields_;
  std::map<std::string, bool> words_;  // bare word -> consumed
  std::set<std::string> used_;  // fields consumed so far
};

Status ParseLoops(LineParser& p, Insn* i) {
  LOOM_RETURN_IF_ERROR(p.Pair("uop", ":", &i->uop_bgn, &i->uop_end));
  LOOM_RETURN_IF_ERROR(p.Pair("loop", "x", &i->loop_out, &i->loop_in));
  return p.Pair("dst", ",", &i->dst_factor_out, &i->dst_factor_in);
}

Status ParseInsn(LineParser& p, const std::string& mnemonic, Insn* i) {
  const size_t dot = mnemonic.find('.');
  const std::string op = mnemonic.substr(0, dot);
  const std::string sub = dot == std::string::npos ? "" : mnemonic.substr(dot + 1);
  if (op == "load" || op == "store") {
    i->opcode = op == "load" ? Opcode::kLoad : Opcode::kStore;
    bool found = false;
    for (Buffer b : {Buffer::kUop, Buffer::kWgt, Buffer::kInp, Buffer::kAcc, Buffer::kOut}) {
      if (sub == BufferName(b)) {
        i->buffer = b;
        found = true;
      }
    }
    if (!found) return p.Error("unknown buffer '" + sub + "' in '" + mnemonic + "'");
    LOOM_RETURN_IF_ERROR(p.U32("sram", &i->sram_base));
    LOOM_RETURN_IF_ERROR(p.U32("dram", &i->dram_base));
    LOOM_RETURN_IF_ERROR(p.U32("y", &i->y_size));
    LOOM_RETURN_IF_ERROR(p.U32("x", &i->x_size));
    LOOM_RETURN_IF_ERROR(p.U32("stride", &i->x_stride));
    if (p.Has("pad")) {
      std::vector<int64_t> pads;
      LOOM_RETURN_IF_ERROR(p.Numbers("pad", ",", 4, 0, UINT32_MAX, &pads));
      i->y_pad_top = static_cast<uint32_t>(pads[0]);
      i->y_pad_bottom = static_cast<uint32_t>(pads[1]);
      i->x_pad_left = static_cast<uint32_t>(pads[2]);
      i->x_pad_right = static_cast<uint32_t>(pads[3]);
    }
    if (p.Has("padval")) {
      std::vector<int64_t> v;
      LOOM_RETURN_IF_ERROR(p.Numbers("padval", ",", 1, -128, 127, &v));
      i->pad_value = static_cast<int32_t>(v[0]);
    }
  } else if (op == "gemm" && sub.empty()) {
    i->opcode = Opcode::kGemm;
    i->reset = p.Word("reset");
    i->depthwise = p.Word("depthwise");
    LOOM_RETURN_IF_ERROR(ParseLoops(p, i));
    LOOM_RETURN_IF_ERROR(p.Pair("src", ",", &i->src_factor_out, &i->src_factor_in));
    LOOM_RETURN_IF_ERROR(p.Pair("wgt", ",", &i->wgt_factor_out, &i->wgt_factor_in));
  } else if (op == "alu") {
    i->opcode = Opcode::kAlu;
    bool found = false;
    for (int a = 0; a < kNumAluOps; ++a) {
      if (sub == AluOpName(static_cast<AluOp>(a))) {
        i->alu_op = static_cast<AluOp>(a);
        found = true;
      }
    }
    if (!found) return p.Error("unknown ALU op '" + sub + "' in '" + mnemonic + "'");
    LOOM_RETURN_IF_ERROR(ParseLoops(p, i));
    if (i->alu_op == AluOp::kRequant) {
      // The shifts' range and the clip fields' widths; Verify names a clip_lo above clip_hi.
      std::vector<int64_t> v;
      LOOM_RETURN_IF_ERROR(p.Numbers("shift", ",", 2, 0, kRqMaxShift, &v));
      i->pre_shift = static_cast<int32_t>(v[0]);
      i->post_shift = static_cast<int32_t>(v[1]);
      LOOM_RETURN_IF_ERROR(p.Numbers("clip", ",", 2, -128, 127, &v));
      i->clip_lo = static_cast<int32_t>(v[0]);
      i->clip_hi = static_cast<int32_t>(v[1]);
      i->clear = p.Word("clear");
      i->fuse = p.Word("fuse");
      return p.Finish(&i->deps);
    }
    if (p.Has("imm") == p.Has("src")) {
      return p.Error("ALU instruction needs exactly one of 'src=' (register) or 'imm=' (immediate)");
    }
    if (p.Has("imm")) {
      std::vector<int64_t> v;
      LOOM_RETURN_IF_ERROR(p.Numbers("imm", ",", 1, -32768, 32767, &v));
      i->use_imm = true;
      i->imm = static_cast<int32_t>(v[0]);
    } else {
      LOOM_RETURN_IF_ERROR(p.Pair("src", ",", &i->src_factor_out, &i->src_factor_in));
    }
  } else if (mnemonic == "finish") {
    i->opcode = Opcode::kFinish;
  } else {
    return p.Error("unknown instruction '" + mnemonic + "'");
  }
  return p.Finish(&i->deps);
}

// Calls fn(line_no, tokens) for every non-empty line with comments removed.
template <typename Fn>
Status ForEachLine(std::string_view text, Fn fn) {
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    ++line_no;
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    std::vector<std::string> tokens;
    size_t t = 0;
    while (t < line.size()) {
      while (t < line.size() && std::isspace(static_cast<unsigned char>(line[t]))) ++t;
      size_t s = t;
      while (t < line.size() && !std::isspace(static_cast<unsigned char>(line[t]))) ++t;
      if (t > s) tokens.emplace_back(line.substr(s, t - s));
    }
    if (!tokens.empty()) LOOM_RETURN_IF_ERROR(fn(line_no, std::move(tokens)));
    pos = end + 1;
  }
  return Status::Ok();
}

}  // namespace

Status Assemble(const Layout& layout, std::string_view text, std::vector<Insn>* out) {
  std::vector<Insn> insns;
  LOOM_RETURN_IF_ERROR(ForEachLine(text, [&](int line_no, std::vector<std::string> tokens) {
    const std::string mnemonic = tokens[0];
    LineParser p(line_no, std::move(tokens));
    LOOM_RETURN_IF_ERROR(p.Split());
    Insn insn;
    LOOM_RETURN_IF_ERROR(ParseInsn(p, mnemonic, &insn));
    Status s = Verify(layout, insn);
    if (!s.ok()) return p.Error(s.message());
    insns.push_back(insn);
    return Status::Ok();
  }));
  *out = std::move(insns);
  return Status::Ok();
}

Status AssembleUops(const Layout& layout, std::string_view text, std::vector<Uop>* out) {
  std::vector<Uop> uops;
  LOOM_RETURN_IF_ERROR(ForEachLine(text, [&](int line_no, std::vector<std::string> tokens) {
    const std::string mnemonic = tokens[0];
    LineParser p(line_no, std::move(tokens));
    if (mnemonic != "uop") return p.Error("expected 'uop', got '" + mnemonic + "'");
    LOOM_RETURN_IF_ERROR(p.Split());
    Uop u;
    LOOM_RETURN_IF_ERROR(p.U32("dst", &u.dst));
    LOOM_RETURN_IF_ERROR(p.U32("src", &u.src));
    LOOM_RETURN_IF_ERROR(p.U32("wgt", &u.wgt));
    Deps none;
    LOOM_RETURN_IF_ERROR(p.Finish(&none));
    if (none.pop_prev || none.pop_next || none.push_prev || none.push_next) {
      return p.Error("micro-ops have no dependency flags");
    }
    uint32_t word = 0;
    Status s = EncodeUop(layout, u, &word);
    if (!s.ok()) return p.Error(s.message());
    uops.push_back(u);
    return Status::Ok();
  }));
  *out = std::move(uops);
  return Status::Ok();
}

}  // namespace loom::isa
