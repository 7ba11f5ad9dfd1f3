#include "sim/fsim/machine.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace loom::fsim {

using isa::Buffer;
using isa::Insn;

namespace {

int8_t Saturate8(int32_t v) { return static_cast<int8_t>(std::clamp(v, -128, 127)); }

// Two's complement wrapping add, without signed-overflow UB.
int32_t WrapAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

int32_t AluApply(isa::AluOp op, int32_t a, int32_t x) {
  switch (op) {
    case isa::AluOp::kMin: return std::min(a, x);
    case isa::AluOp::kMax: return std::max(a, x);
    case isa::AluOp::kAdd: return WrapAdd(a, x);
    case isa::AluOp::kMul:
      return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(int64_t{a} * x)));
    case isa::AluOp::kShr:
    case isa::AluOp::kShrRound: {
      const int32_t n = std::clamp(x, -31, 31);
      if (n < 0) return static_cast<int32_t>(static_cast<uint32_t>(a) << -n);
      if (op == isa::AluOp::kShrRound && n > 0) {
        return static_cast<int32_t>((int64_t{a} + (int64_t{1} << (n - 1))) >> n);
      }
      return a >> n;
    }
    case isa::AluOp::kRequant:
    case isa::AluOp::kRqParam:
      break;  // not a two-operand op: Machine::Alu runs them
  }
  return a;
}

// REQUANT on one lane (docs/isa.md §3.4.1): exactly the ADD, SHR_RND, MUL, SHR_RND, MAX, MIN chain
// it replaces.
int32_t Requant(const Insn& insn, int32_t a, int32_t bias, int32_t mult) {
  using isa::AluOp;
  int32_t v = AluApply(AluOp::kAdd, a, bias);
  v = AluApply(AluOp::kShrRound, v, insn.pre_shift);
  v = AluApply(AluOp::kMul, v, mult);
  v = AluApply(AluOp::kShrRound, v, insn.post_shift);
  return std::clamp(v, insn.clip_lo, insn.clip_hi);
}

// acc[o] += dot(x, w[o]) for every output lane o; out[o] = sat8(acc[o]). A dot product is at most
// block_in * 2^14, far from int32 overflow; the accumulation itself wraps like the hardware.
// kBlockIn != 0 fixes the trip count at compile time so the dot product vectorizes.
template <uint32_t kBlockIn>
void DotRows(const int8_t* x, const int8_t* w, uint32_t bin, uint32_t bout, int32_t* acc,
             int8_t* out) {
  const uint32_t n = kBlockIn != 0 ? kBlockIn : bin;
  for (uint32_t o = 0; o < bout; ++o) {
    const int8_t* row = w + size_t{o} * n;
    int32_t sum = 0;
    for (uint32_t i = 0; i < n; ++i) sum += int32_t{x[i]} * int32_t{row[i]};
    acc[o] = WrapAdd(acc[o], sum);
    out[o] = Saturate8(acc[o]);
  }
}

// The depthwise mode's products for one batch row (docs/isa.md §3.3.1): lane o weighs tap t of
// channel (o & ~1) | h, from window slot t (0 = the newest element), with WGT column h*T + t,
// T = bin / 2. Requires bin == bout (Machine::Gemm checks).
void DepthwiseRow(const int8_t* window, size_t slot_stride, const int8_t* w, uint32_t bin,
                  int32_t* acc, int8_t* out) {
  const uint32_t taps = bin / 2;
  for (uint32_t o = 0; o < bin; ++o) {
    const int8_t* row = w + size_t{o} * bin;
    int32_t sum = 0;
    for (uint32_t i = 0; i < bin; ++i) {
      const uint32_t channel = (o & ~1u) | (i / taps);
      sum += int32_t{window[size_t{i % taps} * slot_stride + channel]} * int32_t{row[i]};
    }
    acc[o] = WrapAdd(acc[o], sum);
    out[o] = Saturate8(acc[o]);
  }
}

// Called once per inner loop iteration (`uops` micro-ops): whether the wall-clock limit has passed.
bool Expired(sim::Deadline* deadline, uint32_t uops) {
  return deadline != nullptr && deadline->Poll(uops == 0 ? 1 : uops);
}

Status Interrupted(const Insn& insn, uint32_t i0, uint32_t i1) {
  return Status(StatusCode::kDeadlineExceeded,
                "stopped in loop iteration (" + std::to_string(i0) + ", " + std::to_string(i1) +
                    ") of " + std::to_string(insn.loop_out) + "x" + std::to_string(insn.loop_in));
}

