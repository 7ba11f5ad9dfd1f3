#include "compiler/tensorize/conv2d.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "compiler/tensorize/eltwise.h"
#include "compiler/tensorize/insn_util.h"
#include "runtime/core/blocked_layout.h"

namespace loom::tensorize {

using isa::AluOp;
using isa::Buffer;
using isa::Insn;
using isa::Opcode;

namespace {

Insn Loop(Opcode op, uint32_t uop, uint32_t uops, uint32_t loop_out, uint32_t loop_in) {
  Insn i;
  i.opcode = op;
  i.uop_bgn = uop;
  i.uop_end = uop + uops;
  i.loop_out = loop_out;
  i.loop_in = loop_in;
  return i;
}

// SRAM footprint of a tiling: per virtual thread, one input tile, one weight tile and one
// accumulator tile; plus one bias and one multiplier row shared by the threads. A depthwise tile
// holds the input blocks of its own output blocks and their weights: one element per (block, row)
// and KH zero elements after them in window form, one diagonal block per (block, tap) otherwise.
struct Footprint {
  uint32_t ih, iw;       // input tile rows and columns (with halo)
  uint32_t inp, wgt, acc;
  Footprint(const HwConfig& c, const Conv2dLayer& l, const Conv2dTiling& t)
      : ih(l.in_rows(t.oh)),
        iw((t.ow - 1) * l.stride_w + l.kw),
        inp((l.depthwise ? t.oc : t.ic) * ih * iw),
        wgt(UsesDepthwiseWindow(c, l) ? (t.oc + 1) * l.kh
                                      : t.oc * (l.depthwise ? 1 : t.ic) * l.kh * l.kw),
        acc(t.oc * t.oh * t.ow) {}
  bool Fits(const HwConfig& c, uint32_t v, uint32_t oc) const {
    return uint64_t{v} * inp <= c.inp_depth() && uint64_t{v} * wgt <= c.wgt_depth() &&
           uint64_t{v} * acc + 2ull * oc + kConvScratchAcc <= c.acc_depth();
  }
};

class Emitter {
 public:
  Emitter(const HwConfig& c, const Conv2dLayer& l, const Conv2dTiling& t)
      : c_(c),
        l_(l),
        t_(t),
        fp_(c, l, t),
        V_(t.virtual_threads),
        window_(UsesDepthwiseWindow(c, l)) {}

  Status Run(AccelCode* code);

 private:
  // Micro-ops of a reduction step: for each (oc, ic, kh, kw) one GEMM step into acc plane oc; in
  // window form, for each oc one per input column of a row.
  // `last_apart`: each block's last micro-op goes after every block's others (block oc's at
  // first + oc_n * (steps - 1) + oc), for the GEMM epilogue's split of the last step. In window
  // form it instead gives the walk of the last filter row (block oc's iw micro-ops at
  // first + oc * iw), whose warm-up columns add into the scratch element.
  uint32_t GemmUops(uint32_t oc_n, uint32_t ic_n, uint32_t iw, uint32_t plane, uint32_t r,
                    uint32_t a, bool last_apart = false);
  // One micro-op per output-channel block: dst = acc plane, src = src_base + oc.
  uint32_t PlaneUops(uint32_t oc_n, uint32_t a, uint32_t src_base);
  // REQUANT's and RQPARAM's micro-ops: block oc's acc plane, or its bias and multiplier elements,
  // with parameter entry oc in the wgt field.
  uint32_t RequantUops(uint32_t oc_n, uint32_t a);
  uint32_t RqParamUops(uint32_t oc_n);
  Status LoadInput(uint32_t nb, uint32_t c0, uint32_t ic_n, uint32_t oh0, uint32_t oh_n,
                   uint32_t ow0, uint32_t ow_n, uint32_t r, bool pop);
  void Alu(AluOp op, bool imm, int32_t value, uint32_t uops, uint32_t oc_n, uint32_t oh_n,
           uint32_t ow_n);
  // The layer's fused REQUANT over `uops` micro-ops with loops oh_n x ow_n.
  Insn Requant(uint32_t uop, uint32_t uops, uint32_t oh_n, uint32_t ow_n) const;

