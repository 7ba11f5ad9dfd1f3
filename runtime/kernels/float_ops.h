// The float operators a package's CPU segments may hold (FloatOp in the schema), in one table: per
// operator its operands, the attributes it reads, how those become kernel parameters, and the
// kernel entry point. Adding an operator is one row here (and its kernel); the loader and the
// executor follow.
//
// Who uses it, and why it lives here: the loader (runtime/package) checks a FloatOp's operand
// counts and attributes against its row and resolves the op to that row and its prepared
// parameters once, at load; the executor (runtime/exec) then calls the row's kernel without
// comparing a single string at run time. Both sit above the kernels, so the kernels' layer is the
// one place both can reach. The price: whatever links the loader links the float reference kernels
// too. Every runtime that executes a package needs them anyway; only loader-only programs (inspect,
// the package fuzz target) carry them unused: about 85 KB of code at -O2, plain C++17 over
// runtime/core.
//
// Attributes the runtime does not read are refused at load, so a package can never carry an
// attribute that changes the result and is silently ignored. A few are accepted and ignored because
// they cannot change what the kernel computes once shapes are fixed at compile time (`ignores`).
#ifndef LOOM_RUNTIME_KERNELS_FLOAT_OPS_H_
#define LOOM_RUNTIME_KERNELS_FLOAT_OPS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/kernels_index.h"
#include "runtime/kernels/kernels_math.h"
#include "runtime/kernels/kernels_reduce.h"
#include "runtime/kernels/kernels_seq.h"
#include "runtime/kernels/kernels_vision.h"
#include "runtime/kernels/kernels_vision2.h"

