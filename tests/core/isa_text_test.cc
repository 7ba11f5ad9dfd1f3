// The text form of the ISA (docs/isa.md §5): canonical disassembly, the assembler's leniency
// (order, hex, comments, blank lines) and its errors, which name the line and the field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "runtime/core/isa.h"

namespace loom::isa {

// Defined in isa_test.cc (same binary).
void PrintTo(const Insn& i, std::ostream* os);
void PrintTo(const Uop& u, std::ostream* os);

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class IsaText : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s = Layout::Create(HwConfig(), &l_);  // 1x16x16
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // Assembles text that must be valid.
  std::vector<Insn> Asm(const std::string& text) {
    std::vector<Insn> out;
    Status s = Assemble(l_, text, &out);
    EXPECT_TRUE(s.ok()) << s.ToString() << "\n  text: " << text;
    return out;
  }
  Insn AsmOne(const std::string& text) {
    std::vector<Insn> out = Asm(text);
    EXPECT_EQ(out.size(), 1u) << text;
    return out.empty() ? Insn() : out[0];
  }
  // The error message for text that must be rejected.
  std::string AsmError(const std::string& text) {
    std::vector<Insn> out;
    Status s = Assemble(l_, text, &out);
    EXPECT_FALSE(s.ok()) << "accepted: " << text;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << text;
    return s.message();
  }
  std::string UopError(const std::string& text) {
    std::vector<Uop> out;
    Status s = AssembleUops(l_, text, &out);
    EXPECT_FALSE(s.ok()) << "accepted: " << text;
    return s.message();
  }

  Layout l_;
};

// --- disassembly ---------------------------------------------------------------------------------

TEST_F(IsaText, CanonicalDisassembly) {
  Insn load;
  load.opcode = Opcode::kLoad;
  load.buffer = Buffer::kInp;
  load.dram_base = 64;
  load.y_size = 4;
  load.x_size = 4;
  load.x_stride = 8;
  load.y_pad_top = load.y_pad_bottom = load.x_pad_left = load.x_pad_right = 1;
  load.deps.pop_next = load.deps.push_next = true;
  EXPECT_EQ(Disassemble(load),
            "load.inp sram=0 dram=64 y=4 x=4 stride=8 pad=1,1,1,1 @pop_next @push_next");

  Insn store;
  store.opcode = Opcode::kStore;
  store.buffer = Buffer::kOut;
  store.dram_base = 128;
  store.y_size = 1;
  store.x_size = 16;
  store.x_stride = 16;
  store.deps.pop_prev = store.deps.push_prev = true;
  EXPECT_EQ(Disassemble(store),
            "store.out sram=0 dram=128 y=1 x=16 stride=16 @pop_prev @push_prev");

  Insn gemm;
  gemm.opcode = Opcode::kGemm;
  gemm.reset = true;
  gemm.uop_end = 16;
  gemm.loop_out = 4;
  gemm.loop_in = 2;
  gemm.dst_factor_out = 16;
  gemm.dst_factor_in = 1;
  gemm.src_factor_out = 16;
  gemm.src_factor_in = 1;
  gemm.deps.pop_prev = true;
  EXPECT_EQ(Disassemble(gemm), "gemm reset uop=0:16 loop=4x2 dst=16,1 src=16,1 wgt=0,0 @pop_prev");
  gemm.reset = false;
  gemm.wgt_factor_out = 3;
  gemm.wgt_factor_in = 9;
  gemm.deps = Deps{true, true, true, true};
  EXPECT_EQ(Disassemble(gemm),
            "gemm uop=0:16 loop=4x2 dst=16,1 src=16,1 wgt=3,9 @pop_prev @pop_next @push_prev "
            "@push_next");

  Insn alu;
  alu.opcode = Opcode::kAlu;
  alu.alu_op = AluOp::kShrRound;
  alu.use_imm = true;
  alu.imm = 3;
  alu.uop_end = 4;
  alu.loop_out = alu.loop_in = 1;
  EXPECT_EQ(Disassemble(alu), "alu.shr_rnd uop=0:4 loop=1x1 dst=0,0 imm=3");
  alu.imm = -32768;
  EXPECT_EQ(Disassemble(alu), "alu.shr_rnd uop=0:4 loop=1x1 dst=0,0 imm=-32768");
  alu.imm = 0;  // the immediate form with imm 0 still prints imm=
  EXPECT_EQ(Disassemble(alu), "alu.shr_rnd uop=0:4 loop=1x1 dst=0,0 imm=0");

  alu.alu_op = AluOp::kAdd;
  alu.use_imm = false;
  alu.src_factor_out = 1;
  EXPECT_EQ(Disassemble(alu), "alu.add uop=0:4 loop=1x1 dst=0,0 src=1,0");

  Insn finish;
  finish.opcode = Opcode::kFinish;
  EXPECT_EQ(Disassemble(finish), "finish");
  finish.deps.pop_prev = finish.deps.pop_next = true;
  EXPECT_EQ(Disassemble(finish), "finish @pop_prev @pop_next");

  EXPECT_EQ(DisassembleUop(Uop{4, 5, 1}), "uop dst=4 src=5 wgt=1");
}