std::string Index(const char* what, uint64_t index, uint32_t depth) {
  return std::string(what) + " index " + std::to_string(index) + " is outside the " + what +
         " buffer (depth " + std::to_string(depth) + ")";
}

}  // namespace

Machine::Machine(const HwConfig& config, const isa::Layout& layout)
    : config_(config),
      layout_(layout),
      lanes_(config.batch * config.block_out),
      uop_(config.uop_depth()),
      inp_(size_t{config.inp_depth()} * config.inp_elem_bytes()),
      wgt_(size_t{config.wgt_depth()} * config.wgt_elem_bytes()),
      acc_(size_t{config.acc_depth()} * lanes_),
      out_(size_t{config.out_depth()} * lanes_),
      rq_bias_(size_t{isa::kRqParamDepth} * lanes_),
      rq_mult_(size_t{isa::kRqParamDepth} * lanes_) {}

uint32_t Machine::elem_bytes(Buffer b) const { return isa::ElemBytes(config_, b); }

Status Machine::Execute(const Insn& insn, sim::Dram& dram, sim::Deadline* deadline) {
  switch (insn.opcode) {
    case isa::Opcode::kLoad: return Load(insn, dram);
    case isa::Opcode::kStore: return Store(insn, dram);
    case isa::Opcode::kGemm:
      return Gemm(insn, deadline);
    case isa::Opcode::kAlu:
      return Alu(insn, deadline);
    case isa::Opcode::kFinish:
      if (epilogue_armed_) return FailedPrecondition(isa::kEpilogueWithoutGemm);
      return Status::Ok();
  }
  return Internal("unknown opcode");
}

Status Machine::FillElement(Buffer buffer, uint32_t index, const uint8_t* src) {
  switch (buffer) {
    case Buffer::kUop: {
      uint32_t word = 0;
      for (int i = 0; i < 4; ++i) word |= uint32_t{src[i]} << (8 * i);
      return isa::DecodeUop(layout_, word, &uop_[index]);
    }
    case Buffer::kInp:
      std::memcpy(&inp_[size_t{index} * config_.inp_elem_bytes()], src, config_.inp_elem_bytes());
      return Status::Ok();
    case Buffer::kWgt:
      std::memcpy(&wgt_[size_t{index} * config_.wgt_elem_bytes()], src, config_.wgt_elem_bytes());
      return Status::Ok();
    case Buffer::kAcc:
      for (uint32_t l = 0; l < lanes_; ++l) {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= uint32_t{src[4 * l + i]} << (8 * i);
        acc_[size_t{index} * lanes_ + l] = static_cast<int32_t>(v);
      }
      return Status::Ok();
    case Buffer::kOut: break;
  }
  return Internal("load into the out buffer");
}

void Machine::PadElement(Buffer buffer, uint32_t index, int32_t pad_value) {
  switch (buffer) {
    case Buffer::kUop: uop_[index] = isa::Uop(); break;
    case Buffer::kInp:
      std::memset(&inp_[size_t{index} * config_.inp_elem_bytes()],
                  static_cast<uint8_t>(static_cast<int8_t>(pad_value)), config_.inp_elem_bytes());
      break;
    case Buffer::kWgt:
      std::memset(&wgt_[size_t{index} * config_.wgt_elem_bytes()], 0, config_.wgt_elem_bytes());
      break;
    case Buffer::kAcc: std::fill_n(&acc_[size_t{index} * lanes_], lanes_, 0); break;
    case Buffer::kOut: break;
  }
}

