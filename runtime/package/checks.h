// The loader's own checks on a package that passed the FlatBuffers Verifier: tensors inside their
// region with consistent sizes, the arena and constants no larger than their tensors need,
// bindings, ops (arity, dtypes, layouts, shapes, parameters) and accelerator programs (decode +
// isa::Verify, FINISH last, regions, DMA extents inside their region). Every failure names the
// segment, op, tensor or instruction.
#ifndef LOOM_RUNTIME_PACKAGE_CHECKS_H_
#define LOOM_RUNTIME_PACKAGE_CHECKS_H_

#include <memory>
#include <string>
#include <vector>

#include "runtime/package/package.h"

namespace loom::runtime {

class PackageChecker {
 public:
  PackageChecker(const pkg::Package& root, const HwConfig& config, const isa::Layout& layout)
      : r_(root), c_(config), layout_(layout) {}

  Status CheckTensors();
  Status CheckBindings();
  // *program is set for accelerator segments; *float_ops gets one entry per op, resolved for
  // FloatOps (def null for other operators).
  Status CheckSegment(flatbuffers::uoffset_t index, std::unique_ptr<Program>* program,
                      std::vector<FloatOpPlan>* float_ops);

 private:
  // The tensor whose bytes end last in a region (end 0: none).
  struct Last {
    uint64_t end = 0;
    flatbuffers::uoffset_t tensor = 0;
  };
  // `field` (arena_bytes or constants) holds `bytes`: at most `last`'s end rounded up to
  // ArenaAlignment.
  Status CheckRegionSize(const char* field, uint64_t bytes, const Last& last) const;
  Status CheckOp(const pkg::Op& op, const std::string& where, FloatOpPlan* plan);
  Status CheckFloatOp(const pkg::Op& op, const std::vector<const pkg::Tensor*>& ins,
                      const std::vector<const pkg::Tensor*>& outs, const std::string& where,
                      FloatOpPlan* plan);
  Status CheckInsnRanges(const pkg::Segment& seg, const std::string& where, size_t insns);
  Status CheckProgram(const pkg::AccelProgram& prog, const std::string& where, Program* out);
  // Tensor `idx` exists (or is -1 when `optional`); returns it in *t (null for -1).
  Status Get(int32_t idx, bool optional, const std::string& where, const pkg::Tensor** t);
  std::string TensorName(const pkg::Tensor* t) const;

  const pkg::Package& r_;
  const HwConfig& c_;
  const isa::Layout& layout_;
};

// Native code (native_checks.cc): known targets, ELF objects, symbols naming existing ops, at most
// one function per op and target.
Status CheckNativeCode(const pkg::Package& root);

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_PACKAGE_CHECKS_H_