TEST_F(IsaText, PadIsPrintedWhenAnyPadIsNonZero) {
  Insn i = AsmOne("load.wgt sram=0 dram=0 y=1 x=1 stride=1 pad=0,0,0,2");
  EXPECT_EQ(i.x_pad_right, 2u);
  EXPECT_EQ(Disassemble(i), "load.wgt sram=0 dram=0 y=1 x=1 stride=1 pad=0,0,0,2");
  i = AsmOne("load.wgt sram=0 dram=0 y=1 x=1 stride=1 pad=0,0,0,0");
  EXPECT_EQ(Disassemble(i), "load.wgt sram=0 dram=0 y=1 x=1 stride=1");
}

TEST_F(IsaText, SpecCanonicalBlockIsAFixedPoint) {
  // docs/isa.md §5, "Canonical form".
  const std::vector<std::string> lines = {
      "load.inp sram=0 dram=64 y=4 x=4 stride=8 pad=1,1,1,1 @pop_next @push_next",
      "store.out sram=0 dram=128 y=1 x=16 stride=16 @pop_prev @push_prev",
      "gemm reset uop=0:16 loop=4x2 dst=16,1 src=16,1 wgt=0,0 @pop_prev",
      "gemm depthwise uop=0:10 loop=7x3 dst=7,0 src=9,9 wgt=0,1",
      "alu.shr_rnd uop=0:4 loop=1x1 dst=0,0 imm=3",
      "alu.add uop=0:4 loop=1x1 dst=0,0 src=1,0",
      "finish",
  };
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  const std::vector<Insn> insns = Asm(text);
  ASSERT_EQ(insns.size(), lines.size());
  for (size_t k = 0; k < lines.size(); ++k) EXPECT_EQ(Disassemble(insns[k]), lines[k]);
}

// --- what the assembler accepts ------------------------------------------------------------------

TEST_F(IsaText, FieldsInAnyOrder) {
  const Insn canonical =
      AsmOne("load.inp sram=0 dram=64 y=4 x=4 stride=8 pad=1,1,1,1 @pop_next @push_next");
  EXPECT_EQ(AsmOne("load.inp @push_next pad=1,1,1,1 stride=8 x=4 @pop_next y=4 dram=64 sram=0"),
            canonical);
  const Insn gemm = AsmOne("gemm reset uop=0:16 loop=4x2 dst=16,1 src=16,1 wgt=0,0 @pop_prev");
  EXPECT_EQ(AsmOne("gemm @pop_prev wgt=0,0 src=16,1 dst=16,1 loop=4x2 uop=0:16 reset"), gemm);
  EXPECT_TRUE(gemm.reset);
  const Insn dw = AsmOne("gemm loop=7x3 depthwise uop=0:10 dst=7,0 src=9,9 wgt=0,1");
  EXPECT_TRUE(dw.depthwise);
  EXPECT_FALSE(dw.reset);
  const Insn alu = AsmOne("alu.add uop=0:4 loop=1x1 dst=0,0 src=1,0");
  EXPECT_EQ(AsmOne("alu.add src=1,0 dst=0,0 loop=1x1 uop=0:4"), alu);
  EXPECT_EQ(AsmOne("finish @pop_next @pop_prev"), AsmOne("finish @pop_prev @pop_next"));
}