namespace loom::kernels {

// An operator's attributes, wherever they are stored (the loader reads a package's FloatAttr
// list). The lookups of kernels/op_attrs.h; absent attributes give the fallback or an empty list.
class AttrReader {
 public:
  virtual ~AttrReader() = default;
  virtual std::vector<int64_t> GetInts(std::string_view name) const = 0;
  virtual int64_t GetInt(std::string_view name, int64_t fallback) const = 0;
  virtual float GetFloat(std::string_view name, float fallback) const = 0;
  virtual std::vector<float> GetFloats(std::string_view name) const = 0;  // Resize's scales, roi
  // A string attribute (package 1.7: Pad's mode, a loss's reduction); a numeric one reads as
  // absent.
  virtual std::string GetString(std::string_view name, std::string_view fallback) const = 0;
  // Whether the attribute is present at all (a loss's ignore_index has no neutral default).
  virtual bool Has(std::string_view name) const = 0;
};

// Kernel parameters of one float operator, resolved at load (axes non-negative, defaults filled
// in). Each operator uses the fields its kernel takes.
struct FloatOpParams {
  ConvParams conv;
  PoolParams pool;
  GemmParams gemm;
  ActivationParams act;  // Relu, LeakyRelu, Sigmoid; Clip's kind (its bounds are inputs)
  BinaryOp binary = BinaryOp::kAdd;
  int axis = 0;                 // Softmax, Concat
  int64_t perm[kMaxRank] = {};  // Transpose
  float epsilon = 1e-5f;        // BatchNormalization
  // Vision and normalization family (kernels_vision.h); LayerNormalization uses axis, epsilon.
  ResizeParams resize;
  LrnParams lrn;
  // Reduction family (kernels_reduce.h); LogSoftmax, Hardmax and CumSum use axis.
  ReduceOp reduce = ReduceOp::kSum;
  uint32_t reduce_axes = 0;  // bit d: dim d of the input is reduced (also MVN)
  bool exclusive = false;    // CumSum
  bool reverse = false;      // CumSum
  EinsumSpec einsum;
  // Elementwise math family (kernels_math.h); its binary ops use `binary`.
  UnaryParams unary;
  // Shape and indexing family (kernels_index.h); Gather & co. use axis.
  int64_t starts[kMaxRank] = {};  // Slice; MaxUnpool's index_shape
  int64_t steps[kMaxRank] = {};   // Slice
  ScatterReduction reduction = ScatterReduction::kNone;
  int64_t k = 0;        // Trilu
  bool upper = true;    // Trilu
  int second_axis = 0;  // ReverseSequence's time_axis (axis is batch_axis)
  // Recurrent, signal and misc family (kernels_seq.h); DFT uses axis.
  int64_t dft_length = 0;  // DFT; STFT's frame_length
  int64_t frame_step = 0;  // STFT
  bool inverse = false;    // DFT
  bool onesided = false;   // DFT, STFT
  // Detection/vision family (kernels_vision2.h).
  GridSampleParams grid_sample;
  RoiAlignParams roi_align;
  // Multi-output and scratch rows (FloatOpDef::run_multi).
  RecurrentParams recurrent;  // RNN, GRU, LSTM
  int gates = 0;              // RNN 1, GRU 3, LSTM 4
  float momentum = 0.9f;      // BatchNormalizationTraining
  // Rows with string attributes (float_ops_strings.h); EyeLike uses k, TopK axis.
  LossParams loss;  // NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
  PadMode pad_mode = PadMode::kConstant;
  int64_t pads[2 * kMaxRank] = {};  // Pad: all begins, then all ends
  double pad_value = 0.0;
  bool largest = true;  // TopK
  // Integer and bool rows (float_ops_typed.h); ArgMax / ArgMin use axis.
  bool arg_max = false;      // ArgMax (else ArgMin)
  bool select_last = false;  // ArgMax / ArgMin: the last of equal extremes
};

// Operands: `in[i]` is null for an omitted optional input; `num_inputs` counts every slot.
// Prepare sees views with types and shapes only (null data): what the loader knows before any
// run. Each view carries its tensor's own type (package.md: types are stored as themselves).
using FloatOpPrepare = Status (*)(const AttrReader& attrs, const TensorView* const* in,
                                  size_t num_inputs, const TensorView& y, FloatOpParams* out);
using FloatOpKernel = Status (*)(const FloatOpParams& p, const TensorView* const* in,
                                 size_t num_inputs, const TensorView& y);

// Rows whose op has several outputs or needs scratch run through this instead: out[0] is y,
// out[1..num_outputs) the further outputs the package gives the op (every one has a tensor), and
// scratch holds the bytes the row's scratch_bytes asked for at load, aligned for doubles. The
// kernel allocates nothing: on bare metal the heap is closed once the package is loaded.
using FloatOpMultiKernel = Status (*)(const FloatOpParams& p, const TensorView* const* in,
                                      size_t num_inputs, const TensorView* const* out,
                                      size_t num_outputs, void* scratch);
// The scratch bytes one run needs, from the prepared parameters and the operand shapes.
using FloatOpScratchBytes = size_t (*)(const FloatOpParams& p, const TensorView* const* in,
                                       size_t num_inputs, const TensorView& y);

struct FloatOpDef {
  const char* name;
  uint8_t required;        // inputs that must be present
  uint8_t optional;        // up to this many more, each may be omitted
  bool variadic;           // instead: any number more, all present (Concat)
  bool same_elements;      // the output has input 0's element count (checked at load)
  const char* reads;       // space-separated attributes the op reads
  const char* ignores;     // space-separated attributes accepted without effect (see the table)
  FloatOpPrepare prepare;  // attributes and shapes -> FloatOpParams; may refuse them
  FloatOpKernel run;
  // Space-separated types (DTypeName: "f32 i64 bool") every operand may have, checked at load;
  // "any": the prepare checks types itself. Rows leave it out for float32-only kernels.
  const char* dtypes = "f32";
  // Outputs after the first the op may have (LayerNormalization's Mean and InvStdDev: 2); rows
  // with any, or with scratch, set run_multi (run may then be null).
  uint8_t extra_outputs = 0;
  FloatOpMultiKernel run_multi = nullptr;
  FloatOpScratchBytes scratch_bytes = nullptr;  // null: no scratch
};

// Whether `t` is in the row's `dtypes`.
bool FloatOpTakes(const FloatOpDef& def, DType t);

// The row for an operator name, or null.
const FloatOpDef* FindFloatOp(std::string_view name);
// Every row, in table order.
const FloatOpDef* FloatOpTable(size_t* count);
// Whether `attr` is in the space-separated `list`.
bool AttrListed(const char* list, std::string_view attr);

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_FLOAT_OPS_H_
