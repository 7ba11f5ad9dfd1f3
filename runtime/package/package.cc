#include "runtime/package/package.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>

#include "runtime/core/blocked_layout.h"
#include "runtime/package/checks.h"
#include "runtime/package/format.h"

namespace loom::runtime {
namespace {

constexpr size_t kPayloadAlign = 64;  // >= the schema's largest force_align (constants, 32)

Status ReadWholeFile(const std::string& path, std::vector<uint8_t>* out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return NotFound("cannot open package " + path);
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return DataLoss("cannot read package " + path);
  *out = std::move(bytes);
  return Status::Ok();
}

}  // namespace

DType FromPkgDType(pkg::DType dtype) {
  switch (dtype) {
    case pkg::DType::Int8: return DType::kI8;
    case pkg::DType::Int32: return DType::kI32;
    case pkg::DType::Float32: return DType::kF32;
  }
  return DType::kUndefined;
}

bool ToPkgDType(DType dtype, pkg::DType* out) {
  switch (dtype) {
    case DType::kI8: *out = pkg::DType::Int8; return true;
    case DType::kI32: *out = pkg::DType::Int32; return true;
    case DType::kF32: *out = pkg::DType::Float32; return true;
    default: return false;
  }
}

HwConfig ConfigFromTable(const pkg::HwConfigTable& t) {
  HwConfig c;
  c.name = t.name() ? t.name()->str() : "";
  c.batch = t.batch();
  c.block_in = t.block_in();
  c.block_out = t.block_out();
  c.inp_bits = t.inp_bits();
  c.wgt_bits = t.wgt_bits();
  c.acc_bits = t.acc_bits();
  c.out_bits = t.out_bits();
  c.uop_buffer_bytes = t.uop_buffer_bytes();
  c.inp_buffer_bytes = t.inp_buffer_bytes();
  c.wgt_buffer_bytes = t.wgt_buffer_bytes();
  c.acc_buffer_bytes = t.acc_buffer_bytes();
  c.token_queue_depth = t.token_queue_depth();
  c.cmd_queue_depth = t.cmd_queue_depth();
  c.axi_data_bits = t.axi_data_bits();
  c.dma_burst_latency = t.dma_burst_latency();
  c.dma_max_burst_beats = t.dma_max_burst_beats();
  c.clock_mhz = t.clock_mhz();
  return c;
}

bool ShapeElements(const flatbuffers::Vector<uint32_t>* shape, uint64_t* count) {
  uint64_t n = 1;
  if (shape != nullptr) {
    for (uint32_t d : *shape) {
      if (__builtin_mul_overflow(n, uint64_t{d}, &n)) return false;
    }
  }
  *count = n;
  return true;
}

Status TensorBytes(const HwConfig& c, pkg::DType dtype, pkg::TensorLayout layout,
                   const flatbuffers::Vector<uint32_t>* shape, uint64_t* bytes) {
  const size_t rank = shape ? shape->size() : 0;
  auto dim = [&](size_t i) { return uint64_t{shape->Get(static_cast<flatbuffers::uoffset_t>(i))}; };
  auto need = [&](pkg::DType want, size_t want_rank, const char* what) -> Status {
    if (dtype != want || rank != want_rank) {
      return InvalidArgument(std::string("layout ") + what + " needs a " + DTypeName(want) +
                             " tensor of rank " + std::to_string(want_rank) + ", got " +
                             DTypeName(dtype) + " of rank " + std::to_string(rank));
    }
    if (c.block_in != c.block_out) {
      return InvalidArgument(std::string("layout ") + what +
                             " needs block_in == block_out in the config");
    }
    return Status::Ok();
  };
  const uint64_t B = c.batch, K = c.block_in;
  bool ok = true;
  switch (layout) {
    case pkg::TensorLayout::Plain: {
      uint64_t n = 0;
      const uint64_t es = dtype == pkg::DType::Int8 ? 1 : 4;
      ok = ShapeElements(shape, &n) && CheckedMul(n, es, bytes);
      break;
    }
    case pkg::TensorLayout::Blocked:
      LOOM_RETURN_IF_ERROR(need(pkg::DType::Int8, 4, "Blocked"));
      ok = BlockedActivationElems(dim(0), dim(1), dim(2), dim(3), B, K, bytes);
      break;
    case pkg::TensorLayout::BlockedWeights:
      LOOM_RETURN_IF_ERROR(need(pkg::DType::Int8, 4, "BlockedWeights"));
      ok = BlockedWeightElems(dim(0), dim(1), dim(2), dim(3), K, bytes);
      break;
    case pkg::TensorLayout::BlockedDepthwise:
      LOOM_RETURN_IF_ERROR(need(pkg::DType::Int8, 4, "BlockedDepthwise"));
      if (dim(1) != 1) return InvalidArgument("BlockedDepthwise weights must have shape [C, 1, KH, KW]");
      ok = BlockedDepthwiseElems(dim(0), dim(2), dim(3), K, bytes);
      break;
    case pkg::TensorLayout::BlockedVector: {
      LOOM_RETURN_IF_ERROR(need(pkg::DType::Int32, 1, "BlockedVector"));
      uint64_t elems = 0;
      ok = BlockedVectorElems(dim(0), B, K, &elems) && CheckedMul(elems, uint64_t{4}, bytes);
      break;
    }
    default:
      return InvalidArgument("unknown layout " + std::to_string(static_cast<int>(layout)));
  }
  if (!ok) return InvalidArgument("tensor byte size overflows 64 bits");
  return Status::Ok();
}

const uint8_t* Package::constants() const {
  return root_->constants() ? root_->constants()->data() : nullptr;
}
uint64_t Package::constants_bytes() const {
  return root_->constants() ? root_->constants()->size() : 0;
}
const Program* Package::program(size_t segment) const {
  return segment < programs_.size() ? programs_[segment].get() : nullptr;
}

Status Package::LoadFile(const std::string& path, std::unique_ptr<Package>* out,
                         const LoadOptions& options) {
  std::vector<uint8_t> bytes;
  LOOM_RETURN_IF_ERROR(ReadWholeFile(path, &bytes));
  return LoadMemory(bytes.data(), bytes.size(), out, options).WithContext(path);
}

Status Package::LoadMemory(const void* data, size_t size, std::unique_ptr<Package>* out,
                           const LoadOptions& options) {
  const uint8_t* file = static_cast<const uint8_t*>(data);
  PackageHeader header;
  LOOM_RETURN_IF_ERROR(DecodeHeader(file, size, &header));
  const uint8_t* payload = file + kHeaderBytes;
  if (options.verify_checksum) {
    const uint64_t sum = Fnv1a64(payload, header.payload_bytes);
    if (sum != header.checksum) {
      char msg[160];
      std::snprintf(msg, sizeof(msg),
                    "package checksum mismatch: header says %016llx, payload hashes to %016llx "
                    "(the file is corrupted)",
                    static_cast<unsigned long long>(header.checksum),
                    static_cast<unsigned long long>(sum));
      return DataLoss(msg);
    }
  }
  std::unique_ptr<Package> p(new Package());
  p->storage_.reset(new uint8_t[header.payload_bytes + kPayloadAlign]);
  uint8_t* base = p->storage_.get();
  const uintptr_t mis = reinterpret_cast<uintptr_t>(base) % kPayloadAlign;
  uint8_t* aligned = base + (mis ? kPayloadAlign - mis : 0);
  if (header.payload_bytes) std::memcpy(aligned, payload, header.payload_bytes);
  p->payload_ = aligned;
  p->payload_size_ = header.payload_bytes;

  if (header.payload_bytes < 8 || !pkg::PackageBufferHasIdentifier(aligned)) {
    return DataLoss("package payload is not a Loom package FlatBuffer (identifier \"LMPK\" missing)");
  }
  flatbuffers::Verifier verifier(aligned, header.payload_bytes,
                                 flatbuffers::Verifier::Options{});
  if (!pkg::VerifyPackageBuffer(verifier)) {
    return DataLoss("package payload fails the FlatBuffers Verifier (corrupted or truncated "
                    "tables, vectors or strings)");
  }
  p->root_ = pkg::GetPackage(aligned);
  LOOM_RETURN_IF_ERROR(p->Check());
  *out = std::move(p);
  return Status::Ok();
}

Status Package::Check() {
  const pkg::Package& r = *root_;
  if (r.version_major() != kSchemaVersionMajor) {
    return FailedPrecondition("package schema version " + std::to_string(r.version_major()) + "." +
                              std::to_string(r.version_minor()) + " is not supported (this runtime "
                              "reads major version " + std::to_string(kSchemaVersionMajor) + ")");
  }
  config_ = ConfigFromTable(*r.config());
  if (Status s = config_.Validate(); !s.ok()) {
    return InvalidArgument("package config: " + s.message());
  }
  if (Status s = isa::Layout::Create(config_, &layout_); !s.ok()) {
    return InvalidArgument("package config: " + s.message());
  }
  if (config_.CompatibilityHash() != r.config_hash()) {
    char msg[200];
    std::snprintf(msg, sizeof(msg),
                  "package config_hash %016llx does not match the hash %s of its config '%s'",
                  static_cast<unsigned long long>(r.config_hash()), config_.HashHex().c_str(),
                  config_.name.c_str());
    return DataLoss(msg);
  }
  PackageChecker checker(r, config_, layout_);
  LOOM_RETURN_IF_ERROR(checker.CheckTensors());
  LOOM_RETURN_IF_ERROR(checker.CheckBindings());
  programs_.clear();
  for (flatbuffers::uoffset_t i = 0; i < r.segments()->size(); ++i) {
    std::unique_ptr<Program> prog;
    LOOM_RETURN_IF_ERROR(checker.CheckSegment(i, &prog));
    programs_.push_back(std::move(prog));
  }
  return Status::Ok();
}

}  // namespace loom::runtime
