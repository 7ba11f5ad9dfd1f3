// The binary ISA (docs/isa.md §2): field tables, Encode/Decode round trips at every boundary, every
// rejection with the field it names, micro-ops, byte order, and a randomized round trip per shape.
#include "runtime/core/isa.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace loom::isa {

// gtest printers (also used by isa_text_test.cc, which declares them).
void PrintTo(const Insn& i, std::ostream* os) {
  *os << "{" << Disassemble(i) << " | opcode=" << int(i.opcode) << " buffer=" << int(i.buffer)
      << " sram_base=" << i.sram_base << " dram_base=" << i.dram_base << " y_size=" << i.y_size
      << " x_size=" << i.x_size << " x_stride=" << i.x_stride << " pad=" << i.y_pad_top << ","
      << i.y_pad_bottom << "," << i.x_pad_left << "," << i.x_pad_right
      << " pad_value=" << i.pad_value << " reset=" << i.reset << " depthwise=" << i.depthwise
      << " uop=" << i.uop_bgn << ":" << i.uop_end << " loop=" << i.loop_out << "x" << i.loop_in
      << " dst=" << i.dst_factor_out << "," << i.dst_factor_in << " src=" << i.src_factor_out << ","
      << i.src_factor_in << " wgt=" << i.wgt_factor_out << "," << i.wgt_factor_in
      << " alu_op=" << int(i.alu_op) << " use_imm=" << i.use_imm << " imm=" << i.imm
      << " deps=" << i.deps.pop_prev << i.deps.pop_next << i.deps.push_prev << i.deps.push_next
      << "}";
}

void PrintTo(const Word128& w, std::ostream* os) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "{hi=0x%016llx lo=0x%016llx}",
                static_cast<unsigned long long>(w.hi), static_cast<unsigned long long>(w.lo));
  *os << buf;
}

void PrintTo(const Uop& u, std::ostream* os) { *os << DisassembleUop(u); }

