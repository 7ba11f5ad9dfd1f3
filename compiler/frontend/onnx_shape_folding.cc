// Shape folding at import (issue 12): once every graph input has a fixed shape (the model's own
// dims, or `--input-shape` / ImportOptions::input_shapes for symbolic ones), the subgraphs an
// exporter writes to compute shapes at run time -- `x.view(x.size(0), -1)` becomes
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape -- have values known at compile time. The
// importer evaluates such nodes here, as it reaches them, and binds their outputs as constants, so
// Reshape, Expand, Resize, Pad... see constant shape inputs and the accelerator static shapes.
//
// Why at import and not as a pass over the IR: the IR is statically shaped and takes shapes as
// attributes (Reshape's `shape`), so a shape must be a constant by the time its consumer is
// mapped. A node folds when
//   - it is Shape or Size (its input's shape is always static in the IR), or
//   - it is one of the ops below and every input it has is a constant.
// Anything else is left to the op's mapper. A node whose output *shape* depends on input values
// (NonZero, Unique, Compress, NonMaxSuppression over run-time data) cannot be compiled to static
// shapes; it is refused here, naming the node.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "compiler/frontend/onnx_internal.h"
#include "runtime/core/checked_math.h"

namespace loom::frontend {
namespace {

using ir::Shape;
using ir::Tensor;

constexpr uint64_t kMaxFoldBytes = uint64_t{64} << 20;

// --- element access: integers through int64, floating types through double -----------------

bool IsIntegral(DType t) { return !IsFloat(t) && t != DType::kUndefined; }

int64_t GetInt(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kI64:
      return t.data<int64_t>()[i];
    case DType::kI32:
      return t.data<int32_t>()[i];
    case DType::kI16:
      return t.data<int16_t>()[i];
    case DType::kI8:
      return t.data<int8_t>()[i];
    case DType::kU8:
    case DType::kBool:
      return t.data<uint8_t>()[i];
    case DType::kU16:
      return t.data<uint16_t>()[i];
    case DType::kU32:
      return t.data<uint32_t>()[i];
    case DType::kU64:  // bits kept: values past INT64_MAX wrap, as they do when written back
      return static_cast<int64_t>(t.data<uint64_t>()[i]);
    default:
      return static_cast<int64_t>(t.ElementAsDouble(i));
  }
}

// Writes `v` (an integer for integral types, with C++'s wrapping conversion as ONNX Cast does).
void PutInt(Tensor* t, int64_t i, int64_t v) {
  uint8_t* p = t->mutable_bytes();
  switch (t->dtype()) {
    case DType::kI64:
      reinterpret_cast<int64_t*>(p)[i] = v;
      return;
    case DType::kI32:
      reinterpret_cast<int32_t*>(p)[i] = static_cast<int32_t>(v);
      return;
    case DType::kI16:
      reinterpret_cast<int16_t*>(p)[i] = static_cast<int16_t>(v);
      return;
    case DType::kI8:
      reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(v);
      return;
    case DType::kU8:
      p[i] = static_cast<uint8_t>(v);
      return;
    case DType::kBool:
      p[i] = v != 0;
      return;
    case DType::kU16:
      reinterpret_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v);
      return;
    case DType::kU32:
      reinterpret_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(v);
      return;
    case DType::kU64:
      reinterpret_cast<uint64_t*>(p)[i] = static_cast<uint64_t>(v);
      return;
    default:
      return;
  }
}

void PutDouble(Tensor* t, int64_t i, double v) {
  uint8_t* p = t->mutable_bytes();
  switch (t->dtype()) {
    case DType::kF32:
      reinterpret_cast<float*>(p)[i] = static_cast<float>(v);
      return;
    case DType::kF64:
      reinterpret_cast<double*>(p)[i] = v;
      return;
    case DType::kF16:
      reinterpret_cast<uint16_t*>(p)[i] = F64ToF16(v);
      return;
    case DType::kBool:
      p[i] = v != 0;
      return;
    default:
      // A float to an integer type: ONNX Cast truncates toward zero; out of range is undefined
      // in ONNX, so saturate rather than invoke C++'s undefined behaviour.
      if (std::isnan(v)) v = 0;
      v = std::trunc(std::clamp(v, -9.2e18, 9.2e18));
      PutInt(t, i, static_cast<int64_t>(v));
      return;
  }
}