TEST_F(IsaText, HexNumbers) {
  const Insn i =
      AsmOne("load.acc sram=0x10 dram=0xFFFFFFFF y=0x2 x=0x3 stride=0x3 pad=0x1,0,0,0xf");
  EXPECT_EQ(i.buffer, Buffer::kAcc);
  EXPECT_EQ(i.sram_base, 16u);
  EXPECT_EQ(i.dram_base, 0xffffffffu);
  EXPECT_EQ(i.y_size, 2u);
  EXPECT_EQ(i.x_size, 3u);
  EXPECT_EQ(i.y_pad_top, 1u);
  EXPECT_EQ(i.x_pad_right, 15u);
  const Insn g = AsmOne("gemm uop=0x0:0x10 loop=4x2 dst=0x10,1 src=0,0 wgt=0x3ff,0");
  EXPECT_EQ(g.uop_end, 16u);
  EXPECT_EQ(g.dst_factor_out, 16u);
  EXPECT_EQ(g.wgt_factor_out, 1023u);
  EXPECT_EQ(AsmOne("alu.min uop=0:1 loop=1x1 dst=0,0 imm=0x7fff").imm, 32767);
}

// docs/isa.md §5: "A leading 0 does not mean octal"; isa_text.cc: "numbers in decimal or 0x-hex".
TEST_F(IsaText, LeadingZeroIsDecimal) {
  std::vector<Insn> out;
  Status s = Assemble(l_, "load.inp sram=010 dram=0100 y=1 x=1 stride=1", &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].sram_base, 10u) << "'010' was read as octal";
  EXPECT_EQ(out[0].dram_base, 100u) << "'0100' was read as octal";
  s = Assemble(l_, "load.inp sram=08 dram=09 y=1 x=1 stride=1", &out);
  EXPECT_TRUE(s.ok()) << "'08' rejected: " << s.ToString();
}

TEST_F(IsaText, NegativeImmediates) {
  EXPECT_EQ(AsmOne("alu.add uop=0:1 loop=1x1 dst=0,0 imm=-3").imm, -3);
  EXPECT_EQ(AsmOne("alu.max uop=0:1 loop=1x1 dst=0,0 imm=-32768").imm, -32768);
  EXPECT_EQ(AsmOne("alu.max uop=0:1 loop=1x1 dst=0,0 imm=-0x8000").imm, -32768);
  EXPECT_EQ(AsmOne("alu.shr uop=0:1 loop=1x1 dst=0,0 imm=32767").imm, 32767);
  const Insn zero = AsmOne("alu.mul uop=0:1 loop=1x1 dst=0,0 imm=0");
  EXPECT_TRUE(zero.use_imm);
  EXPECT_EQ(zero.imm, 0);
  EXPECT_FALSE(AsmOne("alu.mul uop=0:1 loop=1x1 dst=0,0 src=0,0").use_imm);
}

TEST_F(IsaText, CommentsBlankLinesAndWhitespace) {
  const std::string text =
      "# a program\n"
      "\n"
      "   \t  \n"
      "load.uop sram=0 dram=512 y=1 x=4 stride=4   # micro-ops\n"
      "\tgemm  reset   uop=0:1\tloop=2x2 dst=2,1 src=0,0 wgt=0,0\n"
      "# finish follows\n"
      "finish#no space before the comment\n"
      "   # trailing comment line";
  const std::vector<Insn> insns = Asm(text);
  ASSERT_EQ(insns.size(), 3u);
  EXPECT_EQ(Disassemble(insns[0]), "load.uop sram=0 dram=512 y=1 x=4 stride=4");
  EXPECT_EQ(Disassemble(insns[1]), "gemm reset uop=0:1 loop=2x2 dst=2,1 src=0,0 wgt=0,0");
  EXPECT_EQ(Disassemble(insns[2]), "finish");
  EXPECT_TRUE(Asm("").empty());
  EXPECT_TRUE(Asm("\n\n# nothing\n").empty());
}

