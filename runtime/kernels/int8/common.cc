// Layout helpers, the ALU arithmetic (docs/isa.md §3.4) and the constant packers of qops.h.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "runtime/kernels/int8/internal.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q {

namespace internal {

Status CheckSize(size_t size, const char* what) {
  if (size == SIZE_MAX) return InvalidArgument(std::string(what) + ": the size overflows size_t");
  return Status::Ok();
}

Status CheckBlocking(const Blocking& b) {
  if (b.batch == 0 || b.block == 0) {
    return InvalidArgument("blocking batch " + std::to_string(b.batch) + " x block " +
                           std::to_string(b.block) + ": both must be at least 1");
  }
  return Status::Ok();
}

Status CheckShape(const ActShape& s, const char* what) {
  if (s.n == 0 || s.c == 0 || s.h == 0 || s.w == 0) {
    return InvalidArgument(std::string(what) + " shape " + std::to_string(s.n) + "x" +
                           std::to_string(s.c) + "x" + std::to_string(s.h) + "x" +
                           std::to_string(s.w) + " has a zero dimension");
  }
  return Status::Ok();
}

Status CheckShift(int32_t shift, const char* op, const char* what) {
  if (shift < -31 || shift > 31) {
    return InvalidArgument(std::string(op) + ": " + what + " " + std::to_string(shift) +
                           " is outside [-31, 31]");
  }
  return Status::Ok();
}

Status CheckRange(int32_t v, int32_t lo, int32_t hi, const char* op, const char* what) {
  if (v < lo || v > hi) {
    return InvalidArgument(std::string(op) + ": " + what + " " + std::to_string(v) +
                           " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return Status::Ok();
}

Status CheckClip(int32_t lo, int32_t hi, const char* op) {
  if (lo < -128 || hi > 127 || lo > hi) {
    return InvalidArgument(std::string(op) + ": clip [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "] must satisfy -128 <= clip_lo <= clip_hi <= 127");
  }
  return Status::Ok();
}

Status CheckRequant(const Requant& rq, const char* op) {
  LOOM_RETURN_IF_ERROR(CheckShift(rq.pre_shift, op, "pre_shift"));
  LOOM_RETURN_IF_ERROR(CheckShift(rq.post_shift, op, "post_shift"));
  return CheckClip(rq.clip_lo, rq.clip_hi, op);
}

Status CheckWindow(const ActShape& in, uint32_t kh, uint32_t kw, uint32_t sh, uint32_t sw,
                   uint32_t pt, uint32_t pl, uint32_t pb, uint32_t pr, const char* op) {
  const std::string_view o(op);  // the messages below build strings; success builds none
  if (kh == 0 || kw == 0)
    return InvalidArgument(std::string(o) + ": kernel size must be at least 1");
  if (sh == 0 || sw == 0) return InvalidArgument(std::string(o) + ": strides must be at least 1");
  if (pt >= kh || pb >= kh || pl >= kw || pr >= kw) {
    return InvalidArgument(std::string(o) + ": pads (" + std::to_string(pt) + ", " +
                           std::to_string(pl) + ", " + std::to_string(pb) + ", " +
                           std::to_string(pr) + ") must each be smaller than the kernel (" +
                           std::to_string(kh) + "x" + std::to_string(kw) + ")");
  }
  if (uint64_t{in.h} + pt + pb < kh || uint64_t{in.w} + pl + pr < kw) {
    return InvalidArgument(std::string(o) + ": kernel " + std::to_string(kh) + "x" +
                           std::to_string(kw) + " is larger than the padded input " +
                           std::to_string(in.h + pt + pb) + "x" + std::to_string(in.w + pl + pr));
  }
  return Status::Ok();
}

Status CheckNotNull(const void* p, const char* what) {
  if (p == nullptr) return InvalidArgument(std::string(what) + " is null");
  return Status::Ok();
}

Status CheckNoAlias(const void* a, size_t na, const void* b, size_t nb, const char* what) {
  const auto pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
  if (pa < pb + nb && pb < pa + na) {
    return InvalidArgument(std::string(what) + ": input and output overlap");
  }
  return Status::Ok();
}

Status CheckScaledPlaneCall(const Blocking& b, const ActShape& in, uint32_t fh, uint32_t fw,
                            const int8_t* x, const int8_t* out, const ScaledPlaneNames& names,
                            ScaledPlane* sp) {
  LOOM_RETURN_IF_ERROR(CheckBlocking(b));
  LOOM_RETURN_IF_ERROR(CheckShape(in, names.input));
  LOOM_RETURN_IF_ERROR(CheckNotNull(x, names.input));
  LOOM_RETURN_IF_ERROR(CheckNotNull(out, names.output));
  if (fh == 0 || fw == 0) {
    return InvalidArgument(std::string(names.op) + ": " + names.factors + " " + std::to_string(fh) +
                           " x " + std::to_string(fw) + " must be at least 1");
  }
  const uint64_t oh = uint64_t{in.h} * fh, ow = uint64_t{in.w} * fw;
  if (oh > UINT32_MAX || ow > UINT32_MAX) {
    return InvalidArgument(std::string(names.op) + ": output " + std::to_string(oh) + " x " +
                           std::to_string(ow) + " exceeds 32-bit dimensions");
  }
  sp->out = in;
  sp->out.h = static_cast<uint32_t>(oh);
  sp->out.w = static_cast<uint32_t>(ow);
  sp->in_bytes = BlockedBytes(b, in);
  sp->out_bytes = BlockedBytes(b, sp->out);
  LOOM_RETURN_IF_ERROR(CheckSize(sp->in_bytes, names.input));
  LOOM_RETURN_IF_ERROR(CheckSize(sp->out_bytes, names.output));
  return CheckNoAlias(x, sp->in_bytes, out, sp->out_bytes, names.op);
}

}  // namespace internal

namespace {
size_t ToSize(bool ok, uint64_t v) {
  return ok && v <= SIZE_MAX ? static_cast<size_t>(v) : SIZE_MAX;
}
}  // namespace

size_t BlockedBytes(const Blocking& b, const ActShape& s) {
  uint64_t v = 0;
  const bool ok = BlockedActivationElems(s.n, s.c, s.h, s.w, b.batch, b.block, &v);
  return ToSize(ok, v);
}

size_t BlockedIndex(const Blocking& b, const ActShape& s, uint32_t n, uint32_t c, uint32_t h,
                    uint32_t w) {
  return internal::BlockedOffset(b, CeilDiv(s.c, b.block), s.h, s.w, n, c, h, w);
}

size_t ChannelVectorElems(const Blocking& b, uint32_t channels) {
  uint64_t v = 0;
  const bool ok = BlockedVectorElems(channels, b.batch, b.block, &v);
  return ToSize(ok, v);
}

Status PackActivation(const Blocking& b, const ActShape& s, const int8_t* plain, int8_t* blocked) {
  LOOM_RETURN_IF_ERROR(internal::CheckBlocking(b));
  LOOM_RETURN_IF_ERROR(internal::CheckShape(s, "PackActivation: activation"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(plain, "PackActivation: plain input"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(blocked, "PackActivation: blocked output"));
  const size_t plain_bytes = size_t{s.n} * s.c * s.h * s.w;
  const size_t blocked_bytes = BlockedBytes(b, s);
  LOOM_RETURN_IF_ERROR(internal::CheckSize(blocked_bytes, "PackActivation"));
  LOOM_RETURN_IF_ERROR(
      internal::CheckNoAlias(plain, plain_bytes, blocked, blocked_bytes, "PackActivation"));
  std::memset(blocked, 0, blocked_bytes);
  const uint32_t cb = CeilDiv(s.c, b.block);
  const size_t step = size_t{b.batch} * b.block;  // between neighbouring (h, w) positions
  const size_t plane = size_t{s.h} * s.w;
  for (uint32_t n = 0; n < s.n; ++n)
    for (uint32_t c = 0; c < s.c; ++c) {
      int8_t* dst = blocked + internal::BlockedOffset(b, cb, s.h, s.w, n, c, 0, 0);
      const int8_t* src = plain + (size_t{n} * s.c + c) * plane;
      for (size_t i = 0; i < plane; ++i) dst[i * step] = src[i];
    }
  return Status::Ok();
}

Status UnpackActivation(const Blocking& b, const ActShape& s, const int8_t* blocked, int8_t* plain) {
  LOOM_RETURN_IF_ERROR(internal::CheckBlocking(b));
  LOOM_RETURN_IF_ERROR(internal::CheckShape(s, "UnpackActivation: activation"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(blocked, "UnpackActivation: blocked input"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(plain, "UnpackActivation: plain output"));
  LOOM_RETURN_IF_ERROR(internal::CheckSize(BlockedBytes(b, s), "UnpackActivation"));
  LOOM_RETURN_IF_ERROR(internal::CheckNoAlias(blocked, BlockedBytes(b, s), plain,
                                              size_t{s.n} * s.c * s.h * s.w, "UnpackActivation"));
  const uint32_t cb = CeilDiv(s.c, b.block);
  const size_t step = size_t{b.batch} * b.block;  // between neighbouring (h, w) positions
  const size_t plane = size_t{s.h} * s.w;
  for (uint32_t n = 0; n < s.n; ++n)
    for (uint32_t c = 0; c < s.c; ++c) {
      const int8_t* src = blocked + internal::BlockedOffset(b, cb, s.h, s.w, n, c, 0, 0);
      int8_t* dst = plain + (size_t{n} * s.c + c) * plane;
      for (size_t i = 0; i < plane; ++i) dst[i] = src[i * step];
    }
  return Status::Ok();
}

size_t ConvWeightBytes(const Blocking& b, uint32_t o, uint32_t c, uint32_t kh, uint32_t kw) {
  uint64_t v = 0;
  const bool ok = BlockedWeightElems(o, c, kh, kw, b.block, &v);
  return ToSize(ok, v);
}

Status PackConvWeights(const Blocking& b, uint32_t o, uint32_t c, uint32_t kh, uint32_t kw,
                       const int8_t* oihw, int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckBlocking(b));
  if (o == 0 || c == 0 || kh == 0 || kw == 0) {
    return InvalidArgument("PackConvWeights: weight shape " + std::to_string(o) + "x" +
                           std::to_string(c) + "x" + std::to_string(kh) + "x" +
                           std::to_string(kw) + " has a zero dimension");
  }
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(oihw, "PackConvWeights: weights"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(out, "PackConvWeights: output"));
  const size_t bytes = ConvWeightBytes(b, o, c, kh, kw);
  LOOM_RETURN_IF_ERROR(internal::CheckSize(bytes, "PackConvWeights"));
  LOOM_RETURN_IF_ERROR(internal::CheckNoAlias(oihw, size_t{o} * c * kh * kw, out, bytes,
                                              "PackConvWeights"));
  std::memset(out, 0, bytes);
  const uint32_t ib_count = CeilDiv(c, b.block);
  const size_t blk = b.block;
  for (uint32_t oo = 0; oo < o; ++oo)
    for (uint32_t ii = 0; ii < c; ++ii)
      for (uint32_t y = 0; y < kh; ++y)
        for (uint32_t x = 0; x < kw; ++x) {
          const size_t tile = ((size_t{oo / b.block} * ib_count + ii / b.block) * kh + y) * kw + x;
          out[(tile * blk + oo % b.block) * blk + ii % b.block] =
              oihw[((size_t{oo} * c + ii) * kh + y) * kw + x];
        }
  return Status::Ok();
}

size_t DepthwiseWeightBytes(const Blocking& b, uint32_t c, uint32_t kh, uint32_t kw) {
  uint64_t v = 0;
  const bool ok = BlockedDepthwiseElems(c, kh, kw, b.block, &v);
  return ToSize(ok, v);
}

Status PackDepthwiseWeights(const Blocking& b, uint32_t c, uint32_t kh, uint32_t kw,
                            const int8_t* c1hw, int8_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckBlocking(b));
  if (c == 0 || kh == 0 || kw == 0) {
    return InvalidArgument("PackDepthwiseWeights: weight shape " + std::to_string(c) + "x1x" +
                           std::to_string(kh) + "x" + std::to_string(kw) +
                           " has a zero dimension");
  }
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(c1hw, "PackDepthwiseWeights: weights"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(out, "PackDepthwiseWeights: output"));
  const size_t bytes = DepthwiseWeightBytes(b, c, kh, kw);
  LOOM_RETURN_IF_ERROR(internal::CheckSize(bytes, "PackDepthwiseWeights"));
  LOOM_RETURN_IF_ERROR(
      internal::CheckNoAlias(c1hw, size_t{c} * kh * kw, out, bytes, "PackDepthwiseWeights"));
  std::memset(out, 0, bytes);
  for (uint32_t ch = 0; ch < c; ++ch)
    for (uint32_t y = 0; y < kh; ++y)
      for (uint32_t x = 0; x < kw; ++x)
        out[((size_t{ch / b.block} * kh + y) * kw + x) * b.block + ch % b.block] =
            c1hw[(size_t{ch} * kh + y) * kw + x];
  return Status::Ok();
}

Status PackChannelVector(const Blocking& b, uint32_t channels, const int32_t* values,
                         int32_t* out) {
  LOOM_RETURN_IF_ERROR(internal::CheckBlocking(b));
  if (channels == 0) return InvalidArgument("PackChannelVector: channel count must be at least 1");
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(values, "PackChannelVector: values"));
  LOOM_RETURN_IF_ERROR(internal::CheckNotNull(out, "PackChannelVector: output"));
  const size_t elems = ChannelVectorElems(b, channels);
  LOOM_RETURN_IF_ERROR(internal::CheckSize(elems, "PackChannelVector"));
  LOOM_RETURN_IF_ERROR(internal::CheckNoAlias(values, size_t{channels} * 4, out, elems * 4,
                                              "PackChannelVector"));
  std::memset(out, 0, elems * sizeof(int32_t));
  for (uint32_t ch = 0; ch < channels; ++ch)
    for (uint32_t bi = 0; bi < b.batch; ++bi)
      out[(size_t{ch / b.block} * b.batch + bi) * b.block + ch % b.block] = values[ch];
  return Status::Ok();
}

}  // namespace loom::kernels::q
