#include "runtime/core/isa.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace loom::isa {

const char* OpcodeName(Opcode op) {
  switch (op) {
    case Opcode::kLoad: return "load";
    case Opcode::kStore: return "store";
    case Opcode::kGemm: return "gemm";
    case Opcode::kFinish: return "finish";
    case Opcode::kAlu: return "alu";
  }
  return "?";
}

const char* BufferName(Buffer b) {
  switch (b) {
    case Buffer::kUop: return "uop";
    case Buffer::kWgt: return "wgt";
    case Buffer::kInp: return "inp";
    case Buffer::kAcc: return "acc";
    case Buffer::kOut: return "out";
  }
  return "?";
}

const char* AluOpName(AluOp op) {
  switch (op) {
    case AluOp::kMin: return "min";
    case AluOp::kMax: return "max";
    case AluOp::kAdd: return "add";
    case AluOp::kShr: return "shr";
    case AluOp::kShrRound: return "shr_rnd";
    case AluOp::kMul: return "mul";
    case AluOp::kRequant:
      return "requant";
    case AluOp::kRqParam:
      return "rqparam";
  }
  return "?";
}

const char* ModuleName(Module m) {
  switch (m) {
    case Module::kLoad: return "load";
    case Module::kCompute: return "compute";
    case Module::kStore: return "store";
  }
  return "?";
}

const char* QueueName(Queue q) {
  switch (q) {
    case Queue::kLoadToCompute: return "load->compute";
    case Queue::kComputeToLoad: return "compute->load";
    case Queue::kComputeToStore: return "compute->store";
    case Queue::kStoreToCompute: return "store->compute";
  }
  return "?";
}

bool Insn::operator==(const Insn& o) const {
  return opcode == o.opcode && deps == o.deps && buffer == o.buffer && sram_base == o.sram_base &&
         dram_base == o.dram_base && y_size == o.y_size && x_size == o.x_size &&
         x_stride == o.x_stride && y_pad_top == o.y_pad_top && y_pad_bottom == o.y_pad_bottom &&
         x_pad_left == o.x_pad_left && x_pad_right == o.x_pad_right && pad_value == o.pad_value &&
         reset == o.reset && uop_bgn == o.uop_bgn && uop_end == o.uop_end &&
         loop_out == o.loop_out && loop_in == o.loop_in && dst_factor_out == o.dst_factor_out &&
         dst_factor_in == o.dst_factor_in && src_factor_out == o.src_factor_out &&
         src_factor_in == o.src_factor_in && wgt_factor_out == o.wgt_factor_out &&
         wgt_factor_in == o.wgt_factor_in && depthwise == o.depthwise && alu_op == o.alu_op &&
         use_imm == o.use_imm && imm == o.imm && pre_shift == o.pre_shift &&
         post_shift == o.post_shift && clip_lo == o.clip_lo && clip_hi == o.clip_hi &&
         clear == o.clear && fuse == o.fuse;
}

Module Insn::module() const {
  switch (opcode) {
    case Opcode::kLoad:
      return (buffer == Buffer::kInp || buffer == Buffer::kWgt) ? Module::kLoad : Module::kCompute;
    case Opcode::kStore: return Module::kStore;
    default: return Module::kCompute;
  }
}

bool PopQueue(Module m, Side side, Queue* q) {
  const bool prev = side == Side::kPrev;
  switch (m) {
    case Module::kLoad: *q = Queue::kComputeToLoad; return !prev;
    case Module::kCompute: *q = prev ? Queue::kLoadToCompute : Queue::kStoreToCompute; return true;
    case Module::kStore: *q = Queue::kComputeToStore; return prev;
  }
  return false;
}

bool PushQueue(Module m, Side side, Queue* q) {
  const bool prev = side == Side::kPrev;
  switch (m) {
    case Module::kLoad: *q = Queue::kLoadToCompute; return !prev;
    case Module::kCompute: *q = prev ? Queue::kComputeToLoad : Queue::kComputeToStore; return true;
    case Module::kStore: *q = Queue::kStoreToCompute; return prev;
  }
  return false;
}