// Copies element `from` of `src` to element `to` of `dst` (same dtype).
void CopyElem(const Tensor& src, int64_t from, Tensor* dst, int64_t to) {
  const size_t es = DTypeSize(src.dtype());
  std::memcpy(dst->mutable_bytes() + static_cast<size_t>(to) * es,
              src.bytes() + static_cast<size_t>(from) * es, es);
}

std::vector<int64_t> Ints(const Tensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = GetInt(t, static_cast<int64_t>(i));
  return v;
}

std::vector<int64_t> Strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

// --- the evaluation of one node ------------------------------------------------------------

class Folder {
 public:
  Folder(ImportContext& ctx, const onnx::NodeProto& n, int since)
      : ctx_(ctx), n_(n), since_(since) {}

  // Inputs, present or not (nullptr), as constants; `*all` false when one present is not.
  void CollectInputs(bool* all) {
    *all = true;
    for (int i = 0; i < n_.input_size(); ++i) {
      const Tensor* t = ctx_.HasInput(n_, i) ? ctx_.ConstantInput(n_, i) : nullptr;
      if (ctx_.HasInput(n_, i) && t == nullptr) *all = false;
      in_.push_back(t);
    }
  }
  const Tensor* In(size_t i) const { return i < in_.size() ? in_[i] : nullptr; }

  // The one allocation of a folded output. Shape subgraphs produce a few numbers; a mask or a
  // position table is at most an activation's size. A fuzzed model must not make the importer
  // materialize gigabytes (ConstantOfShape, Expand and Range amplify), so outputs are capped.
  Status Make(DType dtype, Shape shape, Tensor* out) const {
    uint64_t bytes = 0;
    LOOM_RETURN_IF_ERROR(ir::TensorBytes(dtype, shape, &bytes).WithContext(ctx_.Label(n_)));
    if (bytes > kMaxFoldBytes) {
      return ctx_.Unsupported(n_, "folding it would make a constant of " + std::to_string(bytes) +
                                      " bytes (" + ir::TypeToString(dtype, shape) +
                                      "), more than the " + std::to_string(kMaxFoldBytes >> 20) +
                                      " MiB Loom folds at import");
    }
    return Tensor::Create(dtype, std::move(shape), out)
        .WithContext(ctx_.Label(n_) + ": folding it to a constant");
  }
  Status Axis(int64_t axis, int64_t rank, int64_t* out) const {
    if (axis < -rank || axis >= rank) {
      return ctx_.Invalid(n_, "axis " + std::to_string(axis) + " is outside [" +
                                  std::to_string(-rank) + ", " + std::to_string(rank) + ")");
    }
    *out = axis < 0 ? axis + rank : axis;
    return Status::Ok();
  }
  // Axes given as an attribute before `input_since`, as input 1 from then on.
  std::vector<int64_t> AxesArg(int input_since) const {
    if (since_ < input_since) return AttrInts(n_, "axes");
    return In(1) ? Ints(*In(1)) : std::vector<int64_t>{};
  }

  Status Run(const std::string& op, std::vector<Tensor>* outs);

 private:
  Status ShapeOf(std::vector<Tensor>* outs);
  Status GatherOp(Tensor* out);
  Status Unsqueeze(Tensor* out);
  Status Squeeze(Tensor* out);
  Status Concat(Tensor* out);
  Status Slice(Tensor* out);
  Status Cast(Tensor* out);
  Status Reshape(Tensor* out);
  Status ConstantOfShape(Tensor* out);
  Status Range(Tensor* out);
  Status Broadcast(const std::string& op, Tensor* out);  // binary math, compare, Where, Expand
  Status Unary(const std::string& op, Tensor* out);

