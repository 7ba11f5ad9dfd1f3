#include "runtime/exec/executor.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "runtime/core/checked_math.h"
#include "runtime/core/platform.h"
#include "runtime/kernels/int8/fast/fast.h"
#include "runtime/kernels/int8/qops.h"

namespace loom::runtime {
namespace {

namespace q = kernels::q;
using fbu = flatbuffers::uoffset_t;

constexpr uint64_t kRegionAlign = 4096;  // covers every buffer element size of shipped configs

std::string ShapeText(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += Format(i ? ", {}" : "{}", s[i]);
  return t + "]";
}
std::vector<int64_t> BindingShape(const pkg::Binding* b) {
  return std::vector<int64_t>(b->shape()->begin(), b->shape()->end());
}
uint64_t Count(const pkg::Tensor* t) {
  uint64_t n = 0;
  ShapeElements(t->shape(), &n);
  return n;
}
q::ActShape Act(const pkg::Tensor* t) {
  return {t->shape()->Get(0), t->shape()->Get(1), t->shape()->Get(2), t->shape()->Get(3)};
}

}  // namespace

double SegmentProfile::gemm_utilization(const HwConfig& config) const {
  if (cycles == 0) return 0.0;
  return static_cast<double>(device_macs) / (static_cast<double>(cycles) * config.macs_per_cycle());
}

SegmentProfile Profile::Total() const {
  SegmentProfile t;
  t.name = "total";
  t.runs = inferences;
  for (const SegmentProfile& s : segments) {
    t.accel = t.accel || s.accel;
    t.on_device = t.on_device || s.on_device;
    t.wall_ns += s.wall_ns;
    t.cycles += s.cycles;
    t.macs += s.macs;
    t.device_macs += s.device_macs;
    t.bytes_loaded += s.bytes_loaded;
    t.bytes_stored += s.bytes_stored;
    t.insns += s.insns;
    for (int m = 0; m < isa::kNumModules; ++m) t.busy[m] += s.busy[m];
  }
  return t;
}

Status Executor::Create(std::unique_ptr<Package> package, std::unique_ptr<Driver> driver,
                        const ExecutorOptions& options, std::unique_ptr<Executor>* out) {
  std::unique_ptr<Executor> e(new Executor());
  e->package_ = std::move(package);
  e->driver_ = std::move(driver);
  e->options_ = options;
  const Package& p = *e->package_;
  e->device_programs_ = e->driver_->executes_programs();

  // Device memory: the arena always; constants and programs only where programs run. Each region
  // gets whole pages, one more byte than it holds. The sizes come from the package (a loader
  // with a larger limit may have accepted it), so the sum is checked and bounded before any
  // driver or host buffer is sized from it.
  uint64_t bytes = 0;
  auto region = [&bytes](uint64_t n) {
    uint64_t paged = 0;
    return CheckedAdd<uint64_t>(n, kRegionAlign, &paged) &&
           CheckedAdd<uint64_t>(bytes, paged / kRegionAlign * kRegionAlign, &bytes);
  };
  bool fits = region(p.arena_bytes());
  if (e->device_programs_) {
    fits = fits && region(p.constants_bytes());
    for (size_t s = 0; fits && s < p.num_segments(); ++s) {
      if (const Program* prog = p.program(s)) {
        fits = region(uint64_t{prog->uop_words.size()} * HwConfig::kUopBytes) &&
               region(uint64_t{prog->insns.size()} * HwConfig::kInsnBytes);
      }
    }
  }
  size_t host_bytes = 0;  // the cpu driver and the host arena copy live in host memory
  if (!fits || bytes > options.max_device_memory || !CheckedCast(bytes, &host_bytes)) {
    return FailedPrecondition(
        "device {}: the package needs {} bytes of device memory (arena_bytes {}{}, each region in "
        "whole 4 KiB pages), more than the limit of {} bytes (max_device_memory; loom-run "
        "--max-device-memory)",
        e->driver_->name(), fits ? Format("{}", bytes) : std::string("more than 2^64"),
        p.arena_bytes(),
        e->device_programs_ ? Format(", constants {} and programs", p.constants_bytes())
                            : std::string(),
        std::min<uint64_t>(options.max_device_memory, SIZE_MAX));
  }
  DriverOptions dopt;
  dopt.config = options.has_device_config ? options.device_config : p.config();
  dopt.device_args = options.device_args;
  dopt.memory_bytes = bytes;
  dopt.trace = options.trace;
  dopt.timeline = options.timeline;
  dopt.waves = options.waves;
  dopt.wall_timeout_ms = options.wall_timeout_ms;
  LOOM_RETURN_IF_ERROR(e->driver_->Open(dopt).WithContext("device {}", e->driver_->name()));
  const HwConfig& dev = e->driver_->config();
  if (dev.CompatibilityHash() != p.config().CompatibilityHash()) {
    return FailedPrecondition("package built for config {} (hash {}), device {} is {} (hash {})",
                              p.config().name, p.config().HashHex(), e->driver_->name(), dev.name,
                              dev.HashHex());
  }
  e->timelines_.resize(p.num_segments());
  kernels::q::fast::KernelPath kernels = kernels::q::fast::DefaultPath();
  if (!options.cpu_kernels.empty()) {
    LOOM_RETURN_IF_ERROR(kernels::q::fast::ParsePath(options.cpu_kernels.c_str(), &kernels));
  }
  if (options.native_code) {
    std::string notice;
    LOOM_RETURN_IF_ERROR(NativeOps::Load(p, &e->native_, &notice));
    if (!notice.empty()) std::fprintf(stderr, "loom: %s\n", notice.c_str());
  }
  e->cpu_ = std::make_unique<CpuOpRunner>(p, kernels, e->native_.get());
  LOOM_RETURN_IF_ERROR(e->Place());
  e->ResetProfile();
  *out = std::move(e);
  return Status::Ok();
}

Executor::~Executor() {
  if (driver_) {
    for (uint64_t a : allocations_) (void)driver_->Free(a);
    driver_->Close();
  }
}

void Executor::ResetProfile() {
  profile_ = Profile{};
  const pkg::Package& r = package_->root();
  for (fbu s = 0; s < r.segments()->size(); ++s) {
    const pkg::Segment* seg = r.segments()->Get(s);
    SegmentProfile sp;
    sp.name = seg->name() ? seg->name()->str() : Format("segment{}", s);
    sp.accel = seg->kind() == pkg::SegmentKind::Accel;
    sp.on_device = sp.accel && device_programs_;
    profile_.segments.push_back(sp);
  }
}

Status Executor::Place() {
  const Package& p = *package_;
  Driver& d = *driver_;
  // What Run needs per inference, sized once: binding names and shapes, the input slots, and the
  // scratch that (un)packs the largest int8 input or output.
  const pkg::Package& r = p.root();
  uint64_t io_elems = 0;
  for (const pkg::Binding* b : *r.inputs()) {
    input_names_.push_back(b->name()->str());
    input_shapes_.push_back(BindingShape(b));
    io_elems = std::max(io_elems, Count(r.tensors()->Get(static_cast<fbu>(b->tensor()))));
  }
  for (const pkg::Binding* b : *r.outputs()) {
    output_names_.push_back(b->name()->str());
    output_shapes_.push_back(BindingShape(b));
    io_elems = std::max(io_elems, Count(r.tensors()->Get(static_cast<fbu>(b->tensor()))));
  }
  bound_.assign(r.inputs()->size(), nullptr);
  io_scratch_.resize(io_elems);
  auto alloc = [&](uint64_t n, uint64_t* addr) -> Status {
    LOOM_RETURN_IF_ERROR(d.Allocate(n, kRegionAlign, addr));
    allocations_.push_back(*addr);
    return Status::Ok();
  };
  LOOM_RETURN_IF_ERROR(alloc(p.arena_bytes(), &arena_addr_));
  arena_ = d.HostPointer(arena_addr_, p.arena_bytes());
  host_mapped_ = arena_ != nullptr;
  if (!host_mapped_) {
    host_arena_storage_.reset(new uint8_t[p.arena_bytes() + 64]);
    const uintptr_t mis = reinterpret_cast<uintptr_t>(host_arena_storage_.get()) % 64;
    arena_ = host_arena_storage_.get() + (mis ? 64 - mis : 0);
  }
  std::memset(arena_, 0, p.arena_bytes());
  if (!host_mapped_) LOOM_RETURN_IF_ERROR(d.CopyIn(arena_addr_, arena_, p.arena_bytes()));

  programs_.assign(p.num_segments(), DeviceProgram{});
  if (!device_programs_) return Status::Ok();
  LOOM_RETURN_IF_ERROR(alloc(p.constants_bytes(), &constants_addr_));
  if (p.constants_bytes()) LOOM_RETURN_IF_ERROR(d.CopyIn(constants_addr_, p.constants(), p.constants_bytes()));
  std::vector<isa::Insn> linked;
  std::vector<uint8_t> bytes;
  for (size_t s = 0; s < p.num_segments(); ++s) {
    const Program* prog = p.program(s);
    if (prog == nullptr) continue;
    DeviceProgram& dp = programs_[s];
    const uint64_t uop_bytes = prog->uop_words.size() * HwConfig::kUopBytes;
    LOOM_RETURN_IF_ERROR(alloc(uop_bytes, &dp.uops_addr));
    bytes.resize(uop_bytes);
    for (size_t i = 0; i < prog->uop_words.size(); ++i) {
      for (int b = 0; b < 4; ++b) bytes[i * 4 + b] = static_cast<uint8_t>(prog->uop_words[i] >> (8 * b));
    }
    if (uop_bytes) LOOM_RETURN_IF_ERROR(d.CopyIn(dp.uops_addr, bytes.data(), uop_bytes));
    LOOM_RETURN_IF_ERROR(Link(p.config(), prog->insns.data(), prog->regions.data(),
                              prog->insns.size(),
                              RegionBases{arena_addr_, constants_addr_, dp.uops_addr}, &linked)
                             .WithContext("segment {}", s));
    bytes.resize(linked.size() * HwConfig::kInsnBytes);
    for (size_t i = 0; i < linked.size(); ++i) {
      isa::Word128 w;
      LOOM_RETURN_IF_ERROR(isa::Encode(p.layout(), linked[i], &w)
                               .WithContext("segment {} linked instruction {}", s, i));
      isa::StoreWord(w, bytes.data() + i * HwConfig::kInsnBytes);
    }
    LOOM_RETURN_IF_ERROR(alloc(bytes.size(), &dp.insns_addr));
    LOOM_RETURN_IF_ERROR(d.CopyIn(dp.insns_addr, bytes.data(), bytes.size()));
    dp.insn_count = static_cast<uint32_t>(linked.size());
  }
  return Status::Ok();
}

Status Executor::CopyTensorIn(const pkg::Tensor* t) {
  if (host_mapped_ || t->storage() != pkg::Storage::Arena || t->size() == 0) return Status::Ok();
  return driver_->CopyIn(arena_addr_ + t->offset(), arena_ + t->offset(), t->size());
}
Status Executor::CopyTensorOut(const pkg::Tensor* t) {
  if (host_mapped_ || t->storage() != pkg::Storage::Arena || t->size() == 0) return Status::Ok();
  return driver_->CopyOut(arena_ + t->offset(), arena_addr_ + t->offset(), t->size());
}

Status Executor::RunSegment(size_t index) {
  const pkg::Package& r = package_->root();
  const pkg::Segment* seg = r.segments()->Get(static_cast<fbu>(index));
  SegmentProfile& prof = profile_.segments[index];
  const uint64_t start = MonotonicNanos();
  if (prof.on_device) {
    const DeviceProgram& dp = programs_[index];
    driver_->Annotate(prof.name);
    if (Status s = driver_->Submit(dp.insns_addr, dp.insn_count); !s.ok()) {
      return s.WithContext("segment {} '{}'", index, prof.name);
    }
    if (Status s = driver_->Wait(options_.timeout_ms); !s.ok()) {
      return s.WithContext("segment {} '{}'", index, prof.name);
    }
    DeviceCounters c;
    LOOM_RETURN_IF_ERROR(driver_->ReadCounters(&c));
    prof.cycles += c.cycles;
    const uint64_t macs = c.valid ? c.macs : seg->macs();
    prof.macs += macs;
    prof.device_macs += macs;
    prof.bytes_loaded += c.bytes_loaded;
    prof.bytes_stored += c.bytes_stored;
    prof.insns += c.insns;
    for (int m = 0; m < isa::kNumModules; ++m) prof.busy[m] += c.busy[m];
    if (options_.timeline) {
      // Devices without per-instruction timing leave the timeline empty.
      const Status s = driver_->InsnTimeline(&timelines_[index]);
      if (!s.ok() && s.code() != StatusCode::kUnimplemented) {
        return s.WithContext("segment {} '{}'", index, prof.name);
      }
    }
  } else {
    // The device holds the current arena after every segment; fetch what these ops read, run
    // them on the host, and send back what they wrote.
    auto tensor = [&](int32_t i) { return i < 0 ? nullptr : r.tensors()->Get(static_cast<fbu>(i)); };
    if (device_programs_) {
      for (const pkg::Op* op : *seg->ops()) {
        for (int32_t i : *op->inputs()) {
          if (const pkg::Tensor* t = tensor(i)) LOOM_RETURN_IF_ERROR(CopyTensorOut(t));
        }
      }
    }
    prof.op_wall_ns.resize(seg->ops()->size());
    for (fbu i = 0; i < seg->ops()->size(); ++i) {
      const uint64_t op_start = MonotonicNanos();
      Status s = cpu_->Run(index, i, arena_);
      prof.op_wall_ns[i] += MonotonicNanos() - op_start;
      if (!s.ok()) {
        const pkg::Op* op = seg->ops()->Get(i);
        return s.WithContext("segment {} '{}' op {} '{}'", index, prof.name, i,
                             op->name() ? op->name()->string_view() : std::string_view());
      }
    }
    if (device_programs_) {
      for (const pkg::Op* op : *seg->ops()) {
        for (int32_t i : *op->outputs()) LOOM_RETURN_IF_ERROR(CopyTensorIn(tensor(i)));
      }
    }
    prof.macs += seg->macs();
  }
  prof.runs += 1;
  prof.wall_ns += MonotonicNanos() - start;
  return Status::Ok();
}

Status Executor::Run(const std::vector<HostTensor>& inputs, const RunOptions& options,
                     std::vector<HostTensor>* outputs) {
  const pkg::Package& r = package_->root();
  // Bind inputs by name and find the stacking factor k. Nothing here allocates unless it fails.
  std::vector<const HostTensor*>& bound = bound_;
  std::fill(bound.begin(), bound.end(), nullptr);
  for (const HostTensor& h : inputs) {
    fbu idx = r.inputs()->size();
    if (h.name.empty() && r.inputs()->size() == 1) {
      idx = 0;
    } else {
      for (fbu i = 0; i < r.inputs()->size(); ++i) {
        if (r.inputs()->Get(i)->name()->string_view() == h.name) idx = i;
      }
    }
    if (idx == r.inputs()->size()) {
      std::string names;
      for (const pkg::Binding* b : *r.inputs()) {
        names += Format(names.empty() ? "{}" : ", {}", b->name()->string_view());
      }
      return NotFound("the model has no input named '{}' (inputs: {})", h.name, names);
    }
    if (bound[idx] != nullptr) {
      return InvalidArgument("input '{}' is given twice",
                             r.inputs()->Get(idx)->name()->string_view());
    }
    bound[idx] = &h;
  }
  // A package without inputs runs once.
  uint64_t k = r.inputs()->size() == 0 ? 1 : 0;
  for (fbu i = 0; i < r.inputs()->size(); ++i) {
    const pkg::Binding* b = r.inputs()->Get(i);
    const std::string& name = input_names_[i];
    const HostTensor* h = bound[i];
    if (h == nullptr) return NotFound("model input '{}' was not given", name);
    const pkg::Tensor* t = r.tensors()->Get(static_cast<fbu>(b->tensor()));
    // Data is taken as the model's type, except that an int8 input also takes float32 (the
    // executor quantizes it with the tensor's scale); nothing else is converted silently.
    const DType model_type = FromPkgDType(t->dtype());
    const bool quantizes = model_type == DType::kI8 && h->type == DType::kF32;
    if (h->type != model_type && !quantizes) {
      return InvalidArgument(
          "input '{}' is {} in the model{}; {} data was given", name, DTypeLongName(model_type),
          model_type == DType::kI8 ? " (float32 or int8 data)" : "", DTypeLongName(h->type));
    }
    const std::vector<int64_t>& want = input_shapes_[i];
    const std::vector<int64_t>& got = h->shape;
    if (want.empty()) {  // a scalar: nothing to stack
      if (!got.empty()) {
        return InvalidArgument("input '{}' has shape {}, the model expects a scalar", name,
                               ShapeText(got));
      }
    } else {
      bool same_tail = got.size() == want.size() && want[0] > 0 && got[0] > 0 &&
                       got[0] % want[0] == 0;
      for (size_t d = 1; same_tail && d < want.size(); ++d) same_tail = got[d] == want[d];
      if (!same_tail) {
        return InvalidArgument(
            "input '{}' has shape {}, the model expects {} (or a leading dimension that is a "
            "multiple of {})",
            name, ShapeText(got), ShapeText(want), want[0]);
      }
    }
    const uint64_t ki = want.empty() ? 1 : static_cast<uint64_t>(got[0] / want[0]);
    if (k != 0 && ki != k) {
      return InvalidArgument("input '{}' stacks {} batches, another input stacks {}", name, ki, k);
    }
    // Without elements, no byte count bounds k, and the stacked outputs could be any size.
    if (ki != 1 && Count(t) == 0) {
      return InvalidArgument(
          "input '{}' has shape {}: an input without elements cannot be stacked; give {}", name,
          ShapeText(got), ShapeText(want));
    }
    k = ki;
    const uint64_t elem = DTypeSize(h->type);
    uint64_t need = 0;
    if (!CheckedMul(k, Count(t), &need) || !CheckedMul(need, elem, &need)) {
      return InvalidArgument("input '{}' has shape {} of {}: its byte size overflows 64 bits", name,
                             ShapeText(got), DTypeLongName(h->type));
    }
    if (h->data.size() != need) {
      return InvalidArgument("input '{}' holds {} bytes; shape {} of {} needs {}", name,
                             h->data.size(), ShapeText(got), DTypeLongName(h->type), need);
    }
  }
  // Outputs, stacked over the k runs. The caller's tensors are reused (assignments keep their
  // capacity), so repeating a run with the same shapes allocates nothing.
  outputs->resize(r.outputs()->size());
  for (fbu i = 0; i < r.outputs()->size(); ++i) {
    const pkg::Tensor* t = r.tensors()->Get(static_cast<fbu>(r.outputs()->Get(i)->tensor()));
    HostTensor& o = (*outputs)[i];
    o.name = output_names_[i];
    // An int8 output is dequantized to float32 unless the caller asked for the integers; every
    // other type comes out as itself.
    const DType model_type = FromPkgDType(t->dtype());
    if (options.int8_outputs && model_type != DType::kI8) {
      return InvalidArgument("output '{}' is {} in the model; it has no int8 form", o.name,
                             DTypeLongName(model_type));
    }
    o.type = model_type == DType::kI8 && !options.int8_outputs ? DType::kF32 : model_type;
    o.shape = output_shapes_[i];
    // k came from an input's leading dimension; an output's may be larger than that input's.
    uint64_t bytes = 0;
    size_t host_bytes = 0;
    if ((!o.shape.empty() && !CheckedMul(o.shape[0], static_cast<int64_t>(k), &o.shape[0])) ||
        !CheckedMul(k, Count(t), &bytes) ||
        !CheckedMul<uint64_t>(bytes, DTypeSize(o.type), &bytes) ||
        !CheckedCast(bytes, &host_bytes)) {
      return InvalidArgument(
          "output '{}' of {} stacked runs is too large for this host ({} elements per run)", o.name,
          k, Count(t));
    }
    o.data.resize(host_bytes);
  }
  for (uint64_t s = 0; s < k; ++s) {
    LOOM_RETURN_IF_ERROR(RunOnce(bound, s, k, options, outputs));
    profile_.inferences += 1;
    if (options.progress) options.progress(s + 1, k);
  }
  return Status::Ok();
}

Status Executor::RunOnce(const std::vector<const HostTensor*>& inputs, uint64_t slice,
                         uint64_t /*slices*/, const RunOptions& /*options*/,
                         std::vector<HostTensor>* outputs) {
  const pkg::Package& r = package_->root();
  const HwConfig& c = package_->config();
  const q::Blocking blk{c.batch, c.block_in};
  for (fbu i = 0; i < r.inputs()->size(); ++i) {
    const pkg::Tensor* t = r.tensors()->Get(static_cast<fbu>(r.inputs()->Get(i)->tensor()));
    const HostTensor& h = *inputs[i];
    const uint64_t n = Count(t);
    uint8_t* dst = arena_ + t->offset();
    if (t->dtype() != pkg::DType::Int8) {
      const uint64_t es = DTypeSize(h.type);
      std::memcpy(dst, h.data.data() + slice * n * es, n * es);
    } else {
      int8_t* plain = t->layout() == pkg::TensorLayout::Blocked ? io_scratch_.data()
                                                                 : reinterpret_cast<int8_t*>(dst);
      if (h.type == DType::kI8) {
        std::memcpy(plain, h.data.data() + slice * n, n);
      } else {
        LOOM_RETURN_IF_ERROR(
            q::QuantizeF32(reinterpret_cast<const float*>(h.data.data()) + slice * n, n, t->scale(),
                           t->zero_point(), plain));
      }
      if (t->layout() == pkg::TensorLayout::Blocked) {
        LOOM_RETURN_IF_ERROR(q::PackActivation(blk, Act(t), plain, reinterpret_cast<int8_t*>(dst)));
      }
    }
    LOOM_RETURN_IF_ERROR(CopyTensorIn(t));
  }
  for (size_t s = 0; s < package_->num_segments(); ++s) LOOM_RETURN_IF_ERROR(RunSegment(s));
  for (fbu i = 0; i < r.outputs()->size(); ++i) {
    const pkg::Tensor* t = r.tensors()->Get(static_cast<fbu>(r.outputs()->Get(i)->tensor()));
    LOOM_RETURN_IF_ERROR(CopyTensorOut(t));
    HostTensor& o = (*outputs)[i];
    const uint64_t n = Count(t);
    // A constant output (Plain, checked at load) is read where the package holds it.
    const uint8_t* src = t->storage() == pkg::Storage::Arena ? arena_ + t->offset()
                                                             : package_->constants() + t->offset();
    if (t->dtype() != pkg::DType::Int8) {
      const uint64_t es = DTypeSize(o.type);
      std::memcpy(o.data.data() + slice * n * es, src, n * es);
      continue;
    }
    const int8_t* plain = reinterpret_cast<const int8_t*>(src);
    if (t->layout() == pkg::TensorLayout::Blocked) {
      LOOM_RETURN_IF_ERROR(q::UnpackActivation(blk, Act(t), plain, io_scratch_.data()));
      plain = io_scratch_.data();
    }
    if (o.type == DType::kI8) {
      std::memcpy(o.data.data() + slice * n, plain, n);
    } else {
      LOOM_RETURN_IF_ERROR(q::DequantizeF32(plain, n, t->scale(), t->zero_point(),
                                            reinterpret_cast<float*>(o.data.data()) + slice * n));
    }
  }
  return Status::Ok();
}

}  // namespace loom::runtime