TokenQueues QueuesOf(const Insn& insn) {
  // Pops prev before next, pushes likewise (docs/isa.md §1.4). A flag a module does not have is
  // never set (Verify), and would name no queue here.
  TokenQueues t;
  const Deps& d = insn.deps;
  const Module m = insn.module();
  Queue q;
  if (d.pop_prev && PopQueue(m, Side::kPrev, &q)) t.pops[t.num_pops++] = q;
  if (d.pop_next && PopQueue(m, Side::kNext, &q)) t.pops[t.num_pops++] = q;
  if (d.push_prev && PushQueue(m, Side::kPrev, &q)) t.pushes[t.num_pushes++] = q;
  if (d.push_next && PushQueue(m, Side::kNext, &q)) t.pushes[t.num_pushes++] = q;
  return t;
}

uint32_t ElemBytes(const HwConfig& c, Buffer b) {
  switch (b) {
    case Buffer::kUop: return HwConfig::kUopBytes;
    case Buffer::kWgt: return c.wgt_elem_bytes();
    case Buffer::kInp: return c.inp_elem_bytes();
    case Buffer::kAcc: return c.acc_elem_bytes();
    case Buffer::kOut: return c.out_elem_bytes();
  }
  return 1;
}

uint32_t Layout::depth(Buffer b) const {
  switch (b) {
    case Buffer::kUop: return uop_depth;
    case Buffer::kWgt: return wgt_depth;
    case Buffer::kInp: return inp_depth;
    case Buffer::kAcc:
    case Buffer::kOut: return acc_depth;
  }
  return 0;
}

