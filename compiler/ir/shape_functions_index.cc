// Shape functions of the shape and indexing family (issue 12). Ops whose output shape depends on
// data (Range, ConstantOfShape, NonZero) read it from constant inputs and refuse anything else:
// the IR's shapes are static.
#include <cmath>

#include "compiler/ir/shape_functions.h"
#include "runtime/core/checked_math.h"

namespace loom::ir {
namespace {

const std::initializer_list<DType> kIndexTypes = {DType::kI32, DType::kI64};

// Every axis attribute of this family is canonical: non-negative and below `rank`.
Status ExpectAxis(const InferContext& ctx, const char* name, int64_t rank, int64_t* axis) {
  *axis = ctx.node().GetInt(name, -1);
  if (*axis < 0 || *axis >= rank) {
    return ctx.Error(std::string(name) + " " + std::to_string(*axis) + " is outside [0, " +
                     std::to_string(rank) + ")");
  }
  return Status::Ok();
}

const Tensor* ConstantOf(const InferContext& ctx, int i) {
  const Value& v = ctx.input(i);
  return v.is_constant() ? &*v.constant : nullptr;
}

Status ExpectReduction(const InferContext& ctx) {
  const int64_t r = ctx.node().GetInt("reduction", 0);
  if (r < 0 || r > 2) {
    return ctx.Error("reduction " + std::to_string(r) + " is not 0 (none), 1 (add) or 2 (mul)");
  }
  if (r != 0 && (ctx.input(0).dtype == DType::kBool || ctx.input(0).dtype == DType::kF16)) {
    return ctx.Error("reduction add/mul does not take " +
                     std::string(DTypeName(ctx.input(0).dtype)));
  }
  return Status::Ok();
}

}  // namespace

namespace shape {

Status Slice(InferContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const std::vector<int64_t> starts = ctx.node().GetInts("starts"),
                             ends = ctx.node().GetInts("ends"), steps = ctx.node().GetInts("steps");
  if (starts.size() != in.size() || ends.size() != in.size() || steps.size() != in.size()) {
    return ctx.Error("starts, ends and steps need one entry per input dim (" +
                     std::to_string(in.size()) + ")");
  }
  Shape out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const int64_t d = in[i], s = starts[i], e = ends[i], st = steps[i];
    // Canonical (clamped) bounds: forwards within [0, d], backwards within [-1, d - 1].
    const bool ok = st > 0   ? s >= 0 && s <= d && e >= 0 && e <= d
                    : st < 0 ? s >= -1 && s < d && e >= -1 && e < d
                             : false;
    if (!ok) {
      return ctx.Error("dim " + std::to_string(i) + ": start " + std::to_string(s) + ", end " +
                       std::to_string(e) + ", step " + std::to_string(st) +
                       " are not resolved bounds for a dim of " + std::to_string(d));
    }
    const int64_t span = st > 0 ? e - s : s - e, step = st > 0 ? st : -st;
    out[i] = span <= 0 ? 0 : (span - 1) / step + 1;
  }
  ctx.SetOutput(0, ctx.input(0).dtype, std::move(out));
  return Status::Ok();
}

Status ShapeOf(InferContext& ctx) {
  const int64_t rank = static_cast<int64_t>(ctx.input(0).shape.size());
  const int64_t start = ctx.node().GetInt("start", 0), end = ctx.node().GetInt("end", rank);
  if (start < 0 || end > rank || start > end) {
    return ctx.Error("start " + std::to_string(start) + " and end " + std::to_string(end) +
                     " must satisfy 0 <= start <= end <= rank " + std::to_string(rank));
  }
  ctx.SetOutput(0, DType::kI64, {end - start});
  return Status::Ok();
}

Status SizeOf(InferContext& ctx) {
  ctx.SetOutput(0, DType::kI64, {});
  return Status::Ok();
}

Status Gather(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, kIndexTypes));
  const Shape& data = ctx.input(0).shape;
  int64_t axis = 0;
  LOOM_RETURN_IF_ERROR(ExpectAxis(ctx, "axis", static_cast<int64_t>(data.size()), &axis));
  Shape out(data.begin(), data.begin() + axis);
  const Shape& idx = ctx.input(1).shape;
  out.insert(out.end(), idx.begin(), idx.end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  ctx.SetOutput(0, ctx.input(0).dtype, std::move(out));
  return Status::Ok();
}

