// Fuzz target for the ISA: the decoder, the micro-op decoder and the assembler.
//
// Input: byte 0 picks the shape (value % 3: 1x8x8, 1x16x16, 1x32x32; the seed texts start with
// '0', '1' or '2'). The remaining bytes are read three ways:
//   (a) as 16-byte instruction words (the first kMaxWords): whatever Decode() accepts must Encode()
//       to the same word, and Assemble(Disassemble(x)) must give x back;
//   (b) as 4-byte micro-op words (the first kMaxUops): the same for
//   DecodeUop/EncodeUop/AssembleUops; (c) as text for Assemble() and AssembleUops(): errors are
//   fine; whatever they accept must pass
//       Verify/Encode/Decode and reassemble from its disassembly to the identical program.
// Any violation is a bug in runtime/core/isa*.cc: it is printed and the target abort()s.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/isa.h"

namespace {

// Each word costs a text round trip; longer inputs only slow the fuzzer down without reaching new
// code, so only this many words of an input are checked (the text path sees all of it).
constexpr size_t kMaxWords = 64;
constexpr size_t kMaxUops = 64;

using loom::HwConfig;
using loom::Status;
using namespace loom::isa;

HwConfig Shape(int which) {
  HwConfig c;  // 1x16x16
  if (which == 0) {
    c.name = "1x8x8";
    c.block_in = c.block_out = 8;
    c.uop_buffer_bytes = 8 * 1024;
    c.inp_buffer_bytes = 8 * 1024;
    c.wgt_buffer_bytes = 32 * 1024;
    c.acc_buffer_bytes = 32 * 1024;
  } else if (which == 2) {
    c.name = "1x32x32";
    c.block_in = c.block_out = 32;
    c.uop_buffer_bytes = 32 * 1024;
    c.inp_buffer_bytes = 64 * 1024;
    c.wgt_buffer_bytes = 512 * 1024;
    c.acc_buffer_bytes = 256 * 1024;
    c.axi_data_bits = 128;
  } else {
    c.name = "1x16x16";
  }
  return c;
}

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "isa_fuzz: %s\n%s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

const Layout& PickLayout(uint8_t selector) {
  static const std::vector<Layout> layouts = [] {
    std::vector<Layout> out(3);
    for (int k = 0; k < 3; ++k) {
      Status s = Layout::Create(Shape(k), &out[k]);
      if (!s.ok()) Fail("Layout::Create failed for a shipped shape", s.ToString());
    }
    return out;
  }();
  return layouts[selector % 3];
}

std::string Hex(const Word128& w) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "hi=0x%016llx lo=0x%016llx", static_cast<unsigned long long>(w.hi),
                static_cast<unsigned long long>(w.lo));
  return buf;
}

// The encoding of an instruction the caller knows to be valid, for messages.
std::string Describe(const Layout& l, const Insn& insn) {
  Word128 w;
  Status s = Encode(l, insn, &w);
  return "'" + Disassemble(insn) + "' (" + (s.ok() ? Hex(w) : s.ToString()) + ")";
}

// x must be valid. Checks Encode/Decode and the text round trip.
void CheckValidInsn(const Layout& l, const Insn& insn) {
  Status s = Verify(l, insn);
  if (!s.ok())
    Fail("an accepted instruction fails Verify", Disassemble(insn) + "\n" + s.ToString());
  Word128 w;
  s = Encode(l, insn, &w);
  if (!s.ok())
    Fail("an accepted instruction fails Encode", Disassemble(insn) + "\n" + s.ToString());
  Insn back;
  s = Decode(l, w, &back);
  if (!s.ok()) Fail("Decode(Encode(x)) fails", Hex(w) + "\n" + s.ToString());
  if (back != insn) Fail("Decode(Encode(x)) != x", Describe(l, insn) + " vs " + Describe(l, back));

  const std::string text = Disassemble(insn);
  std::vector<Insn> again;
  s = Assemble(l, text, &again);
  if (!s.ok()) Fail("Assemble(Disassemble(x)) fails", text + "\n" + s.ToString());
  if (again.size() != 1 || again[0] != insn) {
    Fail("Assemble(Disassemble(x)) != x",
         "x:   " + Describe(l, insn) +
             "\ngot: " + (again.empty() ? std::string("nothing") : Describe(l, again[0])));
  }
}

