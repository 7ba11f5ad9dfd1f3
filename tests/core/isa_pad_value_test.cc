// The LOAD/STORE field pad_value (docs/isa.md §2.5, §3.1, §4, §5): where it sits in the word, the
// encoder/decoder and text round trips with negative and positive values, and every refusal:
// pad_value on anything but an INP load, out of its int8 range, and a config whose LOAD would no
// longer fit 128 bits once it is counted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "runtime/core/isa.h"

namespace loom::isa {

// Defined in isa_test.cc (same binary).
void PrintTo(const Insn& i, std::ostream* os);
void PrintTo(const Word128& w, std::ostream* os);

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

class IsaPadValue : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s = Layout::Create(HwConfig(), &l_);  // 1x16x16
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // The padded INP load of docs/isa.md §2.10, with `pad_value`.
  static Insn PaddedInp(int32_t pad_value) {
    Insn i;
    i.opcode = Opcode::kLoad;
    i.buffer = Buffer::kInp;
    i.dram_base = 64;
    i.y_size = i.x_size = 4;
    i.x_stride = 8;
    i.y_pad_top = i.y_pad_bottom = i.x_pad_left = i.x_pad_right = 1;
    i.pad_value = pad_value;
    i.deps.pop_next = i.deps.push_next = true;
    return i;
  }

  std::string EncodeError(const Insn& i) {
    Word128 w;
    Status s = Encode(l_, i, &w);
    EXPECT_FALSE(s.ok()) << "encoded: " << Disassemble(i);
    return s.message();
  }
  std::string AsmError(const std::string& text) {
    std::vector<Insn> out;
    Status s = Assemble(l_, text, &out);
    EXPECT_FALSE(s.ok()) << "accepted: " << text;
    return s.message();
  }

  Layout l_;
};

TEST_F(IsaPadValue, SitsRightAfterXPadRightAsEightSignedBits) {
  const std::vector<FieldSpec> f = Fields(l_, Opcode::kLoad);
  ASSERT_GE(f.size(), 2u);
  EXPECT_STREQ(f[f.size() - 2].name, "x_pad_right");
  EXPECT_STREQ(f.back().name, "pad_value");
  EXPECT_EQ(f.back().lsb, 106u + l_.sram_bits);  // 119 on 1x16x16
  EXPECT_EQ(f.back().width, 8u);
  EXPECT_EQ(l_.mem_bits(), 114u + l_.sram_bits);
  EXPECT_EQ(Fields(l_, Opcode::kStore).back().lsb, f.back().lsb);  // one format for both
}

TEST_F(IsaPadValue, PinnedEncodings) {
  // docs/isa.md §2.10: pad_value only adds bits 126..119 (high word bits 62..55) to the padded
  // load's word, in two's complement.
  const struct {
    int32_t pad_value;
    uint64_t hi;
  } rows[] = {{0, 0x0008888004000200},
              {-128, 0x4008888004000200},
              {37, 0x1288888004000200},
              {-1, 0x7f88888004000200}};
  for (const auto& r : rows) {
    SCOPED_TRACE(r.pad_value);
    Word128 w;
    ASSERT_TRUE(Encode(l_, PaddedInp(r.pad_value), &w).ok());
    EXPECT_EQ(w.hi, r.hi);
    EXPECT_EQ(w.lo, 0x0200000020000150u);
    Insn back;
    ASSERT_TRUE(Decode(l_, w, &back).ok());
    EXPECT_EQ(back, PaddedInp(r.pad_value));
  }
}

TEST_F(IsaPadValue, EveryValueRoundTripsThroughWordAndText) {
  for (int32_t v = -128; v <= 127; ++v) {
    Insn i = PaddedInp(v);
    Word128 w;
    ASSERT_TRUE(Encode(l_, i, &w).ok()) << v;
    Insn back;
    ASSERT_TRUE(Decode(l_, w, &back).ok()) << v;
    EXPECT_EQ(back, i);
    std::vector<Insn> text;
    ASSERT_TRUE(Assemble(l_, Disassemble(i), &text).ok()) << Disassemble(i);
    ASSERT_EQ(text.size(), 1u);
    EXPECT_EQ(text[0], i);
  }
  // An unpadded INP load may carry it too: a conv tile inside the image loads with the same
  // pad value as the tiles at its borders.
  Insn plain = PaddedInp(-77);
  plain.y_pad_top = plain.y_pad_bottom = plain.x_pad_left = plain.x_pad_right = 0;
  Word128 w;
  ASSERT_TRUE(Encode(l_, plain, &w).ok());
  Insn back;
  ASSERT_TRUE(Decode(l_, w, &back).ok());
  EXPECT_EQ(back, plain);
}

