// Mappers of the shape and indexing family (issue 12) and their table. Opset differences end
// here: axes/starts/ends/steps/split/repeats/shape arrive as attributes in old opsets and as
// inputs in new ones, and both become the same canonical attributes (docs/compiler.md §3), with
// negative axes and out-of-range slice bounds resolved. Inputs that decide an output's shape must
// be constants (the IR's shapes are static); ListOnnxInputs reports them as compile-time inputs.
//
// Several ONNX ops are compositions of others and import as such: Squeeze/Unsqueeze as Reshape,
// Split as one Slice per output, DepthToSpace/SpaceToDepth as Reshape -> Transpose -> Reshape
// (the ONNX definition), Compress with its constant condition as a Gather, Scatter as
// ScatterElements.
#include <algorithm>
#include <limits>

#include "compiler/frontend/onnx_internal.h"
#include "compiler/ir/shape_functions.h"

namespace loom::frontend {
namespace {

using ir::Attribute;

const ir::Shape& ShapeOf(ImportContext& ctx, ir::ValueId v) { return ctx.graph().value(v).shape; }

Status EmitReshape(ImportContext& ctx, const onnx::NodeProto& n, ir::ValueId x, ir::Shape shape) {
  ir::AttributeMap attrs;
  attrs["shape"] = Attribute::Ints(std::move(shape));
  return ctx.Emit(n, "Reshape", {x}, std::move(attrs));
}

// The axes of Squeeze/Unsqueeze: attribute before opset 13, input from 13.
Status AxesOf(ImportContext& ctx, const onnx::NodeProto& n, int since, std::vector<int64_t>* axes,
              bool* present) {
  if (since < 13) {
    *present = FindAttr(n, "axes") != nullptr;
    *axes = AttrInts(n, "axes");
    return Status::Ok();
  }
  return ctx.ConstantInts(n, 1, "axes", axes, present);
}

}  // namespace

Status MapSqueeze(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const ir::Shape in = ShapeOf(ctx, x);
  std::vector<int64_t> axes;
  bool present = false;
  LOOM_RETURN_IF_ERROR(AxesOf(ctx, n, since, &axes, &present));
  std::vector<bool> drop(in.size(), false);
  for (int64_t a : axes) {
    LOOM_RETURN_IF_ERROR(ctx.NormalizeAxis(n, "axis", static_cast<int64_t>(in.size()), &a));
    if (in[a] != 1) {
      return ctx.Invalid(n, "cannot squeeze dim " + std::to_string(a) + " of " +
                                ir::ShapeToString(in) + ": it is not 1");
    }
    drop[a] = true;
  }
  ir::Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    // No axes: every dim of 1 goes.
    if (!(present ? drop[d] : in[d] == 1)) out.push_back(in[d]);
  }
  return EmitReshape(ctx, n, x, std::move(out));
}

Status MapUnsqueeze(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const ir::Shape in = ShapeOf(ctx, x);
  std::vector<int64_t> axes;
  bool present = false;
  LOOM_RETURN_IF_ERROR(AxesOf(ctx, n, since, &axes, &present));
  if (axes.empty()) return ctx.Invalid(n, "needs axes");
  // Axes index the output, whose rank counts the inserted dims; they may come in any order.
  const int64_t rank = static_cast<int64_t>(in.size() + axes.size());
  std::vector<bool> inserted(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    LOOM_RETURN_IF_ERROR(ctx.NormalizeAxis(n, "axis", rank, &a));
    if (inserted[a]) return ctx.Invalid(n, "axis " + std::to_string(a) + " is repeated");
    inserted[a] = true;
  }
  ir::Shape out;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) out.push_back(inserted[d] ? 1 : in[next++]);
  return EmitReshape(ctx, n, x, std::move(out));
}

