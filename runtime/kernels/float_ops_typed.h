// The rows of the float-op table (float_ops.h) whose operands are integers or bools, declared for
// the table in float_ops.cc: comparisons and logic (bool results), bit shifts and bitwise ops,
// Not / IsNaN / IsInf, Where, Cast, ArgMax / ArgMin (i64 indices), Clip. With them a CPU segment
// carries the integer and bool tensors of a model through unchanged, as the interpreter computes
// them; the int8 path quantizes only float32 activations. Each prepare checks the operand types
// its kernel takes, so a package with a wrong one is refused at load, not at run time.
#ifndef LOOM_RUNTIME_KERNELS_FLOAT_OPS_TYPED_H_
#define LOOM_RUNTIME_KERNELS_FLOAT_OPS_TYPED_H_

#include "runtime/kernels/float_ops.h"

namespace loom::kernels::typed {

// Every element type a package carries; the prepares narrow it per op.
inline constexpr const char* kAnyType = "f32 f64 f16 i8 u8 i16 i32 i64 bool u16 u32 u64";

// A binary op of BinaryOp `kOp` over any type its kernel takes (BinaryTypes); Mod and BitShift
// read their attribute (fmod, direction) first.
template <BinaryOp kOp>
Status PrepBinary(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                  FloatOpParams* p);
Status RunBinary(const FloatOpParams& p, const TensorView* const* in, size_t n,
                 const TensorView& y);

template <UnaryOp kOp>
Status PrepUnary(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                 FloatOpParams* p);
Status RunUnary(const FloatOpParams& p, const TensorView* const* in, size_t n, const TensorView& y);

// Clip on f32, i8, u8, i32 or i64: the optional min / max inputs are scalars of x's type, read as
// that type when the op runs (constant or fed at run time).
Status PrepClip(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                FloatOpParams* p);
Status RunClip(const FloatOpParams& p, const TensorView* const* in, size_t n, const TensorView& y);

Status PrepWhere(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                 FloatOpParams* p);
Status RunWhere(const FloatOpParams& p, const TensorView* const* in, size_t n, const TensorView& y);

Status PrepCast(const AttrReader& a, const TensorView* const* in, size_t n, const TensorView& y,
                FloatOpParams* p);
Status RunCast(const FloatOpParams& p, const TensorView* const* in, size_t n, const TensorView& y);

template <bool kMax>
Status PrepArgReduce(const AttrReader& a, const TensorView* const* in, size_t n,
                     const TensorView& y, FloatOpParams* p);
Status RunArgReduce(const FloatOpParams& p, const TensorView* const* in, size_t n,
                    const TensorView& y);

}  // namespace loom::kernels::typed

#endif  // LOOM_RUNTIME_KERNELS_FLOAT_OPS_TYPED_H_