  ImportContext& ctx_;
  const onnx::NodeProto& n_;
  int since_;
  std::vector<const Tensor*> in_;
};

Status Folder::ShapeOf(std::vector<Tensor>* outs) {
  const ir::Value& x = ctx_.graph().value(ctx_.Lookup(n_.input(0)));
  const int64_t r = static_cast<int64_t>(x.shape.size());
  outs->emplace_back();
  if (n_.op_type() == "Size") {
    LOOM_RETURN_IF_ERROR(Make(DType::kI64, {}, &outs->back()));
    PutInt(&outs->back(), 0, ir::NumElementsUnchecked(x.shape));
    return Status::Ok();
  }
  // Shape-15's start/end: clamped to [0, rank], negative counts from the end.
  auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + r : v, 0, r); };
  const int64_t start = clamp(AttrInt(n_, "start", 0));
  const int64_t end = std::max(start, clamp(AttrInt(n_, "end", r)));
  LOOM_RETURN_IF_ERROR(Make(DType::kI64, {end - start}, &outs->back()));
  for (int64_t d = start; d < end; ++d) PutInt(&outs->back(), d - start, x.shape[size_t(d)]);
  return Status::Ok();
}

Status Folder::GatherOp(Tensor* out) {
  const Tensor &data = *In(0), &idx = *In(1);
  if (!IsIntegral(idx.dtype())) return ctx_.Invalid(n_, "indices must be integers");
  const int64_t r = static_cast<int64_t>(data.shape().size());
  if (r == 0) return ctx_.Invalid(n_, "data must have rank 1 or more");
  int64_t axis = 0;
  LOOM_RETURN_IF_ERROR(Axis(AttrInt(n_, "axis", 0), r, &axis));
  const Shape& ds = data.shape();
  Shape os(ds.begin(), ds.begin() + axis);
  os.insert(os.end(), idx.shape().begin(), idx.shape().end());
  os.insert(os.end(), ds.begin() + axis + 1, ds.end());
  LOOM_RETURN_IF_ERROR(Make(data.dtype(), os, out));
  const int64_t dim = ds[size_t(axis)];
  const int64_t inner = ir::NumElementsUnchecked(Shape(ds.begin() + axis + 1, ds.end()));
  const int64_t outer = ir::NumElementsUnchecked(Shape(ds.begin(), ds.begin() + axis));
  const int64_t k = idx.num_elements();
  for (int64_t j = 0; j < k; ++j) {
    int64_t i = GetInt(idx, j);
    if (i < -dim || i >= dim) {
      return ctx_.Invalid(n_, "index " + std::to_string(i) + " is outside [" +
                                  std::to_string(-dim) + ", " + std::to_string(dim) + ")");
    }
    if (i < 0) i += dim;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t e = 0; e < inner; ++e) {
        CopyElem(data, (o * dim + i) * inner + e, out, (o * k + j) * inner + e);
      }
    }
  }
  return Status::Ok();
}

Status Folder::Unsqueeze(Tensor* out) {
  const Tensor& x = *In(0);
  const std::vector<int64_t> axes = AxesArg(13);
  const int64_t r = static_cast<int64_t>(x.shape().size() + axes.size());
  std::vector<bool> inserted(size_t(r), false);
  for (int64_t a : axes) {
    int64_t ax = 0;
    LOOM_RETURN_IF_ERROR(Axis(a, r, &ax));
    if (inserted[size_t(ax)]) return ctx_.Invalid(n_, "axis " + std::to_string(a) + " repeats");
    inserted[size_t(ax)] = true;
  }
  Shape s;
  size_t next = 0;
  for (int64_t d = 0; d < r; ++d) s.push_back(inserted[size_t(d)] ? 1 : x.shape()[next++]);
  return x.Reshaped(s, out);
}