TEST_F(IsaPadValue, TextFormPrintsPadvalOnlyWhenNonZero) {
  EXPECT_EQ(Disassemble(PaddedInp(0)),
            "load.inp sram=0 dram=64 y=4 x=4 stride=8 pad=1,1,1,1 @pop_next @push_next");
  EXPECT_EQ(Disassemble(PaddedInp(-128)),
            "load.inp sram=0 dram=64 y=4 x=4 stride=8 pad=1,1,1,1 padval=-128 @pop_next "
            "@push_next");
  std::vector<Insn> out;
  ASSERT_TRUE(Assemble(l_,
                       "load.inp padval=0x25 sram=0 dram=64 y=4 x=4 stride=8 pad=1,1,1,1 "
                       "@pop_next @push_next",
                       &out)
                  .ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], PaddedInp(37));
  ASSERT_TRUE(Assemble(l_, "load.inp sram=0 dram=0 y=1 x=1 stride=1 padval=0", &out).ok());
  EXPECT_EQ(Disassemble(out[0]), "load.inp sram=0 dram=0 y=1 x=1 stride=1");
}

TEST_F(IsaPadValue, TextErrorsNameTheToken) {
  EXPECT_THAT(
      AsmError("load.inp sram=0 dram=0 y=1 x=1 stride=1 padval=128"),
      AllOf(HasSubstr("line 1"), HasSubstr("field 'padval'"), HasSubstr("outside [-128, 127]")));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=1 x=1 stride=1 padval=-129"),
              HasSubstr("field 'padval'"));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=1 x=1 stride=1 padval=zp"),
              AllOf(HasSubstr("field 'padval'"), HasSubstr("not a number")));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=1 x=1 stride=1 padval="),
              AllOf(HasSubstr("field 'padval'"), HasSubstr("empty value")));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=1 x=1 stride=1 padval=1,2"),
              HasSubstr("field 'padval'"));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=1 x=1 stride=1 padval=1 padval=2"),
              HasSubstr("field 'padval' given twice"));
  EXPECT_THAT(AsmError("gemm uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0 padval=3"),
              HasSubstr("unknown field 'padval' for gemm"));
  // Verify's refusal reaches the assembler with the line.
  EXPECT_THAT(AsmError("\nload.wgt sram=0 dram=0 y=1 x=1 stride=1 pad=1,0,0,0 padval=-5"),
              AllOf(HasSubstr("line 2"), HasSubstr("'pad_value' = -5")));
}

TEST_F(IsaPadValue, RefusedEverywhereButAnInpLoad) {
  for (Buffer b : {Buffer::kUop, Buffer::kWgt, Buffer::kAcc}) {
    Insn i = PaddedInp(1);
    i.buffer = b;
    if (b == Buffer::kUop) i.y_pad_top = i.y_pad_bottom = i.x_pad_left = i.x_pad_right = 0;
    EXPECT_THAT(EncodeError(i), AllOf(HasSubstr("load." + std::string(BufferName(b))),
                                      HasSubstr("field 'pad_value' = 1"),
                                      HasSubstr("only allowed on loads of inp")));
  }
  Insn s;
  s.opcode = Opcode::kStore;
  s.buffer = Buffer::kOut;
  s.y_size = s.x_size = s.x_stride = 1;
  s.pad_value = -1;
  EXPECT_THAT(EncodeError(s), AllOf(HasSubstr("store.out"), HasSubstr("field 'pad_value' = -1")));
  // Not a field of the other formats.
  Insn g;
  g.opcode = Opcode::kGemm;
  g.uop_end = 1;
  g.pad_value = 2;
  EXPECT_THAT(EncodeError(g), HasSubstr("field 'pad_value' does not belong to gemm"));
  // Outside int8.
  EXPECT_THAT(EncodeError(PaddedInp(128)), HasSubstr("field 'pad_value' = 128 is outside"));
  EXPECT_THAT(EncodeError(PaddedInp(-129)), HasSubstr("field 'pad_value' = -129 is outside"));
}

TEST_F(IsaPadValue, DecodeRefusesItOnOtherBuffers) {
  // The same word with the buffer field changed: what the RTL would see from a corrupt program.
  Word128 w;
  ASSERT_TRUE(Encode(l_, PaddedInp(-3), &w).ok());
  for (Buffer b : {Buffer::kWgt, Buffer::kAcc}) {
    Word128 bad = w;
    bad.lo = (bad.lo & ~(uint64_t{7} << 7)) | (uint64_t(b) << 7);
    Insn out;
    Status s = Decode(l_, bad, &out);
    EXPECT_THAT(s.message(), HasSubstr("field 'pad_value' = -3")) << BufferName(b);
  }
}

TEST_F(IsaPadValue, ConfigWhoseLoadNoLongerFitsIsRejected) {
  // S = 14 makes LOAD 114 + 14 = 128 bits, the most that fits; S = 15 needs 129. UOP sets S here.
  HwConfig c;
  c.uop_buffer_bytes = 4 << 15;
  Layout l;
  Status s = Layout::Create(c, &l);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("LOAD/STORE instruction needs 129 bits"),
                                 HasSubstr("more than 128")));
  c.uop_buffer_bytes = 4 << 14;
  s = Layout::Create(c, &l);
  EXPECT_THAT(s.message(), Not(HasSubstr("LOAD/STORE")));  // GEMM is what overflows there
}

}  // namespace
}  // namespace loom::isa