TEST_F(IsaText, SpecExampleProgramAssembles) {
  // docs/isa.md §6.1, verbatim (comments and alignment included).
  const std::string text = R"(
load.uop sram=0 dram=512 y=1 x=4 stride=4                     # compute: same module as GEMM, no token
load.wgt sram=0 dram=32 y=1 x=4 stride=4                      # load: ordered before inp t0's push
load.inp sram=0 dram=256 y=2 x=2 stride=2 @push_next          # t0 → half 0
load.inp sram=4 dram=260 y=2 x=2 stride=2 @push_next          # t1 → half 1
gemm reset uop=0:1 loop=2x2 dst=2,1 src=0,0 wgt=0,0           # t0
gemm uop=0:2 loop=2x2 dst=2,1 src=2,0 wgt=0,2 @pop_prev @push_prev
alu.shr_rnd uop=0:1 loop=2x2 dst=2,1 imm=7 @push_next
store.out sram=0 dram=768 y=1 x=4 stride=4 @pop_prev @push_prev
load.inp sram=0 dram=264 y=2 x=2 stride=2 @pop_next @push_next   # t2 → half 0
finish
)";
  const std::vector<Insn> insns = Asm(text);
  ASSERT_EQ(insns.size(), 10u);
  EXPECT_EQ(insns[6].alu_op, AluOp::kShrRound);
  EXPECT_EQ(insns[6].imm, 7);
  EXPECT_EQ(insns[9].opcode, Opcode::kFinish);
}

// --- assembler errors ----------------------------------------------------------------------------

TEST_F(IsaText, ErrorsNameTheLine) {
  const std::string text =
      "# header\n"
      "load.inp sram=0 dram=0 y=1 x=1 stride=1\n"
      "\n"
      "gemm uop=0:1 loop=1x1 dst=0,0 src=0,0\n"  // line 4: no wgt=
      "finish\n";
  EXPECT_THAT(AsmError(text), AllOf(HasSubstr("line 4"), HasSubstr("missing field 'wgt'")));
  // Verify() errors get the line too.
  EXPECT_THAT(AsmError("finish\nfinish\nload.out sram=0 dram=0 y=1 x=1 stride=1"),
              AllOf(HasSubstr("line 3"), HasSubstr("out buffer cannot be loaded")));
  // The output is not touched on error.
  std::vector<Insn> out(2);
  EXPECT_FALSE(Assemble(l_, "finish\nbogus", &out).ok());
  EXPECT_EQ(out.size(), 2u);
}

TEST_F(IsaText, UnknownMnemonicBufferAndAluOp) {
  EXPECT_THAT(AsmError("nop"), AllOf(HasSubstr("line 1"), HasSubstr("unknown instruction 'nop'")));
  EXPECT_THAT(AsmError("finish.now"), HasSubstr("unknown instruction 'finish.now'"));
  EXPECT_THAT(AsmError("gemm.x uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0"),
              HasSubstr("unknown instruction 'gemm.x'"));
  EXPECT_THAT(AsmError("LOAD.inp sram=0 dram=0 y=1 x=1 stride=1"),
              HasSubstr("unknown instruction"));
  EXPECT_THAT(AsmError("load.xyz sram=0 dram=0 y=1 x=1 stride=1"),
              HasSubstr("unknown buffer 'xyz'"));
  EXPECT_THAT(AsmError("load sram=0 dram=0 y=1 x=1 stride=1"), HasSubstr("unknown buffer"));
  EXPECT_THAT(AsmError("store.foo sram=0 dram=0 y=1 x=1 stride=1"),
              HasSubstr("unknown buffer 'foo'"));
  EXPECT_THAT(AsmError("alu.div uop=0:1 loop=1x1 dst=0,0 imm=1"),
              HasSubstr("unknown ALU op 'div'"));
  EXPECT_THAT(AsmError("alu uop=0:1 loop=1x1 dst=0,0 imm=1"), HasSubstr("unknown ALU op"));
  // Wrong buffer for the opcode is a Verify error.
  EXPECT_THAT(AsmError("store.inp sram=0 dram=0 y=1 x=1 stride=1"),
              HasSubstr("only the out buffer can be stored"));
}

