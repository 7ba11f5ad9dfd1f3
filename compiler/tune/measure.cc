#include "compiler/tune/measure.h"

#include <vector>

#include "compiler/tune/layer_package.h"
#include "runtime/core/blocked_layout.h"
#include "runtime/drivers/driver.h"
#include "runtime/package/package.h"
#ifdef LOOM_TUNE_HAVE_REMOTE
#include "runtime/remote/client.h"
#endif

namespace loom::tune {
namespace {

using tensorize::Conv2dLayer;
using tensorize::Conv2dTiling;

class FsimTimingMeasurer : public Measurer {
 public:
  explicit FsimTimingMeasurer(const HwConfig& c) : c_(c) {}
  const std::string& device() const override { return device_; }
  Status Measure(const Conv2dLayer& l, const Conv2dTiling& t, uint64_t* cycles) override {
    return tensorize::TimeConv2d(c_, l, t, cycles);
  }

 private:
  HwConfig c_;
  std::string device_ = "fsim";
};

// Device memory one measurement needs: the layer's tensors packed from offset 0 of each region.
struct LayerMemory {
  Conv2dLayer layer;  // the caller's, with every DRAM offset rebased
  uint64_t arena_bytes = 0, constants_bytes = 0;
};

LayerMemory Rebase(const HwConfig& c, const Conv2dLayer& in) {
  LayerMemory m;
  Conv2dLayer& l = m.layer;
  l = in;
  const uint64_t inp = uint64_t{l.n_blocks} * l.c_blocks * l.h * l.w;
  const uint64_t out = uint64_t{l.n_blocks} * l.o_blocks * l.out_h() * l.out_w();
  const uint64_t wgt = tensorize::Conv2dWeightElems(c, l);
  // Output after the input, each starting on an element of its own buffer.
  l.input = 0;
  const uint64_t out_byte =
      CeilDiv<uint64_t>(inp * c.inp_elem_bytes(), c.out_elem_bytes()) * c.out_elem_bytes();
  l.output = static_cast<uint32_t>(out_byte / c.out_elem_bytes());
  m.arena_bytes = out_byte + out * c.out_elem_bytes();
  l.weights = 0;
  const uint64_t acc_byte =
      CeilDiv<uint64_t>(wgt * c.wgt_elem_bytes(), c.acc_elem_bytes()) * c.acc_elem_bytes();
  l.bias = static_cast<uint32_t>(acc_byte / c.acc_elem_bytes());
  l.mult = l.bias + l.o_blocks;
  m.constants_bytes = acc_byte + 2ull * l.o_blocks * c.acc_elem_bytes();
  return m;
}

class DriverMeasurer : public Measurer {
 public:
  DriverMeasurer(std::string device, std::unique_ptr<runtime::Driver> d)
      : device_(std::move(device)), driver_(std::move(d)) {}
  ~DriverMeasurer() override { driver_->Close(); }
  const std::string& device() const override { return device_; }

  Status Measure(const Conv2dLayer& layer, const Conv2dTiling& t, uint64_t* cycles) override {
    const HwConfig& c = driver_->config();
    const LayerMemory m = Rebase(c, layer);
    tensorize::AccelCode code;
    LOOM_RETURN_IF_ERROR(tensorize::EmitConv2d(c, m.layer, t, &code));
    code.Emit(isa::Insn());  // FINISH
    constexpr uint64_t kAlign = 4096;
    const uint64_t insn_bytes = code.insns.size() * HwConfig::kInsnBytes;
    const uint64_t uop_bytes = code.uops.size() * HwConfig::kUopBytes;
    std::vector<uint64_t> allocated;
    auto alloc = [&](uint64_t bytes, uint64_t* addr) {
      LOOM_RETURN_IF_ERROR(driver_->Allocate(std::max<uint64_t>(bytes, kAlign), kAlign, addr));
      allocated.push_back(*addr);
      return Status::Ok();
    };
    runtime::RegionBases bases;
    uint64_t insn_addr = 0;
    Status s = alloc(m.arena_bytes, &bases.arena);
    if (s.ok()) s = alloc(m.constants_bytes, &bases.constants);
    if (s.ok()) s = alloc(uop_bytes, &bases.uops);
    if (s.ok()) s = alloc(insn_bytes, &insn_addr);
    if (s.ok()) s = Run(code, bases, insn_addr, cycles);
    for (uint64_t a : allocated) (void)driver_->Free(a);
    return s;
  }