Status Folder::Squeeze(Tensor* out) {
  const Tensor& x = *In(0);
  const int64_t r = static_cast<int64_t>(x.shape().size());
  const std::vector<int64_t> axes = AxesArg(13);
  std::vector<bool> drop(size_t(r), axes.empty());
  for (int64_t a : axes) {
    int64_t ax = 0;
    LOOM_RETURN_IF_ERROR(Axis(a, r, &ax));
    if (x.shape()[size_t(ax)] != 1) {
      return ctx_.Invalid(n_, "axis " + std::to_string(a) + " has size " +
                                  std::to_string(x.shape()[size_t(ax)]) + ", not 1");
    }
    drop[size_t(ax)] = true;
  }
  Shape s;
  for (int64_t d = 0; d < r; ++d) {
    if (!(drop[size_t(d)] && x.shape()[size_t(d)] == 1)) s.push_back(x.shape()[size_t(d)]);
  }
  return x.Reshaped(s, out);
}

Status Folder::Concat(Tensor* out) {
  const Tensor& first = *In(0);
  const int64_t r = static_cast<int64_t>(first.shape().size());
  int64_t axis = 0;
  LOOM_RETURN_IF_ERROR(Axis(AttrInt(n_, "axis", 0), r, &axis));
  Shape s = first.shape();
  s[size_t(axis)] = 0;
  for (const Tensor* t : in_) {
    bool same = t->dtype() == first.dtype() && t->shape().size() == first.shape().size();
    for (int64_t d = 0; same && d < r; ++d) {
      same = d == axis || t->shape()[size_t(d)] == first.shape()[size_t(d)];
    }
    if (!same) return ctx_.Invalid(n_, "inputs differ in type, rank or a dim off the axis");
    s[size_t(axis)] += t->shape()[size_t(axis)];
  }
  LOOM_RETURN_IF_ERROR(Make(first.dtype(), s, out));
  const int64_t outer = ir::NumElementsUnchecked(Shape(s.begin(), s.begin() + axis));
  int64_t at = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor* t : in_) {
      const int64_t chunk = t->num_elements() / std::max<int64_t>(outer, 1);
      for (int64_t e = 0; e < chunk; ++e) CopyElem(*t, o * chunk + e, out, at++);
    }
  }
  return Status::Ok();
}

Status Folder::Slice(Tensor* out) {
  const Tensor& x = *In(0);
  const int64_t r = static_cast<int64_t>(x.shape().size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (since_ < 10) {
    starts = AttrInts(n_, "starts");
    ends = AttrInts(n_, "ends");
    axes = AttrInts(n_, "axes");
  } else {
    starts = Ints(*In(1));
    ends = Ints(*In(2));
    if (In(3)) axes = Ints(*In(3));
    if (In(4)) steps = Ints(*In(4));
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    return ctx_.Invalid(n_, "starts, ends, axes and steps differ in length");
  }
  std::vector<int64_t> begin(size_t(r), 0), step(size_t(r), 1);
  Shape s = x.shape();
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t ax = 0;
    LOOM_RETURN_IF_ERROR(Axis(axes[i], r, &ax));
    const int64_t dim = x.shape()[size_t(ax)], st = steps[i];
    if (st == 0) return ctx_.Invalid(n_, "step 0 on axis " + std::to_string(axes[i]));
    // ONNX's clamping: into [0, dim] for positive steps, [-1, dim - 1] for negative ones.
    auto clamp = [&](int64_t v) {
      if (v < 0) v = v < -dim ? -dim - 1 : v + dim;  // stays below 0 when before the start
      return st > 0 ? std::clamp<int64_t>(v, 0, dim) : std::clamp<int64_t>(v, -1, dim - 1);
    };
    const int64_t b = clamp(starts[i]), e = clamp(ends[i]);
    const int64_t len =
        st > 0 ? (e > b ? (e - b + st - 1) / st : 0) : (b > e ? (b - e - st - 1) / -st : 0);
    begin[size_t(ax)] = b;
    step[size_t(ax)] = st;
    s[size_t(ax)] = len;
  }
  LOOM_RETURN_IF_ERROR(Make(x.dtype(), s, out));
  const std::vector<int64_t> xs = Strides(x.shape()), os = Strides(s);
  for (int64_t o = 0; o < out->num_elements(); ++o) {
    int64_t from = 0;
    for (int64_t d = 0; d < r; ++d) {
      const int64_t i = (o / os[size_t(d)]) % s[size_t(d)];
      from += (begin[size_t(d)] + i * step[size_t(d)]) * xs[size_t(d)];
    }
    CopyElem(x, from, out, o);
  }
  return Status::Ok();
}