TEST_F(IsaText, MissingDuplicateAndUnknownFields) {
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=1 x=1"), HasSubstr("missing field 'stride'"));
  EXPECT_THAT(AsmError("load.inp dram=0 y=1 x=1 stride=1"), HasSubstr("missing field 'sram'"));
  EXPECT_THAT(AsmError("gemm loop=1x1 dst=0,0 src=0,0 wgt=0,0"), HasSubstr("missing field 'uop'"));
  EXPECT_THAT(AsmError("alu.add uop=0:1 dst=0,0 imm=1"), HasSubstr("missing field 'loop'"));
  EXPECT_THAT(AsmError("load.inp sram=0 sram=1 dram=0 y=1 x=1 stride=1"),
              HasSubstr("field 'sram' given twice"));
  EXPECT_THAT(AsmError("finish @pop_prev @pop_prev"), HasSubstr("'@pop_prev' given twice"));
  EXPECT_THAT(AsmError("gemm reset reset uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0"),
              HasSubstr("'reset' given twice"));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=1 x=1 stride=1 foo=1"),
              HasSubstr("unknown field 'foo'"));
  EXPECT_THAT(AsmError("gemm uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0 pad=0,0,0,0"),
              HasSubstr("unknown field 'pad'"));
  EXPECT_THAT(AsmError("alu.add uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0"),
              HasSubstr("unknown field 'wgt'"));
  EXPECT_THAT(AsmError("finish sram=0"), HasSubstr("unknown field 'sram'"));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=1 x=1 stride=1 bogus"),
              HasSubstr("unexpected word 'bogus'"));
  EXPECT_THAT(AsmError("alu.add reset uop=0:1 loop=1x1 dst=0,0 imm=1"),
              HasSubstr("unexpected word 'reset'"));
  EXPECT_THAT(AsmError("finish @pop"), HasSubstr("unexpected word '@pop'"));
  EXPECT_THAT(AsmError("finish =5"), HasSubstr("field without a name"));
}

TEST_F(IsaText, BadNumbers) {
  EXPECT_THAT(AsmError("load.inp sram=abc dram=0 y=1 x=1 stride=1"),
              AllOf(HasSubstr("field 'sram'"), HasSubstr("'abc' is not a number")));
  EXPECT_THAT(AsmError("load.inp sram=12abc dram=0 y=1 x=1 stride=1"),
              HasSubstr("'12abc' is not a number"));
  EXPECT_THAT(AsmError("load.inp sram=0x dram=0 y=1 x=1 stride=1"), HasSubstr("not a number"));
  EXPECT_THAT(AsmError("load.inp sram= dram=0 y=1 x=1 stride=1"),
              HasSubstr("field 'sram' has an empty value"));
  EXPECT_THAT(AsmError("gemm uop=0: loop=1x1 dst=0,0 src=0,0 wgt=0,0"),
              HasSubstr("field 'uop' has an empty value"));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=-1 y=1 x=1 stride=1"),
              AllOf(HasSubstr("field 'dram'"), HasSubstr("outside")));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0x100000000 y=1 x=1 stride=1"),
              AllOf(HasSubstr("field 'dram'"), HasSubstr("outside")));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=99999999999999999999999 y=1 x=1 stride=1"),
              HasSubstr("field 'dram'"));
  // loop= numbers are decimal: 'x' is the separator.
  EXPECT_THAT(AsmError("gemm uop=0:1 loop=0x4x2 dst=0,0 src=0,0 wgt=0,0"),
              HasSubstr("field 'loop'"));
}

TEST_F(IsaText, OutOfRangeValuesNameTheField) {
  EXPECT_THAT(AsmError("alu.add uop=0:1 loop=1x1 dst=0,0 imm=32768"),
              AllOf(HasSubstr("field 'imm'"), HasSubstr("outside [-32768, 32767]")));
  EXPECT_THAT(AsmError("alu.add uop=0:1 loop=1x1 dst=0,0 imm=-32769"), HasSubstr("field 'imm'"));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=0x10000 x=0 stride=0"), HasSubstr("'y_size'"));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=1 x=1 stride=70000"), HasSubstr("'x_stride'"));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=1 x=1 stride=1 pad=16,0,0,0"),
              HasSubstr("'y_pad_top'"));
  EXPECT_THAT(AsmError("load.uop sram=8192 dram=0 y=0 x=0 stride=0 # depth 8192, 13 bits"),
              HasSubstr("'sram_base'"));
  EXPECT_THAT(AsmError("load.inp sram=2047 dram=0 y=1 x=2 stride=2"),
              HasSubstr("exceeds the inp buffer depth 2048"));
  EXPECT_THAT(AsmError("gemm uop=0:1 loop=16384x1 dst=0,0 src=0,0 wgt=0,0"),
              HasSubstr("'loop_out'"));
  EXPECT_THAT(AsmError("gemm uop=0:1 loop=1x1 dst=0,2048 src=0,0 wgt=0,0"),
              HasSubstr("'dst_factor_in'"));
  EXPECT_THAT(AsmError("gemm uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=1024,0"),
              HasSubstr("'wgt_factor_out'"));
  EXPECT_THAT(AsmError("gemm uop=0:8193 loop=1x1 dst=0,0 src=0,0 wgt=0,0"),
              HasSubstr("uop_end 8193 exceeds the uop buffer depth 8192"));
  EXPECT_THAT(AsmError("gemm uop=3:3 loop=1x1 dst=0,0 src=0,0 wgt=0,0"),
              HasSubstr("empty micro-op range uop=3:3"));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=1 x=1 stride=1 @pop_prev"), HasSubstr("pop_prev"));
}

