// The accelerator's instruction set (spec: docs/isa.md): 128-bit LOAD, STORE, GEMM, ALU and FINISH
// instructions with four dependency flags, and 32-bit micro-ops.
//
// Field widths derive from the HwConfig (index fields are as wide as log2 of the buffer depth), so
// encoding goes through a Layout built from the config. Encoding uses explicit shifts and masks;
// every field is range-checked; Decode() rejects any word Encode() could not have produced.
#ifndef LOOM_RUNTIME_CORE_ISA_H_
#define LOOM_RUNTIME_CORE_ISA_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/status.h"

namespace loom::isa {

enum class Opcode : uint8_t { kLoad = 0, kStore = 1, kGemm = 2, kFinish = 3, kAlu = 4 };
enum class Buffer : uint8_t { kUop = 0, kWgt = 1, kInp = 2, kAcc = 3, kOut = 4 };
// kRequant and kRqParam form the fused requantization (docs/isa.md §3.4.1): kRqParam copies blocks
// of per-channel bias and multiplier from ACC into the parameter buffer, kRequant applies bias,
// rounding pre-shift, multiplier, rounding post-shift and clip in one pass, reading that buffer
// through its own port. Both take the parameter entry from the micro-op's wgt field.
enum class AluOp : uint8_t {
  kMin = 0,
  kMax = 1,
  kAdd = 2,
  kShr = 3,
  kShrRound = 4,
  kMul = 5,
  kRequant = 6,
  kRqParam = 7,
};
inline constexpr int kNumAluOps = 8;
// Entries of the parameter buffer (RQP), on every config: each holds one int32 bias and one
// multiplier per lane (batch x block_out).
inline constexpr uint32_t kRqParamDepth = 32;
// REQUANT's two rounding shifts go right only, by 0 to 31 (docs/isa.md §2.7.1): every shift the
// quantizer chooses, and a right-only shifter is a third the logic of one that also shifts left.
inline constexpr int32_t kRqMaxShift = 31;
inline constexpr bool RequantShiftValid(int32_t shift) {
  return shift >= 0 && shift <= kRqMaxShift;
}

// The three execution modules, in pipeline order: load -> compute -> store.
enum class Module : uint8_t { kLoad = 0, kCompute = 1, kStore = 2 };
inline constexpr int kNumModules = 3;
// The four token queues between neighbouring modules.
enum class Queue : uint8_t {
  kLoadToCompute = 0,
  kComputeToLoad = 1,
  kComputeToStore = 2,
  kStoreToCompute = 3,
};
inline constexpr int kNumQueues = 4;

const char* OpcodeName(Opcode op);    // "load", "store", ...
const char* BufferName(Buffer b);     // "uop", "wgt", ...
const char* AluOpName(AluOp op);      // "min", "max", "add", "shr", "shr_rnd", "mul", ...
const char* ModuleName(Module m);     // "load", "compute", "store"
const char* QueueName(Queue q);       // "load->compute", ...

// pop_* waits for (and consumes) a token from the neighbouring module before the instruction
// starts; push_* sends a token to it when the instruction has finished. "prev" is the module before
// this one in the pipeline, "next" the one after.
struct Deps {
  bool pop_prev = false;
  bool pop_next = false;
  bool push_prev = false;
  bool push_next = false;
  bool operator==(const Deps& o) const {
    return pop_prev == o.pop_prev && pop_next == o.pop_next && push_prev == o.push_prev &&
           push_next == o.push_next;
  }
};

// One decoded instruction. Fields that do not belong to the opcode must stay zero (Encode checks).
// The error every device reports when a fused REQUANT's epilogue meets an ALU instruction or
// FINISH before its GEMM (docs/isa.md §3.4.2).
inline constexpr const char* kEpilogueWithoutGemm =
    "a fused REQUANT (alu.requant ... fuse) is still waiting for its GEMM: the compute module's "
    "next GEMM must come before any other ALU instruction or FINISH";

struct Insn {
  Opcode opcode = Opcode::kFinish;
  Deps deps;

  // LOAD / STORE: a 2-D strided DMA between DRAM and one on-chip buffer. DRAM addresses and
  // strides count elements of that buffer (an INP element is batch*block_in bytes, ...).
  Buffer buffer = Buffer::kUop;
  uint32_t sram_base = 0;
  uint32_t dram_base = 0;
  uint32_t y_size = 0;
  uint32_t x_size = 0;
  uint32_t x_stride = 0;
  uint32_t y_pad_top = 0;
  uint32_t y_pad_bottom = 0;
  uint32_t x_pad_left = 0;
  uint32_t x_pad_right = 0;
  // INP loads only: the int8 every lane of a padding element holds (docs/isa.md §3.1), so that a
  // convolution over an input with zero point z sees z, the real value 0, at its padded positions.
  // Must be 0 on every other LOAD and on STORE.
  int32_t pad_value = 0;  // signed 8-bit

