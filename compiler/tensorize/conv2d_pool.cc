#include "compiler/tensorize/conv2d_pool.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "compiler/tensorize/insn_util.h"
#include "runtime/core/blocked_layout.h"
#include "sim/fsim/timing.h"

namespace loom::tensorize {

using isa::AluOp;
using isa::Buffer;
using isa::Insn;
using isa::Opcode;

namespace {

// Along one axis, the convolution outputs a run of `n` pooled outputs from `p0` reads: the
// windows span [start, start + extent) of the convolution's output; [lo, lo + count) of that is
// real and `before`/`after` cells are the pool's padding. A window always holds a real element
// (padding below the window size), so count > 0.
struct Span {
  uint32_t lo = 0, count = 0, before = 0, after = 0, extent = 0;
};

Span PoolSpan(uint32_t p0, uint32_t n, uint32_t k, uint32_t stride, uint32_t pad, uint32_t conv) {
  const int64_t start = int64_t{p0} * stride - pad, extent = int64_t{n - 1} * stride + k;
  const int64_t lo = std::max<int64_t>(0, start), hi = std::min<int64_t>(conv, start + extent);
  Span s;
  s.lo = static_cast<uint32_t>(lo);
  s.count = static_cast<uint32_t>(hi - lo);
  s.before = static_cast<uint32_t>(lo - start);
  s.after = static_cast<uint32_t>(start + extent - hi);
  s.extent = static_cast<uint32_t>(extent);
  return s;
}

// Per-thread SRAM of a full-size tile: the input and weights of one reduction step, and in ACC
// the convolution tile with the pool's padding (X) beside the pooled tile (Y).
struct Footprint {
  uint32_t inp, wgt, x_plane, acc;
  Footprint(const ConvPoolLayer& l, const Conv2dTiling& t) {
    const Conv2dLayer& c = l.conv;
    const uint32_t xh = (t.oh - 1) * l.pool.stride_h + l.pool.kh;
    const uint32_t xw = (t.ow - 1) * l.pool.stride_w + l.pool.kw;
    const uint32_t ch = std::min(xh, c.out_h()), cw = std::min(xw, c.out_w());
    inp = t.ic * ((ch - 1) * c.stride_h + c.kh) * ((cw - 1) * c.stride_w + c.kw);
    wgt = t.oc * t.ic * c.kh * c.kw;
    x_plane = xh * xw;
    acc = t.oc * (x_plane + t.oh * t.ow);
  }
  bool Fits(const HwConfig& c, const Conv2dTiling& t) const {
    const uint64_t v = t.virtual_threads;
    return v * inp <= c.inp_depth() && v * wgt <= c.wgt_depth() &&
           v * acc + 2ull * t.oc <= c.acc_depth();
  }
};

// Windows that tile the convolution's output exactly (kernel == stride, no padding: VGG's 2x2/2).
bool Phased(const Window2d& p) {
  return p.kh == p.stride_h && p.kw == p.stride_w && p.kh * p.kw > 1 &&
         p.pad_top + p.pad_left + p.pad_bottom + p.pad_right == 0;
}

// The x offsets of the row passes of a separable window (EmitPool's scheme, eltwise.cc): the tap
// one stride away first, since the later taps read cells no pass writes. Empty: not separable.
std::vector<uint32_t> RowTaps(const ConvPoolLayer& l) {
  const Window2d& p = l.pool;
  std::vector<uint32_t> taps;
  if (p.kw < 2 || (p.kw > 2 * p.stride_w && l.out_w() != 1)) return taps;
  if (p.stride_w < p.kw) taps.push_back(p.stride_w);
  for (uint32_t k = 1; k < p.kw; ++k) {
    if (k != p.stride_w) taps.push_back(k);
  }
  return taps;
}

Insn Loop(Opcode op, uint32_t uop, uint32_t uops, uint32_t loop_out, uint32_t loop_in,
          uint32_t dst_out, uint32_t dst_in = 1) {
  Insn i;
  i.opcode = op;
  i.uop_bgn = uop;
  i.uop_end = uop + uops;
  i.loop_out = loop_out;
  i.loop_in = loop_in;
  i.dst_factor_out = dst_out;
  i.dst_factor_in = dst_in;
  return i;
}

class Emitter {
 public:
  Emitter(const HwConfig& c, const ConvPoolLayer& l, const Conv2dTiling& t)
      : c_(c), l_(l), cv_(l.conv), t_(t), fp_(l, t), V_(t.virtual_threads), taps_(RowTaps(l)) {}
  Status Run(AccelCode* code);