namespace {

using ::testing::AssertionFailure;
using ::testing::AssertionResult;
using ::testing::AssertionSuccess;
using ::testing::HasSubstr;

// --- configs -------------------------------------------------------------------------------------

HwConfig Config(const std::string& name) {
  HwConfig c;  // defaults are 1x16x16
  c.name = name;
  if (name == "1x8x8") {
    c.block_in = c.block_out = 8;
    c.uop_buffer_bytes = 8 * 1024;
    c.inp_buffer_bytes = 8 * 1024;
    c.wgt_buffer_bytes = 32 * 1024;
    c.acc_buffer_bytes = 32 * 1024;
  } else if (name == "1x32x32") {
    c.block_in = c.block_out = 32;
    c.uop_buffer_bytes = 32 * 1024;
    c.inp_buffer_bytes = 64 * 1024;
    c.wgt_buffer_bytes = 512 * 1024;
    c.acc_buffer_bytes = 256 * 1024;
    c.axi_data_bits = 128;
  }
  return c;
}

Layout MakeLayout(const std::string& name) {
  Layout l;
  Status s = Layout::Create(Config(name), &l);
  EXPECT_TRUE(s.ok()) << name << ": " << s.ToString();
  return l;
}

uint32_t Max(uint32_t width) { return width >= 32 ? 0xffffffffu : (1u << width) - 1; }

// --- fields by name ------------------------------------------------------------------------------

const std::map<std::string, uint32_t Insn::*>& U32Members() {
  static const std::map<std::string, uint32_t Insn::*> m = {
      {"sram_base", &Insn::sram_base},
      {"dram_base", &Insn::dram_base},
      {"y_size", &Insn::y_size},
      {"x_size", &Insn::x_size},
      {"x_stride", &Insn::x_stride},
      {"y_pad_top", &Insn::y_pad_top},
      {"y_pad_bottom", &Insn::y_pad_bottom},
      {"x_pad_left", &Insn::x_pad_left},
      {"x_pad_right", &Insn::x_pad_right},
      {"uop_bgn", &Insn::uop_bgn},
      {"uop_end", &Insn::uop_end},
      {"loop_out", &Insn::loop_out},
      {"loop_in", &Insn::loop_in},
      {"dst_factor_out", &Insn::dst_factor_out},
      {"dst_factor_in", &Insn::dst_factor_in},
      {"src_factor_out", &Insn::src_factor_out},
      {"src_factor_in", &Insn::src_factor_in},
      {"wgt_factor_out", &Insn::wgt_factor_out},
      {"wgt_factor_in", &Insn::wgt_factor_in},
  };
  return m;
}

const std::set<std::string>& CommonNames() {
  static const std::set<std::string> s = {"opcode", "pop_prev", "pop_next", "push_prev",
                                          "push_next"};
  return s;
}

// Sets the field `name` of an Insn to v. Returns false for opcode (that changes the format).
bool SetField(Insn* i, const std::string& name, int64_t v) {
  auto it = U32Members().find(name);
  if (it != U32Members().end()) {
    (*i).*(it->second) = static_cast<uint32_t>(v);
  } else if (name == "buffer") {
    i->buffer = static_cast<Buffer>(v);
  } else if (name == "alu_op") {
    i->alu_op = static_cast<AluOp>(v);
  } else if (name == "imm") {
    i->imm = static_cast<int32_t>(v);
  } else if (name == "pad_value") {
    i->pad_value = static_cast<int32_t>(v);
  } else if (name == "reset") {
    i->reset = v != 0;
  } else if (name == "depthwise") {
    i->depthwise = v != 0;
  } else if (name == "use_imm") {
    i->use_imm = v != 0;
  } else if (name == "pop_prev") {
    i->deps.pop_prev = v != 0;
  } else if (name == "pop_next") {
    i->deps.pop_next = v != 0;
  } else if (name == "push_prev") {
    i->deps.push_prev = v != 0;
  } else if (name == "push_next") {
    i->deps.push_next = v != 0;
  } else {
    return false;
  }
  return true;
}

FieldSpec FindField(const Layout& l, Opcode op, const std::string& name) {
  for (const FieldSpec& f : Fields(l, op)) {
    if (name == f.name) return f;
  }
  ADD_FAILURE() << "no field '" << name << "' in " << OpcodeName(op);
  return {"?", 0, 0};
}

uint32_t UsedBits(const Layout& l, Opcode op) {
  const std::vector<FieldSpec> f = Fields(l, op);
  return f.back().lsb + f.back().width;
}

// --- words ---------------------------------------------------------------------------------------

bool GetBit(const Word128& w, uint32_t pos) {
  return pos < 64 ? (w.lo >> pos) & 1 : (w.hi >> (pos - 64)) & 1;
}

void SetBit(Word128* w, uint32_t pos, bool v) {
  uint64_t& half = pos < 64 ? w->lo : w->hi;
  const uint64_t mask = uint64_t{1} << (pos % 64);
  half = v ? (half | mask) : (half & ~mask);
}

void PutField(Word128* w, const FieldSpec& f, uint64_t v) {
  for (uint32_t b = 0; b < f.width; ++b) SetBit(w, f.lsb + b, (v >> b) & 1);
}

uint64_t GetField(const Word128& w, const FieldSpec& f) {
  uint64_t v = 0;
  for (uint32_t b = 0; b < f.width; ++b) v |= uint64_t{GetBit(w, f.lsb + b)} << b;
  return v;
}

// --- instructions --------------------------------------------------------------------------------

Insn Load(Buffer b) {
  Insn i;
  i.opcode = Opcode::kLoad;
  i.buffer = b;
  i.y_size = 1;
  i.x_size = 1;
  i.x_stride = 1;
  return i;
}

Insn Store() {
  Insn i = Load(Buffer::kOut);
  i.opcode = Opcode::kStore;
  return i;
}

Insn Gemm() {
  Insn i;
  i.opcode = Opcode::kGemm;
  i.uop_end = 1;
  i.loop_out = 1;
  i.loop_in = 1;
  return i;
}

Insn Alu(AluOp op, bool imm_form) {
  Insn i = Gemm();
  i.opcode = Opcode::kAlu;
  i.alu_op = op;
  i.use_imm = imm_form;
  return i;
}

Insn Finish() {
  Insn i;
  i.opcode = Opcode::kFinish;
  return i;
}

// A valid instruction of each format, for tests that vary one thing.
Insn Base(Opcode op) {
  switch (op) {
    case Opcode::kLoad:
      return Load(Buffer::kInp);
    case Opcode::kStore:
      return Store();
    case Opcode::kGemm:
      return Gemm();
    case Opcode::kAlu:
      return Alu(AluOp::kAdd, false);
    case Opcode::kFinish:
      return Finish();
  }
  return Finish();
}

const Opcode kOpcodes[] = {Opcode::kLoad, Opcode::kStore, Opcode::kGemm, Opcode::kAlu,
                           Opcode::kFinish};
const Buffer kLoadable[] = {Buffer::kUop, Buffer::kWgt, Buffer::kInp, Buffer::kAcc};

Deps MakeDeps(int bits) {
  Deps d;
  d.pop_prev = bits & 1;
  d.pop_next = bits & 2;
  d.push_prev = bits & 4;
  d.push_next = bits & 8;
  return d;
}

bool DepsValidFor(Module m, const Deps& d) {
  if (m == Module::kLoad) return !d.pop_prev && !d.push_prev;
  if (m == Module::kStore) return !d.pop_next && !d.push_next;
  return true;
}

Word128 EncodeOrDie(const Layout& l, const Insn& insn) {
  Word128 w;
  Status s = Encode(l, insn, &w);
  EXPECT_TRUE(s.ok()) << s.ToString() << "\n  " << ::testing::PrintToString(insn);
  return w;
}

Status EncodeStatus(const Layout& l, const Insn& insn) {
  Word128 w;
  return Encode(l, insn, &w);
}

Status DecodeStatus(const Layout& l, const Word128& w) {
  Insn i;
  return Decode(l, w, &i);
}

// Encode -> Decode -> same Insn; StoreWord -> LoadWord -> same word; Disassemble -> Assemble ->
// same Insn and the same text again.
AssertionResult RoundTrips(const Layout& l, const Insn& insn) {
  const std::string dump = ::testing::PrintToString(insn);
  Word128 w;
  Status s = Encode(l, insn, &w);
  if (!s.ok()) return AssertionFailure() << "Encode: " << s.ToString() << "\n  " << dump;
  if (!Verify(l, insn).ok()) return AssertionFailure() << "Encode ok but Verify fails\n  " << dump;
  Insn back;
  s = Decode(l, w, &back);
  if (!s.ok()) return AssertionFailure() << "Decode: " << s.ToString() << "\n  " << dump;
  if (back != insn) {
    return AssertionFailure() << "Decode(Encode(x)) != x\n  x:    " << dump
                              << "\n  back: " << ::testing::PrintToString(back);
  }
  uint8_t bytes[16];
  StoreWord(w, bytes);
  if (!(LoadWord(bytes) == w)) return AssertionFailure() << "LoadWord(StoreWord(w)) != w";
  const std::string text = Disassemble(insn);
  std::vector<Insn> parsed;
  s = Assemble(l, text, &parsed);
  if (!s.ok()) return AssertionFailure() << "Assemble(\"" << text << "\"): " << s.ToString();
  if (parsed.size() != 1 || parsed[0] != insn) {
    return AssertionFailure() << "Assemble(Disassemble(x)) != x\n  text: " << text
                              << "\n  x:    " << dump << "\n  got:  "
                              << (parsed.empty() ? "nothing" : ::testing::PrintToString(parsed[0]));
  }
  if (Disassemble(parsed[0]) != text) return AssertionFailure() << "text not canonical: " << text;
  return AssertionSuccess();
}

AssertionResult UopRoundTrips(const Layout& l, const Uop& u) {
  uint32_t word = 0;
  Status s = EncodeUop(l, u, &word);
  if (!s.ok()) return AssertionFailure() << "EncodeUop: " << s.ToString();
  Uop back;
  s = DecodeUop(l, word, &back);
  if (!s.ok()) return AssertionFailure() << "DecodeUop: " << s.ToString();
  if (!(back == u))
    return AssertionFailure() << DisassembleUop(u) << " came back as " << DisassembleUop(back);
  std::vector<Uop> parsed;
  s = AssembleUops(l, DisassembleUop(u), &parsed);
  if (!s.ok()) return AssertionFailure() << "AssembleUops: " << s.ToString();
  if (parsed.size() != 1 || !(parsed[0] == u)) {
    return AssertionFailure() << "AssembleUops(DisassembleUop(u)) != u for " << DisassembleUop(u);
  }
  return AssertionSuccess();
}

// ==================================================================================================
// Shape-independent tests (1x16x16).
// ==================================================================================================

class Isa16 : public ::testing::Test {
 protected:
  Layout l_ = MakeLayout("1x16x16");
};

TEST_F(Isa16, PinnedFormatTotals) {
  // docs/isa.md §2.2. If these move, the RTL package and every compiled program change.
  EXPECT_EQ(l_.mem_bits(), 127u);
  EXPECT_EQ(l_.gemm_bits(), 128u);
  EXPECT_EQ(l_.alu_bits(), 126u);
  EXPECT_EQ(l_.uop_bits(), 32u);
  EXPECT_EQ(UsedBits(l_, Opcode::kFinish), 7u);
}

TEST_F(Isa16, PinnedFieldPositions) {
  // docs/isa.md §2.3, §2.5-2.7: name, lsb and width of every field for 1x16x16.
  struct Row {
    const char* name;
    uint32_t lsb, width;
  };
  const std::vector<Row> common = {{"opcode", 0, 3},
                                   {"pop_prev", 3, 1},
                                   {"pop_next", 4, 1},
                                   {"push_prev", 5, 1},
                                   {"push_next", 6, 1}};
  auto with_common = [&](std::vector<Row> rest) {
    std::vector<Row> all = common;
    all.insert(all.end(), rest.begin(), rest.end());
    return all;
  };
  const std::map<Opcode, std::vector<Row>> expected = {
      {Opcode::kLoad, with_common({{"buffer", 7, 3},
                                   {"sram_base", 10, 13},
                                   {"dram_base", 23, 32},
                                   {"y_size", 55, 16},
                                   {"x_size", 71, 16},
                                   {"x_stride", 87, 16},
                                   {"y_pad_top", 103, 4},
                                   {"y_pad_bottom", 107, 4},
                                   {"x_pad_left", 111, 4},
                                   {"x_pad_right", 115, 4},
                                   {"pad_value", 119, 8}})},
      {Opcode::kGemm, with_common({{"reset", 7, 1},
                                   {"uop_bgn", 8, 13},
                                   {"uop_end", 21, 14},
                                   {"loop_out", 35, 14},
                                   {"loop_in", 49, 14},
                                   {"dst_factor_out", 63, 11},
                                   {"dst_factor_in", 74, 11},
                                   {"src_factor_out", 85, 11},
                                   {"src_factor_in", 96, 11},
                                   {"wgt_factor_out", 107, 10},
                                   {"wgt_factor_in", 117, 10},
                                   {"depthwise", 127, 1}})},
      {Opcode::kAlu, with_common({{"alu_op", 7, 3},
                                  {"use_imm", 10, 1},
                                  {"uop_bgn", 11, 13},
                                  {"uop_end", 24, 14},
                                  {"loop_out", 38, 14},
                                  {"loop_in", 52, 14},
                                  {"dst_factor_out", 66, 11},
                                  {"dst_factor_in", 77, 11},
                                  {"src_factor_out", 88, 11},
                                  {"src_factor_in", 99, 11},
                                  {"imm", 110, 16}})},
      {Opcode::kFinish, common},
  };
  for (const auto& [op, rows] : expected) {
    const std::vector<FieldSpec> got = Fields(l_, op);
    ASSERT_EQ(got.size(), rows.size()) << OpcodeName(op);
    for (size_t k = 0; k < rows.size(); ++k) {
      EXPECT_STREQ(got[k].name, rows[k].name) << OpcodeName(op) << " field " << k;
      EXPECT_EQ(got[k].lsb, rows[k].lsb) << OpcodeName(op) << " " << rows[k].name;
      EXPECT_EQ(got[k].width, rows[k].width) << OpcodeName(op) << " " << rows[k].name;
    }
  }
  // STORE shares the LOAD format.
  const std::vector<FieldSpec> load = Fields(l_, Opcode::kLoad);
  const std::vector<FieldSpec> store = Fields(l_, Opcode::kStore);
  ASSERT_EQ(load.size(), store.size());
  for (size_t k = 0; k < load.size(); ++k) {
    EXPECT_STREQ(load[k].name, store[k].name);
    EXPECT_EQ(load[k].lsb, store[k].lsb);
    EXPECT_EQ(load[k].width, store[k].width);
  }
  const std::vector<FieldSpec> uop = UopFields(l_);
  ASSERT_EQ(uop.size(), 3u);
  EXPECT_STREQ(uop[0].name, "dst");
  EXPECT_EQ(uop[0].lsb, 0u);
  EXPECT_EQ(uop[0].width, 11u);
  EXPECT_STREQ(uop[1].name, "src");
  EXPECT_EQ(uop[1].lsb, 11u);
  EXPECT_EQ(uop[1].width, 11u);
  EXPECT_STREQ(uop[2].name, "wgt");
  EXPECT_EQ(uop[2].lsb, 22u);
  EXPECT_EQ(uop[2].width, 10u);
}

// docs/isa.md §2.10.
TEST_F(Isa16, PinnedEncodingExamples) {
  struct Example {
    const char* text;
    uint64_t hi, lo;
  };
  const Example examples[] = {
      {"load.inp sram=4 dram=268 y=2 x=2 stride=2 @pop_next @push_next", 0x0000000001000100,
       0x0100000086001150},
      {"load.inp sram=0 dram=64 y=4 x=4 stride=8 pad=1,1,1,1 @pop_next @push_next",
       0x0008888004000200, 0x0200000020000150},
      {"gemm uop=0:2 loop=2x2 dst=2,1 src=2,0 wgt=0,2 @pop_prev @push_prev", 0x0040000000400401,
       0x000400100040002a},
      {"alu.add uop=8:9 loop=8x1 dst=1,0 imm=-3", 0x3fff400000000004, 0x0010020009004504},
      {"finish", 0, 3},
  };
  for (const Example& e : examples) {
    SCOPED_TRACE(e.text);
    std::vector<Insn> insns;
    Status s = Assemble(l_, e.text, &insns);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(insns.size(), 1u);
    Word128 w = EncodeOrDie(l_, insns[0]);
    EXPECT_EQ(w.hi, e.hi);
    EXPECT_EQ(w.lo, e.lo);
    Insn back;
    ASSERT_TRUE(Decode(l_, Word128{e.lo, e.hi}, &back).ok());
    EXPECT_EQ(Disassemble(back), e.text);
  }
  uint32_t uop = 0;
  ASSERT_TRUE(EncodeUop(l_, Uop{4, 5, 1}, &uop).ok());
  EXPECT_EQ(uop, 0x00402804u);
}

TEST_F(Isa16, ByteOrderIsLittleEndianLowWordFirst) {
  // docs/isa.md §2.10: the first example instruction, as the fetch module reads it from DRAM.
  Insn i = Load(Buffer::kInp);
  i.sram_base = 4;
  i.dram_base = 268;
  i.y_size = 2;
  i.x_size = 2;
  i.x_stride = 2;
  i.deps.pop_next = true;
  i.deps.push_next = true;
  const std::vector<uint8_t> expected = {0x50, 0x11, 0x00, 0x86, 0x00, 0x00, 0x00, 0x01,
                                         0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00};
  const Word128 w = EncodeOrDie(l_, i);
  uint8_t bytes[16];
  StoreWord(w, bytes);
  EXPECT_EQ(std::vector<uint8_t>(bytes, bytes + 16), expected);
  EXPECT_TRUE(LoadWord(expected.data()) == w);

  // Byte k holds bits 8k+7..8k, for a word with a distinct value in every byte.
  const Word128 pattern{0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
  StoreWord(pattern, bytes);
  for (int k = 0; k < 16; ++k) EXPECT_EQ(bytes[k], k) << "byte " << k;
  EXPECT_TRUE(LoadWord(bytes) == pattern);
}

TEST_F(Isa16, NamesOfCodes) {
  EXPECT_STREQ(OpcodeName(Opcode::kLoad), "load");
  EXPECT_STREQ(OpcodeName(Opcode::kStore), "store");
  EXPECT_STREQ(OpcodeName(Opcode::kGemm), "gemm");
  EXPECT_STREQ(OpcodeName(Opcode::kFinish), "finish");
  EXPECT_STREQ(OpcodeName(Opcode::kAlu), "alu");
  const char* buffers[] = {"uop", "wgt", "inp", "acc", "out"};
  for (int b = 0; b < 5; ++b) EXPECT_STREQ(BufferName(static_cast<Buffer>(b)), buffers[b]);
  const char* ops[] = {"min", "max", "add", "shr", "shr_rnd", "mul", "requant", "rqparam"};
  for (int a = 0; a < kNumAluOps; ++a) EXPECT_STREQ(AluOpName(static_cast<AluOp>(a)), ops[a]);
  EXPECT_EQ(Mnemonic(Load(Buffer::kWgt)), "load.wgt");
  EXPECT_EQ(Mnemonic(Store()), "store.out");
  EXPECT_EQ(Mnemonic(Gemm()), "gemm");
  EXPECT_EQ(Mnemonic(Alu(AluOp::kShrRound, true)), "alu.shr_rnd");
  EXPECT_EQ(Mnemonic(Finish()), "finish");
}

TEST_F(Isa16, ModuleAssignment) {
  EXPECT_EQ(Load(Buffer::kInp).module(), Module::kLoad);
  EXPECT_EQ(Load(Buffer::kWgt).module(), Module::kLoad);
  EXPECT_EQ(Load(Buffer::kUop).module(), Module::kCompute);
  EXPECT_EQ(Load(Buffer::kAcc).module(), Module::kCompute);
  EXPECT_EQ(Store().module(), Module::kStore);
  EXPECT_EQ(Gemm().module(), Module::kCompute);
  EXPECT_EQ(Alu(AluOp::kMin, false).module(), Module::kCompute);
  EXPECT_EQ(Finish().module(), Module::kCompute);
}

// ==================================================================================================
// Tests run for each of the three shapes.
// ==================================================================================================

class IsaShape : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const HwConfig c = Config(GetParam());
    Status s = c.Validate();
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = Layout::Create(c, &l_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  // A loadable buffer whose depth needs all S bits of sram_base.
  Buffer WidestBuffer() const {
    for (Buffer b : kLoadable) {
      if (l_.depth(b) == (1u << l_.sram_bits)) return b;
    }
    ADD_FAILURE() << "no buffer is 2^sram_bits deep";
    return Buffer::kUop;
  }
  // The deepest buffer that may be padded.
  Buffer DeepestPaddable() const {
    Buffer best = Buffer::kWgt;
    for (Buffer b : {Buffer::kInp, Buffer::kAcc}) {
      if (l_.depth(b) > l_.depth(best)) best = b;
    }
    return best;
  }
  Layout l_;
};

INSTANTIATE_TEST_SUITE_P(Shapes, IsaShape, ::testing::Values("1x8x8", "1x16x16", "1x32x32"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST_P(IsaShape, LayoutWidthsMatchTheSpec) {
  // docs/isa.md §2.2.
  struct Widths {
    uint32_t u, w, i, a, s, mem, gemm, alu, uop;
  };
  const std::map<std::string, Widths> expected = {
      {"1x8x8", {11, 9, 10, 10, 11, 125, 118, 118, 29}},
      {"1x16x16", {13, 10, 11, 11, 13, 127, 128, 126, 32}},
      {"1x32x32", {13, 9, 11, 11, 13, 127, 126, 126, 31}},
  };
  const Widths& e = expected.at(GetParam());
  EXPECT_EQ(l_.uop_idx_bits, e.u);
  EXPECT_EQ(l_.wgt_idx_bits, e.w);
  EXPECT_EQ(l_.inp_idx_bits, e.i);
  EXPECT_EQ(l_.acc_idx_bits, e.a);
  EXPECT_EQ(l_.sram_bits, e.s);
  EXPECT_EQ(l_.mem_bits(), e.mem);
  EXPECT_EQ(l_.gemm_bits(), e.gemm);
  EXPECT_EQ(l_.alu_bits(), e.alu);
  EXPECT_EQ(l_.uop_bits(), e.uop);
  EXPECT_EQ(l_.uop_depth, 1u << e.u);
  EXPECT_EQ(l_.wgt_depth, 1u << e.w);
  EXPECT_EQ(l_.inp_depth, 1u << e.i);
  EXPECT_EQ(l_.acc_depth, 1u << e.a);
  EXPECT_EQ(l_.depth(Buffer::kOut), l_.acc_depth);
  EXPECT_EQ(l_.uop_dst_bits, e.a);
  EXPECT_EQ(l_.uop_src_bits, std::max(e.i, e.a));
  EXPECT_EQ(l_.uop_wgt_bits, e.w);
}

TEST_P(IsaShape, FieldTablesAreContiguousFromBitZero) {
  const std::map<Opcode, uint32_t> totals = {{Opcode::kLoad, l_.mem_bits()},
                                             {Opcode::kStore, l_.mem_bits()},
                                             {Opcode::kGemm, l_.gemm_bits()},
                                             {Opcode::kAlu, l_.alu_bits()},
                                             {Opcode::kFinish, 7}};
  for (const auto& [op, total] : totals) {
    SCOPED_TRACE(OpcodeName(op));
    const std::vector<FieldSpec> fields = Fields(l_, op);
    ASSERT_GE(fields.size(), 5u);
    const char* common[] = {"opcode", "pop_prev", "pop_next", "push_prev", "push_next"};
    for (int k = 0; k < 5; ++k) EXPECT_STREQ(fields[k].name, common[k]);
    uint32_t next = 0;
    std::set<std::string> names;
    for (const FieldSpec& f : fields) {
      EXPECT_EQ(f.lsb, next) << f.name;
      EXPECT_GT(f.width, 0u) << f.name;
      EXPECT_TRUE(names.insert(f.name).second) << "duplicate field " << f.name;
      // Every field is one the test (and the text form) knows about.
      const std::set<std::string> others = {"buffer",  "reset", "depthwise", "alu_op",
                                            "use_imm", "imm",   "pad_value"};
      EXPECT_TRUE(U32Members().count(f.name) || CommonNames().count(f.name) || others.count(f.name))
          << "unexpected field " << f.name;
      next = f.lsb + f.width;
    }
    EXPECT_EQ(next, total);
    EXPECT_LE(next, 128u);
  }
  const std::vector<FieldSpec> uop = UopFields(l_);
  uint32_t next = 0;
  for (const FieldSpec& f : uop) {
    EXPECT_EQ(f.lsb, next) << f.name;
    next += f.width;
  }
  EXPECT_EQ(next, l_.uop_bits());
  EXPECT_LE(next, 32u);
}

// --- round trips at the boundaries ---------------------------------------------------------------

TEST_P(IsaShape, EveryFieldAtZero) {
  for (Buffer b : kLoadable) {
    Insn i;
    i.opcode = Opcode::kLoad;
    i.buffer = b;  // y = x = 0: a pure synchronisation instruction
    EXPECT_TRUE(RoundTrips(l_, i));
  }
  Insn store;
  store.opcode = Opcode::kStore;
  store.buffer = Buffer::kOut;
  EXPECT_TRUE(RoundTrips(l_, store));
  Insn gemm;
  gemm.opcode = Opcode::kGemm;
  gemm.uop_end = 1;  // uop_end = 0 is an empty range
  EXPECT_TRUE(RoundTrips(l_, gemm));
  gemm.reset = true;
  EXPECT_TRUE(RoundTrips(l_, gemm));
  gemm.reset = false;
  gemm.depthwise = true;
  EXPECT_TRUE(RoundTrips(l_, gemm));
  for (int a = 0; a < kNumAluOps; ++a) {
    for (bool imm : {false, true}) {
      if (imm && a >= static_cast<int>(AluOp::kRequant)) continue;  // no immediate form
      Insn alu;
      alu.opcode = Opcode::kAlu;
      alu.alu_op = static_cast<AluOp>(a);
      alu.use_imm = imm;
      alu.uop_end = 1;
      EXPECT_TRUE(RoundTrips(l_, alu));
    }
  }
  EXPECT_TRUE(RoundTrips(l_, Finish()));
  // The all-zero word is "load.uop" with nothing to move.
  Insn zero;
  ASSERT_TRUE(Decode(l_, Word128{}, &zero).ok());
  EXPECT_EQ(Disassemble(zero), "load.uop sram=0 dram=0 y=0 x=0 stride=0");
}

TEST_P(IsaShape, LoadOfEachBufferAndStore) {
  for (Buffer b : kLoadable) {
    Insn i = Load(b);
    i.sram_base = l_.depth(b) - 4;
    i.dram_base = 1000;
    i.y_size = 2;
    i.x_size = 2;
    i.x_stride = 7;
    EXPECT_TRUE(RoundTrips(l_, i)) << BufferName(b);
    if (b != Buffer::kUop) {
      i.sram_base = 0;
      i.y_pad_top = 1;
      i.y_pad_bottom = 2;
      i.x_pad_left = 3;
      i.x_pad_right = 4;
      EXPECT_TRUE(RoundTrips(l_, i)) << BufferName(b);
    }
  }
  Insn s = Store();
  s.sram_base = l_.acc_depth - 6;
  s.dram_base = 0xffffffffu;
  s.y_size = 3;
  s.x_size = 2;
  s.x_stride = 2;
  EXPECT_TRUE(RoundTrips(l_, s));
}

TEST_P(IsaShape, EachUnsignedFieldAtItsMaximum) {
  for (Opcode op : {Opcode::kLoad, Opcode::kStore, Opcode::kGemm, Opcode::kAlu}) {
    for (const FieldSpec& f : Fields(l_, op)) {
      const std::string name = f.name;
      if (!U32Members().count(name)) continue;
      SCOPED_TRACE(std::string(OpcodeName(op)) + " " + name);
      Insn i = Base(op);
      uint32_t v = Max(f.width);
      // Semantic limits, and other fields adjusted so that the maximum is valid.
      if (name == "sram_base") {
        i.buffer = op == Opcode::kStore ? Buffer::kOut : WidestBuffer();
        v = std::min(v, l_.depth(i.buffer) - 1);
        if (op == Opcode::kLoad) {
          EXPECT_EQ(v, Max(f.width));
        }
      } else if (name == "y_size") {
        i.x_size = 0;  // an empty transfer may have any row count
      } else if (name == "x_size") {
        i.y_size = 0;
      } else if (name.find("pad") != std::string::npos) {
        if (op == Opcode::kStore) continue;  // stores cannot be padded
        i.buffer = DeepestPaddable();
      } else if (name == "uop_bgn") {
        i.uop_end = l_.uop_depth;
      } else if (name == "uop_end") {
        v = l_.uop_depth;  // the field has one more bit than any valid value needs
        EXPECT_EQ(Max(f.width), 2 * l_.uop_depth - 1);
      }
      ASSERT_TRUE(SetField(&i, name, v));
      EXPECT_TRUE(RoundTrips(l_, i));
    }
  }
}

TEST_P(IsaShape, AllFieldsAtTheirMaximumTogether) {
  Insn load = Load(DeepestPaddable());
  load.deps.pop_next = load.deps.push_next = true;
  load.dram_base = 0xffffffffu;
  load.y_pad_top = load.y_pad_bottom = load.x_pad_left = load.x_pad_right = 15;
  load.x_stride = 0xffff;
  load.sram_base = l_.depth(load.buffer) - 31 * 31;
  EXPECT_TRUE(RoundTrips(l_, load));

  Insn uop_load = Load(WidestBuffer());
  uop_load.deps = MakeDeps(0xf);
  uop_load.dram_base = 0xffffffffu;
  uop_load.sram_base = Max(l_.sram_bits);
  uop_load.x_stride = 0xffff;
  if (uop_load.module() == Module::kLoad) uop_load.deps.pop_prev = uop_load.deps.push_prev = false;
  EXPECT_TRUE(RoundTrips(l_, uop_load));

  Insn sync = Load(Buffer::kInp);  // an empty transfer with the largest sizes
  sync.y_size = 0xffff;
  sync.x_size = 0;
  sync.x_stride = 0xffff;
  sync.sram_base = l_.inp_depth;
  EXPECT_TRUE(RoundTrips(l_, sync));

  Insn store = Store();
  store.deps.pop_prev = store.deps.push_prev = true;
  store.dram_base = 0xffffffffu;
  store.sram_base = l_.acc_depth - 1;
  store.x_stride = 0xffff;
  EXPECT_TRUE(RoundTrips(l_, store));

  for (int mode : {0, 1, 2}) {  // plain, reset, depthwise
    Insn g = Gemm();
    g.deps = MakeDeps(0xf);
    g.reset = mode == 1;
    g.depthwise = mode == 2;
    g.uop_bgn = l_.uop_depth - 1;
    g.uop_end = l_.uop_depth;
    g.loop_out = g.loop_in = Max(Layout::kLoopBits);
    g.dst_factor_out = g.dst_factor_in = Max(l_.acc_idx_bits);
    g.src_factor_out = g.src_factor_in = Max(l_.inp_idx_bits);
    g.wgt_factor_out = g.wgt_factor_in = Max(l_.wgt_idx_bits);
    EXPECT_TRUE(RoundTrips(l_, g));
  }

  for (int a = 0; a <= static_cast<int>(AluOp::kMul); ++a) {
    Insn alu = Alu(static_cast<AluOp>(a), false);
    alu.deps = MakeDeps(0xf);
    alu.uop_bgn = l_.uop_depth - 1;
    alu.uop_end = l_.uop_depth;
    alu.loop_out = alu.loop_in = Max(Layout::kLoopBits);
    alu.dst_factor_out = alu.dst_factor_in = Max(l_.acc_idx_bits);
    alu.src_factor_out = alu.src_factor_in = Max(l_.acc_idx_bits);
    EXPECT_TRUE(RoundTrips(l_, alu)) << AluOpName(alu.alu_op);
    alu.src_factor_out = alu.src_factor_in = 0;
    alu.use_imm = true;
    for (int32_t imm : {-32768, -1, 0, 1, 32767}) {
      alu.imm = imm;
      EXPECT_TRUE(RoundTrips(l_, alu)) << AluOpName(alu.alu_op) << " imm=" << imm;
    }
  }
}

TEST_P(IsaShape, ImmediateIsSixteenBitTwosComplement) {
  const FieldSpec f = FindField(l_, Opcode::kAlu, "imm");
  for (int32_t imm : {-32768, -3, -1, 0, 1, 32767}) {
    Insn i = Alu(AluOp::kShrRound, true);
    i.imm = imm;
    Word128 w = EncodeOrDie(l_, i);
    EXPECT_EQ(GetField(w, f), static_cast<uint16_t>(imm)) << imm;
    Insn back;
    ASSERT_TRUE(Decode(l_, w, &back).ok());
    EXPECT_EQ(back.imm, imm);
  }
}

TEST_P(IsaShape, DependencyFlagsValidForTheModule) {
  std::vector<Insn> insns;
  for (Buffer b : kLoadable) insns.push_back(Load(b));
  insns.push_back(Store());
  insns.push_back(Gemm());
  insns.push_back(Alu(AluOp::kMax, false));
  insns.push_back(Alu(AluOp::kMax, true));
  for (const Insn& base : insns) {
    for (int bits = 0; bits < 16; ++bits) {
      Insn i = base;
      i.deps = MakeDeps(bits);
      SCOPED_TRACE(Disassemble(i));
      if (DepsValidFor(i.module(), i.deps)) {
        EXPECT_TRUE(RoundTrips(l_, i));
      } else {
        Status s = EncodeStatus(l_, i);
        EXPECT_FALSE(s.ok());
        const char* flags =
            i.module() == Module::kLoad ? "pop_prev/push_prev" : "pop_next/push_next";
        EXPECT_THAT(s.message(), HasSubstr(flags));
      }
    }
  }
  // FINISH: pops only (docs/isa.md §1.6; pushes are tested in FinishCannotPush).
  for (int bits : {0, 1, 2, 3}) {
    Insn f = Finish();
    f.deps = MakeDeps(bits);
    EXPECT_TRUE(RoundTrips(l_, f)) << bits;
  }
}

// docs/isa.md §1.6 and §4: "push_prev/push_next on FINISH | static, R | FINISH cannot push".
TEST_P(IsaShape, FinishCannotPush) {
  for (int bits = 4; bits < 16; ++bits) {
    Insn f = Finish();
    f.deps = MakeDeps(bits);
    SCOPED_TRACE(Disassemble(f));
    Status s = EncodeStatus(l_, f);
    EXPECT_FALSE(s.ok()) << "Encode accepts a FINISH that pushes";
    Word128 w{static_cast<uint64_t>(Opcode::kFinish) | (uint64_t(bits) << 3), 0};
    EXPECT_FALSE(DecodeStatus(l_, w).ok()) << "Decode accepts a FINISH that pushes";
  }
}

// --- rejections by Encode ------------------------------------------------------------------------

TEST_P(IsaShape, FieldOneBeyondItsWidthIsRejectedNamingIt) {
  int cases = 0;
  for (Opcode op : {Opcode::kLoad, Opcode::kStore, Opcode::kGemm, Opcode::kAlu}) {
    for (const FieldSpec& f : Fields(l_, op)) {
      const std::string name = f.name;
      if (CommonNames().count(name) || name == "reset" || name == "depthwise" ||
          name == "use_imm") {
        continue;  // bool
      }
      if (f.width >= 32) continue;  // dram_base: every uint32_t fits
      SCOPED_TRACE(std::string(OpcodeName(op)) + " " + name);
      Insn i = Base(op);
      int64_t v = int64_t{1} << f.width;
      // Signed fields: one beyond the largest positive value.
      if (name == "imm") v = 32768;
      if (name == "pad_value") v = 128;
      ASSERT_TRUE(SetField(&i, name, v));
      Status s = EncodeStatus(l_, i);
      ASSERT_FALSE(s.ok());
      EXPECT_THAT(s.message(), HasSubstr("'" + name + "'"));
      EXPECT_EQ(Verify(l_, i).message(), s.message());
      ++cases;
    }
  }
  EXPECT_GE(cases, 30);

  Insn low = Alu(AluOp::kAdd, true);
  low.imm = -32769;
  EXPECT_THAT(EncodeStatus(l_, low).message(), HasSubstr("'imm'"));
  Insn op = Finish();
  op.opcode = static_cast<Opcode>(8);
  EXPECT_THAT(EncodeStatus(l_, op).message(), HasSubstr("opcode"));
}

TEST_P(IsaShape, UnknownCodesAreRejected) {
  for (int op = 5; op < 8; ++op) {
    Insn i = Finish();
    i.opcode = static_cast<Opcode>(op);
    EXPECT_THAT(EncodeStatus(l_, i).message(), HasSubstr("unknown opcode"));
  }
  for (int b = 5; b < 8; ++b) {
    Insn i = Load(Buffer::kInp);
    i.buffer = static_cast<Buffer>(b);
    EXPECT_THAT(EncodeStatus(l_, i).message(), HasSubstr("unknown buffer"));
    i.opcode = Opcode::kStore;
    EXPECT_THAT(EncodeStatus(l_, i).message(), HasSubstr("unknown buffer"));
  }
  for (AluOp a : {AluOp::kRequant, AluOp::kRqParam}) {
    Insn i = Alu(a, true);
    i.imm = 0;
    EXPECT_THAT(EncodeStatus(l_, i).message(), HasSubstr("no immediate form"));
  }
}

// Fields of another format must be zero, so that every Insn has exactly one encoding.
TEST_P(IsaShape, FieldsOfOtherFormatsMustBeZero) {
  std::set<std::string> all;
  for (Opcode op : kOpcodes) {
    for (const FieldSpec& f : Fields(l_, op)) all.insert(f.name);
  }
  int cases = 0;
  for (Opcode op : kOpcodes) {
    std::set<std::string> mine;
    for (const FieldSpec& f : Fields(l_, op)) mine.insert(f.name);
    for (const std::string& name : all) {
      if (mine.count(name) || name == "opcode") continue;
      Insn i = Base(op);
      ASSERT_TRUE(SetField(&i, name, 1));
      SCOPED_TRACE(std::string(OpcodeName(op)) + " with " + name + "=1");
      Status s = EncodeStatus(l_, i);
      ASSERT_FALSE(s.ok());
      EXPECT_THAT(s.message(), HasSubstr("'" + name + "'"));
      EXPECT_THAT(s.message(), HasSubstr("does not belong"));
      ++cases;
    }
  }
  EXPECT_GE(cases, 50);
  // The ones the brief calls out.
  Insn g = Gemm();
  g.imm = 1;
  EXPECT_THAT(EncodeStatus(l_, g).message(), HasSubstr("'imm'"));
  g = Gemm();
  g.dram_base = 5;
  EXPECT_THAT(EncodeStatus(l_, g).message(), HasSubstr("'dram_base'"));
}

// imm is an int32_t in the struct; a value that only has bits above the 16-bit field must not slip
// through the "fields of other formats must be zero" check (Encode would drop it silently).
TEST_P(IsaShape, ImmOnNonAluRejectedEvenIfLowSixteenBitsAreZero) {
  for (Opcode op : {Opcode::kLoad, Opcode::kStore, Opcode::kGemm, Opcode::kFinish}) {
    for (int32_t imm : {65536, -65536, 0x7fff0000}) {
      Insn i = Base(op);
      i.imm = imm;
      SCOPED_TRACE(std::string(OpcodeName(op)) + " imm=" + std::to_string(imm));
      Status s = EncodeStatus(l_, i);
      EXPECT_FALSE(s.ok()) << "accepted; Decode(Encode(x)).imm would be 0";
      EXPECT_THAT(s.message(), HasSubstr("'imm'"));
    }
  }
}

TEST_P(IsaShape, MemoryRules) {
  // LOAD of OUT.
  EXPECT_THAT(EncodeStatus(l_, Load(Buffer::kOut)).message(),
              HasSubstr("out buffer cannot be loaded"));
  // STORE of anything but OUT.
  for (Buffer b : kLoadable) {
    Insn s = Store();
    s.buffer = b;
    EXPECT_THAT(EncodeStatus(l_, s).message(), HasSubstr("only the out buffer can be stored"))
        << BufferName(b);
  }
  // Padding on a UOP load, on a STORE, and on an empty transfer.
  const char* pads[] = {"y_pad_top", "y_pad_bottom", "x_pad_left", "x_pad_right"};
  for (const char* pad : pads) {
    Insn u = Load(Buffer::kUop);
    ASSERT_TRUE(SetField(&u, pad, 1));
    EXPECT_THAT(EncodeStatus(l_, u).message(), HasSubstr("padding")) << pad;
    Insn s = Store();
    ASSERT_TRUE(SetField(&s, pad, 1));
    EXPECT_THAT(EncodeStatus(l_, s).message(), HasSubstr("padding")) << pad;
    Insn e = Load(Buffer::kInp);
    e.y_size = 0;
    ASSERT_TRUE(SetField(&e, pad, 1));
    EXPECT_THAT(EncodeStatus(l_, e).message(), HasSubstr("padding")) << pad;
    e.y_size = 1;
    e.x_size = 0;
    EXPECT_THAT(EncodeStatus(l_, e).message(), HasSubstr("padding")) << pad;
  }
  // x_stride < x_size matters only with more than one row.
  for (Opcode op : {Opcode::kLoad, Opcode::kStore}) {
    Insn i = Base(op);
    i.y_size = 2;
    i.x_size = 4;
    i.x_stride = 3;
    EXPECT_THAT(EncodeStatus(l_, i).message(), HasSubstr("x_stride 3 is smaller than x_size 4"));
    i.x_stride = 4;
    EXPECT_TRUE(RoundTrips(l_, i));
    i.y_size = 1;
    i.x_stride = 0;
    EXPECT_TRUE(RoundTrips(l_, i));
  }
}

TEST_P(IsaShape, SramRangeMustFitTheBuffer) {
  std::vector<Insn> insns;
  for (Buffer b : kLoadable) insns.push_back(Load(b));
  insns.push_back(Store());
  for (Insn i : insns) {
    SCOPED_TRACE(Mnemonic(i));
    const uint32_t depth = l_.depth(i.buffer);
    i.y_size = 3;
    i.x_size = 5;
    i.x_stride = 5;
    if (i.opcode == Opcode::kLoad && i.buffer != Buffer::kUop) {
      i.y_pad_top = 1;  // padded extent (1+3+0) x (0+5+2) = 28
      i.x_pad_right = 2;
    }
    const uint32_t extent = static_cast<uint32_t>(i.sram_extent());
    EXPECT_EQ(extent, (i.buffer == Buffer::kUop || i.opcode == Opcode::kStore) ? 15u : 28u);
    i.sram_base = depth - extent;
    EXPECT_TRUE(RoundTrips(l_, i));
    i.sram_base = depth - extent + 1;
    Status s = EncodeStatus(l_, i);
    EXPECT_THAT(s.message(), HasSubstr("exceeds the " + std::string(BufferName(i.buffer)) +
                                       " buffer depth " + std::to_string(depth)));
    // One transfer larger than the whole buffer.
    i.sram_base = 0;
    i.y_pad_top = i.x_pad_right = 0;
    i.y_size = depth + 1 <= 0xffff ? depth + 1 : 0xffff;
    i.x_size = 1;
    i.x_stride = 1;
    EXPECT_FALSE(EncodeStatus(l_, i).ok());
  }
}

TEST_P(IsaShape, MicroOpRangeRules) {
  for (Opcode op : {Opcode::kGemm, Opcode::kAlu}) {
    SCOPED_TRACE(OpcodeName(op));
    Insn i = Base(op);
    i.uop_bgn = 5;
    i.uop_end = 5;
    EXPECT_THAT(EncodeStatus(l_, i).message(), HasSubstr("empty micro-op range uop=5:5"));
    i.uop_end = 4;
    EXPECT_THAT(EncodeStatus(l_, i).message(), HasSubstr("empty micro-op range"));
    i.uop_bgn = 0;
    i.uop_end = 0;
    EXPECT_THAT(EncodeStatus(l_, i).message(), HasSubstr("empty micro-op range"));
    i.uop_end = l_.uop_depth + 1;
    EXPECT_THAT(EncodeStatus(l_, i).message(), HasSubstr("uop_end"));
    EXPECT_THAT(EncodeStatus(l_, i).message(), HasSubstr("exceeds the uop buffer depth"));
    i.uop_end = l_.uop_depth;
    EXPECT_TRUE(RoundTrips(l_, i));
  }
}

TEST_P(IsaShape, DependencyFlagRules) {
  for (Buffer b : {Buffer::kInp, Buffer::kWgt}) {
    Insn i = Load(b);
    i.deps.pop_prev = true;
    EXPECT_THAT(EncodeStatus(l_, i).message(), HasSubstr("load module"));
    i.deps = Deps();
    i.deps.push_prev = true;
    EXPECT_THAT(EncodeStatus(l_, i).message(), HasSubstr("push_prev"));
  }
  // UOP and ACC loads run on compute: prev is the load module.
  for (Buffer b : {Buffer::kUop, Buffer::kAcc}) {
    Insn i = Load(b);
    i.deps.pop_prev = i.deps.push_prev = true;
    EXPECT_TRUE(RoundTrips(l_, i));
  }
  Insn s = Store();
  s.deps.push_next = true;
  EXPECT_THAT(EncodeStatus(l_, s).message(), HasSubstr("store module"));
  s.deps = Deps();
  s.deps.pop_next = true;
  EXPECT_THAT(EncodeStatus(l_, s).message(), HasSubstr("pop_next"));
}

TEST_P(IsaShape, AluImmediateRules) {
  Insn i = Alu(AluOp::kAdd, false);
  i.imm = 3;
  EXPECT_THAT(EncodeStatus(l_, i).message(), HasSubstr("imm is set but use_imm is not"));
  i.imm = -1;
  EXPECT_THAT(EncodeStatus(l_, i).message(), HasSubstr("use_imm"));
  i.use_imm = true;
  EXPECT_TRUE(RoundTrips(l_, i));
}

// docs/isa.md §4: "ALU with use_imm = 1 and a src factor != 0 | static | src factors set in
// immediate form". The text form of the immediate form has no src=, so accepting this also breaks
// Assemble(Disassemble(x)) == x.
TEST_P(IsaShape, AluImmediateFormRejectsSrcFactors) {
  for (const char* field : {"src_factor_out", "src_factor_in"}) {
    Insn i = Alu(AluOp::kMax, true);
    i.imm = 7;
    ASSERT_TRUE(SetField(&i, field, 1));
    SCOPED_TRACE(field);
    Status s = EncodeStatus(l_, i);
    EXPECT_FALSE(s.ok()) << "Encode accepts src factors in immediate form";
    EXPECT_THAT(s.message(), HasSubstr("src"));
    // Whatever the binary side does, the text round trip must not lose the field.
    if (s.ok()) {
      EXPECT_TRUE(RoundTrips(l_, i));
    }
  }
}

// --- rejections by Decode ------------------------------------------------------------------------

struct BaseWord {
  const char* what;
  Insn insn;
};

std::vector<BaseWord> BaseWords() {
  Insn alu_imm = Alu(AluOp::kMul, true);
  alu_imm.imm = -1;  // all imm bits set: the reserved bits start right above them
  Insn load = Load(Buffer::kInp);
  load.pad_value = -1;  // top field all ones
  Insn gemm = Gemm();
  gemm.wgt_factor_in = 1;
  return {{"load", load},       {"store", Store()},
          {"gemm", gemm},       {"alu reg", Alu(AluOp::kMin, false)},
          {"alu imm", alu_imm}, {"finish", Finish()}};
}

TEST_P(IsaShape, EveryReservedBitIsRejected) {
  int cases = 0;
  for (const BaseWord& b : BaseWords()) {
    SCOPED_TRACE(b.what);
    const Word128 w = EncodeOrDie(l_, b.insn);
    ASSERT_TRUE(DecodeStatus(l_, w).ok());
    const uint32_t used = UsedBits(l_, b.insn.opcode);
    for (uint32_t pos = used; pos < 128; ++pos) {
      ASSERT_FALSE(GetBit(w, pos));
      Word128 bad = w;
      SetBit(&bad, pos, true);
      Status s = DecodeStatus(l_, bad);
      EXPECT_FALSE(s.ok()) << "bit " << pos;
      EXPECT_THAT(s.message(), HasSubstr("reserved bit " + std::to_string(pos) + " is set"));
      ++cases;
    }
  }
  EXPECT_GE(cases, 100);
}

TEST_P(IsaShape, DecodeRejectsUnknownCodes) {
  for (uint64_t op = 5; op < 8; ++op) {
    EXPECT_THAT(DecodeStatus(l_, Word128{op, 0}).message(),
                HasSubstr("unknown opcode " + std::to_string(op)));
    // Whatever else is in the word.
    EXPECT_THAT(DecodeStatus(l_, Word128{op | 0x1230, 0x55}).message(),
                HasSubstr("unknown opcode"));
  }
  for (const Insn& base : {Load(Buffer::kInp), Store()}) {
    const FieldSpec f = FindField(l_, base.opcode, "buffer");
    for (uint64_t b = 5; b < 8; ++b) {
      Word128 w = EncodeOrDie(l_, base);
      PutField(&w, f, b);
      Status s = DecodeStatus(l_, w);
      EXPECT_THAT(s.message(), HasSubstr("unknown buffer " + std::to_string(b)));
      EXPECT_THAT(s.message(), HasSubstr("'buffer'"));
    }
  }
}

TEST_P(IsaShape, DecodeRejectsSemanticallyInvalidWords) {
  struct Case {
    const char* what;
    Insn base;
    std::vector<std::pair<const char*, uint64_t>> set;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"load of out", Load(Buffer::kInp), {{"buffer", 4}}, "out buffer cannot be loaded"},
      {"store of inp", Store(), {{"buffer", 2}}, "only the out buffer"},
      {"pad on uop load", Load(Buffer::kUop), {{"x_pad_left", 1}}, "padding"},
      {"pad on store", Store(), {{"y_pad_bottom", 2}}, "padding"},
      {"pad on empty", Load(Buffer::kWgt), {{"y_size", 0}, {"y_pad_top", 1}}, "padding"},
      {"stride", Load(Buffer::kInp), {{"y_size", 2}, {"x_size", 2}, {"x_stride", 1}}, "x_stride"},
      {"sram past depth", Load(Buffer::kAcc), {{"sram_base", l_.acc_depth}}, "exceeds"},
      {"gemm empty uop range", Gemm(), {{"uop_bgn", 1}}, "empty micro-op range"},
      {"alu uop_end > depth", Alu(AluOp::kMin, false), {{"uop_end", l_.uop_depth + 1}}, "uop_end"},
      {"pop_prev on load.inp", Load(Buffer::kInp), {{"pop_prev", 1}}, "pop_prev"},
      {"push_prev on load.wgt", Load(Buffer::kWgt), {{"push_prev", 1}}, "push_prev"},
      {"push_next on store", Store(), {{"push_next", 1}}, "push_next"},
      {"imm without use_imm", Alu(AluOp::kAdd, false), {{"imm", 0xfffd}}, "use_imm"},
      {"depthwise reset", Gemm(), {{"reset", 1}, {"depthwise", 1}}, "depthwise and reset"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Word128 w = EncodeOrDie(l_, c.base);
    for (const auto& [name, v] : c.set) PutField(&w, FindField(l_, c.base.opcode, name), v);
    Status s = DecodeStatus(l_, w);
    EXPECT_FALSE(s.ok());
    EXPECT_THAT(s.message(), HasSubstr(c.message));
  }
}

TEST_P(IsaShape, DecodeLeavesOutputAloneOnError) {
  Insn out = Alu(AluOp::kMul, true);
  out.imm = 99;
  const Insn before = out;
  EXPECT_FALSE(Decode(l_, Word128{7, 0}, &out).ok());
  EXPECT_EQ(out, before);
}

// --- micro-ops -----------------------------------------------------------------------------------

TEST_P(IsaShape, UopRoundTripAtTheBoundaries) {
  const uint32_t dmax = Max(l_.uop_dst_bits), smax = Max(l_.uop_src_bits),
                 wmax = Max(l_.uop_wgt_bits);
  for (uint32_t d : {0u, 1u, dmax}) {
    for (uint32_t s : {0u, 1u, smax}) {
      for (uint32_t w : {0u, 1u, wmax}) EXPECT_TRUE(UopRoundTrips(l_, Uop{d, s, w}));
    }
  }
  // Packing: dst | src | wgt from bit 0.
  uint32_t word = 0;
  ASSERT_TRUE(EncodeUop(l_, Uop{1, 1, 1}, &word).ok());
  EXPECT_EQ(word, 1u | (1u << l_.uop_dst_bits) | (1u << (l_.uop_dst_bits + l_.uop_src_bits)));
  ASSERT_TRUE(EncodeUop(l_, Uop{dmax, smax, wmax}, &word).ok());
  EXPECT_EQ(word, Max(l_.uop_bits()));
}

TEST_P(IsaShape, UopFieldOverflowIsRejectedNamingTheField) {
  const struct {
    const char* name;
    Uop uop;
  } cases[] = {
      {"dst", Uop{1u << l_.uop_dst_bits, 0, 0}},
      {"src", Uop{0, 1u << l_.uop_src_bits, 0}},
      {"wgt", Uop{0, 0, 1u << l_.uop_wgt_bits}},
      {"wgt", Uop{0, 0, 0xffffffffu}},
  };
  for (const auto& c : cases) {
    uint32_t word = 0x12345678;
    Status s = EncodeUop(l_, c.uop, &word);
    EXPECT_FALSE(s.ok()) << c.name;
    EXPECT_THAT(s.message(), HasSubstr(std::string("'") + c.name + "'"));
    EXPECT_EQ(word, 0x12345678u) << "output written on error";
  }
}

TEST_P(IsaShape, UopReservedBitsAreRejected) {
  const uint32_t used = l_.uop_bits();
  Uop u;
  if (used == 32) {
    EXPECT_TRUE(DecodeUop(l_, 0xffffffffu, &u).ok());
    return;
  }
  for (uint32_t pos = used; pos < 32; ++pos) {
    Status s = DecodeUop(l_, 1u << pos, &u);
    EXPECT_FALSE(s.ok()) << "bit " << pos;
    EXPECT_THAT(s.message(), HasSubstr("reserved"));
  }
  EXPECT_TRUE(DecodeUop(l_, Max(used), &u).ok());
}

// --- randomized round trip -----------------------------------------------------------------------

// Random instructions that are valid by construction, with extra weight on 0 and on field maxima.
class RandomInsns {
 public:
  RandomInsns(const Layout& l, uint32_t seed) : l_(l), rng_(seed) {}

  Insn Next() {
    switch (Range(0, 4)) {
      case 0:
        return Memory(Opcode::kLoad);
      case 1:
        return Memory(Opcode::kStore);
      case 2:
        return Loops(Opcode::kGemm);
      case 3:
        return Loops(Opcode::kAlu);
      default: {
        Insn f = Finish();
        f.deps.pop_prev = Coin();
        f.deps.pop_next = Coin();
        return f;
      }
    }
  }

 private:
  uint32_t Range(uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_);
  }
  bool Coin() { return rng_() & 1; }
  uint32_t Bits(uint32_t width) {
    return width == 0 ? 0 : static_cast<uint32_t>(rng_()) & Max(width);
  }
  // 0, the maximum, small, or anything.
  uint32_t Edgy(uint32_t width) {
    switch (Range(0, 3)) {
      case 0:
        return 0;
      case 1:
        return Max(width);
      case 2:
        return Bits(std::min<uint32_t>(width, 3));
      default:
        return Bits(width);
    }
  }
  // 1..hi, biased to small values.
  uint32_t Size(uint32_t hi) {
    if (hi <= 1) return hi;
    if (Range(0, 7) == 0) return hi;
    const uint32_t bits = Range(0, 16);
    return Range(1, std::min<uint32_t>(hi, bits >= 32 ? hi : std::max(1u, 1u << bits)));
  }

  Deps RandomDeps(Module m) {
    Deps d = MakeDeps(static_cast<int>(Range(0, 15)));
    if (m == Module::kLoad) d.pop_prev = d.push_prev = false;
    if (m == Module::kStore) d.pop_next = d.push_next = false;
    return d;
  }

  Insn Memory(Opcode op) {
    Insn i;
    i.opcode = op;
    i.buffer = op == Opcode::kStore ? Buffer::kOut : kLoadable[Range(0, 3)];
    i.deps = RandomDeps(i.module());
    i.dram_base = Range(0, 1) ? static_cast<uint32_t>(rng_()) : Edgy(32);
    const uint32_t depth = l_.depth(i.buffer);
    const uint32_t sram_max = Max(l_.sram_bits);
    if (Range(0, 5) == 0) {
      // Empty transfer: synchronisation only; sizes up to the field maximum, no pads.
      if (Coin()) {
        i.y_size = Edgy(16);
      } else {
        i.x_size = Edgy(16);
      }
      i.x_stride = Edgy(16);
      i.sram_base = Range(0, std::min(depth, sram_max));
      return i;
    }
    if (op == Opcode::kLoad && i.buffer != Buffer::kUop && Coin()) {
      i.y_pad_top = Range(0, 15);
      i.y_pad_bottom = Range(0, 15);
      i.x_pad_left = Range(0, 15);
      i.x_pad_right = Range(0, 15);
      if ((i.y_pad_top + i.y_pad_bottom + 1) * (i.x_pad_left + i.x_pad_right + 1) > depth) {
        i.y_pad_top = i.y_pad_bottom = i.x_pad_left = i.x_pad_right = 0;
      }
    }
    if (op == Opcode::kLoad && i.buffer == Buffer::kInp && Coin()) {
      i.pad_value = static_cast<int32_t>(Range(0, 255)) - 128;
    }
    const uint32_t ypads = i.y_pad_top + i.y_pad_bottom, xpads = i.x_pad_left + i.x_pad_right;
    const uint32_t x_max = std::min<uint32_t>(0xffff, depth / (ypads + 1) - xpads);
    i.x_size = Size(x_max);
    const uint32_t y_max = std::min<uint32_t>(0xffff, depth / (xpads + i.x_size) - ypads);
    i.y_size = Size(y_max);
    i.x_stride = i.y_size > 1 ? Range(i.x_size, 0xffff) : Edgy(16);
    const uint64_t extent = i.sram_extent();
    i.sram_base = Range(0, static_cast<uint32_t>(depth - extent));
    if (Coin()) i.sram_base = static_cast<uint32_t>(depth - extent);
    return i;
  }

  Insn Loops(Opcode op) {
    Insn i;
    i.opcode = op;
    i.deps = RandomDeps(Module::kCompute);
    i.uop_bgn = Coin() ? Range(0, l_.uop_depth - 1) : Range(0, 3);
    i.uop_end = Coin() ? Range(i.uop_bgn + 1, l_.uop_depth) : i.uop_bgn + 1;
    if (Range(0, 7) == 0) i.uop_end = l_.uop_depth;
    i.loop_out = Edgy(Layout::kLoopBits);
    i.loop_in = Edgy(Layout::kLoopBits);
    i.dst_factor_out = Edgy(l_.acc_idx_bits);
    i.dst_factor_in = Edgy(l_.acc_idx_bits);
    if (op == Opcode::kGemm) {
      i.reset = Coin();
      i.depthwise = !i.reset && Coin();
      i.src_factor_out = Edgy(l_.inp_idx_bits);
      i.src_factor_in = Edgy(l_.inp_idx_bits);
      i.wgt_factor_out = Edgy(l_.wgt_idx_bits);
      i.wgt_factor_in = Edgy(l_.wgt_idx_bits);
    } else {
      i.alu_op = static_cast<AluOp>(Range(0, kNumAluOps - 1));
      i.use_imm = i.alu_op < AluOp::kRequant && Coin();
      if (i.alu_op == AluOp::kRequant) {
        i.pre_shift = static_cast<int32_t>(Range(0, 31));
        i.post_shift = static_cast<int32_t>(Range(0, 31));
        i.clip_lo = static_cast<int32_t>(Range(0, 255)) - 128;
        i.clip_hi =
            i.clip_lo + static_cast<int32_t>(Range(0, static_cast<uint32_t>(127 - i.clip_lo)));
      } else if (i.use_imm) {
        i.imm = static_cast<int16_t>(Edgy(16));
        if (Range(0, 7) == 0) i.imm = -32768;
      } else {
        i.src_factor_out = Edgy(l_.acc_idx_bits);
        i.src_factor_in = Edgy(l_.acc_idx_bits);
      }
    }
    return i;
  }

  const Layout& l_;
  std::mt19937 rng_;
};

TEST_P(IsaShape, RandomValidInstructionsRoundTrip) {
  RandomInsns gen(l_, 0x100a + static_cast<uint32_t>(GetParam()[2]));  // '8', '1', '3'
  std::vector<Insn> program;
  std::string text;
  int failures = 0;
  std::map<Opcode, int> seen;
  for (int n = 0; n < 10000; ++n) {
    const Insn insn = gen.Next();
    ++seen[insn.opcode];
    AssertionResult r = RoundTrips(l_, insn);
    if (!r) {
      ADD_FAILURE() << "instruction " << n << ": " << r.message();
      if (++failures > 10) break;
    }
    program.push_back(insn);
    text += Disassemble(insn) + "\n";
  }
  for (Opcode op : kOpcodes) EXPECT_GT(seen[op], 1500) << OpcodeName(op);
  // The whole program at once.
  std::vector<Insn> parsed;
  Status s = Assemble(l_, text, &parsed);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(parsed == program);
}

// Random words with a valid opcode and no reserved bits: whatever Decode accepts must re-encode to
// the same word (one encoding per instruction) and survive the text round trip.
TEST_P(IsaShape, RandomWordsThatDecodeAreCanonical) {
  std::mt19937_64 rng(0x5eed);
  int accepted = 0, mismatches = 0;
  for (int n = 0; n < 20000 && mismatches < 5; ++n) {
    Word128 w{rng(), rng()};
    const Opcode op = kOpcodes[n % 5];
    PutField(&w, Fields(l_, op)[0], static_cast<uint64_t>(op));
    for (uint32_t pos = UsedBits(l_, op); pos < 128; ++pos) SetBit(&w, pos, false);
    Insn insn;
    if (!Decode(l_, w, &insn).ok()) continue;
    ++accepted;
    Word128 again;
    ASSERT_TRUE(Encode(l_, insn, &again).ok());
    EXPECT_TRUE(again == w);
    AssertionResult r = RoundTrips(l_, insn);
    if (!r) {
      ++mismatches;
      ADD_FAILURE() << r.message();
    }
  }
  EXPECT_GT(accepted, 1000);
}

TEST_P(IsaShape, RandomMicroOpsRoundTrip) {
  std::mt19937 rng(77);
  for (int n = 0; n < 10000; ++n) {
    const uint32_t word = static_cast<uint32_t>(rng()) & Max(l_.uop_bits());
    Uop u;
    ASSERT_TRUE(DecodeUop(l_, word, &u).ok()) << word;
    uint32_t again = 0;
    ASSERT_TRUE(EncodeUop(l_, u, &again).ok());
    ASSERT_EQ(again, word);
    if (n % 10 == 0) {
      ASSERT_TRUE(UopRoundTrips(l_, u));
    }
  }
}

// REQUANT's own format (docs/isa.md §2.7.1): its four fields round-trip at their extremes (shifts
// 0..31, clips signed), a shift outside 0..31 is refused whether encoded or decoded, fields of the
// other ALU format must be 0, clip_lo may not exceed clip_hi, and the bits above its last field
// are reserved. `fuse` (§3.4.2) is one more bit, and needs `clear`.
TEST_P(IsaShape, RequantFormat) {
  EXPECT_EQ(l_.requant_bits(), 70 + 2 * l_.uop_idx_bits + 2 * l_.acc_idx_bits);
  Insn q = Alu(AluOp::kRequant, false);
  q.uop_end = 1;
  q.loop_out = q.loop_in = 3;
  q.dst_factor_out = 2;
  for (int32_t pre : {0, 1, 30, 31}) {
    for (int32_t lo : {-128, 0, 127}) {
      q.pre_shift = pre;
      q.post_shift = 31 - pre;
      q.clip_lo = lo;
      q.clip_hi = lo == 127 ? 127 : lo + 1;
      for (bool clear : {false, true}) {
        q.clear = clear;
        EXPECT_TRUE(RoundTrips(l_, q)) << Disassemble(q);
        q.fuse = clear;
        EXPECT_TRUE(RoundTrips(l_, q)) << Disassemble(q);
        q.fuse = false;
      }
    }
  }
  q.clear = false;
  Insn bad = q;
  bad.fuse = true;
  EXPECT_THAT(EncodeStatus(l_, bad).message(), HasSubstr("fuse needs clear"));
  {
    // A decoded word with fuse but not clear is refused the same way.
    Insn fused = q;
    fused.clear = fused.fuse = true;
    Word128 w = EncodeOrDie(l_, fused);
    for (const FieldSpec& f : RequantFields(l_)) {
      if (f.name == std::string("clear")) SetBit(&w, f.lsb, false);
    }
    EXPECT_THAT(DecodeStatus(l_, w).message(), HasSubstr("fuse needs clear"));
  }
  bad.pre_shift = 32;
  EXPECT_THAT(EncodeStatus(l_, bad).message(),
              HasSubstr("'pre_shift' = 32 is outside [0, 31] (REQUANT shifts right only)"));
  bad = q;
  bad.post_shift = -1;
  EXPECT_THAT(EncodeStatus(l_, bad).message(), HasSubstr("'post_shift' = -1 is outside [0, 31]"));
  // The fields are 6 bits wide (their top bit was a sign once): a word with that bit set decodes
  // to a refusal, not to a shift.
  q.pre_shift = q.post_shift = 3;
  for (const FieldSpec& f : RequantFields(l_)) {
    if (f.name != std::string("pre_shift") && f.name != std::string("post_shift")) continue;
    Word128 w = EncodeOrDie(l_, q);
    SetBit(&w, f.lsb + f.width - 1, true);
    EXPECT_THAT(DecodeStatus(l_, w).message(),
                HasSubstr("'" + std::string(f.name) + "' = 35 is outside [0, 31]"));
  }
  bad = q;
  bad.clip_hi = 128;
  EXPECT_THAT(EncodeStatus(l_, bad).message(), HasSubstr("'clip_hi' = 128"));
  bad = q;
  bad.clip_lo = 5;
  bad.clip_hi = 4;
  EXPECT_THAT(EncodeStatus(l_, bad).message(), HasSubstr("clip_lo 5 is above clip_hi 4"));
  bad = q;
  bad.src_factor_out = 1;
  EXPECT_THAT(EncodeStatus(l_, bad).message(), HasSubstr("'src_factor_out' does not belong"));
  // The other ALU ops carry no REQUANT fields.
  Insn add = Alu(AluOp::kAdd, false);
  add.clear = true;
  EXPECT_THAT(EncodeStatus(l_, add).message(), HasSubstr("'clear' does not belong"));
  add.clear = false;
  add.uop_end = 1;
  add.clip_hi = 1;
  EXPECT_THAT(EncodeStatus(l_, add).message(), HasSubstr("'clip_hi' does not belong"));
  Word128 w = EncodeOrDie(l_, q);
  for (uint32_t pos : {l_.requant_bits(), 127u}) {
    Word128 r = w;
    if (pos < 64)
      r.lo |= uint64_t{1} << pos;
    else
      r.hi |= uint64_t{1} << (pos - 64);
    EXPECT_THAT(DecodeStatus(l_, r).message(), HasSubstr("reserved bit " + std::to_string(pos)));
  }
}

}  // namespace
}  // namespace loom::isa
