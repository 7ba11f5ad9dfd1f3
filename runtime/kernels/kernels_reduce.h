// The reference kernels of the reduction family (issue 12): the Reduce* ops, ArgMax/ArgMin,
// LogSoftmax and Hardmax, CumSum, TopK and the two losses used at inference
// (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss). Same contract as kernels.h: outputs of
// their final shape come from the caller, attributes arrive resolved (axes non-negative), and no
// kernel allocates; a kernel that would need a scratch buffer walks its input twice instead.
#ifndef LOOM_RUNTIME_KERNELS_KERNELS_REDUCE_H_
#define LOOM_RUNTIME_KERNELS_KERNELS_REDUCE_H_

#include <cstdint>

#include "runtime/core/status.h"
#include "runtime/kernels/tensor.h"

namespace loom::kernels {

// reduce.cc — ONNX ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare over the dims
// whose bit is set in `axes` (bit d = dim d of x). y holds the kept dims in x's order, with or
// without the reduced dims as 1s (only its element count is checked). Floats accumulate in
// double, integers in int64 (Sum, Mean, Max, Min, Prod, L1, SumSquare; the log ops are float
// only). Reducing an empty extent gives the op's identity (0, 1, -inf, +inf; NaN for Mean).
enum class ReduceOp : uint8_t {
  kSum,
  kMean,
  kMax,
  kMin,
  kProd,
  kL1,
  kL2,
  kLogSum,
  kLogSumExp,
  kSumSquare
};
// The op of an IR / ONNX name ("ReduceSum", ...); false for other names.
bool ReduceOpFromName(const char* name, ReduceOp* op);
// Sorted non-negative axes -> the bit mask Reduce takes; fails on a repeat or an axis >= rank.
Status ReduceAxesMask(const int64_t* axes, int count, int rank, uint32_t* mask);
Status Reduce(ReduceOp op, const TensorView& x, uint32_t axes, const TensorView& y);

// arg_reduce.cc — ONNX ArgMax / ArgMin along `axis` to int64 indices; ties go to the first index,
// or the last with select_last_index. y has x's shape with the axis as 1 or dropped. A NaN wins
// (as in NumPy), so a line holding one reports the first NaN.
Status ArgReduce(bool max, const TensorView& x, int axis, bool select_last_index,
                 const TensorView& y);

// log_softmax.cc / hardmax.cc — along one axis (opset-13 semantics; the importer turns the older
// 2-D coercion into reshapes). Hardmax writes 1 at the first maximum of each line, 0 elsewhere.
Status LogSoftmax(const TensorView& x, int axis, const TensorView& y);
Status Hardmax(const TensorView& x, int axis, const TensorView& y);

// cumsum.cc — ONNX CumSum along `axis` (f32, f64, i32, i64): exclusive leaves out the element
// itself, reverse sums from the end.
Status CumSum(const TensorView& x, int axis, bool exclusive, bool reverse, const TensorView& y);

// top_k.cc — ONNX TopK along `axis`: the k largest (or smallest) elements of each line, in
// order (ties: lower index first) when `sorted`, and their int64 indices. k comes from the
// outputs' shape. Selection is O(k * n) per line so the kernel needs no scratch.
Status TopK(const TensorView& x, int axis, bool largest, const TensorView& values,
            const TensorView& indices);

// nll_loss.cc / softmax_cross_entropy.cc — the losses over x [N, C, D1...] (log-probabilities
// for NLL, scores for SCE) and int32/int64 targets [N, D1...]; weight [C] optional. A target
// equal to ignore_index (when has_ignore_index) contributes 0 and no weight. Reduction none
// gives y of the target's shape, sum and mean a scalar (mean divides by the summed weights).
// SCE also writes the log-softmax over C into log_prob when it is not null.
enum class LossReduction : uint8_t { kNone = 0, kSum = 1, kMean = 2 };
struct LossParams {
  LossReduction reduction = LossReduction::kMean;
  bool has_ignore_index = false;
  int64_t ignore_index = 0;
};
Status NllLoss(const LossParams& p, const TensorView& x, const TensorView& target,
               const TensorView* weight, const TensorView& y);
Status SoftmaxCrossEntropy(const LossParams& p, const TensorView& scores, const TensorView& labels,
                           const TensorView* weight, const TensorView& y,
                           const TensorView* log_prob);

// einsum.cc — ONNX Einsum once the importer has parsed the equation: every dim of every operand
// and of y carries a label in [0, num_labels). A label repeated within one operand walks that
// operand's diagonal; a label missing from y is summed over; an operand dim of 1 broadcasts
// against the label's extent. f32 or f64, one type for all operands and y; sums in double.
constexpr int kMaxEinsumInputs = 8;
constexpr int kMaxEinsumLabels = 2 * kMaxRank;
struct EinsumSpec {
  int num_inputs = 0;
  int num_labels = 0;
  int8_t labels[kMaxEinsumInputs][kMaxRank] = {};  // per operand, per dim
  int8_t out_labels[kMaxRank] = {};                // per dim of y
};
// The spec from labels concatenated over the operands (operand k's rank entries in turn, ranks
// from `in`) and y's labels; checks ranges and that y names each label at most once.
Status EinsumSpecFrom(const int64_t* labels, size_t num_labels_listed, const int64_t* out_labels,
                      size_t out_count, const TensorView* const* in, int num_inputs,
                      EinsumSpec* spec);
Status Einsum(const EinsumSpec& s, const TensorView* const* in, int num_inputs,
              const TensorView& y);

// mvn.cc — ONNX MeanVarianceNormalization (f32): over the dims set in `axes` (bit d = dim d),
// y = (x - mean) / (sqrt(mean(x^2) - mean^2) + 1e-9), the ONNX function body's formula.
Status MeanVarianceNorm(const TensorView& x, uint32_t axes, const TensorView& y);

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_KERNELS_REDUCE_H_
