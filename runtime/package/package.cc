#include "runtime/package/package.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>

#include "runtime/core/blocked_layout.h"
#include "runtime/core/checked_math.h"
#include "runtime/io/file.h"
#include "runtime/package/checks.h"
#include "runtime/package/format.h"

namespace loom::runtime {
namespace {

constexpr size_t kPayloadAlign = 64;  // >= the schema's largest force_align (constants, 32)

}  // namespace

// One row per wire value; the schema's values never change, new ones are appended (1.3).
namespace {
struct DTypePair {
  pkg::DType wire;
  DType type;
};
constexpr DTypePair kDTypePairs[] = {
    {pkg::DType::Int8, DType::kI8},     {pkg::DType::Int32, DType::kI32},
    {pkg::DType::Float32, DType::kF32}, {pkg::DType::UInt8, DType::kU8},
    {pkg::DType::Int16, DType::kI16},   {pkg::DType::Int64, DType::kI64},
    {pkg::DType::Bool, DType::kBool},   {pkg::DType::Float16, DType::kF16},
    {pkg::DType::Float64, DType::kF64}, {pkg::DType::UInt16, DType::kU16},
    {pkg::DType::UInt32, DType::kU32},  {pkg::DType::UInt64, DType::kU64},
};
}  // namespace

DType FromPkgDType(pkg::DType dtype) {
  for (const DTypePair& p : kDTypePairs) {
    if (p.wire == dtype) return p.type;
  }
  return DType::kUndefined;
}

bool ToPkgDType(DType dtype, pkg::DType* out) {
  for (const DTypePair& p : kDTypePairs) {
    if (p.type == dtype) {
      *out = p.wire;
      return true;
    }
  }
  return false;
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

uint64_t ArenaAlignment(const HwConfig& c) {
  return std::max<uint64_t>(
      {64, c.inp_elem_bytes(), c.wgt_elem_bytes(), c.acc_elem_bytes(), c.out_elem_bytes()});
}

bool DeviceBytes(const pkg::Package& r, uint64_t* bytes) {
  uint64_t n = r.arena_bytes();
  bool ok = CheckedAdd<uint64_t>(n, r.constants() ? r.constants()->size() : 0, &n);
  for (const pkg::Segment* seg : *r.segments()) {
    const pkg::AccelProgram* prog = seg->program();
    if (prog == nullptr) continue;
    ok = ok && CheckedAdd<uint64_t>(n, uint64_t{prog->uops()->size()} * HwConfig::kUopBytes, &n) &&
         CheckedAdd<uint64_t>(n, prog->insns()->size(), &n);
  }
  *bytes = n;
  return ok;
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
      return InvalidArgument("layout {} needs a {} tensor of rank {}, got {} of rank {}", what,
                             DTypeName(want), want_rank, DTypeName(dtype), rank);
    }
    if (c.block_in != c.block_out) {
      return InvalidArgument("layout {} needs block_in == block_out in the config", what);
    }
    return Status::Ok();
  };
  const uint64_t B = c.batch, K = c.block_in;
  bool ok = true;
  switch (layout) {
    case pkg::TensorLayout::Plain: {
      uint64_t n = 0;
      const uint64_t es = DTypeSize(FromPkgDType(dtype));
      if (es == 0) return InvalidArgument("unknown dtype {}", static_cast<int>(dtype));
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
      return InvalidArgument("unknown layout {}", static_cast<int>(layout));
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
const FloatOpPlan* Package::float_op(size_t segment, size_t op) const {
  if (segment >= float_op_index_.size() || op >= float_op_index_[segment].size()) return nullptr;
  const int32_t i = float_op_index_[segment][op];
  return i < 0 ? nullptr : &float_ops_[static_cast<size_t>(i)];
}

Status Package::LoadFile(const std::string& path, std::unique_ptr<Package>* out,
                         const LoadOptions& options) {
  std::vector<uint8_t> bytes;
  LOOM_RETURN_IF_ERROR(ReadFileBytes(path, "package", kMaxPackageFileBytes, &bytes));
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
  LOOM_RETURN_IF_ERROR(p->Check(options));
  *out = std::move(p);
  return Status::Ok();
}

Status Package::Check(const LoadOptions& options) {
  const pkg::Package& r = *root_;
  if (r.version_major() != kSchemaVersionMajor &&
      r.version_major() != kSchemaVersionMajorZeroPoints) {
    return FailedPrecondition(
        "package schema version {}.{} is not supported (this runtime reads major versions {} and "
        "{})",
        r.version_major(), r.version_minor(), kSchemaVersionMajor, kSchemaVersionMajorZeroPoints);
  }
  config_ = ConfigFromTable(*r.config());
  if (Status s = config_.Validate(); !s.ok()) {
    return InvalidArgument("package config: {}", s.message());
  }
  if (Status s = isa::Layout::Create(config_, &layout_); !s.ok()) {
    return InvalidArgument("package config: {}", s.message());
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
  // Before any program is decoded: what a package may ask of the device is the caller's
  // choice, so a tensor of terabytes is refused here rather than by bad_alloc in a driver.
  uint64_t device = 0;
  const bool fits = DeviceBytes(r, &device);
  if (!fits || device > options.max_device_memory) {
    const uint64_t programs = fits ? device - r.arena_bytes() - constants_bytes() : 0;
    return FailedPrecondition(
        "package needs {} bytes of device memory (arena_bytes {}, constants {}{}), more than the "
        "limit of {} bytes (max_device_memory; loom-run --max-device-memory)",
        fits ? Format("{}", device) : std::string("more than 2^64"), r.arena_bytes(),
        constants_bytes(), fits ? Format(", programs {}", programs) : std::string(),
        options.max_device_memory);
  }
  LOOM_RETURN_IF_ERROR(checker.CheckBindings());
  programs_.clear();
  float_ops_.clear();
  float_op_index_.assign(r.segments()->size(), {});
  for (flatbuffers::uoffset_t i = 0; i < r.segments()->size(); ++i) {
    std::unique_ptr<Program> prog;
    std::vector<FloatOpPlan> plans;  // one per op; def null for other operators
    LOOM_RETURN_IF_ERROR(checker.CheckSegment(i, &prog, &plans));
    programs_.push_back(std::move(prog));
    for (const FloatOpPlan& plan : plans) {
      float_op_index_[i].push_back(plan.def ? static_cast<int32_t>(float_ops_.size()) : -1);
      if (plan.def) float_ops_.push_back(plan);
    }
  }
  return CheckNativeCode(r);
}

size_t FloatOpMaxOutputs(std::string_view op) {
  const kernels::FloatOpDef* row = kernels::FindFloatOp(op);
  return row == nullptr ? 0 : size_t{1} + row->extra_outputs;
}

}  // namespace loom::runtime