 private:
  // The index of a micro-op set in the table, shared by every instruction that uses the same one.
  uint32_t Uops(const std::vector<isa::Uop>& set);
  // One micro-op per output-channel block: dst at `dst` + oc * dst_plane, src likewise, wgt
  // `wgt_oc` ? oc : 0 (REQUANT's parameter entry).
  uint32_t Planes(uint32_t oc_n, uint32_t dst, uint32_t dst_plane, uint32_t src = 0,
                  uint32_t src_plane = 0, bool wgt_oc = false);
  // Phased windows: the conv outputs go into ACC by window position, one plane of the pooled
  // tile's shape each (one GEMM per position), so that the first position's plane becomes the
  // pooled tile in place: the other planes MAX into it and it is stored as is (no row passes, no
  // copy into a plane of its own). 2x2/2: 6 ALU cycles per pooled output instead of 9.
  Status PhasedTile(uint32_t nb, uint32_t oc0, uint32_t oc_n, uint32_t p0, uint32_t ph_n,
                    uint32_t q0, uint32_t pw_n);
  Status Tile(uint32_t nb, uint32_t oc0, uint32_t oc_n, uint32_t p0, uint32_t ph_n, uint32_t q0,
              uint32_t pw_n);
  Status LoadInput(uint32_t nb, uint32_t c0, uint32_t ic_n, const Span& rows, const Span& cols,
                   uint32_t r, bool pop);
  // Reduction step s of a tile: its input blocks into region s % V, the weights of (oc0, ic0)
  // unless the region holds them already, then the load->compute token.
  Status LoadStep(uint32_t nb, uint32_t oc0, uint32_t oc_n, uint32_t ic0, uint32_t ic_n,
                  const Span& rows, const Span& cols, uint32_t s);