Status Machine::Load(const Insn& insn, const sim::Dram& dram) {
  if (insn.y_size == 0 || insn.x_size == 0) return Status::Ok();
  const uint32_t eb = elem_bytes(insn.buffer);
  const uint32_t width = insn.x_pad_left + insn.x_size + insn.x_pad_right;
  const uint32_t height = insn.y_pad_top + insn.y_size + insn.y_pad_bottom;
  uint32_t index = insn.sram_base;  // Verify() guaranteed the padded block fits the buffer
  for (uint32_t y = 0; y < height; ++y) {
    const bool pad_row = y < insn.y_pad_top || y >= insn.y_pad_top + insn.y_size;
    uint64_t row_addr = 0;
    if (!pad_row) {
      row_addr = (uint64_t{insn.dram_base} + uint64_t{y - insn.y_pad_top} * insn.x_stride) * eb;
      if (!dram.Contains(row_addr, uint64_t{insn.x_size} * eb)) {
        return OutOfRange("DMA reads " + std::to_string(uint64_t{insn.x_size} * eb) +
                          " bytes at DRAM address " + std::to_string(row_addr) +
                          ", outside DRAM of " + std::to_string(dram.size()) + " bytes");
      }
    }
    for (uint32_t x = 0; x < width; ++x, ++index) {
      if (pad_row || x < insn.x_pad_left || x >= insn.x_pad_left + insn.x_size) {
        PadElement(insn.buffer, index, insn.pad_value);
        continue;
      }
      const uint8_t* src = dram.At(row_addr + uint64_t{x - insn.x_pad_left} * eb);
      LOOM_RETURN_IF_ERROR(FillElement(insn.buffer, index, src));
    }
  }
  return Status::Ok();
}

Status Machine::Store(const Insn& insn, sim::Dram& dram) {
  if (insn.y_size == 0 || insn.x_size == 0) return Status::Ok();
  const uint32_t eb = config_.out_elem_bytes();
  for (uint32_t y = 0; y < insn.y_size; ++y) {
    const uint64_t row_addr = (uint64_t{insn.dram_base} + uint64_t{y} * insn.x_stride) * eb;
    const uint8_t* src =
        reinterpret_cast<const uint8_t*>(&out_[size_t{insn.sram_base + y * insn.x_size} * lanes_]);
    Status s = dram.Write(row_addr, src, uint64_t{insn.x_size} * eb);
    if (!s.ok()) return OutOfRange("DMA " + s.message());
  }
  return Status::Ok();
}

Status Machine::Gemm(const Insn& insn, sim::Deadline* deadline) {
  const uint32_t batch = config_.batch, bin = config_.block_in, bout = config_.block_out;
  const uint32_t inp_eb = config_.inp_elem_bytes(), wgt_eb = config_.wgt_elem_bytes();
  if (insn.depthwise) {
    if (bin != bout || bin % 2 != 0) {
      return InvalidArgument("gemm depthwise needs block_in == block_out, even (config " +
                             config_.name + " has " + std::to_string(bin) + "x" +
                             std::to_string(bout) + ")");
    }
    // The window starts empty at every depthwise GEMM: slot t holds the element read t
    // iterations ago, all-zero lanes before that.
    window_.assign(size_t{bin / 2} * inp_eb, 0);
  }
  for (uint32_t i0 = 0; i0 < insn.loop_out; ++i0) {
    for (uint32_t i1 = 0; i1 < insn.loop_in; ++i1) {
      if (Expired(deadline, insn.uop_end - insn.uop_bgn)) return Interrupted(insn, i0, i1);
      for (uint32_t u = insn.uop_bgn; u < insn.uop_end; ++u) {
        const isa::Uop& uop = uop_[u];
        const uint64_t d = uop.dst + uint64_t{i0} * insn.dst_factor_out + uint64_t{i1} * insn.dst_factor_in;
        const uint64_t s = uop.src + uint64_t{i0} * insn.src_factor_out + uint64_t{i1} * insn.src_factor_in;
        const uint64_t w = uop.wgt + uint64_t{i0} * insn.wgt_factor_out + uint64_t{i1} * insn.wgt_factor_in;
        if (d >= layout_.acc_depth) return OutOfRange(Index("acc", d, layout_.acc_depth));
        int32_t* acc = &acc_[d * lanes_];
        int8_t* out = &out_[d * lanes_];
        if (insn.reset) {
          std::fill_n(acc, lanes_, 0);
          std::fill_n(out, lanes_, 0);
          if (epilogue_armed_) ApplyEpilogue(acc, out);
          continue;
        }
        if (s >= layout_.inp_depth) return OutOfRange(Index("inp", s, layout_.inp_depth));
        if (w >= layout_.wgt_depth) return OutOfRange(Index("wgt", w, layout_.wgt_depth));
        const int8_t* in = &inp_[s * inp_eb];
        const int8_t* wt = &wgt_[w * wgt_eb];
        if (insn.depthwise) {
          std::copy_backward(window_.begin(), window_.end() - inp_eb, window_.end());
          std::copy(in, in + inp_eb, window_.begin());
          for (uint32_t b = 0; b < batch; ++b) {
            DepthwiseRow(window_.data() + size_t{b} * bin, inp_eb, wt, bin, acc + b * bout,
                         out + b * bout);
          }
          if (epilogue_armed_) ApplyEpilogue(acc, out);
          continue;
        }
        for (uint32_t b = 0; b < batch; ++b) {
          const int8_t* x = in + size_t{b} * bin;
          switch (bin) {  // constant trip counts let the compiler vectorize the dot products
            case 8: DotRows<8>(x, wt, bin, bout, acc + b * bout, out + b * bout); break;
            case 16: DotRows<16>(x, wt, bin, bout, acc + b * bout, out + b * bout); break;
            case 32: DotRows<32>(x, wt, bin, bout, acc + b * bout, out + b * bout); break;
            default: DotRows<0>(x, wt, bin, bout, acc + b * bout, out + b * bout); break;
          }
        }
        if (epilogue_armed_) ApplyEpilogue(acc, out);
      }
    }
  }
  epilogue_armed_ = false;  // one GEMM's worth
  return Status::Ok();
}