Status GatherElements(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, kIndexTypes));
  const Shape &data = ctx.input(0).shape, &idx = ctx.input(1).shape;
  int64_t axis = 0;
  LOOM_RETURN_IF_ERROR(ExpectAxis(ctx, "axis", static_cast<int64_t>(data.size()), &axis));
  if (idx.size() != data.size()) return ctx.Error("indices must have data's rank");
  for (size_t d = 0; d < idx.size(); ++d) {
    if (static_cast<int64_t>(d) != axis && idx[d] > data[d]) {
      return ctx.Error("indices " + ShapeToString(idx) + " exceed data " + ShapeToString(data) +
                       " outside the axis");
    }
  }
  ctx.SetOutput(0, ctx.input(0).dtype, idx);
  return Status::Ok();
}

Status GatherND(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, kIndexTypes));
  const Shape &data = ctx.input(0).shape, &idx = ctx.input(1).shape;
  const int64_t b = ctx.node().GetInt("batch_dims", 0);
  const int64_t r = static_cast<int64_t>(data.size()), q = static_cast<int64_t>(idx.size());
  if (q < 1 || b < 0 || b >= q || b >= r) {
    return ctx.Error("batch_dims " + std::to_string(b) + " must be below both ranks");
  }
  const int64_t k = idx.back();
  if (k < 1 || b + k > r) {
    return ctx.Error("index tuples of length " + std::to_string(k) + " do not fit data " +
                     ShapeToString(data) + " after " + std::to_string(b) + " batch dims");
  }
  for (int64_t d = 0; d < b; ++d) {
    if (idx[d] != data[d]) return ctx.Error("batch dim " + std::to_string(d) + " differs");
  }
  Shape out(idx.begin(), idx.end() - 1);
  out.insert(out.end(), data.begin() + b + k, data.end());
  ctx.SetOutput(0, ctx.input(0).dtype, std::move(out));
  return Status::Ok();
}

Status ScatterND(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, kIndexTypes));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 2, {ctx.input(0).dtype}));
  LOOM_RETURN_IF_ERROR(ExpectReduction(ctx));
  const Shape &data = ctx.input(0).shape, &idx = ctx.input(1).shape, &upd = ctx.input(2).shape;
  if (idx.empty() || idx.back() < 1 || idx.back() > static_cast<int64_t>(data.size())) {
    return ctx.Error("the last dim of indices must be in [1, rank(data)]");
  }
  Shape want(idx.begin(), idx.end() - 1);
  want.insert(want.end(), data.begin() + idx.back(), data.end());
  if (upd != want) {
    return ctx.Error("updates " + ShapeToString(upd) + " must have shape " + ShapeToString(want));
  }
  ctx.SetOutput(0, ctx.input(0).dtype, data);
  return Status::Ok();
}

Status ScatterElements(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, kIndexTypes));
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 2, {ctx.input(0).dtype}));
  LOOM_RETURN_IF_ERROR(ExpectReduction(ctx));
  const Shape &data = ctx.input(0).shape, &idx = ctx.input(1).shape;
  int64_t axis = 0;
  LOOM_RETURN_IF_ERROR(ExpectAxis(ctx, "axis", static_cast<int64_t>(data.size()), &axis));
  if (idx != ctx.input(2).shape || idx.size() != data.size()) {
    return ctx.Error("indices and updates must have one shape, of data's rank");
  }
  for (size_t d = 0; d < idx.size(); ++d) {
    if (static_cast<int64_t>(d) != axis && idx[d] > data[d]) {
      return ctx.Error("indices " + ShapeToString(idx) + " exceed data " + ShapeToString(data));
    }
  }
  ctx.SetOutput(0, ctx.input(0).dtype, data);
  return Status::Ok();
}