  const HwConfig& c_;
  const Conv2dLayer& l_;
  const Conv2dTiling& t_;
  const Footprint fp_;
  const uint32_t V_;
  const bool window_;  // depthwise in the GEMM's depthwise mode
  AccelCode body_;  // instructions after the LOAD UOP
  std::vector<isa::Uop> uops_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, bool>, uint32_t>
      gemm_sets_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> plane_sets_;
};

uint32_t Emitter::GemmUops(uint32_t oc_n, uint32_t ic_n, uint32_t iw, uint32_t plane, uint32_t r,
                           uint32_t a, bool last_apart) {
  const auto key = std::make_tuple(oc_n, ic_n, iw, plane, r, a, last_apart);
  if (auto it = gemm_sets_.find(key); it != gemm_sets_.end()) return it->second;
  const uint32_t first = static_cast<uint32_t>(uops_.size());
  if (window_) {
    // Per block, walk one input row of the tile (the GEMM's loops add the row and filter row).
    // The micro-op reading the last column of output j's window adds block oc's filter row into
    // output j; every other one (the warm-up, and the columns between a stride's outputs) weighs
    // the zero elements after the tile's weights and adds 0 to the block's output 0. Nothing
    // clears the window between blocks: the warm-up refills the KW slots that carry weight.
    const uint32_t zeros = r * fp_.wgt + oc_n * l_.kh;
    const uint32_t row = last_apart ? l_.kh - 1 : 0;  // the filter row the walk starts at
    const uint32_t scratch = V_ * fp_.acc + 2 * t_.oc;
    for (uint32_t oc = 0; oc < oc_n; ++oc) {
      const uint32_t out = a * fp_.acc + oc * t_.oh * t_.ow;
      for (uint32_t x = 0; x < iw; ++x) {
        const bool last = x + 1 >= l_.kw && (x + 1 - l_.kw) % l_.stride_w == 0;
        const uint32_t dst = last         ? out + (x + 1 - l_.kw) / l_.stride_w
                             : last_apart ? scratch
                                          : out;
        uops_.push_back({dst, r * fp_.inp + oc * plane + row * iw + x,
                         last ? r * fp_.wgt + oc * l_.kh + row : zeros + row});
      }
    }
    gemm_sets_[key] = first;
    return first;
  }
  std::vector<isa::Uop> last;  // with last_apart
  for (uint32_t oc = 0; oc < oc_n; ++oc) {
    const uint32_t begin = static_cast<uint32_t>(uops_.size());
    if (l_.depthwise) {  // block oc's own input plane and diagonal weights; ic_n == oc_n
      for (uint32_t y = 0; y < l_.kh; ++y)
        for (uint32_t x = 0; x < l_.kw; ++x)
          uops_.push_back({a * fp_.acc + oc * t_.oh * t_.ow, r * fp_.inp + oc * plane + y * iw + x,
                           r * fp_.wgt + oc * l_.kh * l_.kw + y * l_.kw + x});
    } else {
      for (uint32_t ic = 0; ic < ic_n; ++ic)
        for (uint32_t y = 0; y < l_.kh; ++y)
          for (uint32_t x = 0; x < l_.kw; ++x)
            uops_.push_back({a * fp_.acc + oc * t_.oh * t_.ow,
                             r * fp_.inp + ic * plane + y * iw + x,
                             r * fp_.wgt + (oc * ic_n + ic) * l_.kh * l_.kw + y * l_.kw + x});
    }
    if (last_apart && uops_.size() > begin) {
      last.push_back(uops_.back());
      uops_.pop_back();
    }
  }
  uops_.insert(uops_.end(), last.begin(), last.end());
  gemm_sets_[key] = first;
  return first;
}

Insn Emitter::Requant(uint32_t uop, uint32_t uops, uint32_t oh_n, uint32_t ow_n) const {
  Insn rq = Loop(Opcode::kAlu, uop, uops, oh_n, ow_n);
  rq.alu_op = AluOp::kRequant;
  rq.dst_factor_out = ow_n;
  rq.dst_factor_in = 1;
  rq.pre_shift = l_.pre_shift;
  rq.post_shift = l_.post_shift;
  rq.clip_lo = std::max(l_.clip_lo, -128);
  rq.clip_hi = std::min(l_.clip_hi, 127);
  rq.clear = true;  // the tile's last reader of its accumulators
  return rq;
}

uint32_t Emitter::RequantUops(uint32_t oc_n, uint32_t a) {
  const auto key = std::make_tuple(oc_n, a, UINT32_MAX);  // src_base never reaches UINT32_MAX
  if (auto it = plane_sets_.find(key); it != plane_sets_.end()) return it->second;
  const uint32_t first = static_cast<uint32_t>(uops_.size());
  for (uint32_t oc = 0; oc < oc_n; ++oc) uops_.push_back({a * fp_.acc + oc * t_.oh * t_.ow, 0, oc});
  plane_sets_[key] = first;
  return first;
}

uint32_t Emitter::RqParamUops(uint32_t oc_n) {
  const auto key = std::make_tuple(oc_n, UINT32_MAX, UINT32_MAX);
  if (auto it = plane_sets_.find(key); it != plane_sets_.end()) return it->second;
  const uint32_t first = static_cast<uint32_t>(uops_.size());
  const uint32_t bias_base = V_ * fp_.acc, mult_base = bias_base + t_.oc;
  for (uint32_t oc = 0; oc < oc_n; ++oc) uops_.push_back({bias_base + oc, mult_base + oc, oc});
  plane_sets_[key] = first;
  return first;
}

uint32_t Emitter::PlaneUops(uint32_t oc_n, uint32_t a, uint32_t src_base) {
  const auto key = std::make_tuple(oc_n, a, src_base);
  if (auto it = plane_sets_.find(key); it != plane_sets_.end()) return it->second;
  const uint32_t first = static_cast<uint32_t>(uops_.size());
  for (uint32_t oc = 0; oc < oc_n; ++oc) uops_.push_back({a * fp_.acc + oc * t_.oh * t_.ow, src_base + oc, 0});
  plane_sets_[key] = first;
  return first;
}

Status Emitter::LoadInput(uint32_t nb, uint32_t c0, uint32_t ic_n, uint32_t oh0, uint32_t oh_n,
                          uint32_t ow0, uint32_t ow_n, uint32_t r, bool pop) {
  // Rows and columns of the input this tile reads, some of them in the padding.
  const int64_t ih_lo = int64_t{oh0} * l_.stride_h - l_.pad_top;
  const int64_t iw_lo = int64_t{ow0} * l_.stride_w - l_.pad_left;
  // DRAM rows: every stride_h-th one when the layer skips rows (then no vertical padding).
  const int64_t ih_n = l_.SkipsRows() ? int64_t{oh_n - 1} * l_.stride_h + 1 : l_.in_rows(oh_n);
  const int64_t iw_n = int64_t{ow_n - 1} * l_.stride_w + l_.kw;
  const int64_t top = std::max<int64_t>(0, -ih_lo), left = std::max<int64_t>(0, -iw_lo);
  const int64_t bottom = std::max<int64_t>(0, ih_lo + ih_n - l_.h);
  const int64_t right = std::max<int64_t>(0, iw_lo + iw_n - l_.w);
  int64_t rows = ih_n - top - bottom;
  const int64_t cols = iw_n - left - right;
  if (rows <= 0 || cols <= 0 || std::max({top, bottom, left, right}) > 15) {
    return InvalidArgument("layer " + l_.name + ": tile at output (" + std::to_string(oh0) + ", " +
                           std::to_string(ow0) + ") needs padding beyond the DMA's 15 elements");
  }
  const uint32_t plane = l_.in_rows(oh_n) * static_cast<uint32_t>(iw_n);
  const uint32_t pitch = l_.SkipsRows() ? l_.stride_h * l_.w : l_.w;
  if (l_.SkipsRows()) rows = oh_n;
  for (uint32_t ic = 0; ic < ic_n; ++ic) {
    const uint64_t dram = l_.input + ((uint64_t{nb} * l_.c_blocks + c0 + ic) * l_.h +
                                      static_cast<uint64_t>(ih_lo + top)) * l_.w +
                          static_cast<uint64_t>(iw_lo + left);
    Insn i = Dma(Opcode::kLoad, Buffer::kInp, r * fp_.inp + ic * plane, static_cast<uint32_t>(dram),
                 static_cast<uint32_t>(rows), static_cast<uint32_t>(cols), pitch);
    i.y_pad_top = static_cast<uint32_t>(top);
    i.y_pad_bottom = static_cast<uint32_t>(bottom);
    i.x_pad_left = static_cast<uint32_t>(left);
    i.x_pad_right = static_cast<uint32_t>(right);
    // Every lane of a padding element holds pad_value, the lanes of channels past the layer's
    // last (a partial block) and of batch rows past N included. Those lanes cannot change a
    // result: channel padding multiplies the packed weights' zero rows (a depthwise block's too:
    // its diagonal is zero past the last channel), and batch padding only feeds output rows past
    // N, which nobody reads. The DRAM elements' channel-padding lanes are likewise never weighed.
    i.pad_value = l_.pad_value;
    i.deps.pop_next = pop && ic == 0;  // compute has finished reading region r
    body_.Emit(i, Region::kArena);
  }
  return Status::Ok();
}

void Emitter::Alu(AluOp op, bool imm, int32_t value, uint32_t uops, uint32_t oc_n, uint32_t oh_n,
                  uint32_t ow_n) {
  // Loops over the tile's rows and columns; the micro-ops pick the output-channel planes.
  Insn i = Loop(Opcode::kAlu, uops, oc_n, oh_n, ow_n);
  i.alu_op = op;
  i.use_imm = imm;
  i.imm = imm ? value : 0;
  i.dst_factor_out = ow_n;
  i.dst_factor_in = 1;
  body_.Emit(i);
}

Status Emitter::Run(AccelCode* code) {
  const uint32_t OH = l_.out_h(), OW = l_.out_w();
  // A depthwise tile's reduction is one step over its own channel blocks.
  const uint32_t n_oc = CeilDiv(l_.o_blocks, t_.oc);
  const uint32_t n_ic = l_.depthwise ? 1 : CeilDiv(l_.c_blocks, t_.ic);
  const uint32_t taps = l_.kh * l_.kw;
  const uint32_t n_oh = CeilDiv(OH, t_.oh), n_ow = CeilDiv(OW, t_.ow);
  const uint32_t T = l_.n_blocks * n_oc * n_oh * n_ow, S = T * n_ic;
  const uint32_t bias_base = V_ * fp_.acc, mult_base = bias_base + t_.oc;
  std::vector<std::pair<uint32_t, uint32_t>> wgt_in_region(V_, {UINT32_MAX, UINT32_MAX});
  const bool fused = UsesFusedRequant(l_, t_);
  // The fused REQUANT leaves the accumulators it read zero (docs/isa.md §3.4.1).
  ZeroedAcc zeroed(V_);
  uint32_t t = 0, s = 0, loaded_oc = UINT32_MAX;
  for (uint32_t nb = 0; nb < l_.n_blocks; ++nb) {
    for (uint32_t oc0 = 0; oc0 < l_.o_blocks; oc0 += t_.oc) {
      const uint32_t oc_n = std::min(t_.oc, l_.o_blocks - oc0);
      for (uint32_t oh0 = 0; oh0 < OH; oh0 += t_.oh) {
        const uint32_t oh_n = std::min(t_.oh, OH - oh0);
        for (uint32_t ow0 = 0; ow0 < OW; ow0 += t_.ow, ++t) {
          const uint32_t ow_n = std::min(t_.ow, OW - ow0);
          const uint32_t a = t % V_;
          if (loaded_oc != oc0) {  // this tile's bias and multipliers (compute runs in order)
            if (l_.has_bias) {
              body_.Emit(Dma(Opcode::kLoad, Buffer::kAcc, bias_base, l_.bias + oc0, 1, oc_n, oc_n),
                         Region::kConstants);
            }
            body_.Emit(Dma(Opcode::kLoad, Buffer::kAcc, mult_base, l_.mult + oc0, 1, oc_n, oc_n),
                       Region::kConstants);
            if (fused) {
              // Into the parameter buffer, once per output-channel tile (a zero bias if none).
              const uint32_t params = RqParamUops(oc_n);
              if (!l_.has_bias) {
                Insn zero = Loop(Opcode::kGemm, params, oc_n, 1, 1);
                zero.reset = true;
                body_.Emit(zero);
              }
              Insn p = Loop(Opcode::kAlu, params, oc_n, 1, 1);
              p.alu_op = AluOp::kRqParam;
              body_.Emit(p);
            }
            loaded_oc = oc0;
          }
          // The store of tile t-V must have drained region a before anything writes it.
          const bool drained = t >= V_;
          const bool zero = fused && zeroed.Covers(a, oc_n, oh_n * ow_n);
          if (!zero) {
            Insn reset = Loop(Opcode::kGemm, PlaneUops(oc_n, a, 0), oc_n, oh_n, ow_n);
            reset.reset = true;
            reset.dst_factor_out = ow_n;
            reset.dst_factor_in = 1;
            reset.deps.pop_next = drained;
            body_.Emit(reset);
            zeroed.Cleared(a, oc_n, oh_n * ow_n);
          }
          const bool epilogue = fused && UsesGemmEpilogue(c_, l_, t_, oh_n * ow_n);
          for (uint32_t step = 0; step < n_ic; ++step, ++s) {
            const uint32_t ic0 = l_.depthwise ? oc0 : step * t_.ic;
            const uint32_t ic_n = l_.depthwise ? oc_n : std::min(t_.ic, l_.c_blocks - ic0);
            const uint32_t r = s % V_;
            LOOM_RETURN_IF_ERROR(LoadInput(nb, ic0, ic_n, oh0, oh_n, ow0, ow_n, r, s >= V_));
            // Weights stay in region r while it serves the same blocks (a depthwise tile's taps
            // are loaded once per channel tile and thread, not per spatial tile).
            if (wgt_in_region[r] != std::make_pair(oc0, ic0)) {
              if (window_) {
                // The tile's filter rows as one row, then the KH zero elements its warm-up reads.
                Insn w = Dma(Opcode::kLoad, Buffer::kWgt, r * fp_.wgt, l_.weights + oc0 * l_.kh, 1,
                             oc_n * l_.kh, oc_n * l_.kh);
                w.x_pad_right = l_.kh;
                body_.Emit(w, Region::kConstants);
              } else {
                const uint32_t row = l_.depthwise ? taps : ic_n * taps;
                const uint32_t stride = l_.depthwise ? taps : l_.c_blocks * taps;
                const uint32_t at = l_.depthwise ? oc0 * taps : (oc0 * l_.c_blocks + ic0) * taps;
                body_.Emit(Dma(Opcode::kLoad, Buffer::kWgt, r * fp_.wgt, l_.weights + at, oc_n, row,
                               stride),
                           Region::kConstants);
              }
              wgt_in_region[r] = {oc0, ic0};
            }
            body_.last().deps.push_next = true;  // region r is ready for compute
            const uint32_t iw = (ow_n - 1) * l_.stride_w + l_.kw;
            const uint32_t plane = l_.in_rows(oh_n) * iw;
            const bool split = epilogue && step + 1 == n_ic;
            const uint32_t uops = GemmUops(oc_n, ic_n, iw, plane, r, a, split);
            Insn g;
            if (window_) {  // rows of the tile x filter rows; the micro-ops walk the columns
              g = Loop(Opcode::kGemm, split ? GemmUops(oc_n, ic_n, iw, plane, r, a) : uops,
                       oc_n * iw, oh_n, l_.kh);
              g.depthwise = true;
              g.dst_factor_out = ow_n;
              g.src_factor_out = l_.in_row_step() * iw;
              g.src_factor_in = iw;
              g.wgt_factor_in = 1;
            } else {  // rows x columns of the tile; the micro-ops walk blocks and taps
              g = Loop(Opcode::kGemm, uops, oc_n * (l_.depthwise ? 1 : ic_n) * taps, oh_n, ow_n);
              g.dst_factor_out = ow_n;
              g.dst_factor_in = 1;
              g.src_factor_out = l_.in_row_step() * iw;
              g.src_factor_in = l_.stride_w;
            }
            std::vector<Insn> group = {g};
            if (split) {
              // The step without each block's last update (every filter row but the last in
              // window form; else every micro-op but the block's last), then per block a
              // REQUANT that arms its epilogue (parameter entry oc) and a GEMM of its last update.
              Insn head = g;
              const uint32_t rest = g.uop_end - g.uop_bgn - oc_n;  // not in window form
              if (window_) {
                head.loop_in = l_.kh - 1;
              } else {
                head.uop_end = g.uop_bgn + rest;
              }
              group.clear();
              if (window_ ? l_.kh > 1 : rest > 0) group.push_back(head);
              const uint32_t rq = RequantUops(oc_n, a);
              for (uint32_t oc = 0; oc < oc_n; ++oc) {
                Insn arm = Requant(rq + oc, 1, 1, 1);
                arm.dst_factor_out = arm.dst_factor_in = 0;
                arm.fuse = true;
                Insn last = g;
                if (window_) {  // block oc's walk of the last filter row
                  last.uop_bgn = uops + oc * iw;
                  last.uop_end = last.uop_bgn + iw;
                  last.loop_in = 1;
                  last.src_factor_in = last.wgt_factor_in = 0;
                } else {
                  last.uop_bgn = g.uop_bgn + rest + oc;
                  last.uop_end = last.uop_bgn + 1;
                }
                group.push_back(arm);
                group.push_back(last);
              }
            }
            group.front().deps.pop_prev = true;
            group.front().deps.pop_next = zero && step == 0 && drained;
            group.back().deps.push_prev = s + V_ < S;
            for (const Insn& i : group) body_.Emit(i);
          }
          if (fused && !epilogue) {
            body_.Emit(Requant(RequantUops(oc_n, a), oc_n, oh_n, ow_n));
          } else if (!fused) {
            if (l_.has_bias)
              Alu(AluOp::kAdd, false, 0, PlaneUops(oc_n, a, bias_base), oc_n, oh_n, ow_n);
            const uint32_t plain = PlaneUops(oc_n, a, 0);
            if (l_.pre_shift != 0)
              Alu(AluOp::kShrRound, true, l_.pre_shift, plain, oc_n, oh_n, ow_n);
            Alu(AluOp::kMul, false, 0, PlaneUops(oc_n, a, mult_base), oc_n, oh_n, ow_n);
            if (l_.post_shift != 0)
              Alu(AluOp::kShrRound, true, l_.post_shift, plain, oc_n, oh_n, ow_n);
            if (l_.clip_lo > -128) Alu(AluOp::kMax, true, l_.clip_lo, plain, oc_n, oh_n, ow_n);
            if (l_.clip_hi < 127) Alu(AluOp::kMin, true, l_.clip_hi, plain, oc_n, oh_n, ow_n);
          }
          body_.last().deps.push_next = true;  // acc region a is ready for the store
          for (uint32_t oc = 0; oc < oc_n; ++oc) {
            const uint64_t dram = l_.output + ((uint64_t{nb} * l_.o_blocks + oc0 + oc) * OH + oh0) * OW + ow0;
            Insn st = Dma(Opcode::kStore, Buffer::kOut, a * fp_.acc + oc * t_.oh * t_.ow,
                          static_cast<uint32_t>(dram), oh_n, ow_n, OW);
            st.deps.pop_prev = oc == 0;
            st.deps.push_prev = oc + 1 == oc_n && t + V_ < T;
            body_.Emit(st, Region::kArena);
          }
        }
      }
    }
  }
  return code->AppendProgram(c_, "layer " + l_.name + ": tiling " + t_.ToString(), uops_, body_);
}

}  // namespace

bool UsesGemmEpilogue(const HwConfig& config, const Conv2dLayer& layer, const Conv2dTiling& tiling,
                      uint32_t vectors) {
  if (!UsesFusedRequant(layer, tiling) || vectors < kEpilogueMinVectors) return false;
  if (!UsesDepthwiseWindow(config, layer)) return true;
  // The window form's last-row walks are micro-op sets of their own: twice the walks' micro-ops
  // per (input, output) region pair must fit beside the plane micro-ops.
  const uint64_t v = tiling.virtual_threads, iw = (tiling.ow - 1) * layer.stride_w + layer.kw;
  return 2 * v * v * tiling.oc * iw + 4 * v * tiling.oc <= config.uop_depth();
}

bool UsesFusedRequant(const Conv2dLayer& layer, const Conv2dTiling& tiling) {
  // Clip bounds beyond int8 change nothing (every OUT write saturates), so they clamp to it.
  // REQUANT shifts right only; the quantizer's shifts always are, hand-written layers may not be.
  return tiling.oc <= isa::kRqParamDepth && layer.clip_hi >= -128 && layer.clip_lo <= 127 &&
         isa::RequantShiftValid(layer.pre_shift) && isa::RequantShiftValid(layer.post_shift);
}

std::string Conv2dTiling::ToString() const {
  return "oc=" + std::to_string(oc) + " ic=" + std::to_string(ic) + " oh=" + std::to_string(oh) +
         " ow=" + std::to_string(ow) + " vt=" + std::to_string(virtual_threads);
}

Status Conv2dLayer::Check(const HwConfig& c) const {
  auto bad = [&](const std::string& why) {
    return InvalidArgument("layer " + name + ": " + why);
  };
  if (!n_blocks || !c_blocks || !h || !w || !o_blocks || !kh || !kw || !stride_h || !stride_w) {
    return bad("zero-sized dimension");
  }
  if (h + pad_top + pad_bottom < kh || w + pad_left + pad_right < kw) {
    return bad("kernel larger than the padded input");
  }
  if (std::max({pad_top, pad_bottom, pad_left, pad_right}) > 15) {
    return bad("padding over 15 is beyond the DMA's padding field");
  }
  // With a pad as wide as the kernel, an edge output sees nothing but padding and its input tile
  // would be an empty DMA; such layers run on the CPU.
  if (std::max(pad_top, pad_bottom) >= kh || std::max(pad_left, pad_right) >= kw) {
    return bad("padding must be smaller than the kernel");
  }
  if (out_h() >= (1u << isa::Layout::kLoopBits) || out_w() >= (1u << isa::Layout::kLoopBits)) {
    return bad("output larger than the loop fields");
  }
  if (pre_shift < -31 || pre_shift > 31 || post_shift < -31 || post_shift > 31) {
    return bad("shift outside [-31, 31]");
  }
  if (clip_lo > clip_hi) return bad("clip_lo above clip_hi");
  if (depthwise && c_blocks != o_blocks) {
    return bad("depthwise needs as many output as input channel blocks (" +
               std::to_string(c_blocks) + " in, " + std::to_string(o_blocks) + " out)");
  }
  // The smallest tiling must fit, or nothing will: its micro-ops (one per kernel position, or per
  // column of a window-form row, plus the reset, bias and multiplier planes of each thread) and
  // its buffer footprint.
  const uint64_t gemm_uops = UsesDepthwiseWindow(c, *this) ? kw : uint64_t{kh} * kw;
  if (gemm_uops + 6 > c.uop_depth()) {
    return bad("kernel needs more micro-ops than the buffer holds");
  }
  Conv2dTiling one;
  one.virtual_threads = 1;
  if (!Footprint(c, *this, one).Fits(c, 1, 1)) {
    return bad("a single output row does not fit the buffers");
  }
  return Status::Ok();
}

Status EmitConv2d(const HwConfig& config, const Conv2dLayer& layer, const Conv2dTiling& tiling,
                  AccelCode* code) {
  LOOM_RETURN_IF_ERROR(layer.Check(config));
  if (tiling.virtual_threads != 1 && tiling.virtual_threads != 2) {
    return InvalidArgument("virtual_threads must be 1 or 2");
  }
  if (layer.depthwise && tiling.ic != 1) {
    return InvalidArgument("layer " + layer.name + ": tiling " + tiling.ToString() +
                           " is for a depthwise layer, whose reduction step is one block (ic=1)");
  }
  if (!tiling.oc || !tiling.ic || !tiling.oh || !tiling.ow || tiling.oc > layer.o_blocks ||
      tiling.ic > layer.c_blocks || tiling.oh > layer.out_h() || tiling.ow > layer.out_w()) {
    return InvalidArgument("layer " + layer.name + ": tiling " + tiling.ToString() +
                           " is empty or larger than the layer");
  }
  if (!Footprint(config, layer, tiling).Fits(config, tiling.virtual_threads, tiling.oc)) {
    return InvalidArgument("layer " + layer.name + ": tiling " + tiling.ToString() +
                           " does not fit the on-chip buffers");
  }
  Emitter e(config, layer, tiling);
  return e.Run(code);
}

Conv2dLayer Conv2dGeometry(const HwConfig& config, const std::string& name, uint32_t n, uint32_t c,
                           uint32_t h, uint32_t w, uint32_t out_c, const Window2d& window) {
  Conv2dLayer l;
  l.name = name;
  l.n_blocks = CeilDiv(n, config.batch);
  l.c_blocks = CeilDiv(c, config.block_in);
  l.h = h;
  l.w = w;
  l.o_blocks = CeilDiv(out_c, config.block_out);
  SetWindow(window, &l);
  return l;
}

bool DepthwiseWindowApplies(const HwConfig& c, uint32_t kh, uint32_t kw) {
  return c.block_in == c.block_out && c.block_in % 2 == 0 && kw <= c.block_in / 2 &&
         kh < (1u << isa::Layout::kPadBits);
}

bool UsesDepthwiseWindow(const HwConfig& c, const Conv2dLayer& l) {
  return l.depthwise && DepthwiseWindowApplies(c, l.kh, l.kw);
}

uint64_t Conv2dWeightElems(const HwConfig& c, const Conv2dLayer& l) {
  if (!l.depthwise) return uint64_t{l.o_blocks} * l.c_blocks * l.kh * l.kw;
  return uint64_t{l.o_blocks} * l.kh * (UsesDepthwiseWindow(c, l) ? 1 : l.kw);
}

std::vector<int8_t> DepthwiseWeights(const HwConfig& config, uint32_t channels, uint32_t kh,
                                     uint32_t kw, const int8_t* ckk) {
  return DepthwiseWindowApplies(config, kh, kw)
             ? WindowDepthwiseWeights(config, channels, kh, kw, ckk)
             : DiagonalDepthwiseWeights(config, channels, kh, kw, ckk);
}

std::vector<int8_t> WindowDepthwiseWeights(const HwConfig& config, uint32_t channels, uint32_t kh,
                                           uint32_t kw, const int8_t* ckk) {
  // Lane o reads its own channel through columns (o mod 2)·T + t, t = slots back from the newest
  // (docs/isa.md §3.3.1); the other half of its row faces the neighbouring channel and stays 0.
  const uint32_t c = config.block_in, taps = c / 2, blocks = CeilDiv(channels, c);
  std::vector<int8_t> out(size_t{blocks} * kh * c * c, 0);
  for (uint32_t ch = 0; ch < channels; ++ch) {
    const uint32_t g = ch / c, lane = ch % c;
    for (uint32_t y = 0; y < kh; ++y) {
      const size_t row = ((size_t{g} * kh + y) * c + lane) * c + (lane % 2) * taps;
      for (uint32_t t = 0; t < kw; ++t) out[row + t] = ckk[(size_t{ch} * kh + y) * kw + kw - 1 - t];
    }
  }
  return out;
}

std::vector<int8_t> DiagonalDepthwiseWeights(const HwConfig& config, uint32_t channels,
                                             uint32_t kh, uint32_t kw, const int8_t* ckk) {
  const uint32_t c = config.block_in, blocks = CeilDiv(channels, c);
  std::vector<int8_t> out(size_t{blocks} * kh * kw * c * c, 0);
  for (uint32_t ch = 0; ch < channels; ++ch) {
    const uint32_t g = ch / c, lane = ch % c;
    for (uint32_t y = 0; y < kh; ++y) {
      for (uint32_t x = 0; x < kw; ++x) {
        const size_t elem = (size_t{g} * kh + y) * kw + x;
        out[(elem * c + lane) * c + lane] = ckk[(size_t{ch} * kh + y) * kw + x];
      }
    }
  }
  return out;
}

}  // namespace loom::tensorize