 private:
  Status Run(const tensorize::AccelCode& code, const runtime::RegionBases& bases,
             uint64_t insn_addr, uint64_t* cycles) {
    const HwConfig& c = driver_->config();
    isa::Layout layout;
    LOOM_RETURN_IF_ERROR(isa::Layout::Create(c, &layout));
    std::vector<isa::Insn> linked;
    LOOM_RETURN_IF_ERROR(tensorize::Link(c, code, bases, &linked));
    std::vector<uint8_t> insns(linked.size() * HwConfig::kInsnBytes);
    for (size_t i = 0; i < linked.size(); ++i) {
      isa::Word128 w;
      LOOM_RETURN_IF_ERROR(isa::Encode(layout, linked[i], &w));
      isa::StoreWord(w, &insns[i * HwConfig::kInsnBytes]);
    }
    std::vector<uint8_t> uops(code.uops.size() * HwConfig::kUopBytes);
    for (size_t i = 0; i < code.uops.size(); ++i) {
      uint32_t w = 0;
      LOOM_RETURN_IF_ERROR(isa::EncodeUop(layout, code.uops[i], &w));
      for (int b = 0; b < 4; ++b) uops[i * 4 + b] = static_cast<uint8_t>(w >> (8 * b));
    }
    LOOM_RETURN_IF_ERROR(driver_->CopyIn(bases.uops, uops.data(), uops.size()));
    LOOM_RETURN_IF_ERROR(driver_->CopyIn(insn_addr, insns.data(), insns.size()));
    LOOM_RETURN_IF_ERROR(driver_->Submit(insn_addr, static_cast<uint32_t>(linked.size())));
    LOOM_RETURN_IF_ERROR(driver_->Wait(/*timeout_ms=*/600000));
    runtime::DeviceCounters counters;
    LOOM_RETURN_IF_ERROR(driver_->ReadCounters(&counters));
    if (!counters.valid || !counters.timed || counters.cycles == 0) {
      return FailedPrecondition("device " + device_ +
                                " counts no cycles; loom tune needs a "
                                "device that does (fsim, tsim, hardware)");
    }
    *cycles = counters.cycles;
    return Status::Ok();
  }

  std::string device_;
  std::unique_ptr<runtime::Driver> driver_;
};

#ifdef LOOM_TUNE_HAVE_REMOTE
// A remote device runs packages: each candidate becomes a one-layer package (layer_package.h),
// uploaded and run once with a zero input; the cycles are the run's device cycles.
class RemoteMeasurer : public Measurer {
 public:
  RemoteMeasurer(std::string device, const HwConfig& c, uint32_t wall_timeout_ms)
      : device_(std::move(device)), c_(c), wall_timeout_ms_(wall_timeout_ms) {}
  const std::string& device() const override { return device_; }

  Status Measure(const Conv2dLayer& l, const Conv2dTiling& t, uint64_t* cycles) override {
    package::PackageSpec spec;
    LOOM_RETURN_IF_ERROR(LayerPackage(c_, l, t, &spec));
    std::vector<uint8_t> bytes;
    LOOM_RETURN_IF_ERROR(package::SerializePackage(spec, &bytes));
    std::unique_ptr<runtime::Package> pkg;
    LOOM_RETURN_IF_ERROR(runtime::Package::LoadMemory(bytes.data(), bytes.size(), &pkg));
    runtime::remote::RemoteOptions o;
    o.address = device_.substr(std::string(runtime::remote::kRemoteScheme).size());
    if (wall_timeout_ms_) o.wall_timeout_ms = wall_timeout_ms_;
    std::unique_ptr<runtime::Executor> ex;
    LOOM_RETURN_IF_ERROR(runtime::remote::OpenRemote(std::move(pkg), o, &ex));
    runtime::HostTensor x;
    x.type = DType::kI8;
    const auto& in = spec.inputs[0].shape;
    x.shape.assign(in.begin(), in.end());
    x.data.assign(uint64_t{in[0]} * in[1] * in[2] * in[3], 0);
    std::vector<runtime::HostTensor> outputs;
    LOOM_RETURN_IF_ERROR(ex->Run({x}, {}, &outputs));
    const runtime::SegmentProfile total = ex->profile().Total();
    if (total.cycles == 0) {
      return FailedPrecondition("device " + device_ + " counts no cycles (its server runs the " +
                                "package on the cpu device?); serve fsim, tsim or hardware");
    }
    *cycles = total.cycles;
    return Status::Ok();
  }

 private:
  std::string device_;
  HwConfig c_;
  uint32_t wall_timeout_ms_;
};
#endif

}  // namespace

Status CreateMeasurer(const std::string& device, const HwConfig& config, uint32_t wall_timeout_ms,
                      std::unique_ptr<Measurer>* out) {
  if (device == "fsim") {
    *out = std::make_unique<FsimTimingMeasurer>(config);
    return Status::Ok();
  }
  if (device.compare(0, 9, "remote://") == 0) {
#ifdef LOOM_TUNE_HAVE_REMOTE
    *out = std::make_unique<RemoteMeasurer>(device, config, wall_timeout_ms);
    return Status::Ok();
#else
    return Unimplemented("device " + device + ": this build has no remote device (it needs " +
                         "POSIX sockets); tune on fsim or tsim");
#endif
  }
  return CreateDriverMeasurer(device, config, wall_timeout_ms, out);
}

Status CreateDriverMeasurer(const std::string& device, const HwConfig& config,
                            uint32_t wall_timeout_ms, std::unique_ptr<Measurer>* out) {
  std::unique_ptr<runtime::Driver> driver;
  runtime::DriverOptions o;
  LOOM_RETURN_IF_ERROR(runtime::CreateDriver(device, &driver, &o.device_args));
  if (!driver->executes_programs()) {
    return InvalidArgument("device " + device +
                           " runs no instruction streams; loom tune needs "
                           "one that does (fsim, tsim, hardware)");
  }
  o.config = config;
  o.memory_bytes = uint64_t{256} << 20;
  o.wall_timeout_ms = wall_timeout_ms;
  LOOM_RETURN_IF_ERROR(driver->Open(o));
  if (driver->config().CompatibilityHash() != config.CompatibilityHash()) {
    return FailedPrecondition("device " + device + " runs config " + driver->config().name +
                              " (hash " + driver->config().HashHex() + "), tuning is for " +
                              config.name + " (hash " + config.HashHex() + ")");
  }
  *out = std::make_unique<DriverMeasurer>(device, std::move(driver));
  return Status::Ok();
}

}  // namespace loom::tune