  const HwConfig& c_;
  const ConvPoolLayer& l_;
  const Conv2dLayer& cv_;
  const Conv2dTiling& t_;
  const Footprint fp_;
  const uint32_t V_;
  const std::vector<uint32_t> taps_;
  uint32_t t_index_ = 0, s_index_ = 0, tiles_ = 0, steps_ = 0;
  std::vector<std::pair<uint32_t, uint32_t>> wgt_in_region_;
  AccelCode body_;
  std::vector<isa::Uop> uops_;
  std::map<std::vector<uint32_t>, uint32_t> sets_;
};

uint32_t Emitter::Uops(const std::vector<isa::Uop>& set) {
  std::vector<uint32_t> key;
  key.reserve(set.size() * 3);
  for (const isa::Uop& u : set) key.insert(key.end(), {u.dst, u.src, u.wgt});
  auto [it, added] = sets_.emplace(std::move(key), static_cast<uint32_t>(uops_.size()));
  if (added) uops_.insert(uops_.end(), set.begin(), set.end());
  return it->second;
}

uint32_t Emitter::Planes(uint32_t oc_n, uint32_t dst, uint32_t dst_plane, uint32_t src,
                         uint32_t src_plane, bool wgt_oc) {
  std::vector<isa::Uop> set;
  for (uint32_t oc = 0; oc < oc_n; ++oc) {
    set.push_back({dst + oc * dst_plane, src + oc * src_plane, wgt_oc ? oc : 0});
  }
  return Uops(set);
}

Status Emitter::LoadInput(uint32_t nb, uint32_t c0, uint32_t ic_n, const Span& rows,
                          const Span& cols, uint32_t r, bool pop) {
  // The input the convolution outputs [rows] x [cols] read, some of it the conv's padding.
  const int64_t ih_lo = int64_t{rows.lo} * cv_.stride_h - cv_.pad_top;
  const int64_t iw_lo = int64_t{cols.lo} * cv_.stride_w - cv_.pad_left;
  const int64_t ih_n = int64_t{rows.count - 1} * cv_.stride_h + cv_.kh;
  const int64_t iw_n = int64_t{cols.count - 1} * cv_.stride_w + cv_.kw;
  const int64_t top = std::max<int64_t>(0, -ih_lo), left = std::max<int64_t>(0, -iw_lo);
  const int64_t bottom = std::max<int64_t>(0, ih_lo + ih_n - cv_.h);
  const int64_t right = std::max<int64_t>(0, iw_lo + iw_n - cv_.w);
  const uint32_t plane = static_cast<uint32_t>(ih_n * iw_n);
  for (uint32_t ic = 0; ic < ic_n; ++ic) {
    const uint64_t dram =
        cv_.input +
        ((uint64_t{nb} * cv_.c_blocks + c0 + ic) * cv_.h + static_cast<uint64_t>(ih_lo + top)) *
            cv_.w +
        static_cast<uint64_t>(iw_lo + left);
    Insn i = Dma(Opcode::kLoad, Buffer::kInp, r * fp_.inp + ic * plane, dram,
                 static_cast<uint32_t>(ih_n - top - bottom),
                 static_cast<uint32_t>(iw_n - left - right), cv_.w);
    i.y_pad_top = static_cast<uint32_t>(top);
    i.y_pad_bottom = static_cast<uint32_t>(bottom);
    i.x_pad_left = static_cast<uint32_t>(left);
    i.x_pad_right = static_cast<uint32_t>(right);
    i.pad_value = cv_.pad_value;  // the lanes it fills cannot change a result: conv2d.cc LoadInput
    i.deps.pop_next = pop && ic == 0;  // compute has finished reading region r
    body_.Emit(i, Region::kArena);
  }
  return Status::Ok();
}

Status Emitter::LoadStep(uint32_t nb, uint32_t oc0, uint32_t oc_n, uint32_t ic0, uint32_t ic_n,
                         const Span& rows, const Span& cols, uint32_t s) {
  const uint32_t r = s % V_, kk = cv_.kh * cv_.kw;
  LOOM_RETURN_IF_ERROR(LoadInput(nb, ic0, ic_n, rows, cols, r, s >= V_));
  if (wgt_in_region_[r] != std::make_pair(oc0, ic0)) {
    body_.Emit(Dma(Opcode::kLoad, Buffer::kWgt, r * fp_.wgt,
                   cv_.weights + (uint64_t{oc0} * cv_.c_blocks + ic0) * kk, oc_n, ic_n * kk,
                   cv_.c_blocks * kk),
               Region::kConstants);
    wgt_in_region_[r] = {oc0, ic0};
  }
  body_.last().deps.push_next = true;  // region r is ready for compute
  return Status::Ok();
}

Status Emitter::PhasedTile(uint32_t nb, uint32_t oc0, uint32_t oc_n, uint32_t p0, uint32_t ph_n,
                           uint32_t q0, uint32_t pw_n) {
  const Window2d& p = l_.pool;
  const uint32_t t = t_index_++, a = t % V_, X = a * fp_.acc;
  const uint32_t positions = p.kh * p.kw, y_plane = ph_n * pw_n, o_plane = positions * y_plane;
  Span rows, cols;  // every conv output of the windows is real
  rows.lo = p0 * p.stride_h;
  rows.count = rows.extent = ph_n * p.kh;
  cols.lo = q0 * p.stride_w;
  cols.count = cols.extent = pw_n * p.kw;

  Insn reset = Loop(Opcode::kGemm, Planes(oc_n, X, o_plane), oc_n, positions * ph_n, pw_n, pw_n);
  reset.reset = true;
  reset.deps.pop_next = t >= V_;  // the store of tile t - V has drained region a
  body_.Emit(reset);
  const uint32_t kk = cv_.kh * cv_.kw;
  const uint32_t iw = (cols.count - 1) * cv_.stride_w + cv_.kw;
  const uint32_t in_plane = ((rows.count - 1) * cv_.stride_h + cv_.kh) * iw;
  for (uint32_t ic0 = 0; ic0 < cv_.c_blocks; ic0 += t_.ic) {
    const uint32_t s = s_index_++, r = s % V_, ic_n = std::min(t_.ic, cv_.c_blocks - ic0);
    LOOM_RETURN_IF_ERROR(LoadStep(nb, oc0, oc_n, ic0, ic_n, rows, cols, s));
    // Window position (py, px): conv outputs (i * kh + py, j * kw + px) into its plane.
    for (uint32_t pos = 0; pos < positions; ++pos) {
      const uint32_t py = pos / p.kw, px = pos % p.kw;
      std::vector<isa::Uop> set;
      for (uint32_t oc = 0; oc < oc_n; ++oc)
        for (uint32_t ic = 0; ic < ic_n; ++ic)
          for (uint32_t y = 0; y < cv_.kh; ++y)
            for (uint32_t x = 0; x < cv_.kw; ++x)
              set.push_back({X + oc * o_plane + pos * y_plane,
                             r * fp_.inp + ic * in_plane + (py * cv_.stride_h + y) * iw +
                                 px * cv_.stride_w + x,
                             r * fp_.wgt + (oc * ic_n + ic) * kk + y * cv_.kw + x});
      Insn g = Loop(Opcode::kGemm, Uops(set), oc_n * ic_n * kk, ph_n, pw_n, pw_n);
      g.src_factor_out = p.stride_h * cv_.stride_h * iw;
      g.src_factor_in = p.stride_w * cv_.stride_w;
      g.deps.pop_prev = pos == 0;
      g.deps.push_prev = pos + 1 == positions && s + V_ < steps_;
      body_.Emit(g);
    }
  }
  Insn rq =
      Loop(Opcode::kAlu, Planes(oc_n, X, o_plane, 0, 0, true), oc_n, positions * ph_n, pw_n, pw_n);
  rq.alu_op = AluOp::kRequant;
  rq.pre_shift = cv_.pre_shift;
  rq.post_shift = cv_.post_shift;
  rq.clip_lo = std::max(cv_.clip_lo, -128);
  rq.clip_hi = std::min(cv_.clip_hi, 127);
  body_.Emit(rq);
  for (uint32_t pos = 1; pos < positions; ++pos) {
    Insn m = Loop(Opcode::kAlu, Planes(oc_n, X, o_plane, X + pos * y_plane, o_plane), oc_n, ph_n,
                  pw_n, pw_n);
    m.alu_op = AluOp::kMax;
    m.src_factor_out = pw_n;
    m.src_factor_in = 1;
    body_.Emit(m);
  }
  body_.last().deps.push_next = true;  // region a is ready for the store
  const uint32_t PH = l_.out_h(), PW = l_.out_w();
  for (uint32_t oc = 0; oc < oc_n; ++oc) {
    const uint64_t dram =
        l_.output + ((uint64_t{nb} * cv_.o_blocks + oc0 + oc) * PH + p0) * PW + q0;
    Insn st = Dma(Opcode::kStore, Buffer::kOut, X + oc * o_plane, dram, ph_n, pw_n, PW);
    st.deps.pop_prev = oc == 0;
    st.deps.push_prev = oc + 1 == oc_n && t + V_ < tiles_;
    body_.Emit(st, Region::kArena);
  }
  return Status::Ok();
}

Status Emitter::Tile(uint32_t nb, uint32_t oc0, uint32_t oc_n, uint32_t p0, uint32_t ph_n,
                     uint32_t q0, uint32_t pw_n) {
  const Window2d& p = l_.pool;
  if (Phased(p)) return PhasedTile(nb, oc0, oc_n, p0, ph_n, q0, pw_n);
  const Span rows = PoolSpan(p0, ph_n, p.kh, p.stride_h, p.pad_top, cv_.out_h());
  const Span cols = PoolSpan(q0, pw_n, p.kw, p.stride_w, p.pad_left, cv_.out_w());
  const uint32_t t = t_index_++, a = t % V_;
  const uint32_t xw = cols.extent, x_plane = rows.extent * xw, y_plane = ph_n * pw_n;
  const uint32_t X = a * fp_.acc, Y = X + t_.oc * fp_.x_plane;
  const uint32_t inner = X + rows.before * xw + cols.before;  // the tile's first real conv output

  Insn reset = Loop(Opcode::kGemm, Planes(oc_n, X, x_plane), oc_n, rows.extent, xw, xw);
  reset.reset = true;
  reset.deps.pop_next = t >= V_;  // the store of tile t - V has drained region a
  body_.Emit(reset);
  Insn reset_y = Loop(Opcode::kGemm, Planes(oc_n, Y, y_plane), oc_n, ph_n, pw_n, pw_n);
  reset_y.reset = true;
  body_.Emit(reset_y);

  const uint32_t kk = cv_.kh * cv_.kw;
  const uint32_t iw = (cols.count - 1) * cv_.stride_w + cv_.kw;
  const uint32_t in_plane = ((rows.count - 1) * cv_.stride_h + cv_.kh) * iw;
  for (uint32_t ic0 = 0; ic0 < cv_.c_blocks; ic0 += t_.ic) {
    const uint32_t s = s_index_++, r = s % V_, ic_n = std::min(t_.ic, cv_.c_blocks - ic0);
    LOOM_RETURN_IF_ERROR(LoadStep(nb, oc0, oc_n, ic0, ic_n, rows, cols, s));
    std::vector<isa::Uop> set;
    for (uint32_t oc = 0; oc < oc_n; ++oc)
      for (uint32_t ic = 0; ic < ic_n; ++ic)
        for (uint32_t y = 0; y < cv_.kh; ++y)
          for (uint32_t x = 0; x < cv_.kw; ++x)
            set.push_back({inner + oc * x_plane, r * fp_.inp + ic * in_plane + y * iw + x,
                           r * fp_.wgt + (oc * ic_n + ic) * kk + y * cv_.kw + x});
    Insn g = Loop(Opcode::kGemm, Uops(set), oc_n * ic_n * kk, rows.count, cols.count, xw);
    g.src_factor_out = cv_.stride_h * iw;
    g.src_factor_in = cv_.stride_w;
    g.deps.pop_prev = true;
    g.deps.push_prev = s + V_ < steps_;
    body_.Emit(g);
  }
  // The conv's epilogue on its real outputs: the int8 values it would have stored.
  Insn rq = Loop(Opcode::kAlu, Planes(oc_n, inner, x_plane, 0, 0, true), oc_n, rows.count,
                 cols.count, xw);
  rq.alu_op = AluOp::kRequant;
  rq.pre_shift = cv_.pre_shift;
  rq.post_shift = cv_.post_shift;
  rq.clip_lo = std::max(cv_.clip_lo, -128);
  rq.clip_hi = std::min(cv_.clip_hi, 127);
  body_.Emit(rq);
  // The pool's padding: the reset left 0, the smallest value after a ReLU; otherwise the smallest
  // REQUANT produces (clip_lo, at least -128).
  const int32_t pad = std::min(rq.clip_lo, 0);
  auto fill = [&](uint32_t dst, uint32_t n_rows, uint32_t n_cols) {
    if (pad == 0 || n_rows == 0 || n_cols == 0) return;
    Insn f = Loop(Opcode::kAlu, Planes(oc_n, dst, x_plane), oc_n, n_rows, n_cols, xw);
    f.alu_op = AluOp::kAdd;
    f.use_imm = true;
    f.imm = pad;
    body_.Emit(f);
  };
  fill(X, rows.before, xw);
  fill(X + (rows.before + rows.count) * xw, rows.after, xw);
  fill(X + rows.before * xw, rows.count, cols.before);
  fill(inner + cols.count, rows.count, cols.after);
  // Separable windows: the row passes leave each window start its row's maximum, in place.
  for (uint32_t tap : taps_) {
    Insn a_row = Loop(Opcode::kAlu, Planes(oc_n, X, x_plane, X + tap, x_plane), oc_n, rows.extent,
                      pw_n, xw, p.stride_w);
    a_row.alu_op = AluOp::kMax;
    a_row.src_factor_out = xw;
    a_row.src_factor_in = p.stride_w;
    body_.Emit(a_row);
  }
  // Y = the window's first cell, then the maximum with the others (with row passes, only the
  // first cell of each window row).
  for (uint32_t ky = 0; ky < p.kh; ++ky) {
    for (uint32_t kx = 0; kx < p.kw; ++kx) {
      if (!taps_.empty() && kx != 0) continue;
      Insn w = Loop(Opcode::kAlu, Planes(oc_n, Y, y_plane, X + ky * xw + kx, x_plane), oc_n, ph_n,
                    pw_n, pw_n);
      w.alu_op = ky == 0 && kx == 0 ? AluOp::kAdd : AluOp::kMax;
      w.src_factor_out = p.stride_h * xw;
      w.src_factor_in = p.stride_w;
      body_.Emit(w);
    }
  }
  body_.last().deps.push_next = true;  // region a is ready for the store
  const uint32_t PH = l_.out_h(), PW = l_.out_w();
  for (uint32_t oc = 0; oc < oc_n; ++oc) {
    const uint64_t dram =
        l_.output + ((uint64_t{nb} * cv_.o_blocks + oc0 + oc) * PH + p0) * PW + q0;
    Insn st = Dma(Opcode::kStore, Buffer::kOut, Y + oc * y_plane, dram, ph_n, pw_n, PW);
    st.deps.pop_prev = oc == 0;
    st.deps.push_prev = oc + 1 == oc_n && t + V_ < tiles_;
    body_.Emit(st, Region::kArena);
  }
  return Status::Ok();
}

Status Emitter::Run(AccelCode* code) {
  const uint32_t PH = l_.out_h(), PW = l_.out_w();
  const uint32_t n_oc = CeilDiv(cv_.o_blocks, t_.oc), n_ic = CeilDiv(cv_.c_blocks, t_.ic);
  tiles_ = cv_.n_blocks * n_oc * CeilDiv(PH, t_.oh) * CeilDiv(PW, t_.ow);
  steps_ = tiles_ * n_ic;
  wgt_in_region_.assign(V_, {UINT32_MAX, UINT32_MAX});
  const uint32_t bias_base = V_ * fp_.acc, mult_base = bias_base + t_.oc;
  for (uint32_t nb = 0; nb < cv_.n_blocks; ++nb) {
    for (uint32_t oc0 = 0; oc0 < cv_.o_blocks; oc0 += t_.oc) {
      const uint32_t oc_n = std::min(t_.oc, cv_.o_blocks - oc0);
      // This tile's bias and multipliers into the parameter buffer (compute runs in order; a
      // zero bias if the conv has none).
      if (cv_.has_bias) {
        body_.Emit(Dma(Opcode::kLoad, Buffer::kAcc, bias_base, cv_.bias + oc0, 1, oc_n, oc_n),
                   Region::kConstants);
      }
      body_.Emit(Dma(Opcode::kLoad, Buffer::kAcc, mult_base, cv_.mult + oc0, 1, oc_n, oc_n),
                 Region::kConstants);
      const uint32_t params = Planes(oc_n, bias_base, 1, mult_base, 1, true);
      if (!cv_.has_bias) {
        Insn zero = Loop(Opcode::kGemm, params, oc_n, 1, 1, 0);
        zero.reset = true;
        body_.Emit(zero);
      }
      Insn rqp = Loop(Opcode::kAlu, params, oc_n, 1, 1, 0);
      rqp.alu_op = AluOp::kRqParam;
      body_.Emit(rqp);
      for (uint32_t p0 = 0; p0 < PH; p0 += t_.oh) {
        for (uint32_t q0 = 0; q0 < PW; q0 += t_.ow) {
          LOOM_RETURN_IF_ERROR(
              Tile(nb, oc0, oc_n, p0, std::min(t_.oh, PH - p0), q0, std::min(t_.ow, PW - q0)));
        }
      }
    }
  }
  return code->AppendProgram(c_, "layer " + cv_.name + ": fused tiling " + t_.ToString(), uops_,
                             body_);
}

}  // namespace

uint32_t ConvPoolLayer::out_h() const {
  return (conv.out_h() + pool.pad_top + pool.pad_bottom - pool.kh) / pool.stride_h + 1;
}

uint32_t ConvPoolLayer::out_w() const {
  return (conv.out_w() + pool.pad_left + pool.pad_right - pool.kw) / pool.stride_w + 1;
}

Status ConvPoolLayer::Check(const HwConfig& c) const {
  LOOM_RETURN_IF_ERROR(conv.Check(c));
  auto bad = [&](const std::string& why) {
    return InvalidArgument("layer " + conv.name + " + max pool: " + why);
  };
  const Window2d& p = pool;
  if (!p.kh || !p.kw || !p.stride_h || !p.stride_w) return bad("zero-sized pool window");
  if (std::max(p.pad_top, p.pad_bottom) >= p.kh || std::max(p.pad_left, p.pad_right) >= p.kw) {
    return bad("pool padding must be smaller than the window");
  }
  if (conv.out_h() + p.pad_top + p.pad_bottom < p.kh ||
      conv.out_w() + p.pad_left + p.pad_right < p.kw) {
    return bad("pool window larger than the padded convolution output");
  }
  if (!isa::RequantShiftValid(conv.pre_shift) || !isa::RequantShiftValid(conv.post_shift) ||
      conv.clip_hi < -128 || conv.clip_lo > 127) {
    return bad("the convolution's requantization does not run as the fused REQUANT");
  }
  Conv2dTiling one;
  one.virtual_threads = 1;
  if (!Footprint(*this, one).Fits(c, one)) return bad("a single pooled output does not fit");
  return Status::Ok();
}

bool CanFuseConvPool(const HwConfig& config, const ConvPoolLayer& layer) {
  return layer.Check(config).ok();
}

bool ConvPoolTilingFits(const HwConfig& c, const ConvPoolLayer& l, const Conv2dTiling& t) {
  const uint64_t v = t.virtual_threads, kk = uint64_t{l.conv.kh} * l.conv.kw;
  const uint32_t xw = (t.ow - 1) * l.pool.stride_w + l.pool.kw;
  return t.oc <= isa::kRqParamDepth && xw <= kMaxLoop && Footprint(l, t).Fits(c, t) &&
         v * v * t.oc * t.ic * kk + 16ull * v * t.oc <= c.uop_depth();
}

Status EmitConvPool(const HwConfig& config, const ConvPoolLayer& layer, const Conv2dTiling& tiling,
                    AccelCode* code) {
  LOOM_RETURN_IF_ERROR(layer.Check(config));
  if (tiling.virtual_threads != 1 && tiling.virtual_threads != 2) {
    return InvalidArgument("virtual_threads must be 1 or 2");
  }
  if (!tiling.oc || !tiling.ic || !tiling.oh || !tiling.ow || tiling.oc > layer.conv.o_blocks ||
      tiling.ic > layer.conv.c_blocks || tiling.oh > layer.out_h() || tiling.ow > layer.out_w()) {
    return InvalidArgument("layer " + layer.conv.name + ": fused tiling " + tiling.ToString() +
                           " is empty or larger than the layer");
  }
  if (!ConvPoolTilingFits(config, layer, tiling)) {
    return InvalidArgument("layer " + layer.conv.name + ": fused tiling " + tiling.ToString() +
                           " does not fit the on-chip buffers");
  }
  Emitter e(config, layer, tiling);
  return e.Run(code);
}

Status TimeConvPool(const HwConfig& c, const ConvPoolLayer& l, const Conv2dTiling& t,
                    uint64_t* cycles) {
  AccelCode code;
  LOOM_RETURN_IF_ERROR(EmitConvPool(c, l, t, &code));
  code.Emit(isa::Insn());  // FINISH
  return TimeCode(c, code, cycles);
}

namespace {

// Tile sizes worth trying for an extent n: each giving a distinct number of tiles, largest first.
std::vector<uint32_t> Sizes(uint32_t n, size_t cap) {
  std::set<uint32_t, std::greater<>> sizes;
  for (uint32_t k = 1; k <= n && sizes.size() < cap; ++k) sizes.insert(CeilDiv(n, k));
  return {sizes.begin(), sizes.end()};
}

// ChooseConv2dTiling's estimate (conv2d_tiling.cc) with the pool's ALU passes: the busiest module
// bounds two virtual threads; one takes turns.
uint64_t Estimate(const HwConfig& c, const ConvPoolLayer& l, const Conv2dTiling& t) {
  const fsim::TimingModel tm(c);
  const Conv2dLayer& cv = l.conv;
  const Window2d& p = l.pool;
  const uint32_t xh = (t.oh - 1) * p.stride_h + p.kh, xw = (t.ow - 1) * p.stride_w + p.kw;
  const uint32_t ch = std::min(xh, cv.out_h()), cw = std::min(xw, cv.out_w());
  const uint64_t tiles = uint64_t{cv.n_blocks} * CeilDiv(cv.o_blocks, t.oc) *
                         CeilDiv(l.out_h(), t.oh) * CeilDiv(l.out_w(), t.ow);
  const uint32_t n_ic = CeilDiv(cv.c_blocks, t.ic);
  const uint64_t steps = tiles * n_ic;
  Insn inp = Dma(Opcode::kLoad, Buffer::kInp, 0, 0, (ch - 1) * cv.stride_h + cv.kh,
                 std::min((cw - 1) * cv.stride_w + cv.kw, cv.w), cv.w);
  Insn wgt = Dma(Opcode::kLoad, Buffer::kWgt, 0, 0, t.oc, t.ic * cv.kh * cv.kw,
                 cv.c_blocks * cv.kh * cv.kw);
  Insn st = Dma(Opcode::kStore, Buffer::kOut, 0, 0, t.oh, t.ow, l.out_w());
  const uint64_t wgt_loads =
      n_ic == 1 ? CeilDiv(cv.o_blocks, t.oc) * uint64_t{t.virtual_threads} : steps;
  const uint64_t load = steps * t.ic * tm.DmaCycles(inp, c.inp_elem_bytes()) +
                        wgt_loads * tm.DmaCycles(wgt, c.wgt_elem_bytes());
  Insn g = Loop(Opcode::kGemm, 0, t.oc * t.ic * cv.kh * cv.kw, ch, cw, cw);
  Insn reset = Loop(Opcode::kGemm, 0, t.oc, xh, xw, xw);
  Insn rq = Loop(Opcode::kAlu, 0, t.oc, ch, cw, cw);
  rq.alu_op = AluOp::kRequant;
  Insn row = Loop(Opcode::kAlu, 0, t.oc, xh, t.ow, xw);
  row.alu_op = AluOp::kMax;
  Insn col = Loop(Opcode::kAlu, 0, t.oc, t.oh, t.ow, t.ow);
  col.alu_op = AluOp::kMax;
  const uint64_t taps = RowTaps(l).size();
  const uint64_t col_passes = taps ? p.kh : uint64_t{p.kh} * p.kw;
  const uint64_t per_tile =
      Phased(p) ? tm.GemmCycles(reset) + tm.AluCycles(rq) + (p.kh * p.kw - 1) * tm.AluCycles(col)
                : tm.GemmCycles(reset) + tm.AluCycles(rq) + taps * tm.AluCycles(row) +
                      (col_passes + 1) * tm.AluCycles(col);
  const uint64_t compute = steps * tm.GemmCycles(g) + tiles * per_tile;
  const uint64_t store = tiles * t.oc * tm.DmaCycles(st, c.out_elem_bytes());
  if (t.virtual_threads == 1) return load + compute + store;
  return std::max({load, compute, store}) + load / steps + store / tiles;
}

}  // namespace

Status ChooseConvPoolTiling(const HwConfig& c, const ConvPoolLayer& l, TilingChoice* out) {
  LOOM_RETURN_IF_ERROR(l.Check(c));
  std::vector<std::pair<uint64_t, Conv2dTiling>> ranked;
  for (uint32_t v : {2u, 1u}) {
    for (uint32_t oc : Sizes(l.conv.o_blocks, 16)) {
      for (uint32_t ic : Sizes(l.conv.c_blocks, 16)) {
        for (uint32_t oh : Sizes(l.out_h(), 24)) {
          for (uint32_t ow : Sizes(l.out_w(), 6)) {
            const Conv2dTiling t{oc, ic, oh, ow, v};
            if (ConvPoolTilingFits(c, l, t)) ranked.push_back({Estimate(c, l, t), t});
          }
        }
      }
    }
  }
  if (ranked.empty()) {
    return InvalidArgument("layer " + l.conv.name + " + max pool: no fused tiling fits");
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  TilingChoice best;
  best.candidates = static_cast<uint32_t>(ranked.size());
  const size_t kTimed = 6;
  for (size_t i = 0; i < ranked.size() && best.timed < kTimed; ++i) {
    uint64_t cycles = 0;
    // Edge tiles can need more micro-ops than the bound assumes; such a candidate is skipped.
    if (!TimeConvPool(c, l, ranked[i].second, &cycles).ok()) continue;
    ++best.timed;
    if (best.cycles == 0 || cycles < best.cycles) {
      best.cycles = cycles;
      best.tiling = ranked[i].second;
    }
  }
  if (best.timed == 0) {
    return InvalidArgument("layer " + l.conv.name +
                           " + max pool: no fused tiling could be emitted");
  }
  const Conv2dLayer& cv = l.conv;
  best.macs = uint64_t{cv.n_blocks} * c.batch * cv.o_blocks * c.block_out * cv.out_h() *
              cv.out_w() * cv.c_blocks * c.block_in * cv.kh * cv.kw;
  best.utilization =
      static_cast<double>(best.macs) / (static_cast<double>(best.cycles) * c.macs_per_cycle());
  *out = best;
  return Status::Ok();
}

}  // namespace loom::tensorize