  // GEMM / ALU: run micro-ops [uop_bgn, uop_end) inside two affine loops.
  bool reset = false;  // GEMM only: write zero instead of accumulating
  uint32_t uop_bgn = 0;
  uint32_t uop_end = 0;
  uint32_t loop_out = 0;
  uint32_t loop_in = 0;
  uint32_t dst_factor_out = 0;
  uint32_t dst_factor_in = 0;
  uint32_t src_factor_out = 0;
  uint32_t src_factor_in = 0;
  uint32_t wgt_factor_out = 0;  // GEMM only
  uint32_t wgt_factor_in = 0;   // GEMM only
  // GEMM only: the depthwise mode (docs/isa.md §3.3.1). Each iteration shifts the INP element it
  // reads into a window of the last block_in/2 elements, and the array multiplies every channel
  // lane by its own taps from that window instead of reducing across channels.
  bool depthwise = false;

  // ALU only.
  AluOp alu_op = AluOp::kMin;
  bool use_imm = false;
  int32_t imm = 0;  // signed 16-bit

  // ALU REQUANT only; its format holds these where the others hold the src factors and imm.
  int32_t pre_shift = 0;   // 0..31 in a 6-bit field, applied as SHR_RND
  int32_t post_shift = 0;  // 0..31 in a 6-bit field, applied as SHR_RND
  int32_t clip_lo = 0;     // signed 8-bit, clip_lo <= clip_hi
  int32_t clip_hi = 0;     // signed 8-bit
  // REQUANT only: leave ACC[d] zero instead of the clipped value (OUT[d] is written as ever), so
  // the next tile that accumulates into the region needs no reset pass (docs/isa.md §3.4.1).
  bool clear = false;
  // REQUANT only, with `clear`: run as the epilogue of the compute module's next GEMM instead of
  // as a pass of its own (docs/isa.md §3.4.2). The instruction writes nothing; its last
  // iteration's parameter entry and its shifts and clip arm the epilogue, and every iteration of
  // the next GEMM then writes OUT[d] = REQUANT of its new sum and leaves ACC[d] zero.
  bool fuse = false;

  bool operator==(const Insn& o) const;
  bool operator!=(const Insn& o) const { return !(*this == o); }

  // Which module executes this instruction: LOAD of INP/WGT -> load; LOAD of UOP/ACC, GEMM, ALU,
  // FINISH -> compute; STORE -> store.
  Module module() const;
  // Total SRAM elements a LOAD/STORE writes or reads (including padding).
  uint64_t sram_extent() const {
    return uint64_t{y_pad_top + y_size + y_pad_bottom} * (x_pad_left + x_size + x_pad_right);
  }
  // DRAM elements a LOAD/STORE spans from dram_base: one past the last element it touches, or 0
  // for a synchronization-only (empty) transfer.
  uint64_t dram_span() const {
    if (y_size == 0 || x_size == 0) return 0;
    return uint64_t{y_size - 1} * x_stride + x_size;
  }
};

// Whether `insn` arms the next GEMM's epilogue (docs/isa.md §3.4.2): a fused REQUANT that runs at
// least one iteration (an empty one has no last parameter entry and arms nothing). fsim's machine
// and its timing model both follow the arming with this.
inline bool ArmsEpilogue(const Insn& insn) {
  return insn.opcode == Opcode::kAlu && insn.alu_op == AluOp::kRequant && insn.fuse &&
         insn.loop_out != 0 && insn.loop_in != 0;
}

// The token queues an instruction pops before it starts and pushes after it ends, from its module
// and dependency flags (docs/isa.md §1.5). At most two of each.
struct TokenQueues {
  Queue pops[2];
  Queue pushes[2];
  int num_pops = 0;
  int num_pushes = 0;
};
TokenQueues QueuesOf(const Insn& insn);

// The queue a module pops from / pushes to on one side ("prev" and "next" as the module sees
// them: load - compute - store). False when the module has no neighbour there (load has no
// previous module, store no next one).
enum class Side : uint8_t { kPrev, kNext };
bool PopQueue(Module m, Side side, Queue* q);
bool PushQueue(Module m, Side side, Queue* q);

// A micro-op: buffer indices for one step of a GEMM (dst=acc, src=inp, wgt=wgt) or an ALU
// (dst=acc, src=acc) instruction, before the loop offsets are added.
struct Uop {
  uint32_t dst = 0;
  uint32_t src = 0;
  uint32_t wgt = 0;
  bool operator==(const Uop& o) const { return dst == o.dst && src == o.src && wgt == o.wgt; }
};

// 128 bits; bit i of the instruction is bit i of lo (i < 64) or bit i-64 of hi. In memory: lo then
// hi, each little-endian.
struct Word128 {
  uint64_t lo = 0;
  uint64_t hi = 0;
  bool operator==(const Word128& o) const { return lo == o.lo && hi == o.hi; }
};

// Field widths and buffer depths for one HwConfig.
struct Layout {
  // Fixed widths.
  static constexpr uint32_t kOpcodeBits = 3;
  static constexpr uint32_t kBufferBits = 3;
  static constexpr uint32_t kDramBits = 32;
  static constexpr uint32_t kSizeBits = 16;    // y_size, x_size, x_stride
  static constexpr uint32_t kPadBits = 4;
  static constexpr uint32_t kPadValueBits = 8;  // two's complement
  static constexpr uint32_t kLoopBits = 14;
  static constexpr uint32_t kAluOpBits = 3;
  static constexpr uint32_t kImmBits = 16;
  static constexpr uint32_t kRqShiftBits = 6;  // REQUANT pre_shift, post_shift (top bit 0)
  static constexpr uint32_t kRqClipBits = 8;   // REQUANT clip_lo, clip_hi

