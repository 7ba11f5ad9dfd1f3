// Executors of the detection/vision family (issue 12) on the runtime's reference kernels
// (runtime/kernels/kernels_vision2.h). The interpreter owns the kernels' scratch (compiler side,
// where allocating per node is fine). Attributes are trusted to be canonical (the verifier ran).
#include <vector>

#include "compiler/interp/op_table.h"
#include "runtime/kernels/kernels_vision2.h"

namespace loom::interp {
namespace {

using kernels::TensorView;

Status ExecGridSample(ExecContext& ctx) {
  TensorView x, grid, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &grid));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  kernels::GridSampleParams p;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(kernels::GridSampleParamsFrom(ctx.node(), &p)));
  return ctx.Wrap(kernels::GridSample(p, x, grid, y));
}

Status ExecRoiAlign(ExecContext& ctx) {
  TensorView x, rois, batch, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &rois));
  LOOM_RETURN_IF_ERROR(ctx.In(2, &batch));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  kernels::RoiAlignParams p;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(kernels::RoiAlignParamsFrom(ctx.node(), &p)));
  return ctx.Wrap(kernels::RoiAlign(p, x, rois, batch, y));
}

Status ExecNonMaxSuppression(ExecContext& ctx) {
  TensorView boxes, scores, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &boxes));
  LOOM_RETURN_IF_ERROR(ctx.In(1, &scores));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const ir::Node& n = ctx.node();
  kernels::NmsParams p;
  p.center_point_box = n.GetInt("center_point_box", 0) != 0;
  p.max_output_boxes_per_class = n.GetInt("max_output_boxes_per_class", 0);
  p.iou_threshold = n.GetFloat("iou_threshold", 0.0f);
  p.score_threshold = n.GetFloat("score_threshold", 0.0f);
  p.has_score_threshold = n.GetInt("has_score_threshold", 0) != 0;
  std::vector<int64_t> order(static_cast<size_t>(boxes.rank == 3 ? boxes.shape[1] : 0));
  return ctx.Wrap(kernels::NonMaxSuppression(p, boxes, scores, order.data(), y));
}

Status ExecUnique(ExecContext& ctx) {
  TensorView x, y, outs[3];
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  for (int i = 1; i < ctx.num_outputs(); ++i) LOOM_RETURN_IF_ERROR(ctx.Out(i, &outs[i - 1]));
  kernels::UniqueParams p;
  p.axis = static_cast<int>(ctx.node().GetInt("axis", -1));
  p.sorted = ctx.node().GetInt("sorted", 1) != 0;
  std::vector<int64_t> scratch(static_cast<size_t>(kernels::UniqueScratchSize(p, x)));
  auto opt = [&](int i) { return ctx.num_outputs() > i ? &outs[i - 1] : nullptr; };
  return ctx.Wrap(kernels::Unique(p, x, scratch.data(), y, opt(1), opt(2), opt(3)));
}

Status ExecBatchNormTraining(ExecContext& ctx) {
  TensorView in[5], y, rm, rv;
  for (int i = 0; i < 5; ++i) LOOM_RETURN_IF_ERROR(ctx.In(i, &in[i]));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  if (ctx.num_outputs() > 1) LOOM_RETURN_IF_ERROR(ctx.Out(1, &rm));
  if (ctx.num_outputs() > 2) LOOM_RETURN_IF_ERROR(ctx.Out(2, &rv));
  return ctx.Wrap(kernels::BatchNormTraining(
      in[0], in[1], in[2], in[3], in[4], ctx.node().GetFloat("epsilon", 1e-5f),
      ctx.node().GetFloat("momentum", 0.9f), y, ctx.num_outputs() > 1 ? &rm : nullptr,
      ctx.num_outputs() > 2 ? &rv : nullptr));
}

struct Entry {
  const char* op;
  ExecFn fn;
};

const Entry kVision2Ops[] = {
    {"GridSample", ExecGridSample},
    {"RoiAlign", ExecRoiAlign},
    {"NonMaxSuppression", ExecNonMaxSuppression},
    {"Unique", ExecUnique},
    {"BatchNormalizationTraining", ExecBatchNormTraining},
};

}  // namespace

ExecFn FindVision2Executor(std::string_view op) {
  for (const Entry& e : kVision2Ops) {
    if (op == e.op) return e.fn;
  }
  return nullptr;
}

}  // namespace loom::interp