// Slice-1 takes starts/ends/axes as attributes, Slice-10 on as inputs (with steps). ONNX clamps
// out-of-range bounds; the canonical form holds the clamped ones (shape_functions_index.cc).
Status MapSlice(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const ir::Shape in = ShapeOf(ctx, x);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> starts, ends, axes, steps;
  bool has_axes = false, has_steps = false;
  if (since < 10) {
    starts = AttrInts(n, "starts");
    ends = AttrInts(n, "ends");
    axes = AttrInts(n, "axes");
    has_axes = FindAttr(n, "axes") != nullptr;
  } else {
    bool present = false;
    LOOM_RETURN_IF_ERROR(ctx.ConstantInts(n, 1, "starts", &starts, &present));
    if (!present) return ctx.Invalid(n, "needs starts");
    LOOM_RETURN_IF_ERROR(ctx.ConstantInts(n, 2, "ends", &ends, &present));
    if (!present) return ctx.Invalid(n, "needs ends");
    LOOM_RETURN_IF_ERROR(ctx.ConstantInts(n, 3, "axes", &axes, &has_axes));
    LOOM_RETURN_IF_ERROR(ctx.ConstantInts(n, 4, "steps", &steps, &has_steps));
  }
  if (!has_axes) {
    axes.clear();
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (!has_steps) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    return ctx.Invalid(n, "starts, ends, axes and steps differ in length");
  }
  std::vector<int64_t> s(in.size(), 0), e(in.begin(), in.end()), st(in.size(), 1);
  std::vector<bool> seen(in.size(), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i];
    LOOM_RETURN_IF_ERROR(ctx.NormalizeAxis(n, "axis", rank, &a));
    if (seen[a]) return ctx.Invalid(n, "axis " + std::to_string(a) + " is repeated");
    seen[a] = true;
    const int64_t d = in[a], step = steps[i];
    if (step == 0) return ctx.Invalid(n, "step 0 on axis " + std::to_string(a));
    // Negative bounds count from the end (INT64_MIN + d cannot overflow: d >= 0); then clamp.
    int64_t b = starts[i] < 0 ? starts[i] + d : starts[i];
    int64_t f = ends[i] < 0 ? ends[i] + d : ends[i];
    if (step > 0) {
      b = std::clamp<int64_t>(b, 0, d);
      f = std::clamp<int64_t>(f, 0, d);
    } else {
      b = std::clamp<int64_t>(b, -1, d - 1);
      f = std::clamp<int64_t>(f, -1, d - 1);
    }
    s[a] = b;
    e[a] = f;
    st[a] = step;
  }
  ir::AttributeMap attrs;
  attrs["starts"] = Attribute::Ints(s);
  attrs["ends"] = Attribute::Ints(e);
  attrs["steps"] = Attribute::Ints(st);
  return ctx.Emit(n, "Slice", {x}, std::move(attrs));
}

// Split: `split` sizes as an attribute (Split-2, -11) or input (Split-13); absent means equal
// parts, one per output. Each output becomes a Slice of the input.
Status MapSplit(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const ir::Shape in = ShapeOf(ctx, x);
  int64_t axis = AttrInt(n, "axis", 0);
  LOOM_RETURN_IF_ERROR(ctx.NormalizeAxis(n, "axis", static_cast<int64_t>(in.size()), &axis));
  std::vector<int64_t> split;
  bool present = false;
  if (since < 13) {
    split = AttrInts(n, "split");
    present = !split.empty();
  } else {
    LOOM_RETURN_IF_ERROR(ctx.ConstantInts(n, 1, "split", &split, &present));
  }
  const int64_t outs = n.output_size();
  if (outs < 1) return ctx.Invalid(n, "has no outputs");
  if (!present) {
    if (in[axis] % outs != 0) {
      return ctx.Invalid(n, "dim " + std::to_string(in[axis]) + " does not split into " +
                                std::to_string(outs) + " equal parts");
    }
    split.assign(static_cast<size_t>(outs), in[axis] / outs);
  }
  if (static_cast<int64_t>(split.size()) != outs) {
    return ctx.Invalid(n, "split has " + std::to_string(split.size()) + " sizes for " +
                              std::to_string(outs) + " outputs");
  }
  int64_t total = 0;
  for (int64_t s : split) {
    if (s < 0) return ctx.Invalid(n, "negative split size " + std::to_string(s));
    total += s;
  }
  if (total != in[axis]) {
    return ctx.Invalid(n, "split sizes add up to " + std::to_string(total) + ", the axis has " +
                              std::to_string(in[axis]));
  }
  int64_t begin = 0;
  for (int64_t k = 0; k < outs; ++k) {
    std::vector<int64_t> s(in.size(), 0), e(in.begin(), in.end()), st(in.size(), 1);
    s[axis] = begin;
    e[axis] = begin + split[k];
    begin = e[axis];
    if (n.output(static_cast<int>(k)).empty()) continue;
    ir::AttributeMap attrs;
    attrs["starts"] = Attribute::Ints(s);
    attrs["ends"] = Attribute::Ints(e);
    attrs["steps"] = Attribute::Ints(st);
    LOOM_RETURN_IF_ERROR(ctx.Emit(n, "Slice", {x}, std::move(attrs), {static_cast<int>(k)}));
  }
  return Status::Ok();
}

Status MapShape(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const int64_t rank = static_cast<int64_t>(ShapeOf(ctx, x).size());
  // Shape-15's start/end: negative counts from the end, then clamped to [0, rank].
  auto resolve = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  const int64_t start = resolve(AttrInt(n, "start", 0));
  const int64_t end = std::max(start, resolve(AttrInt(n, "end", rank)));
  ir::AttributeMap attrs;
  attrs["start"] = Attribute::Int(start);
  attrs["end"] = Attribute::Int(end);
  return ctx.Emit(n, "Shape", {x}, std::move(attrs));
}