  // Widths derived from the config.
  uint32_t sram_bits = 0;     // max index width over all buffers
  uint32_t uop_idx_bits = 0;  // uop_bgn; uop_end has one more bit
  uint32_t inp_idx_bits = 0;
  uint32_t wgt_idx_bits = 0;
  uint32_t acc_idx_bits = 0;
  // Micro-op fields, packed from bit 0: dst | src | wgt.
  uint32_t uop_dst_bits = 0;
  uint32_t uop_src_bits = 0;  // max(inp, acc): GEMM reads inp, ALU reads acc
  uint32_t uop_wgt_bits = 0;

  // Depths, for range checks.
  uint32_t uop_depth = 0;
  uint32_t inp_depth = 0;
  uint32_t wgt_depth = 0;
  uint32_t acc_depth = 0;

  uint32_t depth(Buffer b) const;
  // Bits used by each instruction kind (the rest of the 128 are reserved and must be zero).
  uint32_t mem_bits() const;
  uint32_t gemm_bits() const;
  uint32_t alu_bits() const;
  uint32_t requant_bits() const;
  uint32_t uop_bits() const { return uop_dst_bits + uop_src_bits + uop_wgt_bits; }

  // Fails if the config's instructions or micro-ops would not fit their words. The config's other
  // fields must already be valid (HwConfig::Validate() checks them first, then calls this).
  static Status Create(const HwConfig& config, Layout* out);
};

// One field of an instruction or micro-op word: its name as in docs/isa.md, lowest bit and width.
// The tables below are the single description of the bit layout: Encode/Decode walk them, and the
// SystemVerilog package generator emits them as localparams for the RTL decoder.
struct FieldSpec {
  const char* name;
  uint32_t lsb;
  uint32_t width;
};
// Fields of an instruction format in bit order, starting with opcode and the four dependency flags.
// LOAD and STORE share one format; FINISH has only the common fields. Fields(.., kAlu) is the
// format of every ALU op but REQUANT, which RequantFields() describes.
std::vector<FieldSpec> Fields(const Layout& layout, Opcode op);
std::vector<FieldSpec> RequantFields(const Layout& layout);
// Micro-op fields: dst, src, wgt.
std::vector<FieldSpec> UopFields(const Layout& layout);

// Bytes of one element of `buffer`, in SRAM and in DRAM: what dram_base and sram_base count.
uint32_t ElemBytes(const HwConfig& config, Buffer buffer);

// Checks an instruction against the spec: fields in range for the layout, fields of other opcodes
// zero, dependency flags that exist for its module, DMA extents inside the buffer.
Status Verify(const Layout& layout, const Insn& insn);
Status Encode(const Layout& layout, const Insn& insn, Word128* out);
Status Decode(const Layout& layout, const Word128& word, Insn* out);

Status EncodeUop(const Layout& layout, const Uop& uop, uint32_t* out);
// Always succeeds for a layout whose uop_bits() <= 32 except for set bits above uop_bits().
Status DecodeUop(const Layout& layout, uint32_t word, Uop* out);

// Little-endian byte images, as the fetch module reads them from DRAM.
void StoreWord(const Word128& w, uint8_t bytes[16]);
Word128 LoadWord(const uint8_t bytes[16]);

// "load.inp", "gemm", "alu.shr_rnd", ...: the first word of the text form.
std::string Mnemonic(const Insn& insn);

// Text form, one instruction per line; Assemble(Disassemble(x)) == x. See docs/isa.md.
std::string Disassemble(const Insn& insn);
std::string DisassembleUop(const Uop& uop);
// Parses lines of instructions; '#' starts a comment; blank lines are skipped. Errors name the
// line and the field. Instructions are checked with Verify().
Status Assemble(const Layout& layout, std::string_view text, std::vector<Insn>* out);
// Parses lines of the form "uop dst=N src=N wgt=N".
Status AssembleUops(const Layout& layout, std::string_view text, std::vector<Uop>* out);

}  // namespace loom::isa

#endif  // LOOM_RUNTIME_CORE_ISA_H_