Status Expand(InferContext& ctx) {
  const Shape target = ctx.node().GetInts("shape");
  Shape out;
  if (!BroadcastShapes(ctx.input(0).shape, target, &out) || out != target) {
    return ctx.Error(ShapeToString(ctx.input(0).shape) + " does not expand to " +
                     ShapeToString(target) + " (the shape attribute is the resolved output)");
  }
  ctx.SetOutput(0, ctx.input(0).dtype, target);
  return Status::Ok();
}

Status Tile(InferContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const std::vector<int64_t> repeats = ctx.node().GetInts("repeats");
  if (repeats.size() != in.size()) return ctx.Error("repeats needs one entry per input dim");
  Shape out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (repeats[i] < 0) return ctx.Error("repeats must not be negative");
    if (!CheckedMul(in[i], repeats[i], &out[i])) return ctx.Error("tiled dim overflows 64 bits");
  }
  ctx.SetOutput(0, ctx.input(0).dtype, std::move(out));
  return Status::Ok();
}

Status Trilu(InferContext& ctx) {
  if (ctx.input(0).shape.size() < 2) return ctx.Error("input must have rank >= 2");
  const int64_t upper = ctx.node().GetInt("upper", 1);
  if (upper != 0 && upper != 1) return ctx.Error("upper must be 0 or 1");
  ctx.SetOutput(0, ctx.input(0).dtype, ctx.input(0).shape);
  return Status::Ok();
}

Status Range(InferContext& ctx) {
  const DType t = ctx.input(0).dtype;
  LOOM_RETURN_IF_ERROR(
      ExpectDType(ctx, 0, {DType::kF32, DType::kF64, DType::kI16, DType::kI32, DType::kI64}));
  for (int i = 0; i < 3; ++i) {
    LOOM_RETURN_IF_ERROR(ExpectDType(ctx, i, {t}));
    if (ConstantOf(ctx, i) == nullptr || !IsScalarLike(ctx.input(i))) {
      return ctx.Error(
          "start, limit and delta must be constant scalars (the output's length "
          "depends on them)");
    }
  }
  int64_t count = 0;
  if (IsFloat(t)) {
    const double s = ConstantOf(ctx, 0)->ElementAsDouble(0),
                 l = ConstantOf(ctx, 1)->ElementAsDouble(0),
                 d = ConstantOf(ctx, 2)->ElementAsDouble(0);
    const double n = std::ceil((l - s) / d);
    if (d == 0 || !(n < 1e12)) return ctx.Error("delta 0 or an unbounded range");
    count = n > 0 ? static_cast<int64_t>(n) : 0;
  } else {
    const int64_t s = static_cast<int64_t>(ConstantOf(ctx, 0)->ElementAsDouble(0)),
                  l = static_cast<int64_t>(ConstantOf(ctx, 1)->ElementAsDouble(0)),
                  d = static_cast<int64_t>(ConstantOf(ctx, 2)->ElementAsDouble(0));
    int64_t span = 0;
    if (d == 0 || !CheckedSub(l, s, &span)) return ctx.Error("delta 0 or an unbounded range");
    // ceil(span / d) for either sign of d.
    if ((span > 0 && d > 0) || (span < 0 && d < 0)) {
      const int64_t a = span > 0 ? span : -span, b = d > 0 ? d : -d;
      count = (a - 1) / b + 1;
    }
  }
  ctx.SetOutput(0, t, {count});
  return Status::Ok();
}

Status ConstantOfShape(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kI64}));
  const Tensor* shape = ConstantOf(ctx, 0);
  if (shape == nullptr || ctx.input(0).shape.size() != 1) {
    return ctx.Error("the shape (input 0) must be a constant 1-D tensor");
  }
  if (NumElementsUnchecked(ctx.input(1).shape) != 1) return ctx.Error("value must be one element");
  Shape out(shape->data<int64_t>(), shape->data<int64_t>() + shape->num_elements());
  for (int64_t d : out) {
    if (d < 0) return ctx.Error("shape " + ShapeToString(out) + " has a negative dim");
  }
  ctx.SetOutput(0, ctx.input(1).dtype, std::move(out));
  return Status::Ok();
}