Status MapSize(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  return ctx.Emit(n, "Size", {x}, {});
}

// Gather, GatherElements: data, indices, a resolved axis.
// Gather with a constant scalar index, or a constant run of consecutive ones, is a Slice (then a
// Reshape dropping or keeping the axis): `x[i]`, torch's unbind of attention's stacked Q, K, V.
// A Slice keeps the op float-only, where Gather's integer indices would need integer tensors in
// the package's CPU segments.
Status GatherAsSlice(ImportContext& ctx, const onnx::NodeProto& n, ir::ValueId data, int64_t axis,
                     bool* sliced) {
  *sliced = false;
  const ir::Tensor* idx = ctx.ConstantInput(n, 1);
  const ir::Shape in = ShapeOf(ctx, data);
  if (idx == nullptr || idx->shape().size() > 1 || idx->num_elements() == 0) return Status::Ok();
  const bool scalar = idx->shape().empty();  // idx dangles once a value is added below
  std::vector<int64_t> v;
  bool present = false;
  if (!ctx.ConstantInts(n, 1, "indices", &v, &present).ok()) return Status::Ok();
  const int64_t d = in[static_cast<size_t>(axis)];
  for (int64_t& i : v) {
    if (i < -d || i >= d) {
      return ctx.Invalid(n, "index " + std::to_string(i) + " is outside [" + std::to_string(-d) +
                                ", " + std::to_string(d) + ") of axis " + std::to_string(axis));
    }
    if (i < 0) i += d;
  }
  for (size_t k = 1; k < v.size(); ++k) {
    if (v[k] != v[k - 1] + 1) return Status::Ok();
  }
  std::vector<int64_t> s(in.size(), 0), e(in.begin(), in.end()), st(in.size(), 1);
  s[static_cast<size_t>(axis)] = v.front();
  e[static_cast<size_t>(axis)] = v.back() + 1;
  ir::AttributeMap attrs;
  attrs["starts"] = Attribute::Ints(s);
  attrs["ends"] = Attribute::Ints(e);
  attrs["steps"] = Attribute::Ints(st);
  ir::ValueId part;
  LOOM_RETURN_IF_ERROR(ctx.EmitInternal(n, "Slice", {data}, std::move(attrs), "slice", &part));
  ir::Shape out = in;
  out[static_cast<size_t>(axis)] = static_cast<int64_t>(v.size());
  if (scalar) out.erase(out.begin() + axis);  // a scalar index drops the axis
  ir::AttributeMap reshape;
  reshape["shape"] = Attribute::Ints(out);
  *sliced = true;
  return ctx.Emit(n, "Reshape", {part}, std::move(reshape));
}

Status MapGather(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId data, indices;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &data));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &indices));
  int64_t axis = AttrInt(n, "axis", 0);
  LOOM_RETURN_IF_ERROR(
      ctx.NormalizeAxis(n, "axis", static_cast<int64_t>(ShapeOf(ctx, data).size()), &axis));
  if (n.op_type() == "Gather") {
    bool sliced = false;
    LOOM_RETURN_IF_ERROR(GatherAsSlice(ctx, n, data, axis, &sliced));
    if (sliced) return Status::Ok();
  }
  ir::AttributeMap attrs;
  attrs["axis"] = Attribute::Int(axis);
  return ctx.Emit(n, n.op_type(), {data, indices}, std::move(attrs));
}

Status MapGatherND(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId data, indices;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &data));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &indices));
  ir::AttributeMap attrs;
  attrs["batch_dims"] = Attribute::Int(AttrInt(n, "batch_dims", 0));
  return ctx.Emit(n, "GatherND", {data, indices}, std::move(attrs));
}

// ScatterND, ScatterElements and the older Scatter (= ScatterElements without reduction).
Status MapScatter(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId data, indices, updates;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &data));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 1, &indices));
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 2, &updates));
  const std::string reduction = AttrString(n, "reduction", "none");
  ir::AttributeMap attrs;
  if (reduction == "none") {
    attrs["reduction"] = Attribute::Int(0);
  } else if (reduction == "add") {
    attrs["reduction"] = Attribute::Int(1);
  } else if (reduction == "mul") {
    attrs["reduction"] = Attribute::Int(2);
  } else {
    return ctx.Unsupported(n, "reduction '" + reduction + "' is not supported (none, add, mul)");
  }
  if (n.op_type() == "ScatterND") return ctx.Emit(n, "ScatterND", {data, indices, updates}, attrs);
  int64_t axis = AttrInt(n, "axis", 0);
  LOOM_RETURN_IF_ERROR(
      ctx.NormalizeAxis(n, "axis", static_cast<int64_t>(ShapeOf(ctx, data).size()), &axis));
  attrs["axis"] = Attribute::Int(axis);
  return ctx.Emit(n, "ScatterElements", {data, indices, updates}, std::move(attrs));
}