Status Folder::Cast(Tensor* out) {
  DType to = DType::kUndefined;
  LOOM_RETURN_IF_ERROR(DTypeFromOnnx(static_cast<int32_t>(AttrInt(n_, "to", 0)), &to)
                           .WithContext(ctx_.Label(n_) + ": cast target"));
  const Tensor& x = *In(0);
  LOOM_RETURN_IF_ERROR(Make(to, x.shape(), out));
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    if (IsIntegral(x.dtype()) && IsIntegral(to)) {
      PutInt(out, i, GetInt(x, i));
    } else {
      PutDouble(out, i, x.ElementAsDouble(i));
    }
  }
  return Status::Ok();
}

Status Folder::Reshape(Tensor* out) {
  const Tensor& x = *In(0);
  std::vector<int64_t> s = Ints(*In(1));
  const bool allowzero = AttrInt(n_, "allowzero", 0) != 0;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == 0 && !allowzero) {
      if (i >= x.shape().size()) return ctx_.Invalid(n_, "shape entry 0 has no input dim");
      s[i] = x.shape()[i];
    }
    if (s[i] == -1) {
      if (infer >= 0) return ctx_.Invalid(n_, "more than one -1 in the target shape");
      infer = static_cast<int64_t>(i);
    } else if (s[i] < 0 || !CheckedMul(known, s[i], &known)) {
      return ctx_.Invalid(n_, "bad target shape entry " + std::to_string(s[i]));
    }
  }
  if (infer >= 0) {
    if (known == 0 || x.num_elements() % known != 0) {
      return ctx_.Invalid(
          n_, "cannot infer the -1 for " + std::to_string(x.num_elements()) + " elements");
    }
    s[size_t(infer)] = x.num_elements() / known;
  }
  return x.Reshaped(s, out).WithContext(ctx_.Label(n_));
}

Status Folder::ConstantOfShape(Tensor* out) {
  const std::vector<int64_t> s = Ints(*In(0));
  Tensor value = Tensor::FromVector<float>(DType::kF32, {1}, {0.0f});
  if (const onnx::AttributeProto* a = FindAttr(n_, "value")) {
    LOOM_RETURN_IF_ERROR(TensorFromProto(a->t(), &value).WithContext(ctx_.Label(n_) + ": value"));
    if (value.num_elements() != 1) return ctx_.Invalid(n_, "value must hold one element");
  }
  for (int64_t d : s) {
    if (d < 0) return ctx_.Invalid(n_, "negative dim " + std::to_string(d) + " in the shape");
  }
  LOOM_RETURN_IF_ERROR(Make(value.dtype(), s, out));
  for (int64_t i = 0; i < out->num_elements(); ++i) CopyElem(value, 0, out, i);
  return Status::Ok();
}

Status Folder::Range(Tensor* out) {
  const Tensor &start = *In(0), &limit = *In(1), &delta = *In(2);
  if (start.num_elements() != 1 || limit.num_elements() != 1 || delta.num_elements() != 1) {
    return ctx_.Invalid(n_, "start, limit and delta must be scalars");
  }
  const double s = start.ElementAsDouble(0), l = limit.ElementAsDouble(0);
  const double d = delta.ElementAsDouble(0);
  if (d == 0) return ctx_.Invalid(n_, "delta is 0");
  const double count = std::max(std::ceil((l - s) / d), 0.0);
  if (!(count < 1e9)) return ctx_.Invalid(n_, "the range has too many elements");
  LOOM_RETURN_IF_ERROR(Make(start.dtype(), {static_cast<int64_t>(count)}, out));
  for (int64_t i = 0; i < out->num_elements(); ++i) {
    if (IsIntegral(start.dtype())) {
      PutInt(out, i, GetInt(start, 0) + i * GetInt(delta, 0));
    } else {
      PutDouble(out, i, s + static_cast<double>(i) * d);
    }
  }
  return Status::Ok();
}

