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
#include <vector>

#include "runtime/core/dtype.h"
#include "runtime/core/hw_config.h"
#include "runtime/core/isa.h"
#include "runtime/core/status.h"
#include "runtime/package/link.h"
#include "runtime/schema/loom_package_generated.h"

namespace loom::runtime {

struct LoadOptions {
  // Only the fuzz target turns this off, so that mutated payloads reach the Verifier and the
  // semantic checks instead of all stopping at the checksum.
  bool verify_checksum = true;
};

// An accelerator segment's program, decoded at load (instructions still region-relative).
struct Program {
  std::vector<isa::Insn> insns;
  std::vector<Region> regions;
  std::vector<uint32_t> uop_words;
  uint64_t gemm_macs = 0;  // MACs the GEMM instructions perform (from their loop counts)
};

class Package {
 public:
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
  // Total payload bytes (without the 32-byte header).
  size_t payload_bytes() const { return payload_size_; }

 private:
  Package() = default;
  Status Check();

  std::unique_ptr<uint8_t[]> storage_;
  const uint8_t* payload_ = nullptr;  // 64-byte aligned inside storage_
  size_t payload_size_ = 0;
  const pkg::Package* root_ = nullptr;
  HwConfig config_;
  isa::Layout layout_;
  std::vector<std::unique_ptr<Program>> programs_;  // per segment
};

// HwConfig from the package's config table (not validated).
HwConfig ConfigFromTable(const pkg::HwConfigTable& table);

// Element count of a shape; false on overflow.
bool ShapeElements(const flatbuffers::Vector<uint32_t>* shape, uint64_t* count);
// Bytes a tensor of this dtype, layout and logical shape occupies (TensorLayout in the schema).
Status TensorBytes(const HwConfig& config, pkg::DType dtype, pkg::TensorLayout layout,
                   const flatbuffers::Vector<uint32_t>* shape, uint64_t* bytes);

// The one mapping between the schema's wire enum and loom::DType. FromPkgDType gives kUndefined for
// a value outside the schema (the loader refuses those); ToPkgDType is false for a type a package
// cannot hold yet (it holds int8, int32 and float32 tensors).
DType FromPkgDType(pkg::DType dtype);
bool ToPkgDType(DType dtype, pkg::DType* out);
// DTypeLongName of the mapped type: "int8", "int32", "float32"; "undefined" outside the schema.
inline const char* DTypeName(pkg::DType dtype) { return DTypeLongName(FromPkgDType(dtype)); }

}  // namespace loom::runtime

#endif  // LOOM_RUNTIME_PACKAGE_PACKAGE_H_