// Expand's shape input broadcasts with the input's (either may have the 1s): the attribute is
// the result.
Status MapExpand(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  std::vector<int64_t> target;
  bool present = false;
  LOOM_RETURN_IF_ERROR(ctx.ConstantInts(n, 1, "shape", &target, &present));
  if (!present) return ctx.Invalid(n, "needs the shape input");
  const ir::Shape& in = ShapeOf(ctx, x);
  ir::Shape out;
  const bool negative = std::any_of(target.begin(), target.end(), [](int64_t d) { return d < 0; });
  if (negative || !ir::BroadcastShapes(in, target, &out)) {
    return ctx.Invalid(
        n, ir::ShapeToString(in) + " does not broadcast with shape " + ir::ShapeToString(target));
  }
  ir::AttributeMap attrs;
  attrs["shape"] = Attribute::Ints(out);
  return ctx.Emit(n, "Expand", {x}, std::move(attrs));
}

Status MapTile(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  std::vector<int64_t> repeats;
  bool present = false;
  LOOM_RETURN_IF_ERROR(ctx.ConstantInts(n, 1, "repeats", &repeats, &present));
  if (!present) return ctx.Invalid(n, "needs the repeats input");
  ir::AttributeMap attrs;
  attrs["repeats"] = Attribute::Ints(repeats);
  return ctx.Emit(n, "Tile", {x}, std::move(attrs));
}

Status MapTrilu(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  std::vector<int64_t> k;
  bool present = false;
  LOOM_RETURN_IF_ERROR(ctx.ConstantInts(n, 1, "k", &k, &present));
  if (present && k.size() != 1) return ctx.Invalid(n, "k must be a scalar");
  ir::AttributeMap attrs;
  attrs["k"] = Attribute::Int(present ? k[0] : 0);
  attrs["upper"] = Attribute::Int(AttrInt(n, "upper", 1) != 0 ? 1 : 0);
  return ctx.Emit(n, "Trilu", {x}, std::move(attrs));
}

const std::vector<OpMapper>& IndexOpMappers() {
  // op, first schema version with the semantics mapped, attributes understood, inputs that must
  // be constants (they decide a shape), mapper. Tile-1 (tiles + axis inputs), Split-1 and the
  // opset-18 forms (Split's num_outputs, reductions max/min) are not mapped.
  static const std::vector<OpMapper> table = {
      {"Squeeze", 1, {"axes"}, {1}, MapSqueeze},
      {"Unsqueeze", 1, {"axes"}, {1}, MapUnsqueeze},
      {"Slice", 1, {"starts", "ends", "axes"}, {1, 2, 3, 4}, MapSlice},
      {"Split", 2, {"axis", "split"}, {1}, MapSplit},
      {"Shape", 1, {"start", "end"}, {}, MapShape},
      {"Size", 1, {}, {}, MapSize},
      {"Gather", 1, {"axis"}, {}, MapGather},
      {"GatherElements", 11, {"axis"}, {}, MapGather},
      {"GatherND", 11, {"batch_dims"}, {}, MapGatherND},
      {"ScatterND", 11, {"reduction"}, {}, MapScatter},
      {"ScatterElements", 11, {"axis", "reduction"}, {}, MapScatter},
      {"Scatter", 9, {"axis"}, {}, MapScatter},
      {"Expand", 8, {}, {1}, MapExpand},
      {"Tile", 6, {}, {1}, MapTile},
      {"Trilu", 14, {"upper"}, {1}, MapTrilu},
      {"Range", 11, {}, {0, 1, 2}, MapRange},
      {"ConstantOfShape", 9, {"value"}, {0}, MapConstantOfShape},
      {"EyeLike", 9, {"dtype", "k"}, {}, MapEyeLike},
      {"OneHot", 9, {"axis"}, {1}, MapOneHot},
      {"NonZero", 9, {}, {0}, MapNonZero},
      {"Compress", 9, {"axis"}, {1}, MapCompress},
      {"ReverseSequence", 10, {"batch_axis", "time_axis"}, {}, MapReverseSequence},
      {"DepthToSpace", 1, {"blocksize", "mode"}, {}, MapDepthToSpace},
      {"SpaceToDepth", 1, {"blocksize"}, {}, MapSpaceToDepth},
      {"MaxUnpool", 9, {"kernel_shape", "pads", "strides"}, {2}, MapMaxUnpool},
  };
  return table;
}

}  // namespace loom::frontend
