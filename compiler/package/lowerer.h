// The package lowering's Lowerer (lower.h), shared by lower.cc (tensors, the arena, CPU ops,
// segments) and lower_accel.cc (accelerator layers: emitters, tiling, the DMA-range checks).
// Internal to loom_package_lower.
#ifndef LOOM_COMPILER_PACKAGE_LOWERER_H_
#define LOOM_COMPILER_PACKAGE_LOWERER_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/package/lower.h"
#include "compiler/tensorize/conv2d.h"
#include "compiler/tensorize/eltwise.h"
#include "runtime/kernels/int8/qops.h"
#include "runtime/package/package.h"

namespace loom::package::internal {

namespace q = kernels::q;
using tensorize::AccelCode;

// A byte range a layer's DMA may touch.
struct Range {
  Region region;
  uint64_t begin, end;
};

class Lowerer {
 public:
  Lowerer(const ir::Graph& g, const HwConfig& c, const LowerOptions& o, PackageSpec* spec,
          LowerReport* report)
      : g_(g),
        c_(c),
        o_(o),
        spec_(*spec),
        report_(*report),
        blk_{c.batch, c.block_in},
        align_(runtime::ArenaAlignment(c)) {}

  Status Run();

 private:
  std::string Where(const ir::Node& n) const { return "layer " + ir::NodeLabel(g_, n); }
  Status CollectTensors();
  Status ArenaTensor(ir::ValueId v, int32_t* index);
  int32_t AddConstant(const std::string& name, pkg::DType dtype, TensorLayout layout,
                      std::vector<uint32_t> shape, const void* bytes, size_t size, float scale);
  Status ConstantInput(const ir::Node& n, size_t i, int32_t* index);
  Status PlanArena();
  Status BuildSegments();
  Status MakeOp(const ir::Node& n, OpSpec* op);
  Status LowerAccel(const ir::Node& n, AccelCode* code, LayerLowering* layer);
  Status ChooseTiling(Conv2dLowering* conv) const;
  // lower_conv_pool.cc: the max pool to run inside `conv`'s program (`next`, the node lowered
  // after it, or null), and that program.
  const ir::Node* PoolToFuse(const ir::Node& conv, const ir::Node* next) const;
  Status LowerConvPool(const ir::Node& pool, const tensorize::Conv2dLayer& l, AccelCode* code,
                       LayerLowering* layer, std::vector<Range>* allowed, bool* fused);
  Status VerifyLayer(const ir::Node& n, const AccelCode& code, size_t first,
                     const std::vector<Range>& allowed) const;
  Status VerifyProgram(const std::string& segment, const AccelCode& code) const;
  const TensorSpec& T(int32_t i) const { return spec_.tensors[static_cast<size_t>(i)]; }
  // The identity weight block (one WGT element) the add and max pooling copy through.
  int32_t Identity() {
    if (identity_ < 0) {
      const std::vector<int8_t> id = tensorize::IdentityWeights(c_);
      identity_ = AddConstant("loom.identity", pkg::DType::Int8, TensorLayout::Plain,
                              {static_cast<uint32_t>(id.size())}, id.data(), id.size(), 1.0f);
    }
    return identity_;
  }

  const ir::Graph& g_;
  const HwConfig& c_;
  const LowerOptions& o_;
  PackageSpec& spec_;
  LowerReport& report_;
  const q::Blocking blk_;
  const uint64_t align_;
  std::map<ir::ValueId, int32_t> arena_;                  // value → tensor
  std::map<std::pair<ir::ValueId, int>, int32_t> const_;  // (value, role) → tensor
  std::map<ir::ValueId, int32_t> diag_;                   // depthwise weights → accelerator form
  std::map<ir::ValueId, int32_t> const_outputs_;          // constant graph output → its tensor
  int32_t identity_ = -1;                                 // the add's identity weight block
  const ir::Node* pool_ = nullptr;  // the max pool the next q.conv2d may fuse (PoolToFuse)
};

}  // namespace loom::package::internal

#endif  // LOOM_COMPILER_PACKAGE_LOWERER_H_