// Numpy broadcasting of every input to one shape, then one function per element.
Status Folder::Broadcast(const std::string& op, Tensor* out) {
  std::vector<const Tensor*> ops = in_;
  Shape s;
  if (op == "Expand") {  // input 1 is the target shape, broadcast with the data's
    const std::vector<int64_t> v = Ints(*In(1));
    s.assign(v.begin(), v.end());
    ops.resize(1);
  }
  for (const Tensor* t : ops) {
    const Shape& ts = t->shape();
    if (ts.size() > s.size()) s.insert(s.begin(), ts.size() - s.size(), 1);
    for (size_t i = 0; i < ts.size(); ++i) {
      int64_t& o = s[s.size() - ts.size() + i];
      const int64_t d = ts[i];
      if (o != d && o != 1 && d != 1) {
        return ctx_.Invalid(n_, "shapes " + ir::ShapeToString(ts) + " and " + ir::ShapeToString(s) +
                                    " do not broadcast");
      }
      if (o == 1) o = d;
    }
  }
  const bool compare = op == "Equal" || op == "Less" || op == "Greater";
  const DType at = op == "Where" ? In(1)->dtype() : ops[0]->dtype();
  for (size_t k = op == "Where" ? 1 : 0; k < ops.size(); ++k) {
    if (ops[k]->dtype() != at) return ctx_.Invalid(n_, "operand types differ");
  }
  LOOM_RETURN_IF_ERROR(Make(compare ? DType::kBool : at, s, out));
  const std::vector<int64_t> os = Strides(s);
  std::vector<std::vector<int64_t>> st;  // per operand, its strides over the output's dims
  for (const Tensor* t : ops) {
    std::vector<int64_t> ts = Strides(t->shape()), full(s.size(), 0);
    const size_t lead = s.size() - t->shape().size();
    for (size_t i = 0; i < t->shape().size(); ++i) {
      full[lead + i] = t->shape()[i] == 1 ? 0 : ts[i];
    }
    st.push_back(full);
  }
  const bool ints = IsIntegral(at);
  // Mod: fmod 0 takes the divisor's sign (integers only), fmod 1 the dividend's, as C's fmod.
  const bool fmod = AttrInt(n_, "fmod", 0) != 0;
  if (op == "Mod" && !ints && !fmod) return ctx_.Invalid(n_, "floating Mod needs fmod=1");
  for (int64_t o = 0; o < out->num_elements(); ++o) {
    int64_t idx[3] = {0, 0, 0};
    for (size_t d = 0; d < s.size(); ++d) {
      const int64_t i = (o / os[d]) % s[d];
      for (size_t k = 0; k < ops.size(); ++k) idx[k] += i * st[k][d];
    }
    if (op == "Expand") {
      CopyElem(*ops[0], idx[0], out, o);
    } else if (op == "Where") {
      CopyElem(GetInt(*ops[0], idx[0]) ? *ops[1] : *ops[2], idx[GetInt(*ops[0], idx[0]) ? 1 : 2],
               out, o);
    } else if (ints) {
      const int64_t a = GetInt(*ops[0], idx[0]), b = GetInt(*ops[1], idx[1]);
      int64_t v = 0;
      if (op == "Add") v = static_cast<int64_t>(uint64_t(a) + uint64_t(b));
      if (op == "Sub") v = static_cast<int64_t>(uint64_t(a) - uint64_t(b));
      if (op == "Mul") v = static_cast<int64_t>(uint64_t(a) * uint64_t(b));
      if (op == "Div") {
        if (b == 0 || (a == INT64_MIN && b == -1)) return ctx_.Invalid(n_, "integer division by 0");
        v = a / b;  // ONNX integer Div truncates, as C++ does
      }
      if (op == "Mod") {
        if (b == 0 || (a == INT64_MIN && b == -1)) return ctx_.Invalid(n_, "integer Mod by 0");
        v = a % b;
        if (!fmod && v != 0 && (v < 0) != (b < 0)) v += b;
      }
      if (op == "Max") v = std::max(a, b);
      if (op == "Min") v = std::min(a, b);
      if (op == "Equal") v = a == b;
      if (op == "Less") v = a < b;
      if (op == "Greater") v = a > b;
      PutInt(out, o, v);
    } else {
      const double a = ops[0]->ElementAsDouble(idx[0]), b = ops[1]->ElementAsDouble(idx[1]);
      double v = 0;
      if (op == "Add") v = a + b;
      if (op == "Sub") v = a - b;
      if (op == "Mul") v = a * b;
      if (op == "Div") v = a / b;
      if (op == "Mod") v = std::fmod(a, b);
      if (op == "Max") v = std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
      if (op == "Min") v = std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
      if (op == "Equal") v = a == b;
      if (op == "Less") v = a < b;
      if (op == "Greater") v = a > b;
      if (compare) {
        PutInt(out, o, static_cast<int64_t>(v));
      } else {
        PutDouble(out, o, v);
      }
    }
  }
  return Status::Ok();
}

