// Executors of the shape and indexing family (issue 12) on the runtime's reference kernels
// (runtime/kernels/kernels_index.h), so the interpreter, the constant folder and a package's CPU
// segments compute these ops with one implementation, for every dtype. Attributes are trusted to
// be canonical (the verifier ran).
#include <string_view>
#include <vector>

#include "compiler/interp/op_table.h"
#include "runtime/kernels/kernels_index.h"

namespace loom::interp {
namespace {

using kernels::TensorView;

// x, then y: the common shape of a one-input, one-output op.
Status InOut(ExecContext& ctx, TensorView* x, TensorView* y) {
  LOOM_RETURN_IF_ERROR(ctx.In(0, x));
  return ctx.Out(0, y);
}

kernels::ScatterReduction Reduction(const ir::Node& n) {
  return static_cast<kernels::ScatterReduction>(n.GetInt("reduction", 0));
}

Status ExecSlice(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(InOut(ctx, &x, &y));
  const std::vector<int64_t> starts = ctx.node().GetInts("starts"),
                             steps = ctx.node().GetInts("steps");
  return ctx.Wrap(kernels::Slice(x, starts.data(), steps.data(), y));
}

Status ExecShape(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(InOut(ctx, &x, &y));
  return ctx.Wrap(kernels::ShapeOf(x, ctx.node().GetInt("start", 0), y));
}

Status ExecSize(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(InOut(ctx, &x, &y));
  return ctx.Wrap(kernels::SizeOf(x, y));
}

// data, indices -> y with an axis-like attribute.
template <Status (*kKernel)(const TensorView&, const TensorView&, int, const TensorView&)>
Status ExecIndexed(ExecContext& ctx, const char* attr) {
  TensorView data, indices, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &data));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &indices));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kKernel(data, indices, static_cast<int>(ctx.node().GetInt(attr, 0)), y));
}

Status ExecGather(ExecContext& ctx) { return ExecIndexed<kernels::Gather>(ctx, "axis"); }
Status ExecGatherElements(ExecContext& ctx) {
  return ExecIndexed<kernels::GatherElements>(ctx, "axis");
}
Status ExecGatherND(ExecContext& ctx) { return ExecIndexed<kernels::GatherND>(ctx, "batch_dims"); }

Status ExecScatterND(ExecContext& ctx) {
  TensorView data, indices, updates, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &data));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &indices));
  LOOM_RETURN_IF_ERROR(ctx.In(2, &updates));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::ScatterND(data, indices, updates, Reduction(ctx.node()), y));
}

Status ExecScatterElements(ExecContext& ctx) {
  TensorView data, indices, updates, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &data));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &indices));
  LOOM_RETURN_IF_ERROR(ctx.In(2, &updates));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::ScatterElements(data, indices, updates,
                                           static_cast<int>(ctx.node().GetInt("axis", 0)),
                                           Reduction(ctx.node()), y));
}

Status ExecExpand(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(InOut(ctx, &x, &y));
  return ctx.Wrap(kernels::Expand(x, y));
}

Status ExecTile(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(InOut(ctx, &x, &y));
  return ctx.Wrap(kernels::Tile(x, y));
}

Status ExecTrilu(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(InOut(ctx, &x, &y));
  return ctx.Wrap(
      kernels::Trilu(x, ctx.node().GetInt("k", 0), ctx.node().GetInt("upper", 1) != 0, y));
}

Status ExecRange(ExecContext& ctx) {
  TensorView start, delta, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &start));
  LOOM_RETURN_IF_ERROR(ctx.In(2, &delta));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::Range(start, delta, y));
}

Status ExecConstantOfShape(ExecContext& ctx) {
  TensorView value, y;
  LOOM_RETURN_IF_ERROR(ctx.In(1, &value));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::ConstantOfShape(value, y));
}

Status ExecEyeLike(ExecContext& ctx) {
  TensorView y;
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::EyeLike(ctx.node().GetInt("k", 0), y));
}

Status ExecOneHot(ExecContext& ctx) {
  TensorView indices, values, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &indices));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &values));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(
      kernels::OneHot(indices, values, static_cast<int>(ctx.node().GetInt("axis", -1)), y));
}

Status ExecNonZero(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(InOut(ctx, &x, &y));
  return ctx.Wrap(kernels::NonZero(x, y));
}

Status ExecReverseSequence(ExecContext& ctx) {
  TensorView x, lens, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &lens));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::ReverseSequence(x, lens,
                                           static_cast<int>(ctx.node().GetInt("batch_axis", 1)),
                                           static_cast<int>(ctx.node().GetInt("time_axis", 0)), y));
}

Status ExecMaxUnpool(ExecContext& ctx) {
  TensorView x, indices, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &indices));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const std::vector<int64_t> index_shape = ctx.node().GetInts("index_shape");
  return ctx.Wrap(kernels::MaxUnpool(x, indices, index_shape.data(), y));
}

struct Entry {
  const char* op;
  ExecFn fn;
};

const Entry kIndexOps[] = {
    {"Slice", ExecSlice},
    {"Shape", ExecShape},
    {"Size", ExecSize},
    {"Gather", ExecGather},
    {"GatherElements", ExecGatherElements},
    {"GatherND", ExecGatherND},
    {"ScatterND", ExecScatterND},
    {"ScatterElements", ExecScatterElements},
    {"Expand", ExecExpand},
    {"Tile", ExecTile},
    {"Trilu", ExecTrilu},
    {"Range", ExecRange},
    {"ConstantOfShape", ExecConstantOfShape},
    {"EyeLike", ExecEyeLike},
    {"OneHot", ExecOneHot},
    {"NonZero", ExecNonZero},
    {"ReverseSequence", ExecReverseSequence},
    {"MaxUnpool", ExecMaxUnpool},
};

}  // namespace

ExecFn FindIndexExecutor(std::string_view op) {
  for (const Entry& e : kIndexOps) {
    if (op == e.op) return e.fn;
  }
  return nullptr;
}

}  // namespace loom::interp