namespace {

// How one field is read from and written to an Insn. The per-format tables below list these in bit
// order; they are the only description of the encoding. A signed field's get returns the value
// sign-extended to 64 bits (encoding keeps its low `width` bits); its set sign-extends them.
struct FieldDef {
  const char* name = nullptr;
  uint32_t width = 0;
  uint64_t (*get)(const Insn&) = nullptr;
  void (*set)(Insn&, uint64_t) = nullptr;
  bool is_signed = false;
};

int32_t SignExtend(uint64_t v, uint32_t width) {
  const uint64_t m = uint64_t{1} << (width - 1);
  return static_cast<int32_t>(static_cast<int64_t>(((v & ((m << 1) - 1)) ^ m)) -
                              static_cast<int64_t>(m));
}

// One format's fields in bit order, in a fixed array: building it allocates nothing, so decoding,
// encoding and verifying (fsim decodes every program it runs) stay off the heap.
struct FieldDefs {
  static constexpr size_t kMax = 24;  // the widest formats (GEMM, ALU, REQUANT) have 16
  FieldDef defs[kMax];
  size_t count = 0;
  void Append(std::initializer_list<FieldDef> more) {
    for (const FieldDef& d : more) defs[count++] = d;
  }
  void Append(const FieldDefs& more) {
    for (const FieldDef& d : more) defs[count++] = d;
  }
  const FieldDef* begin() const { return defs; }
  const FieldDef* end() const { return defs + count; }
};

#define LOOM_U32_FIELD(member, width) \
  FieldDef{#member, width, [](const Insn& i) -> uint64_t { return i.member; }, \
           [](Insn& i, uint64_t v) { i.member = static_cast<uint32_t>(v); }}
#define LOOM_BOOL_FIELD(member, expr) \
  FieldDef{#member, 1, [](const Insn& i) -> uint64_t { return expr ? 1 : 0; }, \
           [](Insn& i, uint64_t v) { expr = v != 0; }}
#define LOOM_S32_FIELD(member, width) \
  FieldDef {                          \
#member, width, \
           [](const Insn& i) -> uint64_t { return static_cast<uint64_t>(int64_t{i.member}); }, \
           [](Insn& i, uint64_t v) { i.member = SignExtend(v, width); }, true                     \
  }

FieldDefs CommonDefs() {
  FieldDefs defs;
  defs.Append({
      FieldDef{"opcode", Layout::kOpcodeBits,
               [](const Insn& i) -> uint64_t { return static_cast<uint64_t>(i.opcode); },
               [](Insn& i, uint64_t v) { i.opcode = static_cast<Opcode>(v); }},
      LOOM_BOOL_FIELD(pop_prev, i.deps.pop_prev),
      LOOM_BOOL_FIELD(pop_next, i.deps.pop_next),
      LOOM_BOOL_FIELD(push_prev, i.deps.push_prev),
      LOOM_BOOL_FIELD(push_next, i.deps.push_next),
  });
  return defs;
}

// The loop nest's fields; REQUANT (no src operand) stops before the src factors.
FieldDefs LoopDefs(const Layout& l, uint32_t src_bits, bool with_src = true) {
  FieldDefs defs;
  defs.Append({
      LOOM_U32_FIELD(uop_bgn, l.uop_idx_bits),
      LOOM_U32_FIELD(uop_end, l.uop_idx_bits + 1),
      LOOM_U32_FIELD(loop_out, Layout::kLoopBits),
      LOOM_U32_FIELD(loop_in, Layout::kLoopBits),
      LOOM_U32_FIELD(dst_factor_out, l.acc_idx_bits),
      LOOM_U32_FIELD(dst_factor_in, l.acc_idx_bits),
  });
  if (with_src) {
    defs.Append(
        {LOOM_U32_FIELD(src_factor_out, src_bits), LOOM_U32_FIELD(src_factor_in, src_bits)});
  }
  return defs;
}

// `requant` picks the ALU's REQUANT format; it matters only for op == kAlu.
FieldDefs FormatDefs(const Layout& l, Opcode op, bool requant = false) {
  FieldDefs defs = CommonDefs();
  switch (op) {
    case Opcode::kLoad:
    case Opcode::kStore:
      defs.Append({
          FieldDef{"buffer", Layout::kBufferBits,
                   [](const Insn& i) -> uint64_t { return static_cast<uint64_t>(i.buffer); },
                   [](Insn& i, uint64_t v) { i.buffer = static_cast<Buffer>(v); }},
          LOOM_U32_FIELD(sram_base, l.sram_bits),
          LOOM_U32_FIELD(dram_base, Layout::kDramBits),
          LOOM_U32_FIELD(y_size, Layout::kSizeBits),
          LOOM_U32_FIELD(x_size, Layout::kSizeBits),
          LOOM_U32_FIELD(x_stride, Layout::kSizeBits),
          LOOM_U32_FIELD(y_pad_top, Layout::kPadBits),
          LOOM_U32_FIELD(y_pad_bottom, Layout::kPadBits),
          LOOM_U32_FIELD(x_pad_left, Layout::kPadBits),
          LOOM_U32_FIELD(x_pad_right, Layout::kPadBits),
          LOOM_S32_FIELD(pad_value, Layout::kPadValueBits),
      });
      break;
    case Opcode::kGemm:
      defs.Append({LOOM_BOOL_FIELD(reset, i.reset)});
      defs.Append(LoopDefs(l, l.inp_idx_bits));
      defs.Append({LOOM_U32_FIELD(wgt_factor_out, l.wgt_idx_bits),
                   LOOM_U32_FIELD(wgt_factor_in, l.wgt_idx_bits),
                   LOOM_BOOL_FIELD(depthwise, i.depthwise)});
      break;
    case Opcode::kAlu:
      defs.Append({
          FieldDef{"alu_op", Layout::kAluOpBits,
                   [](const Insn& i) -> uint64_t { return static_cast<uint64_t>(i.alu_op); },
                   [](Insn& i, uint64_t v) { i.alu_op = static_cast<AluOp>(v); }},
          LOOM_BOOL_FIELD(use_imm, i.use_imm),
      });
      if (requant) {
        defs.Append(LoopDefs(l, l.acc_idx_bits, false));
        defs.Append({LOOM_U32_FIELD(pre_shift, Layout::kRqShiftBits),
                     LOOM_U32_FIELD(post_shift, Layout::kRqShiftBits),
                     LOOM_S32_FIELD(clip_lo, Layout::kRqClipBits),
                     LOOM_S32_FIELD(clip_hi, Layout::kRqClipBits), LOOM_BOOL_FIELD(clear, i.clear),
                     LOOM_BOOL_FIELD(fuse, i.fuse)});
        break;
      }
      defs.Append(LoopDefs(l, l.acc_idx_bits));
      defs.Append({LOOM_S32_FIELD(imm, Layout::kImmBits)});  // 16-bit two's complement
      break;
    case Opcode::kFinish:
      break;
  }
  return defs;
}

#undef LOOM_U32_FIELD
#undef LOOM_BOOL_FIELD
#undef LOOM_S32_FIELD

bool IsRequant(const Insn& insn) {
  return insn.opcode == Opcode::kAlu && insn.alu_op == AluOp::kRequant;
}

// Every field of every format, once, for the "fields of other formats must be zero" check.
const std::vector<FieldDef>& AllDefs() {
  static const std::vector<FieldDef> all = [] {
    Layout wide;  // widths do not matter here, only the accessors
    std::vector<FieldDef> out;
    for (Opcode op : {Opcode::kLoad, Opcode::kGemm, Opcode::kAlu}) {
      for (bool requant : {false, true}) {
        for (const FieldDef& d : FormatDefs(wide, op, requant)) {
          bool seen = false;
          for (const FieldDef& o : out) seen = seen || std::strcmp(o.name, d.name) == 0;
          if (!seen) out.push_back(d);
        }
      }
    }
    return out;
  }();
  return all;
}

// The fields of AllDefs() that are not in the format of (op, requant), which must be zero; by name,
// worked out once per format (Verify runs on every instruction the compiler times).
const std::vector<FieldDef>& ForeignDefs(Opcode op, bool requant) {
  constexpr size_t kOps = static_cast<size_t>(Opcode::kAlu) + 1;  // the largest opcode
  static const std::vector<std::vector<FieldDef>> table = [] {
    Layout wide;
    std::vector<std::vector<FieldDef>> t(2 * kOps);
    for (size_t o = 0; o < kOps; ++o) {
      for (bool rq : {false, true}) {
        const FieldDefs mine = FormatDefs(wide, static_cast<Opcode>(o), rq);
        for (const FieldDef& d : AllDefs()) {
          bool in = false;
          for (const FieldDef& m : mine) in = in || std::strcmp(m.name, d.name) == 0;
          if (!in) t[2 * o + rq].push_back(d);
        }
      }
    }
    return t;
  }();
  return table[2 * static_cast<size_t>(op) + requant];
}

uint32_t TotalBits(const FieldDefs& defs) {
  uint32_t n = 0;
  for (const FieldDef& d : defs) n += d.width;
  return n;
}

uint64_t GetBits(const Word128& w, uint32_t lsb, uint32_t width) {
  uint64_t v = 0;
  for (uint32_t b = 0; b < width; ++b) {
    uint32_t pos = lsb + b;
    uint64_t bit = pos < 64 ? (w.lo >> pos) & 1 : (w.hi >> (pos - 64)) & 1;
    v |= bit << b;
  }
  return v;
}

void SetBits(Word128* w, uint32_t lsb, uint32_t width, uint64_t v) {
  for (uint32_t b = 0; b < width; ++b) {
    uint32_t pos = lsb + b;
    uint64_t bit = (v >> b) & 1;
    if (pos < 64) {
      w->lo |= bit << pos;
    } else {
      w->hi |= bit << (pos - 64);
    }
  }
}

}  // namespace

