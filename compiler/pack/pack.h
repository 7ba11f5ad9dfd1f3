// graph-pack: gives the quantized graph's 4-D int8 activations the accelerator's blocked layout
// (runtime/kernels/int8/qops.h: [N/B][C/c][H][W][B][c], channel block c = HwConfig block_in,
// which must equal block_out). Every non-constant 4-D i8 value read or written by q.conv2d, q.add,
// q.mul, q.max_pool, q.avg_pool, q.concat, q.resize or q.zero_insert becomes Layout::kBlocked
// (q.quantize then writes blocked data directly and q.dequantize reads it). A q.relayout blocked
// -> plain is inserted only where a consumer needs plain int8 data (a reshaping q.relayout, or an
// int8 graph output). Weight constants stay logical: the package writer packs them with qops.h's
// Pack* functions.
//
// Requires: a verified quantized graph. Idempotent.
#ifndef LOOM_COMPILER_PACK_PACK_H_
#define LOOM_COMPILER_PACK_PACK_H_

#include "compiler/ir/graph.h"
#include "runtime/core/hw_config.h"
#include "runtime/core/status.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::pack {

// The kernels' blocking for a config; fails (naming the config) unless block_in == block_out.
Status BlockingFor(const HwConfig& config, kernels::q::Blocking* out);

Status PackGraph(ir::Graph& g, const HwConfig& config);

// Adds this library's passes (graph-pack) to the pass registry (compiler/passes/pass.h).
void RegisterPackPasses();

}  // namespace loom::pack

#endif  // LOOM_COMPILER_PACK_PACK_H_
