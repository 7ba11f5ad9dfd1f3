// Fast int8 kernels for the blocked layouts of qops.h: the same integer program as the portable
// reference kernels (conv2d.cc), bit for bit, with SIMD micro-kernels chosen at run time for the
// CPU at hand. The reference stays the definition; every path here is tested against it
// (conv2d_fast_test.cc), and KernelPath::kReference runs it unchanged.
//
// Which path runs: the fastest one this CPU supports (BestPath), unless LOOM_CPU_KERNELS names
// another (DefaultPath), or a caller asks for one (ExecutorOptions::cpu_kernels). A path whose
// micro-kernels do not support a blocking (e.g. AVX2 needs block % 8 == 0) falls back to the next
// slower one for that call, down to the portable tiles that take any block.
#ifndef LOOM_RUNTIME_KERNELS_INT8_FAST_FAST_H_
#define LOOM_RUNTIME_KERNELS_INT8_FAST_FAST_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/status.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::kernels::q::fast {

enum class KernelPath {
  kReference,   // conv2d.cc as is
  kPortable,    // the tiled loop with plain C++ micro-kernels (any CPU, any block)
  kAvx2,        // x86-64: int16 pmaddwd tiles (block % 8 == 0)
  kAvx512Vnni,  // x86-64: vpdpbusd tiles (block % 16 == 0), AVX2 requantization
  kNeon,        // armv7 / aarch64: smlal tiles (block % 4 == 0)
  kNeonDot,     // aarch64 with the dot-product extension: sdot tiles (block % 4 == 0)
};

// "reference", "portable", "avx2", "avx512vnni", "neon", "neondot".
const char* PathName(KernelPath path);
// Parses a name above or "auto" (BestPath). InvalidArgument lists the names; Unimplemented when
// the path exists but this CPU or build cannot run it.
Status ParsePath(const char* name, KernelPath* path);
// Whether this build and this CPU can run `path` (checked once, cached).
bool PathSupported(KernelPath path);
// The fastest supported path.
KernelPath BestPath();
// LOOM_CPU_KERNELS when set (an unknown or unsupported name falls back to BestPath with one line
// on stderr), else BestPath.
KernelPath DefaultPath();

// Scratch the fast Conv2d needs for `p`: the weight tiles of one output-channel block repacked
// for the micro-kernel, and one strip of int32 accumulators. 0 for kReference.
size_t Conv2dWorkspaceBytes(KernelPath path, const Blocking& b, const Conv2dParams& p);

// The weights of a groups == 1 convolution repacked once for `path`'s micro-kernels (the
// executor does it at load for constant weights), so Conv2d does not repack them per call, and,
// for row kernels that take one, each output channel's bias adjustment after the tiles
// (rows.h RowKernels::bias_adjust). 0 for kReference and depthwise, which use the stored layout.
size_t PackedWeightsBytes(KernelPath path, const Blocking& b, const Conv2dParams& p);
Status PackWeights(KernelPath path, const Blocking& b, const Conv2dParams& p, const int8_t* weights,
                   void* packed, size_t packed_bytes);

// qops.h's Conv2d on `path`, with the same checks and messages, and the same bytes out.
// `packed_weights` is PackWeights' output for the same path, blocking, parameters and weights,
// or null (the tiles are then repacked per call into the workspace). The caller owns `workspace`
// (at least Conv2dWorkspaceBytes; any alignment); nothing is allocated.
Status Conv2d(KernelPath path, const Blocking& b, const Conv2dParams& p, const int8_t* in,
              const int8_t* weights, const void* packed_weights, const int32_t* bias,
              const int32_t* mult, int8_t* out, void* workspace, size_t workspace_bytes);

// qops.h's QuantizeF32 on `path` (vector code on the x86 paths, the reference elsewhere), with
// the same checks and the same bytes out.
Status QuantizeF32(KernelPath path, const float* x, size_t count, float scale, int32_t zero_point,
                   int8_t* q);

// qops.h's Add on `path` (vector code on the x86 and NEON paths), with the same checks and bytes.
Status Add(KernelPath path, const Blocking& b, const AddParams& p, const int8_t* a,
           const int8_t* bb, int8_t* out);

// qops.h's Mul on `path` (vector code on the x86 and NEON paths), with the same checks and bytes.
Status Mul(KernelPath path, const Blocking& b, const MulParams& p, const int8_t* a,
           const int8_t* bb, int8_t* out);

// qops.h's MaxPool on `path` (every lane of a position at once: AVX2 on the x86 paths, NEON on the
// NEON paths, a plain loop the compiler vectorizes elsewhere), with the same checks and bytes.
Status MaxPool(KernelPath path, const Blocking& b, const PoolParams& p, const int8_t* in,
               int8_t* out);

// qops.h's AvgPool on `path` (every lane of a position at once: AVX2 on the x86 paths, NEON on the
// NEON paths, a plain loop the compiler vectorizes elsewhere), with the same checks and bytes.
Status AvgPool(KernelPath path, const Blocking& b, const AvgPoolParams& p,
               const int32_t* mult_by_count, const int8_t* in, int8_t* out);

}  // namespace loom::kernels::q::fast

#endif  // LOOM_RUNTIME_KERNELS_INT8_FAST_FAST_H_
