// A loaded, verified package (docs/package.md). Loading checks everything once — container
// header, checksum, FlatBuffers Verifier, schema version, config hash, every tensor, op and
// instruction — so the executor runs without re-checking.
//
//   std::unique_ptr<loom::runtime::Package> package;
//   LOOM_RETURN_IF_ERROR(loom::runtime::Package::LoadFile("model.loom", &package));
//
// Ownership: a Package owns one aligned copy of the payload; every pointer it hands out (root(),
// constants(), names) lives as long as the Package. Not thread-safe to mutate; const use is.
#ifndef LOOM_RUNTIME_PACKAGE_PACKAGE_H_
#define LOOM_RUNTIME_PACKAGE_PACKAGE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/dtype.h"
#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"
#include "runtime/core/status.h"
#include "runtime/kernels/float_ops.h"
#include "runtime/package/link.h"
#include "runtime/schema/loom_package_generated.h"

namespace loom::runtime {

// The most dimensions a tensor or a model input/output may have (the C API's LOOM_MAX_RANK).
inline constexpr size_t kMaxRank = 8;
// Device memory a package may need unless the caller allows more (LoadOptions, ExecutorOptions,
// `loom-run --max-device-memory`): larger than any model Loom targets, and it fits a 32-bit
// size_t, so a hostile size field is refused before anything is allocated from it.
inline constexpr uint64_t kDefaultMaxDeviceMemory = uint64_t{2} << 30;  // 2 GiB

struct LoadOptions {
  // Only the fuzz target turns this off, so that mutated payloads reach the Verifier and the
  // semantic checks instead of all stopping at the checksum.
  bool verify_checksum = true;
  // A package whose device memory (DeviceBytes) is larger is refused with FailedPrecondition.
  uint64_t max_device_memory = kDefaultMaxDeviceMemory;
};

// An accelerator segment's program, decoded at load (instructions still region-relative).
struct Program {
  std::vector<isa::Insn> insns;
  std::vector<Region> regions;
  std::vector<uint32_t> uop_words;
  uint64_t gemm_macs = 0;  // MACs the GEMM instructions perform (from their loop counts)
};

// A float operator of a CPU segment, resolved at load: its row of the float-op table and its
// parameters (runtime/kernels/float_ops.h), so the executor calls def->run without a name lookup.
struct FloatOpPlan {
  const kernels::FloatOpDef* def = nullptr;
  kernels::FloatOpParams params;
  size_t num_outputs = 1;    // 1 + the extra outputs the package gives the op (def->extra_outputs)
  size_t scratch_bytes = 0;  // what def->scratch_bytes asked for, from the operand shapes
};

class Package {
 public:
  // Reads the file through runtime/io/file.h: a pipe, a device or a file over
  // kMaxPackageFileBytes is refused before it is read.
  static Status LoadFile(const std::string& path, std::unique_ptr<Package>* out,
                         const LoadOptions& options = {});
  // Copies `size` bytes (the whole file image, header included).
  static Status LoadMemory(const void* data, size_t size, std::unique_ptr<Package>* out,
                           const LoadOptions& options = {});

  const pkg::Package& root() const { return *root_; }
  // The HwConfig the package was built for (validated; its hash equals config_hash).
  const HwConfig& config() const { return config_; }
  const isa::Layout& layout() const { return layout_; }
  const uint8_t* constants() const;
  uint64_t constants_bytes() const;
  uint64_t arena_bytes() const { return root_->arena_bytes(); }
  size_t num_segments() const { return root_->segments()->size(); }
  // Null for a CPU segment.
  const Program* program(size_t segment) const;
  // The resolved FloatOp `op` of `segment` (indices as in the schema); null for other operators.
  const FloatOpPlan* float_op(size_t segment, size_t op) const;
  // Total payload bytes (without the 32-byte header).
  size_t payload_bytes() const { return payload_size_; }
  // The payload itself (the FlatBuffer); with EncodeHeader (format.h) it is the file image again.
  const uint8_t* payload() const { return payload_; }

 private:
  Package() = default;
  Status Check(const LoadOptions& options);

  std::unique_ptr<uint8_t[]> storage_;
  const uint8_t* payload_ = nullptr;  // 64-byte aligned inside storage_
  size_t payload_size_ = 0;
  const pkg::Package* root_ = nullptr;
  HwConfig config_;
  isa::Layout layout_;
  std::vector<std::unique_ptr<Program>> programs_;  // per segment
  std::vector<FloatOpPlan> float_ops_;              // every FloatOp, in segment and op order
  std::vector<std::vector<int32_t>> float_op_index_;  // per segment, per op: into float_ops_ or -1
};

// HwConfig from the package's config table (not validated).
HwConfig ConfigFromTable(const pkg::HwConfigTable& table);

// The alignment of every arena tensor and of the arena's and constants' sizes as the compiler
// plans them (compiler/package/lower.cc): 64 bytes or one element of the largest on-chip buffer.
// The loader refuses an arena or constants region larger than its last tensor's end rounded up
// to this.
uint64_t ArenaAlignment(const HwConfig& config);
// The device memory a package's regions take, unrounded: arena + constants + every program's
// micro-ops and instructions. False on overflow.
bool DeviceBytes(const pkg::Package& root, uint64_t* bytes);

// Element count of a shape; false on overflow.
bool ShapeElements(const flatbuffers::Vector<uint32_t>* shape, uint64_t* count);
// Bytes a tensor of this dtype, layout and logical shape occupies (TensorLayout in the schema).
Status TensorBytes(const HwConfig& config, pkg::DType dtype, pkg::TensorLayout layout,
                   const flatbuffers::Vector<uint32_t>* shape, uint64_t* bytes);

// The one mapping between the schema's wire enum and loom::DType. FromPkgDType gives kUndefined for
// a value outside the schema (the loader refuses those); ToPkgDType is false only for kUndefined:
// since 1.3 a package holds every loom::DType, each stored as itself.
DType FromPkgDType(pkg::DType dtype);
bool ToPkgDType(DType dtype, pkg::DType* out);

// The most outputs the runtime's CPU float operator `op` writes (its float-op row's 1 +
// extra_outputs); 0 when the runtime has no such operator. The compiler's lowering asks before it
// writes a node with several outputs.
size_t FloatOpMaxOutputs(std::string_view op);
// DTypeLongName of the mapped type: "int8", "int64", "float16", ...; "undefined" outside the
// schema.
inline const char* DTypeName(pkg::DType dtype) { return DTypeLongName(FromPkgDType(dtype)); }

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_PACKAGE_PACKAGE_H_
