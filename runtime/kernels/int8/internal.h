// Shared by the int8 kernels: parameter checks that every operator runs before touching data, and
// the blocked-index arithmetic. Internal to loom_kernels_int8.
#ifndef LOOM_RUNTIME_KERNELS_INT8_INTERNAL_H_
#define LOOM_RUNTIME_KERNELS_INT8_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/core/blocked_layout.h"
#include "runtime/kernels/int8/bodies.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q::internal {

// A size from qops.h's *Bytes/*Elems that came back SIZE_MAX (it does not fit size_t).
Status CheckSize(size_t size, const char* what);

// Blocking with batch >= 1 and block >= 1.
Status CheckBlocking(const Blocking& b);
// Every dimension >= 1; `what` names the tensor in the message.
Status CheckShape(const ActShape& s, const char* what);
// Shifts in [-31, 31]; clip_lo <= clip_hi, both within [-128, 127].
Status CheckRequant(const Requant& rq, const char* op);
// "OP: WHAT 40 is outside [-31, 31]"; the text is built only on failure.
Status CheckShift(int32_t shift, const char* op, const char* what);
// "OP: WHAT 300 is outside [-255, 255]"; the text is built only on failure.
Status CheckRange(int32_t v, int32_t lo, int32_t hi, const char* op, const char* what);
Status CheckClip(int32_t lo, int32_t hi, const char* op);
// A window kh x kw with strides and pads over `in`: sizes >= 1, each pad < its kernel size (so
// every window holds a real element) and the padded input at least one window large.
Status CheckWindow(const ActShape& in, uint32_t kh, uint32_t kw, uint32_t sh, uint32_t sw,
                   uint32_t pt, uint32_t pl, uint32_t pb, uint32_t pr, const char* op);
// Null pointers and overlapping [a, a+na) / [b, b+nb) byte ranges.
Status CheckNotNull(const void* p, const char* what);
Status CheckNoAlias(const void* a, size_t na, const void* b, size_t nb, const char* what);

// ResizeNearest's and ZeroInsert's checks: both turn an H x W plane into (H*fh) x (W*fw) of the
// same blocking. `names` words the messages (no text is built unless a check fails: the kernels
// run on boards where a run must not allocate). On success *sp holds the output shape and sizes.
struct ScaledPlaneNames {
  const char* op;       // "ZeroInsert"
  const char* input;    // "ZeroInsert: input"
  const char* output;   // "ZeroInsert: output"
  const char* factors;  // "strides"
};
struct ScaledPlane {
  ActShape out;
  size_t in_bytes = 0, out_bytes = 0;
};
Status CheckScaledPlaneCall(const Blocking& b, const ActShape& in, uint32_t fh, uint32_t fw,
                            const int8_t* x, const int8_t* out, const ScaledPlaneNames& names,
                            ScaledPlane* sp);

// Every check Conv2d runs before touching data (conv2d_checks.cc), shared by the reference and
// the fast kernels so both refuse the same calls with the same messages.
// Add's checks (add.cc), shared with fast::Add.
Status CheckAddCall(const Blocking& b, const AddParams& p, const int8_t* a, const int8_t* bb,
                    const int8_t* out);
// Mul's checks (mul.cc), shared with fast::Mul.
Status CheckMulCall(const Blocking& b, const MulParams& p, const int8_t* a, const int8_t* bb,
                    const int8_t* out);
Status CheckConv2dCall(const Blocking& b, const Conv2dParams& p, const void* in,
                       const void* weights, const void* mult, const void* out);

}  // namespace loom::kernels::q::internal

#endif  // LOOM_RUNTIME_KERNELS_INT8_INTERNAL_H_
