// The Reduce* family over an arbitrary set of axes. Two strided walks, no allocation: the outer
// one visits every output cell (x's shape with the reduced dims as 1), the inner one every input
// cell that folds into it (x's shape with the kept dims as 1), both over x's own strides.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "runtime/kernels/axis_walk.h"
#include "runtime/kernels/kernels_reduce.h"

namespace loom::kernels {
namespace {

struct NameOp {
  const char* name;
  ReduceOp op;
};
constexpr NameOp kNames[] = {
    {"ReduceSum", ReduceOp::kSum},
    {"ReduceMean", ReduceOp::kMean},
    {"ReduceMax", ReduceOp::kMax},
    {"ReduceMin", ReduceOp::kMin},
    {"ReduceProd", ReduceOp::kProd},
    {"ReduceL1", ReduceOp::kL1},
    {"ReduceL2", ReduceOp::kL2},
    {"ReduceLogSum", ReduceOp::kLogSum},
    {"ReduceLogSumExp", ReduceOp::kLogSumExp},
    {"ReduceSumSquare", ReduceOp::kSumSquare},
};

template <typename Acc>
bool IsNan(Acc v) {
  if constexpr (std::is_floating_point_v<Acc>) return std::isnan(v);
  return false;
}

bool IsLogOp(ReduceOp op) {
  return op == ReduceOp::kL2 || op == ReduceOp::kLogSum || op == ReduceOp::kLogSumExp;
}

// Folds one line of values (the inner walk) into the op's result. Acc is double for floats and
// int64 for integers; Max/Min keep a NaN once seen, as NumPy does.
template <typename T, typename Acc>
Acc Fold(ReduceOp op, const T* x, IndexWalker<1> w, int64_t count) {
  Acc acc = 0;
  if (op == ReduceOp::kProd) acc = 1;
  if (op == ReduceOp::kMax || op == ReduceOp::kMin) {
    if (count == 0) {
      if (std::numeric_limits<Acc>::has_infinity) {
        const Acc inf = std::numeric_limits<Acc>::infinity();
        return op == ReduceOp::kMax ? -inf : inf;
      }
      return op == ReduceOp::kMax ? std::numeric_limits<Acc>::lowest()
                                  : std::numeric_limits<Acc>::max();
    }
    acc = static_cast<Acc>(x[w.offset[0]]);
  }
  // LogSumExp subtracts the line's maximum before exp so large inputs do not overflow.
  Acc shift = 0;
  if (op == ReduceOp::kLogSumExp && count > 0) {
    IndexWalker<1> m = w;
    shift = static_cast<Acc>(x[m.offset[0]]);
    while (m.Next()) shift = static_cast<Acc>(std::fmax(shift, static_cast<Acc>(x[m.offset[0]])));
    if (!std::isfinite(static_cast<double>(shift))) shift = 0;
  }
  if (count == 0) {
    if (op == ReduceOp::kLogSum || op == ReduceOp::kLogSumExp) {
      return -std::numeric_limits<Acc>::infinity();
    }
    return op == ReduceOp::kMean ? std::numeric_limits<Acc>::quiet_NaN() : acc;
  }
  do {
    const Acc v = static_cast<Acc>(x[w.offset[0]]);
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kMean:
      case ReduceOp::kLogSum:
        acc += v;
        break;
      case ReduceOp::kMax:
        if (v > acc || IsNan(v)) acc = v;
        break;
      case ReduceOp::kMin:
        if (v < acc || IsNan(v)) acc = v;
        break;
      case ReduceOp::kProd:
        acc *= v;
        break;
      case ReduceOp::kL1:
        acc += v < 0 ? -v : v;
        break;
      case ReduceOp::kL2:
      case ReduceOp::kSumSquare:
        acc += v * v;
        break;
      case ReduceOp::kLogSumExp:
        acc += static_cast<Acc>(std::exp(static_cast<double>(v - shift)));
        break;
    }
  } while (w.Next());
  switch (op) {
    case ReduceOp::kMean:
      return acc / static_cast<Acc>(count);
    case ReduceOp::kL2:
      return static_cast<Acc>(std::sqrt(static_cast<double>(acc)));
    case ReduceOp::kLogSum:
      return static_cast<Acc>(std::log(static_cast<double>(acc)));
    case ReduceOp::kLogSumExp:
      return static_cast<Acc>(std::log(static_cast<double>(acc))) + shift;
    default:
      return acc;
  }
}

template <typename T, typename Acc>
void Run(ReduceOp op, const TensorView& x, uint32_t axes, const TensorView& y) {
  IndexWalker<1> outer, inner;
  const int64_t count = SplitReducedDims(x, axes, &outer, &inner);
  const T* xd = x.As<const T>();
  T* yd = y.As<T>();
  int64_t o = 0;
  do {
    IndexWalker<1> w = inner;
    w.offset[0] = outer.offset[0];
    yd[o++] = static_cast<T>(Fold<T, Acc>(op, xd, w, count));
  } while (outer.Next());
}

}  // namespace

bool ReduceOpFromName(const char* name, ReduceOp* op) {
  for (const NameOp& n : kNames) {
    if (std::strcmp(name, n.name) == 0) {
      *op = n.op;
      return true;
    }
  }
  return false;
}

Status ReduceAxesMask(const int64_t* axes, int count, int rank, uint32_t* mask) {
  *mask = 0;
  for (int i = 0; i < count; ++i) {
    if (axes[i] < 0 || axes[i] >= rank) {
      return InvalidArgument("reduce: axis " + std::to_string(axes[i]) + " is outside [0, " +
                             std::to_string(rank) + ")");
    }
    const uint32_t bit = 1u << axes[i];
    if (*mask & bit) return InvalidArgument("reduce: axis " + std::to_string(axes[i]) + " repeats");
    *mask |= bit;
  }
  return Status::Ok();
}

Status Reduce(ReduceOp op, const TensorView& x, uint32_t axes, const TensorView& y) {
  if (x.dtype != y.dtype) return InvalidArgument("reduce: x and y must have one element type");
  if (x.rank < kMaxRank && (axes >> x.rank) != 0) {
    return InvalidArgument("reduce: an axis lies beyond x's rank " + std::to_string(x.rank));
  }
  int64_t kept = 1;
  bool empty_kept = false;
  for (int d = 0; d < x.rank; ++d) {
    if (!((axes >> d) & 1u)) {
      kept *= x.shape[d];
      empty_kept = empty_kept || x.shape[d] == 0;
    }
  }
  if (y.NumElements() != kept) {
    return InvalidArgument("reduce: y has " + std::to_string(y.NumElements()) +
                           " elements, the kept dims of x " + std::to_string(kept));
  }
  if (empty_kept) return Status::Ok();  // no output cell to fill
  switch (x.dtype) {
    case DType::kF32:
      Run<float, double>(op, x, axes, y);
      return Status::Ok();
    case DType::kF64:
      Run<double, double>(op, x, axes, y);
      return Status::Ok();
    case DType::kI32:
    case DType::kI64:
      if (IsLogOp(op)) break;
      if (x.dtype == DType::kI32) {
        Run<int32_t, int64_t>(op, x, axes, y);
      } else {
        Run<int64_t, int64_t>(op, x, axes, y);
      }
      return Status::Ok();
    default:
      break;
  }
  return InvalidArgument(std::string("reduce: element type ") + DTypeName(x.dtype) +
                         " is not supported by this op (f32, f64; i32, i64 except L2 and the "
                         "log reductions)");
}

}  // namespace loom::kernels