Status Folder::Unary(const std::string& op, Tensor* out) {
  const Tensor& x = *In(0);
  LOOM_RETURN_IF_ERROR(Make(x.dtype(), x.shape(), out));
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    if (IsIntegral(x.dtype())) {
      const int64_t v = GetInt(x, i);
      PutInt(out, i,
             op == "Neg"    ? static_cast<int64_t>(0 - uint64_t(v))
             : op == "Relu" ? std::max<int64_t>(v, 0)
                            : v);  // Floor/Ceil: v
    } else {
      const double v = x.ElementAsDouble(i);
      PutDouble(out, i,
                op == "Neg"     ? -v
                : op == "Relu"  ? (v < 0 ? 0.0 : v)
                : op == "Floor" ? std::floor(v)
                                : std::ceil(v));
    }
  }
  return Status::Ok();
}

Status Folder::Run(const std::string& op, std::vector<Tensor>* outs) {
  if (op == "Shape" || op == "Size") return ShapeOf(outs);
  outs->emplace_back();
  Tensor* out = &outs->back();
  if (op == "Gather") return GatherOp(out);
  if (op == "Unsqueeze") return Unsqueeze(out);
  if (op == "Squeeze") return Squeeze(out);
  if (op == "Concat") return Concat(out);
  if (op == "Slice") return Slice(out);
  if (op == "Cast") return Cast(out);
  if (op == "Reshape") return Reshape(out);
  if (op == "ConstantOfShape") return ConstantOfShape(out);
  if (op == "Range") return Range(out);
  if (op == "Identity") {
    *out = *In(0);
    return Status::Ok();
  }
  if (op == "Neg" || op == "Floor" || op == "Ceil" || op == "Relu") return Unary(op, out);
  if ((op == "Max" || op == "Min") && in_.size() != 2) {
    return ctx_.Unsupported(n_, "folding " + op + " of other than two constants");
  }
  return Broadcast(op, out);
}

// What folds (each with every input constant, Shape and Size always); the attributes each reads.
struct FoldRule {
  const char* op;
  std::vector<const char*> attrs;
};
const std::vector<FoldRule>& FoldRules() {
  static const std::vector<FoldRule> rules = {
      {"Shape", {"start", "end"}},
      {"Size", {}},
      {"Gather", {"axis"}},
      {"Unsqueeze", {"axes"}},
      {"Squeeze", {"axes"}},
      {"Concat", {"axis"}},
      {"Slice", {"starts", "ends", "axes"}},
      {"Cast", {"to", "saturate"}},
      {"Reshape", {"allowzero"}},
      {"ConstantOfShape", {"value"}},
      {"Range", {}},
      {"Identity", {}},
      {"Expand", {}},
      {"Add", {}},
      {"Sub", {}},
      {"Mul", {}},
      {"Div", {}},
      {"Mod", {"fmod"}},
      {"Max", {}},
      {"Min", {}},
      {"Equal", {}},
      {"Less", {}},
      {"Greater", {}},
      {"Where", {}},
      {"Neg", {}},
      {"Floor", {}},
      {"Ceil", {}},
      {"Relu", {}},  // Range's function body clamps its trip count with it
  };
  return rules;
}