TEST_F(IsaText, AluNeedsExactlyOneOfSrcAndImm) {
  EXPECT_THAT(AsmError("alu.add uop=0:1 loop=1x1 dst=0,0 src=0,0 imm=1"),
              AllOf(HasSubstr("line 1"), HasSubstr("exactly one of 'src=' (register) or 'imm='")));
  EXPECT_THAT(AsmError("alu.add uop=0:1 loop=1x1 dst=0,0"), HasSubstr("exactly one of"));
}

TEST_F(IsaText, WrongValueCounts) {
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=1 x=1 stride=1 pad=1,1,1"),
              HasSubstr("field 'pad' needs 4 values, got '1,1,1'"));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=1 x=1 stride=1 pad=1,1,1,1,1"),
              HasSubstr("field 'pad' needs 4 values"));
  EXPECT_THAT(AsmError("load.inp sram=0 dram=0 y=1 x=1 stride=1 pad=1"),
              HasSubstr("field 'pad' needs 4 values"));
  EXPECT_THAT(AsmError("gemm uop=1 loop=1x1 dst=0,0 src=0,0 wgt=0,0"),
              HasSubstr("field 'uop' needs 2 values"));
  EXPECT_THAT(AsmError("gemm uop=0:1 loop=1x1x1 dst=0,0 src=0,0 wgt=0,0"),
              HasSubstr("field 'loop' needs 2 values"));
  EXPECT_THAT(AsmError("gemm uop=0:1 loop=1x1 dst=0 src=0,0 wgt=0,0"),
              HasSubstr("field 'dst' needs 2 values"));
  EXPECT_THAT(AsmError("load.inp sram=0,1 dram=0 y=1 x=1 stride=1"),
              HasSubstr("field 'sram' needs 1 values"));
}

// --- micro-op text -------------------------------------------------------------------------------

TEST_F(IsaText, AssembleUops) {
  std::vector<Uop> uops;
  Status s = AssembleUops(l_,
                          "# UOP[0..3]\n"
                          "uop dst=0 src=0 wgt=0\n"
                          "\n"
                          "uop wgt=1 src=1 dst=0   # any order\n"
                          "uop dst=0x7ff src=0x7ff wgt=0x3ff\n",
                          &uops);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(uops.size(), 3u);
  EXPECT_EQ(uops[0], (Uop{0, 0, 0}));
  EXPECT_EQ(uops[1], (Uop{0, 1, 1}));
  EXPECT_EQ(uops[2], (Uop{2047, 2047, 1023}));
  ASSERT_TRUE(AssembleUops(l_, "", &uops).ok());
  EXPECT_TRUE(uops.empty());
}