Status EyeLike(InferContext& ctx) {
  if (ctx.input(0).shape.size() != 2) return ctx.Error("input must be 2-D");
  const std::string name = ctx.node().GetString("dtype");
  DType t;
  if (!ParseDType(name, &t)) return ctx.Error("dtype \"" + name + "\" is not an element type");
  ctx.SetOutput(0, t, ctx.input(0).shape);
  return Status::Ok();
}

Status OneHot(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(
      ctx, 0,
      {DType::kI8, DType::kU8, DType::kI16, DType::kI32, DType::kI64, DType::kF32, DType::kF64}));
  const Shape& idx = ctx.input(0).shape;
  int64_t axis = 0;
  LOOM_RETURN_IF_ERROR(ExpectAxis(ctx, "axis", static_cast<int64_t>(idx.size()) + 1, &axis));
  const int64_t depth = ctx.node().GetInt("depth", 0);
  if (depth < 1) return ctx.Error("depth " + std::to_string(depth) + " must be positive");
  if (NumElementsUnchecked(ctx.input(1).shape) != 2 || ctx.input(1).shape.size() != 1) {
    return ctx.Error("values must be [off, on]");
  }
  Shape out = idx;
  out.insert(out.begin() + axis, depth);
  ctx.SetOutput(0, ctx.input(1).dtype, std::move(out));
  return Status::Ok();
}

Status NonZero(InferContext& ctx) {
  const Tensor* x = ConstantOf(ctx, 0);
  if (x == nullptr) {
    return ctx.Error(
        "the output's length is the number of non-zeros of the input, which must "
        "therefore be a constant (static shapes only)");
  }
  int64_t count = 0;
  for (int64_t i = 0; i < x->num_elements(); ++i) {
    const double v = x->ElementAsDouble(i);
    count += v != 0.0 || std::isnan(v) ? 1 : 0;
  }
  ctx.SetOutput(0, DType::kI64, {static_cast<int64_t>(x->shape().size()), count});
  return Status::Ok();
}

Status ReverseSequence(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, kIndexTypes));
  const Shape& in = ctx.input(0).shape;
  const int64_t rank = static_cast<int64_t>(in.size());
  if (rank < 2) return ctx.Error("input must have rank >= 2");
  int64_t batch = 0, time = 0;
  LOOM_RETURN_IF_ERROR(ExpectAxis(ctx, "batch_axis", rank, &batch));
  LOOM_RETURN_IF_ERROR(ExpectAxis(ctx, "time_axis", rank, &time));
  if (batch == time) return ctx.Error("batch_axis and time_axis must differ");
  if (ctx.input(1).shape != Shape{in[batch]}) {
    return ctx.Error("sequence_lens must be [" + std::to_string(in[batch]) + "]");
  }
  ctx.SetOutput(0, ctx.input(0).dtype, in);
  return Status::Ok();
}

Status MaxUnpool(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 1, kIndexTypes));
  const Shape& in = ctx.input(0).shape;
  const Shape out = ctx.node().GetInts("shape");
  if (ctx.input(1).shape != in) return ctx.Error("indices must have the input's shape");
  if (out.size() != in.size() || in.size() < 3 || out[0] != in[0] || out[1] != in[1]) {
    return ctx.Error("shape " + ShapeToString(out) + " must keep the input's N and C (" +
                     ShapeToString(in) + ")");
  }
  const Shape index_shape = ctx.node().GetInts("index_shape");
  if (index_shape.size() != out.size())
    return ctx.Error("index_shape needs one dim per output dim");
  for (size_t d = 0; d < out.size(); ++d) {
    if (index_shape[d] < 0 || index_shape[d] > out[d]) {
      return ctx.Error("index_shape " + ShapeToString(index_shape) + " must fit in shape " +
                       ShapeToString(out));
    }
  }
  ctx.SetOutput(0, ctx.input(0).dtype, out);
  return Status::Ok();
}

}  // namespace shape
}  // namespace loom::ir