std::string Mnemonic(const Insn& insn) {
  std::string s = OpcodeName(insn.opcode);
  if (insn.opcode == Opcode::kLoad || insn.opcode == Opcode::kStore) {
    s += std::string(".") + BufferName(insn.buffer);
  } else if (insn.opcode == Opcode::kAlu) {
    s += std::string(".") + AluOpName(insn.alu_op);
  }
  return s;
}

namespace {

// "load.inp: <why>", with why formatted as by Format.
template <typename... A>
Status Bad(const Insn& insn, const char* why, const A&... a) {
  return InvalidArgument("{}: {}", Mnemonic(insn), Format(why, a...));
}

Status VerifyMemory(const Layout& l, const Insn& insn) {
  if (static_cast<uint32_t>(insn.buffer) > static_cast<uint32_t>(Buffer::kOut)) {
    return InvalidArgument("field 'buffer': unknown buffer {}", static_cast<uint32_t>(insn.buffer));
  }
  const bool load = insn.opcode == Opcode::kLoad;
  if (load && insn.buffer == Buffer::kOut) return Bad(insn, "the out buffer cannot be loaded");
  if (!load && insn.buffer != Buffer::kOut) return Bad(insn, "only the out buffer can be stored");
  // Only INP holds activations, whose zero point a padding element must carry; a pad value
  // anywhere else would be a second way to write the same zeros.
  if (insn.pad_value != 0 && !(load && insn.buffer == Buffer::kInp)) {
    return Bad(insn, "field 'pad_value' = {} is only allowed on loads of inp (must be 0 here)",
               insn.pad_value);
  }
  const bool padded = insn.y_pad_top || insn.y_pad_bottom || insn.x_pad_left || insn.x_pad_right;
  if (padded && (!load || insn.buffer == Buffer::kUop)) {
    return Bad(insn, "padding is only allowed on loads of inp, wgt and acc");
  }
  if (padded && (insn.y_size == 0 || insn.x_size == 0)) {
    return Bad(insn, "padding on an empty transfer (y or x size 0)");
  }
  if (insn.y_size > 1 && insn.x_stride < insn.x_size) {
    return Bad(insn, "x_stride {} is smaller than x_size {}", insn.x_stride, insn.x_size);
  }
  const uint64_t extent = (insn.y_size == 0 || insn.x_size == 0) ? 0 : insn.sram_extent();
  const uint32_t depth = l.depth(insn.buffer);
  if (insn.sram_base + extent > depth) {
    return Bad(insn, "sram range [{}, {}) exceeds the {} buffer depth {}", insn.sram_base,
               insn.sram_base + extent, BufferName(insn.buffer), depth);
  }
  return Status::Ok();
}

Status VerifyLoops(const Layout& l, const Insn& insn) {
  if (insn.uop_bgn >= insn.uop_end) {
    return Bad(insn, "empty micro-op range uop={}:{}", insn.uop_bgn, insn.uop_end);
  }
  if (insn.uop_end > l.uop_depth) {
    return Bad(insn, "uop_end {} exceeds the uop buffer depth {}", insn.uop_end, l.uop_depth);
  }
  if (insn.depthwise && insn.reset) {
    return Bad(insn, "depthwise and reset together (a reset reads no input for the window)");
  }
  return Status::Ok();
}

}  // namespace