TEST_F(IsaText, AssembleUopsErrors) {
  EXPECT_THAT(UopError("uop dst=1 src=2"),
              AllOf(HasSubstr("line 1"), HasSubstr("missing field 'wgt'")));
  EXPECT_THAT(UopError("uop dst=0 src=0 wgt=0\nuops dst=0 src=0 wgt=0"),
              AllOf(HasSubstr("line 2"), HasSubstr("expected 'uop', got 'uops'")));
  EXPECT_THAT(UopError("gemm uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0"),
              HasSubstr("expected 'uop'"));
  EXPECT_THAT(UopError("uop dst=0 dst=1 src=0 wgt=0"), HasSubstr("field 'dst' given twice"));
  EXPECT_THAT(UopError("uop dst=0 src=0 wgt=0 acc=1"), HasSubstr("unknown field 'acc'"));
  EXPECT_THAT(UopError("uop dst=0 src=0 wgt=0 @pop_prev"),
              HasSubstr("micro-ops have no dependency flags"));
  EXPECT_THAT(UopError("uop dst=0 src=0 wgt=0 reset"), HasSubstr("unexpected word 'reset'"));
  EXPECT_THAT(UopError("uop dst=x src=0 wgt=0"), HasSubstr("'x' is not a number"));
  EXPECT_THAT(UopError("uop dst=-1 src=0 wgt=0"), HasSubstr("field 'dst'"));
  EXPECT_THAT(UopError("\n\nuop dst=2048 src=0 wgt=0"),
              AllOf(HasSubstr("line 3"), HasSubstr("uop field 'dst'"), HasSubstr("11 bits")));
  EXPECT_THAT(UopError("uop dst=0 src=2048 wgt=0"), HasSubstr("uop field 'src'"));
  EXPECT_THAT(UopError("uop dst=0 src=0 wgt=1024"), HasSubstr("uop field 'wgt'"));
  EXPECT_THAT(UopError("uop dst=0,1 src=0 wgt=0"), HasSubstr("needs 1 values"));
}

// REQUANT's text form: shift= (0..31) and clip= (signed), no src= or imm=; RQPARAM is register
// form only.
TEST_F(IsaText, FusedRequant) {
  std::vector<Insn> insns;
  ASSERT_TRUE(
      Assemble(l_,
               "alu.rqparam uop=4:6 loop=1x1 dst=0,0 src=0,0\n"
               "alu.requant uop=6:8 loop=4x8 dst=8,1 shift=0,0x1f clip=-128,127 @push_next\n",
               &insns)
          .ok());
  ASSERT_EQ(insns.size(), 2u);
  EXPECT_EQ(insns[0].alu_op, AluOp::kRqParam);
  EXPECT_EQ(insns[1].alu_op, AluOp::kRequant);
  EXPECT_EQ(insns[1].pre_shift, 0);
  EXPECT_EQ(insns[1].post_shift, 31);
  EXPECT_EQ(Disassemble(insns[1]),
            "alu.requant uop=6:8 loop=4x8 dst=8,1 shift=0,31 clip=-128,127 @push_next");
  EXPECT_THAT(AsmError("alu.requant uop=0:1 loop=1x1 dst=0,0 shift=0,32 clip=0,0"),
              HasSubstr("'shift' = 32 is outside [0, 31]"));
  EXPECT_THAT(AsmError("alu.requant uop=0:1 loop=1x1 dst=0,0 shift=-1,0 clip=0,0"),
              HasSubstr("'shift' = -1 is outside [0, 31]"));
  EXPECT_THAT(AsmError("alu.requant uop=0:1 loop=1x1 dst=0,0 shift=0,0 clip=1,0"),
              HasSubstr("clip_lo 1 is above clip_hi 0"));
  EXPECT_THAT(AsmError("alu.requant uop=0:1 loop=1x1 dst=0,0 shift=0,0"),
              HasSubstr("missing field 'clip'"));
  // clear: the pass leaves ACC zero; a word of the REQUANT form only.
  ASSERT_TRUE(
      Assemble(l_, "alu.requant uop=0:1 loop=2x3 dst=3,1 shift=1,2 clip=-128,127 clear\n", &insns)
          .ok());
  ASSERT_EQ(insns.size(), 1u);
  EXPECT_TRUE(insns[0].clear);
  EXPECT_EQ(Disassemble(insns[0]),
            "alu.requant uop=0:1 loop=2x3 dst=3,1 shift=1,2 clip=-128,127 clear");
  EXPECT_THAT(AsmError("alu.add uop=0:1 loop=1x1 dst=0,0 imm=1 clear"), HasSubstr("clear"));
  EXPECT_THAT(AsmError("alu.requant uop=0:1 loop=1x1 dst=0,0 shift=0,0 clip=0,0 imm=1"),
              HasSubstr("unknown field 'imm'"));
  EXPECT_THAT(AsmError("alu.rqparam uop=0:1 loop=1x1 dst=0,0 imm=1"),
              HasSubstr("no immediate form"));
}

}  // namespace
}  // namespace loom::isa
