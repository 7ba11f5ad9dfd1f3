// The package lowering's conv + max pool fusion (LowerOptions::fuse_pool, tensorize/conv2d_pool.h):
// which pool may run inside the program of the convolution before it, and that program.
#include <algorithm>
#include <variant>

#include "compiler/package/lowerer.h"
#include "compiler/tensorize/conv2d_pool.h"
#include "compiler/tensorize/eltwise.h"
#include "compiler/tensorize/schedule.h"
#include "runtime/core/checked_math.h"

namespace loom::package::internal {

// The next node, when it is an accelerator max pool of this accelerator convolution's output and
// nothing else reads that output (no other node, not a graph output): then the output need never
// be written.
const ir::Node* Lowerer::PoolToFuse(const ir::Node& conv, const ir::Node* next) const {
  if (!o_.fuse_pool || conv.op != "q.conv2d" || next == nullptr) return nullptr;
  const ir::Node& pool = *next;
  if (pool.op != "q.max_pool" || pool.GetString("target", "cpu") != "accel" ||
      conv.GetString("target", "cpu") != "accel" || conv.outputs.empty() ||
      pool.input(0) != conv.outputs[0]) {
    return nullptr;
  }
  const ir::ValueId y = conv.outputs[0];
  const auto& outs = g_.outputs();
  if (std::find(outs.begin(), outs.end(), y) != outs.end()) return nullptr;
  for (const ir::Node* n : g_.nodes()) {
    if (n == &pool) continue;
    if (std::find(n->inputs.begin(), n->inputs.end(), y) != n->inputs.end()) return nullptr;
  }
  return &pool;
}

// Lowers a convolution (its layer `l` as LowerAccel built it) together with `pool` when a fused
// program exists; `*fused` says whether it did (if not, nothing was emitted and the pair lowers
// apart).
Status Lowerer::LowerConvPool(const ir::Node& pool, const tensorize::Conv2dLayer& l,
                              AccelCode* code, LayerLowering* layer, std::vector<Range>* allowed,
                              bool* fused) {
  *fused = false;
  OpSpec op;
  LOOM_RETURN_IF_ERROR(MakeOp(pool, &op));
  const TensorSpec& y = T(op.outputs[0]);
  if (y.layout != TensorLayout::Blocked) return Status::Ok();
  const Window& w = std::get<MaxPoolParams>(op.params).window;
  tensorize::ConvPoolLayer fl;
  fl.conv = l;
  fl.pool = {w.kh, w.kw, w.stride_h, w.stride_w, w.pad_top, w.pad_left, w.pad_bottom, w.pad_right};
  if (!tensorize::CanFuseConvPool(c_, fl)) return Status::Ok();
  // The arena plan keeps the pool's output off the conv's input (PlanArena); the fused program
  // writes one while it reads the other.
  const uint64_t in_begin = uint64_t{l.input} * c_.inp_elem_bytes();
  const uint64_t in_end =
      in_begin + uint64_t{l.n_blocks} * l.c_blocks * l.h * l.w * c_.inp_elem_bytes();
  if (y.offset < in_end && in_begin < y.offset + y.size) {
    return Internal(Where(pool) + ": output [" + std::to_string(y.offset) + ", " +
                    std::to_string(y.offset + y.size) + ") overlaps the input of " + l.name +
                    ", fused into its program (compiler bug)");
  }
  if (!CheckedCast(y.offset / c_.out_elem_bytes(), &fl.output)) return Status::Ok();
  tensorize::TilingChoice choice;
  if (!tensorize::ChooseConvPoolTiling(c_, fl, &choice).ok()) return Status::Ok();
  // Fused only when faster than the pair apart, each layer alone on fsim's timing model: the
  // conv with the tiling it would get, the pool as EmitPool emits it.
  Conv2dLowering conv;
  conv.layer = l;
  conv.signature = tensorize::Conv2dSignature(l, false);
  const TensorSpec& x = T(op.inputs[0]);
  const tensorize::PoolLayer pl =
      tensorize::PoolGeometry(c_, op.name, x.shape[0], x.shape[1], x.shape[2], x.shape[3], fl.pool);
  AccelCode pool_code;
  uint64_t pool_cycles = 0;
  if (ChooseTiling(&conv).ok() && tensorize::EmitPool(c_, pl, &pool_code).ok()) {
    pool_code.Emit(isa::Insn());  // FINISH
    if (tensorize::TimeCode(c_, pool_code, &pool_cycles).ok() &&
        choice.cycles >= conv.choice.cycles + pool_cycles) {
      return Status::Ok();
    }
  }
  LOOM_RETURN_IF_ERROR(tensorize::EmitConvPool(c_, fl, choice.tiling, code));
  allowed->push_back({Region::kArena, y.offset, y.offset + y.size});
  *fused = true;
  layer->fused_with = op.name;
  layer->tiling = choice.tiling.ToString() + " +pool";
  layer->est_cycles = choice.cycles;
  layer->utilization =
      choice.cycles ? double(layer->macs) / (double(choice.cycles) * double(c_.macs_per_cycle()))
                    : 0;
  return Status::Ok();
}

}  // namespace loom::package::internal
