// The kernel ABI's entry points (kernel_abi.h) over the kernel bodies (../bodies.h). Never built
// into the runtime: clang compiles this file to LLVM bitcode per target triple at build time
// (compiler/codegen/CMakeLists.txt), and the code generator links that bitcode into every
// package's native code, inlines these entries and specializes them on their constant arrays.
// Freestanding: no exceptions, no RTTI, no allocation, no library call but memcpy/memset.
#include "runtime/kernels/int8/abi/kernel_abi.h"

#include "runtime/kernels/int8/bodies.h"

using namespace loom::kernels::q;  // NOLINT: the entries are extern "C", outside any namespace

extern "C" {

void loom_k_conv2d(const int32_t* a, const int8_t* in, const int8_t* weights, const int32_t* bias,
                   const int32_t* mult, int8_t* out) {
  Blocking b;
  Conv2dParams p;
  abi::DecodeConv2d(a, &b, &p);
  body::Conv2d(b, p, in, weights, bias, mult, out);
}

void loom_k_add(const int32_t* a, const int8_t* x, const int8_t* y, int8_t* out) {
  Blocking b;
  AddParams p;
  abi::DecodeAdd(a, &b, &p);
  body::Add(b, p, x, y, out);
}

void loom_k_mul(const int32_t* a, const int8_t* x, const int8_t* y, int8_t* out) {
  Blocking b;
  MulParams p;
  abi::DecodeMul(a, &b, &p);
  body::Mul(b, p, x, y, out);
}

void loom_k_max_pool(const int32_t* a, const int8_t* in, int8_t* out) {
  Blocking b;
  PoolParams p;
  abi::DecodeMaxPool(a, &b, &p);
  body::MaxPool(b, p, in, out);
}

void loom_k_avg_pool(const int32_t* a, const int32_t* mult_by_count, const int8_t* in,
                     int8_t* out) {
  Blocking b;
  AvgPoolParams p;
  abi::DecodeAvgPool(a, &b, &p);
  body::AvgPool(b, p, mult_by_count, in, out);
}

void loom_k_resize_nearest(const int32_t* a, const int8_t* in, int8_t* out) {
  Blocking b;
  ResizeParams p;
  abi::DecodeScaledPlane(a, &b, &p.shape, &p.factor_h, &p.factor_w);
  body::ResizeNearest(b, p, in, out);
}

void loom_k_zero_insert(const int32_t* a, const int8_t* in, int8_t* out) {
  Blocking b;
  ZeroInsertParams p;
  abi::DecodeScaledPlane(a, &b, &p.shape, &p.stride_h, &p.stride_w);
  body::ZeroInsert(b, p, in, out);
}

void loom_k_concat_into(const int32_t* a, const int8_t* in, int8_t* out) {
  Blocking b;
  ActShape os;
  uint32_t c_off = 0;
  ConcatInput input;
  abi::DecodeConcatInto(a, &b, &os, &c_off, &input);
  input.data = in;
  body::ConcatInto(b, os, c_off, input, out);
}

}  // extern "C"