uint32_t Layout::mem_bits() const { return TotalBits(FormatDefs(*this, Opcode::kLoad)); }
uint32_t Layout::gemm_bits() const { return TotalBits(FormatDefs(*this, Opcode::kGemm)); }
uint32_t Layout::alu_bits() const { return TotalBits(FormatDefs(*this, Opcode::kAlu)); }
uint32_t Layout::requant_bits() const { return TotalBits(FormatDefs(*this, Opcode::kAlu, true)); }

Status Layout::Create(const HwConfig& c, Layout* out) {
  Layout l;
  l.uop_depth = c.uop_depth();
  l.inp_depth = c.inp_depth();
  l.wgt_depth = c.wgt_depth();
  l.acc_depth = c.acc_depth();
  l.uop_idx_bits = c.uop_idx_bits();
  l.inp_idx_bits = c.inp_idx_bits();
  l.wgt_idx_bits = c.wgt_idx_bits();
  l.acc_idx_bits = c.acc_idx_bits();
  l.sram_bits = std::max({l.uop_idx_bits, l.inp_idx_bits, l.wgt_idx_bits, l.acc_idx_bits});
  l.uop_dst_bits = l.acc_idx_bits;
  l.uop_src_bits = std::max(l.inp_idx_bits, l.acc_idx_bits);
  l.uop_wgt_bits = l.wgt_idx_bits;
  const struct {
    const char* what;
    uint32_t bits;
    uint32_t limit;
    const char* fields;  // the config fields whose depths set this format's widths
  } checks[] = {
      {"LOAD/STORE instruction", l.mem_bits(), 128,
       "the largest of uop/inp/wgt/acc_buffer_bytes (in elements)"},
      {"GEMM instruction", l.gemm_bits(), 128,
       "uop_buffer_bytes, acc_buffer_bytes, inp_buffer_bytes, wgt_buffer_bytes"},
      {"ALU instruction", l.alu_bits(), 128, "uop_buffer_bytes, acc_buffer_bytes"},
      {"ALU REQUANT instruction", l.requant_bits(), 128, "uop_buffer_bytes, acc_buffer_bytes"},
      {"micro-op", l.uop_bits(), 32, "acc_buffer_bytes, inp_buffer_bytes, wgt_buffer_bytes"}};
  for (const auto& chk : checks) {
    if (chk.bits > chk.limit) {
      return InvalidArgument(
          "buffer depths too large: the {} needs {} bits, more than {}; reduce {}", chk.what,
          chk.bits, chk.limit, chk.fields);
    }
  }
  *out = l;
  return Status::Ok();
}

