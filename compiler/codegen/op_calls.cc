#include "compiler/codegen/op_calls.h"

#include "runtime/exec/op_params.h"
#include "runtime/kernels/int8/abi/kernel_abi.h"
#include "runtime/kernels/int8/bodies.h"
#include "runtime/kernels/int8/fast/rows_body.h"
#include "runtime/kernels/int8/fast/tile_pack.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::codegen {

namespace {

namespace q = kernels::q;
namespace abi = kernels::q::abi;
using fbu = flatbuffers::uoffset_t;
using runtime::op_params::Act;

// Collects one op's calls.
class OpCallBuilder {
 public:
  OpCallBuilder(const pkg::Package& root, const pkg::Op& op) : r_(root), op_(op) {}

  const pkg::Tensor* In(fbu i) const { return Tensor(op_.inputs()->Get(i)); }
  const pkg::Tensor* Out() const { return Tensor(op_.outputs()->Get(0)); }
  const pkg::Tensor* Tensor(int32_t i) const {
    return i < 0 ? nullptr : r_.tensors()->Get(static_cast<fbu>(i));
  }
  static Buffer Of(const pkg::Tensor* t) {
    if (t == nullptr) return {};
    return {t->storage() == pkg::Storage::Arena ? Buffer::kArena : Buffer::kConstants, t->offset()};
  }
  // Adds a call; `encode` writes the argument array and returns its length.
  template <typename Encode>
  void Call(const char* entry, Encode encode, std::vector<Buffer> buffers) {
    KernelCall c;
    c.entry = entry;
    int32_t a[abi::kMaxArgs] = {};
    c.args.assign(a, a + encode(a));
    c.buffers = std::move(buffers);
    calls.push_back(std::move(c));
  }

  std::vector<KernelCall> calls;