const FoldRule* FindFoldRule(const std::string& op) {
  for (const FoldRule& r : FoldRules()) {
    if (op == r.op) return &r;
  }
  return nullptr;
}

// Ops whose output shape is a function of their input values.
bool ShapeDependsOnData(const std::string& op) {
  return op == "NonZero" || op == "Unique" || op == "Compress" || op == "NonMaxSuppression";
}
// Whether input i's values decide the output shape: Compress's condition (not the data it
// selects from); every input of the others.
bool ShapeDependsOnInput(const std::string& op, int i) { return op != "Compress" || i == 1; }

}  // namespace

bool IsFoldableShapeOp(const std::string& op) {
  return FindFoldRule(op) != nullptr || ShapeDependsOnData(op);
}

Status FoldShapeNode(ImportContext& ctx, const onnx::GraphProto& g, const onnx::NodeProto& n,
                     int since, bool* folded, std::string* why_not) {
  *folded = false;
  why_not->clear();
  if (ShapeDependsOnData(n.op_type())) {
    for (int i = 0; i < n.input_size(); ++i) {
      if (ShapeDependsOnInput(n.op_type(), i) && ctx.HasInput(n, i) &&
          ctx.ConstantInput(n, i) == nullptr) {
        return ctx.Unsupported(n, "its output shape depends on the values of input '" + n.input(i) +
                                      "', known only at run time; Loom compiles "
                                      "static shapes (data-dependent shapes are not supported)");
      }
    }
    *why_not = "the folding does not evaluate " + n.op_type();
    return Status::Ok();
  }
  const FoldRule* rule = FindFoldRule(n.op_type());
  if (rule == nullptr) return Status::Ok();
  // A model output stays computed: a package's outputs are arena tensors the runtime writes.
  for (const onnx::ValueInfoProto& o : g.output()) {
    if (std::find(n.output().begin(), n.output().end(), o.name()) != n.output().end()) {
      *why_not = "its output '" + o.name() + "' is a model output, which Loom does not fold";
      return Status::Ok();
    }
  }
  for (const onnx::AttributeProto& a : n.attribute()) {
    if (std::none_of(rule->attrs.begin(), rule->attrs.end(),
                     [&](const char* name) { return a.name() == name; })) {
      // Not an attribute the folder reads: leave the node to its mapper, which checks it.
      *why_not = "attribute '" + a.name() + "' is not one the folding reads";
      return Status::Ok();
    }
  }
  Folder f(ctx, n, since);
  const bool shape_only = n.op_type() == "Shape" || n.op_type() == "Size";
  if (shape_only) {
    if (!ctx.HasInput(n, 0) || ctx.Lookup(n.input(0)) == ir::kNoValue) {
      return ctx.Invalid(n, "input 0 is not defined before the node");
    }
  } else {
    bool all = false;
    f.CollectInputs(&all);
    if (!all || n.input_size() == 0 || f.In(0) == nullptr) {
      for (int i = 0; i < n.input_size(); ++i) {
        if (ctx.HasInput(n, i) && ctx.ConstantInput(n, i) == nullptr) {
          *why_not = "input '" + n.input(i) + "' is computed at run time";
          break;
        }
      }
      return Status::Ok();
    }
  }
  std::vector<Tensor> outs;
  LOOM_RETURN_IF_ERROR(f.Run(n.op_type(), &outs));
  for (size_t i = 0; i < outs.size() && static_cast<int>(i) < n.output_size(); ++i) {
    if (n.output(static_cast<int>(i)).empty()) continue;
    const std::string& name = n.output(static_cast<int>(i));
    ctx.Bind(name, ctx.AddConstant(name, std::move(outs[i])));
  }
  *folded = true;
  return Status::Ok();
}

}  // namespace loom::frontend