namespace {
std::vector<FieldSpec> Specs(const FieldDefs& defs) {
  std::vector<FieldSpec> out;
  uint32_t lsb = 0;
  for (const FieldDef& d : defs) {
    out.push_back({d.name, lsb, d.width});
    lsb += d.width;
  }
  return out;
}
}  // namespace

std::vector<FieldSpec> Fields(const Layout& layout, Opcode op) {
  return Specs(FormatDefs(layout, op));
}

std::vector<FieldSpec> RequantFields(const Layout& layout) {
  return Specs(FormatDefs(layout, Opcode::kAlu, true));
}

std::vector<FieldSpec> UopFields(const Layout& l) {
  return {{"dst", 0, l.uop_dst_bits},
          {"src", l.uop_dst_bits, l.uop_src_bits},
          {"wgt", l.uop_dst_bits + l.uop_src_bits, l.uop_wgt_bits}};
}

Status Verify(const Layout& layout, const Insn& insn) {
  if (static_cast<uint32_t>(insn.opcode) > static_cast<uint32_t>(Opcode::kAlu)) {
    return InvalidArgument("field 'opcode': unknown opcode {}", static_cast<uint32_t>(insn.opcode));
  }
  // Fields of other formats must be zero, so that every Insn has exactly one encoding.
  const FieldDefs defs = FormatDefs(layout, insn.opcode, IsRequant(insn));
  for (const FieldDef& d : ForeignDefs(insn.opcode, IsRequant(insn))) {
    if (d.get(insn) != 0) {
      return Bad(insn, "field '{}' does not belong to {} and must be 0", d.name,
                 OpcodeName(insn.opcode));
    }
  }
  if (insn.opcode == Opcode::kAlu) {
    if (static_cast<int>(insn.alu_op) >= kNumAluOps) {
      return InvalidArgument("field 'alu_op': unknown ALU op {}",
                             static_cast<uint32_t>(insn.alu_op));
    }
    // Range first, so that an out-of-range imm is named as such in either form.
    if (insn.imm < -32768 || insn.imm > 32767) {
      return Bad(insn, "field 'imm' = {} is outside [-32768, 32767]", insn.imm);
    }
    if (!insn.use_imm && insn.imm != 0) return Bad(insn, "imm is set but use_imm is not");
    // The immediate form has no second operand; nonzero src factors would be silently ignored.
    if (insn.use_imm && (insn.src_factor_out || insn.src_factor_in)) {
      return Bad(insn, "src factors must be 0 in the immediate form");
    }
    // REQUANT and RQPARAM take no immediate: REQUANT's operands are the parameter register and its
    // own fields, RQPARAM's are two ACC elements.
    if (insn.use_imm && (insn.alu_op == AluOp::kRequant || insn.alu_op == AluOp::kRqParam)) {
      return Bad(insn, "has no immediate form (use_imm must be 0)");
    }
    if (IsRequant(insn)) {
      // Checked before the field widths: a negative shift would otherwise read as 2^64 - n.
      for (const auto& [name, shift] :
           {std::pair{"pre_shift", insn.pre_shift}, std::pair{"post_shift", insn.post_shift}}) {
        if (!RequantShiftValid(shift)) {
          return Bad(insn, "field '{}' = {} is outside [0, {}] (REQUANT shifts right only)", name,
                     shift, kRqMaxShift);
        }
      }
      if (insn.clip_lo > insn.clip_hi) {
        return Bad(insn, "clip_lo {} is above clip_hi {}", insn.clip_lo, insn.clip_hi);
      }
      // A fused REQUANT is its GEMM's last reader of every sum it requantizes: it leaves ACC zero,
      // so the epilogue never has to write a requantized value back into the accumulators.
      if (insn.fuse && !insn.clear)
        return Bad(insn, "fuse needs clear (the epilogue leaves ACC zero)");
    }
  }
  if (insn.opcode == Opcode::kFinish && (insn.deps.push_prev || insn.deps.push_next)) {
    return Bad(insn, "FINISH cannot push tokens: nothing runs after it to pop them");
  }
  for (const FieldDef& d : defs) {
    if (d.is_signed) {
      const int64_t v = static_cast<int64_t>(d.get(insn)), lim = int64_t{1} << (d.width - 1);
      if (v < -lim || v >= lim) {
        return Bad(insn, "field '{}' = {} is outside [{}, {}]", d.name, v, -lim, lim - 1);
      }
      continue;
    }
    const uint64_t v = d.get(insn);
    if (d.width < 64 && (v >> d.width) != 0) {
      return Bad(insn, "field '{}' = {} does not fit in {} bits", d.name, v, d.width);
    }
  }
  // Dependency flags that name a module that does not exist.
  const Module m = insn.module();
  if (m == Module::kLoad && (insn.deps.pop_prev || insn.deps.push_prev)) {
    return Bad(insn, "runs on the load module, which has no previous module (pop_prev/push_prev)");
  }
  if (m == Module::kStore && (insn.deps.pop_next || insn.deps.push_next)) {
    return Bad(insn, "runs on the store module, which has no next module (pop_next/push_next)");
  }
  switch (insn.opcode) {
    case Opcode::kLoad:
    case Opcode::kStore: return VerifyMemory(layout, insn);
    case Opcode::kGemm:
    case Opcode::kAlu: return VerifyLoops(layout, insn);
    case Opcode::kFinish: return Status::Ok();
  }
  return Status::Ok();
}

