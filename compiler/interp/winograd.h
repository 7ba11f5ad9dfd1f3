// Float 3x3 stride-1 convolution by Winograd's F(2x2, 3x3) (Lavin and Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2016), for the interpreter that calibration runs once per
// image. Each 2x2 output tile comes from a 4x4 input tile: the input and the weights are
// transformed into 16 planes each, the planes multiply as 16 sgemms [M x C] x [C x tiles], and the
// results transform back. That is 16 multiplications per 4 outputs instead of 36: ResNet-18's
// 3x3 convolutions are 80 % of its work and sgemm already runs them near the core's peak, so
// fewer multiplications is what is left to gain.
//
// The transforms hold only 0, ±1 and ±1/2, so the result is the direct sum up to float rounding
// (a little more than the direct sum's: each product now sums a few transformed terms). One
// difference beyond rounding: an infinite or NaN input reaches every output of the 2x2 tiles that
// read it (inf - inf), where the direct sum keeps it to the windows that contain it.
#ifndef LOOM_COMPILER_INTERP_WINOGRAD_H_
#define LOOM_COMPILER_INTERP_WINOGRAD_H_

#include <cstddef>
#include <cstdint>

namespace loom::interp {

struct Winograd3x3Shape {
  int64_t c = 0, h = 0, w = 0;  // one image's input planes
  int64_t m = 0;                // output channels
  int64_t oh = 0, ow = 0;       // output size (stride 1)
  int64_t pt = 0, pl = 0;       // leading padding (trailing padding is implied by oh, ow)
};

// A per-thread float buffer of at least `count` elements, kept for the next call: the
// convolutions' work matrices are megabytes, and fresh ones cost a page fault and a page clear per
// 4 KiB on every call (a tenth of a calibration image). `slot` tells apart the buffers that one
// call uses at once (kScratchSlots of them). The contents are whatever the last user left.
constexpr int kScratchSlots = 4;
float* Scratch(int slot, size_t count);

// Whether F(2x2, 3x3) pays for this layer: enough tiles for sgemm to run near its peak.
bool WinogradPays(const Winograd3x3Shape& s);

// y[m][oh][ow] = bias[m] + sum over c, ky, kx of w[m][c][ky][kx] * x[c][oy + ky - pt][ox + kx - pl]
// (0 outside x) for one image. bias may be null. With `constant_w` (w is a graph constant) and a
// ReuseConstantWork alive on this thread, w's transform is kept for the next call.
void Winograd3x3(const Winograd3x3Shape& s, const float* x, const float* w, const float* bias,
                 float* y, bool constant_w);

}  // namespace loom::interp

#endif  // LOOM_COMPILER_INTERP_WINOGRAD_H_