// (a) Instruction words.
void FuzzWords(const Layout& l, const uint8_t* data, size_t size) {
  for (size_t off = 0; off + 16 <= size && off < 16 * kMaxWords; off += 16) {
    const Word128 w = LoadWord(data + off);
    Insn insn;
    if (!Decode(l, w, &insn).ok()) continue;
    Word128 again;
    Status s = Encode(l, insn, &again);
    if (!s.ok()) Fail("Encode(Decode(w)) fails", Hex(w) + "\n" + s.ToString());
    if (!(again == w)) Fail("Encode(Decode(w)) != w", Hex(w) + " -> " + Hex(again));
    uint8_t bytes[16];
    StoreWord(w, bytes);
    for (int k = 0; k < 16; ++k) {
      if (bytes[k] != data[off + k]) Fail("StoreWord(LoadWord(b)) != b", Hex(w));
    }
    CheckValidInsn(l, insn);
  }
}

// (b) Micro-op words.
void FuzzUops(const Layout& l, const uint8_t* data, size_t size) {
  for (size_t off = 0; off + 4 <= size && off < 4 * kMaxUops; off += 4) {
    const uint32_t word = uint32_t{data[off]} | uint32_t{data[off + 1]} << 8 |
                          uint32_t{data[off + 2]} << 16 | uint32_t{data[off + 3]} << 24;
    Uop u;
    Status s = DecodeUop(l, word, &u);
    const bool reserved = l.uop_bits() < 32 && (word >> l.uop_bits()) != 0;
    if (s.ok() == reserved) {
      Fail("DecodeUop disagrees with uop_bits()", std::to_string(word) + ": " + s.ToString());
    }
    if (!s.ok()) continue;
    uint32_t again = 0;
    s = EncodeUop(l, u, &again);
    if (!s.ok()) Fail("EncodeUop(DecodeUop(w)) fails", std::to_string(word) + "\n" + s.ToString());
    if (again != word) Fail("EncodeUop(DecodeUop(w)) != w", std::to_string(word));
    std::vector<Uop> parsed;
    s = AssembleUops(l, DisassembleUop(u), &parsed);
    if (!s.ok())
      Fail("AssembleUops(DisassembleUop(u)) fails", DisassembleUop(u) + "\n" + s.ToString());
    if (parsed.size() != 1 || !(parsed[0] == u)) {
      Fail("AssembleUops(DisassembleUop(u)) != u", DisassembleUop(u));
    }
  }
}

// (c) Text.
void FuzzText(const Layout& l, std::string_view text) {
  std::vector<Insn> insns;
  if (Assemble(l, text, &insns).ok()) {
    std::string canonical;
    for (const Insn& insn : insns) {
      CheckValidInsn(l, insn);
      canonical += Disassemble(insn) + "\n";
    }
    std::vector<Insn> again;
    Status s = Assemble(l, canonical, &again);
    if (!s.ok()) Fail("reassembling the disassembly fails", canonical + "\n" + s.ToString());
    if (again != insns) Fail("reassembling the disassembly changes the program", canonical);
  }

  std::vector<Uop> uops;
  if (AssembleUops(l, text, &uops).ok()) {
    std::string canonical;
    for (const Uop& u : uops) {
      uint32_t word = 0;
      Status s = EncodeUop(l, u, &word);
      if (!s.ok())
        Fail("an accepted micro-op fails EncodeUop", DisassembleUop(u) + "\n" + s.ToString());
      canonical += DisassembleUop(u) + "\n";
    }
    std::vector<Uop> again;
    Status s = AssembleUops(l, canonical, &again);
    if (!s.ok()) Fail("reassembling the micro-ops fails", canonical + "\n" + s.ToString());
    if (!(again == uops)) Fail("reassembling the micro-ops changes them", canonical);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Layout& l = PickLayout(data[0]);
  ++data;
  --size;
  FuzzWords(l, data, size);
  FuzzUops(l, data, size);
  FuzzText(l, std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