Status Encode(const Layout& layout, const Insn& insn, Word128* out) {
  LOOM_RETURN_IF_ERROR(Verify(layout, insn));
  Word128 w;
  uint32_t lsb = 0;
  for (const FieldDef& d : FormatDefs(layout, insn.opcode, IsRequant(insn))) {
    SetBits(&w, lsb, d.width, d.get(insn));
    lsb += d.width;
  }
  *out = w;
  return Status::Ok();
}

namespace {
// Reads `defs` from the word in bit order; returns the first bit past them.
uint32_t DecodeFields(const FieldDefs& defs, const Word128& word, Insn* insn) {
  uint32_t lsb = 0;
  for (const FieldDef& d : defs) {
    d.set(*insn, GetBits(word, lsb, d.width));
    lsb += d.width;
  }
  return lsb;
}
}  // namespace

Status Decode(const Layout& layout, const Word128& word, Insn* out) {
  const uint64_t op = GetBits(word, 0, Layout::kOpcodeBits);
  if (op > static_cast<uint64_t>(Opcode::kAlu)) {
    return InvalidArgument("unknown opcode {}", op);
  }
  Insn insn;
  uint32_t lsb = DecodeFields(FormatDefs(layout, static_cast<Opcode>(op)), word, &insn);
  // alu_op sits at the same bits in both ALU formats (loom_insn_check.sv asserts it too), so the
  // plain format's reading of it picks the format to read the word with.
  if (IsRequant(insn)) {
    insn = Insn{};
    lsb = DecodeFields(FormatDefs(layout, Opcode::kAlu, true), word, &insn);
  }
  for (uint32_t pos = lsb; pos < 128; ++pos) {
    if (GetBits(word, pos, 1) != 0) {
      return InvalidArgument("{}: reserved bit {} is set (bits {}..127 must be zero)",
                             OpcodeName(insn.opcode), pos, lsb);
    }
  }
  if (insn.opcode == Opcode::kAlu && !insn.use_imm && insn.imm != 0) {
    return InvalidArgument("alu: imm is set but use_imm is not");
  }
  LOOM_RETURN_IF_ERROR(Verify(layout, insn));
  *out = insn;
  return Status::Ok();
}