void Machine::ApplyEpilogue(int32_t* acc, int8_t* out) const {
  const size_t p = size_t{epilogue_entry_} * lanes_;
  for (uint32_t l = 0; l < lanes_; ++l) {
    out[l] = Saturate8(Requant(epilogue_, acc[l], rq_bias_[p + l], rq_mult_[p + l]));
    acc[l] = 0;  // fuse implies clear (isa::Verify)
  }
}

Status Machine::Alu(const Insn& insn, sim::Deadline* deadline) {
  if (epilogue_armed_) return FailedPrecondition(isa::kEpilogueWithoutGemm);
  for (uint32_t i0 = 0; i0 < insn.loop_out; ++i0) {
    for (uint32_t i1 = 0; i1 < insn.loop_in; ++i1) {
      if (Expired(deadline, insn.uop_end - insn.uop_bgn)) return Interrupted(insn, i0, i1);
      for (uint32_t u = insn.uop_bgn; u < insn.uop_end; ++u) {
        const isa::Uop& uop = uop_[u];
        const uint64_t d = uop.dst + uint64_t{i0} * insn.dst_factor_out + uint64_t{i1} * insn.dst_factor_in;
        const uint64_t s = uop.src + uint64_t{i0} * insn.src_factor_out + uint64_t{i1} * insn.src_factor_in;
        const bool requant = insn.alu_op == isa::AluOp::kRequant;
        if (d >= layout_.acc_depth) return OutOfRange(Index("acc", d, layout_.acc_depth));
        if (!insn.use_imm && !requant && s >= layout_.acc_depth) {
          return OutOfRange(Index("acc", s, layout_.acc_depth));
        }
        int32_t* dst = &acc_[d * lanes_];
        const int32_t* src = &acc_[s * lanes_];
        int8_t* out = &out_[d * lanes_];
        const bool rqparam = insn.alu_op == isa::AluOp::kRqParam;
        if ((requant || rqparam) && uop.wgt >= isa::kRqParamDepth) {
          return OutOfRange(Index("rqp", uop.wgt, isa::kRqParamDepth));
        }
        const size_t p = size_t{uop.wgt} * lanes_;
        if (rqparam) {  // reads both operands, writes no buffer
          std::copy(dst, dst + lanes_, rq_bias_.begin() + p);
          std::copy(src, src + lanes_, rq_mult_.begin() + p);
          continue;
        }
        if (requant && insn.fuse) {  // arms the next GEMM's epilogue; writes nothing
          epilogue_entry_ = uop.wgt;
          continue;
        }
        if (requant) {
          for (uint32_t l = 0; l < lanes_; ++l) {
            const int32_t v = Requant(insn, dst[l], rq_bias_[p + l], rq_mult_[p + l]);
            out[l] = Saturate8(v);
            dst[l] = insn.clear ? 0 : v;  // clear: the next tile accumulates from zero
          }
          continue;
        }
        for (uint32_t l = 0; l < lanes_; ++l) {
          const int32_t x = insn.use_imm ? insn.imm : src[l];
          dst[l] = AluApply(insn.alu_op, dst[l], x);
          out[l] = Saturate8(dst[l]);
        }
      }
    }
  }
  if (isa::ArmsEpilogue(insn)) {
    epilogue_armed_ = true;
    epilogue_ = insn;
  }
  return Status::Ok();
}

}  // namespace loom::fsim