 private:
  const pkg::Package& r_;
  const pkg::Op& op_;
};

// Whether every tensor of `op` has all its dimensions nonzero. The loader admits empty tensors,
// the checked kernels refuse them (CheckShape) and the bodies assume they do not occur (an
// AvgPool window over an empty plane would read mult_by_count[-1]): such an op is left to the
// kernels, which name the problem at run time.
bool NoEmptyOperand(const OpCallBuilder& b, const pkg::Op& op) {
  for (const auto* list : {op.inputs(), op.outputs()}) {
    for (const int32_t i : *list) {
      const pkg::Tensor* t = b.Tensor(i);
      if (t == nullptr) continue;
      for (const uint32_t d : *t->shape()) {
        if (d == 0) return false;
      }
    }
  }
  return true;
}

// The row kernels' entry for a Conv2d with blocking `blk` on `rows`, with how they store the
// padded input and pack a tile; null entry: the reference body.
struct RowsEntry {
  const char* entry = nullptr;
  uint32_t in_bytes = 0;
  void (*pack)(const int8_t* tile, uint32_t c, uint8_t* packed) = nullptr;
  size_t (*tile_bytes)(uint32_t c) = nullptr;  // of one packed tile
  // The kernels' bias adjustments, kept after the tiles (rows.h RowKernels::bias_adjust).
  void (*bias_adjust)(const uint8_t* tiles, uint32_t c, size_t ntiles, size_t stride,
                      int32_t* adjust) = nullptr;
  // What sizes the workspace (rows_body.h ConvRowsWorkspaceBytes), as the entry's Isa has them.
  uint32_t chunk_bytes = 0, pair_max_block = 0;
  bool dw_quads = false;
};
RowsEntry RowsFor(ConvRows rows, const q::Blocking& blk) {
  if (blk.batch != 1 || rows == ConvRows::kNone) return {};
  if (rows == ConvRows::kNeon) {
    // The NEON tiles' blocks (tiles_neon.cc): % 4 == 0, up to 256.
    if (blk.block % 4 != 0 || blk.block > 256) return {};
    return {abi::kConv2dRowsNeon, 2, q::fast::PackNeonTile, q::fast::NeonTileBytes};
  }
  if (rows == ConvRows::kAvx512Vnni && (blk.block == 16 || blk.block == 32)) {
    return {abi::kConv2dRowsVnni,
            1,
            q::fast::PackVnniTile,
            q::fast::VnniTileBytes,
            q::fast::VnniBiasAdjust,
            q::fast::kVnniChunkBytes,
            16,
            true};
  }
  if (blk.block == 8 || blk.block == 16 || blk.block == 32) {
    return {abi::kConv2dRowsAvx2, 2, q::fast::PackAvx2Tile, q::fast::Avx2TileBytes};
  }
  return {};
}

// The weights of a groups == 1 convolution, every c x c tile packed by re.pack into its
// PackedTileStride(re.tile_bytes) slot ([ob][ib][ky][kx]), then re.bias_adjust's int32 per output
// channel (out_c rounded up to the block), as fast::PackWeights lays them out.
std::vector<uint8_t> PackedWeights(const q::Blocking& blk, const q::Conv2dParams& p,
                                   const int8_t* weights, const RowsEntry& re) {
  const uint32_t C = blk.block, ocb = CeilDiv(p.out_c, C);
  const size_t per_ob = size_t{CeilDiv(p.in.c, C)} * p.kh * p.kw;
  const size_t stride = q::fast::PackedTileStride(re.tile_bytes(C));
  const size_t tile_bytes = ocb * per_ob * stride;
  const size_t adjust_bytes = re.bias_adjust != nullptr ? size_t{ocb} * C * sizeof(int32_t) : 0;
  std::vector<uint8_t> packed(tile_bytes + adjust_bytes, 0);
  for (size_t t = 0; t < ocb * per_ob; ++t) {
    re.pack(weights + t * C * C, C, packed.data() + t * stride);
  }
  std::vector<int32_t> a(C);
  for (uint32_t ob = 0; ob < ocb && adjust_bytes != 0; ++ob) {
    re.bias_adjust(packed.data() + ob * per_ob * stride, C, per_ob, stride, a.data());
    std::memcpy(packed.data() + tile_bytes + size_t{ob} * C * sizeof(int32_t), a.data(),
                C * sizeof(int32_t));
  }
  return packed;
}

// Whether the runtime runs Add, MaxPool and AvgPool faster than native code would (Add case
// below). Not Mul: its AVX2 kernel took 1.4x the time of the native body (MobileNetV3's 0.81 ms
// against 0.57 ms, docs/cpu.md).
bool RuntimeHasSimdAddAndPools(ConvRows rows) {
  return rows == ConvRows::kAvx2 || rows == ConvRows::kAvx512Vnni;
}

// False for the ops native code does not run.
bool BuildCalls(const runtime::Package& package, const q::Blocking& blk, ConvRows rows,
                const pkg::Op& op, OpCalls* oc) {
  const pkg::Package& r = package.root();
  std::vector<KernelCall>* out = &oc->calls;
  OpCallBuilder b(r, op);
  if (!NoEmptyOperand(b, op)) return false;
  const auto in = [&](fbu i) { return OpCallBuilder::Of(b.In(i)); };
  const Buffer y = OpCallBuilder::Of(b.Out());
  switch (op.params_type()) {
    case pkg::OpParams::Conv2d: {
      // A blocking the kernel body's accumulator tile cannot hold stays on the checked kernel,
      // which refuses it with its own message instead of native code overrunning the stack.
      if (!q::internal::ConvTileFits(blk)) return false;
      const q::Conv2dParams p =
          runtime::op_params::ConvParams(op, [&](int32_t i) { return b.Tensor(i); });
      // A grouped convolution stays with the runtime, which runs it a group at a time on the
      // row kernels (fast::Conv2d), its weights packed at load.
      if (p.groups != 1) return false;
      const RowsEntry re = RowsFor(rows, blk);
      const pkg::Tensor* w = b.In(1);
      if (re.entry != nullptr && w->storage() == pkg::Storage::Constant) {
        Buffer packed;  // depthwise reads the weights as stored
        if (!p.depthwise) {
          const auto* wd = reinterpret_cast<const int8_t*>(package.constants() + w->offset());
          oc->rodata.push_back(PackedWeights(blk, p, wd, re));
          packed = {Buffer::kRodata, oc->rodata.size() - 1};
        }
        oc->workspace_bytes = q::fast::ConvRowsWorkspaceBytes(
            re.in_bytes, re.chunk_bytes, re.pair_max_block, re.dw_quads, blk, p);
        b.Call(re.entry, [&](int32_t* a) { return abi::EncodeConv2d(blk, p, a); },
               {in(0), packed, in(1), in(2), in(3), y, {Buffer::kWorkspace, 0}});
        break;
      }
      b.Call(abi::kConv2d, [&](int32_t* a) { return abi::EncodeConv2d(blk, p, a); },
             {in(0), in(1), in(2), in(3), y});
      break;
    }
    case pkg::OpParams::Add: {
      // On x86 CPUs with AVX2 the runtime's fast::Add, fast::MaxPool and fast::AvgPool (AVX2,
      // every lane of a position at once) beat the reference bodies LLVM vectorizes (ResNet-18's
      // adds took 5-10x their time natively, MobileNetV3's average pools 5x): those ops stay with
      // the runtime. ARM keeps them native.
      if (RuntimeHasSimdAddAndPools(rows)) return false;
      const q::AddParams p = runtime::op_params::AddOf(op.params_as_Add(), b.In(0));
      b.Call(abi::kAdd, [&](int32_t* a) { return abi::EncodeAdd(blk, p, a); }, {in(0), in(1), y});
      break;
    }
    case pkg::OpParams::Mul: {
      const q::MulParams p = runtime::op_params::MulOf(op.params_as_Mul(), b.In(0), b.In(1));
      b.Call(abi::kMul, [&](int32_t* a) { return abi::EncodeMul(blk, p, a); }, {in(0), in(1), y});
      break;
    }
    case pkg::OpParams::MaxPool: {
      if (RuntimeHasSimdAddAndPools(rows)) return false;
      const q::PoolParams p =
          runtime::op_params::Pool(op.params_as_MaxPool()->window(), Act(b.In(0)));
      b.Call(abi::kMaxPool, [&](int32_t* a) { return abi::EncodeMaxPool(blk, p, a); }, {in(0), y});
      break;
    }
    case pkg::OpParams::AvgPool: {
      if (RuntimeHasSimdAddAndPools(rows)) return false;
      const q::AvgPoolParams p = runtime::op_params::AvgPoolOf(op.params_as_AvgPool(), b.In(0));
      b.Call(abi::kAvgPool, [&](int32_t* a) { return abi::EncodeAvgPool(blk, p, a); },
             {in(1), in(0), y});
      break;
    }
    case pkg::OpParams::Resize: {
      const q::ResizeParams p = runtime::op_params::ResizeOf(op.params_as_Resize(), b.In(0));
      b.Call(abi::kResize,
             [&](int32_t* a) {
               return abi::EncodeScaledPlane(blk, p.shape, p.factor_h, p.factor_w, a);
             },
             {in(0), y});
      break;
    }
    case pkg::OpParams::ZeroInsert: {
      const q::ZeroInsertParams p =
          runtime::op_params::ZeroInsertOf(op.params_as_ZeroInsert(), b.In(0));
      b.Call(abi::kZeroInsert,
             [&](int32_t* a) {
               return abi::EncodeScaledPlane(blk, p.shape, p.stride_h, p.stride_w, a);
             },
             {in(0), y});
      break;
    }
    case pkg::OpParams::Concat: {
      // q::Concat's own steps: zero the output, then each input into its channels.
      const pkg::Concat* p = op.params_as_Concat();
      const q::ActShape os = Act(b.Out());
      KernelCall zero;
      zero.buffers = {y};
      zero.bytes = q::BlockedBytes(blk, os);
      b.calls.push_back(zero);
      uint32_t c_off = 0;
      for (fbu i = 0; i < op.inputs()->size(); ++i) {
        const q::ConcatInput ci = runtime::op_params::ConcatInputOf(p, i, b.In(i));
        b.Call(abi::kConcatInto,
               [&](int32_t* a) { return abi::EncodeConcatInto(blk, os, c_off, ci, a); },
               {in(i), y});
        c_off += ci.shape.c;
      }
      break;
    }
    default:
      return false;
  }
  *out = std::move(b.calls);
  return true;
}

}  // namespace

std::vector<OpCalls> NativeOpCalls(const runtime::Package& package, ConvRows rows) {
  const pkg::Package& r = package.root();
  const q::Blocking blk{package.config().batch, package.config().block_in};
  std::vector<OpCalls> all;
  for (fbu s = 0; s < r.segments()->size(); ++s) {
    const pkg::Segment* seg = r.segments()->Get(s);
    for (fbu i = 0; i < seg->ops()->size(); ++i) {
      OpCalls oc;
      if (!BuildCalls(package, blk, rows, *seg->ops()->Get(i), &oc)) continue;
      oc.segment = s;
      oc.op = i;
      oc.symbol = "loom_op_" + std::to_string(s) + "_" + std::to_string(i);
      all.push_back(std::move(oc));
    }
  }
  return all;
}

}  // namespace loom::codegen