Status EncodeUop(const Layout& l, const Uop& uop, uint32_t* out) {
  const struct {
    const char* name;
    uint32_t value;
    uint32_t width;
  } f[] = {{"dst", uop.dst, l.uop_dst_bits}, {"src", uop.src, l.uop_src_bits},
           {"wgt", uop.wgt, l.uop_wgt_bits}};
  uint64_t word = 0;
  uint32_t lsb = 0;
  for (const auto& x : f) {
    if ((uint64_t{x.value} >> x.width) != 0) {
      return InvalidArgument("uop field '{}' = {} does not fit in {} bits", x.name, x.value,
                             x.width);
    }
    word |= uint64_t{x.value} << lsb;
    lsb += x.width;
  }
  *out = static_cast<uint32_t>(word);
  return Status::Ok();
}

Status DecodeUop(const Layout& l, uint32_t word, Uop* out) {
  const uint32_t total = l.uop_bits();
  if (total < 32 && (word >> total) != 0) {
    return InvalidArgument("uop: reserved bits {}..31 are not zero", total);
  }
  auto field = [word](uint32_t lsb, uint32_t width) -> uint32_t {
    return width == 0 ? 0 : static_cast<uint32_t>((uint64_t{word} >> lsb) & ((1ull << width) - 1));
  };
  out->dst = field(0, l.uop_dst_bits);
  out->src = field(l.uop_dst_bits, l.uop_src_bits);
  out->wgt = field(l.uop_dst_bits + l.uop_src_bits, l.uop_wgt_bits);
  return Status::Ok();
}

void StoreWord(const Word128& w, uint8_t bytes[16]) {
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<uint8_t>(w.lo >> (8 * i));
    bytes[8 + i] = static_cast<uint8_t>(w.hi >> (8 * i));
  }
}

Word128 LoadWord(const uint8_t bytes[16]) {
  Word128 w;
  for (int i = 0; i < 8; ++i) {
    w.lo |= uint64_t{bytes[i]} << (8 * i);
    w.hi |= uint64_t{bytes[8 + i]} << (8 * i);
  }
  return w;
}

}  // namespace loom::isa
