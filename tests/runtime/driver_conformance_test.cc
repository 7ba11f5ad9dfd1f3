// The driver conformance suite (docs/architecture.md §2, contract 4): every driver built into the
// runtime runs every test here. A driver that cannot run a test is listed in kOptOuts with the
// reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "runtime/config/config_file.h"
#include "runtime/drivers/driver.h"
#include "runtime/drivers/null/null_driver.h"
#include "runtime/drivers/sim/sim_drivers.h"
#include "runtime/package/link.h"
#ifdef __linux__
#include "runtime/drivers/protocol/registers.h"
#include "tests/zynq/fake_tree.h"
#endif

namespace loom::testing {
namespace {

using runtime::DeviceCounters;
using runtime::Driver;
using runtime::Region;

struct OptOut {
  const char* driver;
  const char* test;  // "*": every test but those naming the driver explicitly
  const char* reason;
};
constexpr OptOut kOptOuts[] = {
    {"cpu", "SubmitRunsAProgram",
     "cpu has no accelerator (executes_programs() is false): the executor runs every segment from "
     "its op description; executor_test checks it against fsim and tsim"},
    {"cpu", "DeadlockOrTimeoutIsReported", "cpu executes no instruction streams"},
    {"cpu", "SubmitChecksItsArguments", "cpu executes no instruction streams"},
    {"cpu", "LongProgramStopsAtDeviceTimeAndWallClockLimits",
     "cpu executes no instruction streams"},
    {"null", "*", "the template driver implements nothing; NullReportsUnimplemented checks that"},
    {"xrt", "*",
     "no Alveo card here, and XRT's noop emulation has no registers, so Open's VERSION read cannot "
     "succeed; the transports run under noop (ctest -R xrt), the protocol on tsim"},
    // zynq runs here against a fake board (FakeZynqBoard): its memory tests exercise the real
    // transports; a program needs the RTL behind the registers, which this machine lacks.
    {"zynq", "SubmitRunsAProgram",
     "no board here: the fake register window is plain memory, nothing executes; the same "
     "protocol code runs programs in protocol_test (scripted registers) and on the RTL over tsim"},
    {"zynq", "DeadlockOrTimeoutIsReported", "no board here (see SubmitRunsAProgram)"},
    {"zynq", "SubmitChecksItsArguments", "no board here (see SubmitRunsAProgram)"},
    {"zynq", "LongProgramStopsAtDeviceTimeAndWallClockLimits",
     "no board here (see SubmitRunsAProgram)"},
};

const char* OptedOut(const std::string& driver) {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::string base = test.substr(0, test.find('/'));
  for (const OptOut& o : kOptOuts) {
    if (driver == o.driver && (base == o.test || std::string(o.test) == "*")) return o.reason;
  }
  return nullptr;
}

// Every driver of the host build: the core runtime's and the simulators.
std::vector<std::string> Drivers() {
  EXPECT_TRUE(runtime::RegisterSimulatorDrivers().ok());
  std::istringstream in(runtime::DriverNames());
  std::vector<std::string> v;
  for (std::string s; in >> s;) v.push_back(s);
  return v;
}

#ifdef __linux__
// The zynq device's surroundings in a temporary folder (tests/zynq/fake_tree.h): the UIO register
// window, reporting the accelerator's VERSION and `config`'s CONFIG_HASH, a 1 MiB u-dma-buf region
// and a ZynqMP device tree. Returns the device arguments that point the driver at it.
std::string FakeZynqBoard(const FakeTree& tree, const HwConfig& config) {
  tree.AddUioDevices();
  tree.AddUdmabuf(0x70000000, 1 << 20, false);
  tree.Write("proc/device-tree/compatible", std::string("xlnx,zynqmp\0", 12));
  std::string window = tree.Read("dev/uio1");
  const uint64_t hash = config.CompatibilityHash();
  const uint32_t words[3] = {runtime::reg::kExpectedVersion, static_cast<uint32_t>(hash),
                             static_cast<uint32_t>(hash >> 32)};
  const uint32_t offsets[3] = {runtime::reg::kVersion, runtime::reg::kConfigHashLo,
                               runtime::reg::kConfigHashHi};
  for (int i = 0; i < 3; ++i) std::memcpy(&window[offsets[i]], &words[i], 4);
  tree.Write("dev/uio1", window);
  return "root=" + tree.root();
}
#endif

class Conformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (const char* why = OptedOut(GetParam())) GTEST_SKIP() << why;
    ASSERT_TRUE(LoadHwConfig("1x8x8", &config_).ok());
    ASSERT_TRUE(runtime::CreateDriver(GetParam(), &driver_).ok());
    runtime::DriverOptions o;
    o.config = config_;
    o.memory_bytes = 1 << 20;
#ifdef __linux__
    if (GetParam() == "zynq") {
      board_ = std::make_unique<FakeTree>();
      o.device_args = FakeZynqBoard(*board_, config_);
    }
#endif
    const Status s = driver_->Open(o);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  void TearDown() override {
    if (driver_) driver_->Close();
  }
  HwConfig config_;
#ifdef __linux__
  std::unique_ptr<FakeTree> board_;  // zynq: the fake board; declared first, removed last
#endif
  std::unique_ptr<Driver> driver_;
};

TEST_P(Conformance, ReportsItsConfig) {
  EXPECT_STREQ(driver_->name(), GetParam().c_str());
  EXPECT_EQ(driver_->config().CompatibilityHash(), config_.CompatibilityHash());
}

TEST_P(Conformance, AllocateCopyRoundTrip) {
  uint64_t a = 0, b = 0;
  ASSERT_TRUE(driver_->Allocate(10000, 4096, &a).ok());
  ASSERT_TRUE(driver_->Allocate(333, 64, &b).ok());
  EXPECT_EQ(a % 4096, 0u);
  EXPECT_EQ(b % 64, 0u);
  EXPECT_TRUE(b >= a + 10000 || a >= b + 333) << "allocations overlap";
  std::vector<uint8_t> x(10000), y(333), back(10000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(i * 31 + 7);
  for (size_t i = 0; i < y.size(); ++i) y[i] = static_cast<uint8_t>(255 - i);
  ASSERT_TRUE(driver_->CopyIn(a, x.data(), x.size()).ok());
  ASSERT_TRUE(driver_->CopyIn(b, y.data(), y.size()).ok());
  ASSERT_TRUE(driver_->CopyOut(back.data(), a, back.size()).ok());
  EXPECT_EQ(back, x);
  std::vector<uint8_t> part(100);
  ASSERT_TRUE(driver_->CopyOut(part.data(), b + 200, 100).ok());
  EXPECT_TRUE(std::equal(part.begin(), part.end(), y.begin() + 200));
}

TEST_P(Conformance, MemoryErrorsAreReported) {
  uint64_t a = 0;
  ASSERT_TRUE(driver_->Allocate(4096, 4096, &a).ok());
  uint8_t buf[16] = {};
  EXPECT_EQ(driver_->CopyIn(a + 4090, buf, 16).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(driver_->CopyOut(buf, a - 16, 16).code(), StatusCode::kOutOfRange);
  EXPECT_FALSE(driver_->Free(a + 1).ok());
  EXPECT_TRUE(driver_->Free(a).ok());
  EXPECT_EQ(driver_->CopyIn(a, buf, 16).code(), StatusCode::kOutOfRange);  // freed
  uint64_t big = 0;
  EXPECT_EQ(driver_->Allocate(uint64_t{1} << 40, 4096, &big).code(), StatusCode::kOutOfRange);
  // Freed memory is reusable.
  uint64_t again = 0;
  EXPECT_TRUE(driver_->Allocate(4096, 4096, &again).ok());
}

// A relocatable program (regions linked by the runtime's linker): load n ACC elements, add 5 on
// the ALU (which writes OUT, saturated), store OUT, with the compute->store and store->compute
// tokens of docs/isa.md.
struct TinyProgram {
  uint64_t data = 0, out = 0, uops = 0, insns = 0;
  uint32_t count = 0;
  std::vector<int32_t> acc;
};

// `deadlock`: the program can never finish. `endless`: it can, after 2.7e8 cycles of one ALU
// instruction at its largest loop counts (seconds of device time, minutes to hours of simulation).
Status Place(Driver& d, const HwConfig& c, TinyProgram* p, bool deadlock = false,
             bool endless = false) {
  isa::Layout layout;
  LOOM_RETURN_IF_ERROR(isa::Layout::Create(c, &layout));
  const uint32_t n = 4;
  const uint32_t lanes = c.batch * c.block_out;
  p->acc.resize(n * lanes);
  for (size_t i = 0; i < p->acc.size(); ++i) p->acc[i] = static_cast<int32_t>(i * 37) - 200;
  uint64_t arena = 0;
  LOOM_RETURN_IF_ERROR(d.Allocate(8192, 4096, &arena));
  LOOM_RETURN_IF_ERROR(d.CopyIn(arena, p->acc.data(), p->acc.size() * 4));
  p->data = arena;
  p->out = arena + 4096;
  std::vector<isa::Insn> insns;
  std::vector<Region> regions;
  isa::Insn i;
  i.opcode = isa::Opcode::kLoad;
  i.buffer = isa::Buffer::kUop;
  i.y_size = 1;
  i.x_size = 1;
  i.x_stride = 1;
  insns.push_back(i);
  regions.push_back(Region::kUops);
  i.buffer = isa::Buffer::kAcc;
  i.x_size = n;
  i.x_stride = n;
  if (deadlock) i.deps.pop_prev = true;  // nobody ever pushes load->compute
  insns.push_back(i);
  regions.push_back(Region::kArena);
  isa::Insn alu;
  alu.opcode = isa::Opcode::kAlu;
  alu.alu_op = isa::AluOp::kAdd;
  alu.use_imm = true;
  alu.imm = 5;
  alu.uop_bgn = 0;
  alu.uop_end = 1;
  alu.loop_out = 1;
  alu.loop_in = n;
  alu.dst_factor_in = 1;
  if (endless) {
    alu.loop_out = alu.loop_in = (1u << isa::Layout::kLoopBits) - 1;
    alu.dst_factor_in = 0;
  }
  alu.deps.push_next = true;
  insns.push_back(alu);
  regions.push_back(Region::kNone);
  isa::Insn st;
  st.opcode = isa::Opcode::kStore;
  st.buffer = isa::Buffer::kOut;
  st.dram_base = static_cast<uint32_t>(4096 / c.out_elem_bytes());
  st.y_size = 1;
  st.x_size = n;
  st.x_stride = n;
  st.deps.pop_prev = true;
  st.deps.push_prev = true;
  insns.push_back(st);
  regions.push_back(Region::kArena);
  isa::Insn fin;
  fin.opcode = isa::Opcode::kFinish;
  fin.deps.pop_next = true;
  insns.push_back(fin);
  regions.push_back(Region::kNone);

  uint32_t uop_word = 0;
  LOOM_RETURN_IF_ERROR(isa::EncodeUop(layout, isa::Uop{0, 0, 0}, &uop_word));
  LOOM_RETURN_IF_ERROR(d.Allocate(4, 4096, &p->uops));
  LOOM_RETURN_IF_ERROR(d.CopyIn(p->uops, &uop_word, 4));
  std::vector<isa::Insn> linked;
  LOOM_RETURN_IF_ERROR(runtime::Link(c, insns.data(), regions.data(), insns.size(),
                                     runtime::RegionBases{arena, 0, p->uops}, &linked));
  std::vector<uint8_t> bytes(linked.size() * 16);
  for (size_t k = 0; k < linked.size(); ++k) {
    isa::Word128 w;
    LOOM_RETURN_IF_ERROR(isa::Encode(layout, linked[k], &w));
    isa::StoreWord(w, bytes.data() + 16 * k);
  }
  LOOM_RETURN_IF_ERROR(d.Allocate(bytes.size(), 4096, &p->insns));
  LOOM_RETURN_IF_ERROR(d.CopyIn(p->insns, bytes.data(), bytes.size()));
  p->count = static_cast<uint32_t>(linked.size());
  return Status::Ok();
}

TEST_P(Conformance, SubmitRunsAProgram) {
  ASSERT_TRUE(driver_->executes_programs());
  TinyProgram p;
  {
    const Status ps = Place(*driver_, config_, &p);
    ASSERT_TRUE(ps.ok()) << ps.ToString();
  }
  {
    DeviceCounters before;
    before.valid = true;
    ASSERT_TRUE(driver_->ReadCounters(&before).ok());
    EXPECT_FALSE(before.valid) << "counters before any run";
  }
  for (int run = 0; run < 2; ++run) {
    ASSERT_TRUE(driver_->Submit(p.insns, p.count).ok());
    const Status s = driver_->Wait(10000);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  std::vector<int8_t> out(p.acc.size());
  ASSERT_TRUE(driver_->CopyOut(out.data(), p.out, out.size()).ok());
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i], std::clamp(p.acc[i] + 5, -128, 127)) << i;
  }
  DeviceCounters c;
  ASSERT_TRUE(driver_->ReadCounters(&c).ok());
  EXPECT_TRUE(c.valid);
  // A device that models no time (opencl) reports cycles and busy as absent: zero.
  if (c.timed) {
    EXPECT_GT(c.cycles, 0u);
    EXPECT_GT(c.busy[1], 0u);
  } else {
    EXPECT_EQ(c.cycles, 0u);
    EXPECT_EQ(c.busy[1], 0u);
  }
  EXPECT_EQ(c.macs, 0u);
  EXPECT_EQ(c.bytes_stored, out.size());
  EXPECT_GE(c.bytes_loaded, p.acc.size() * 4);
  EXPECT_EQ(c.insns, p.count);
}

TEST_P(Conformance, DeadlockOrTimeoutIsReported) {
  TinyProgram p;
  {
    const Status ps = Place(*driver_, config_, &p, /*deadlock=*/true);
    ASSERT_TRUE(ps.ok()) << ps.ToString();
  }
  ASSERT_TRUE(driver_->Submit(p.insns, p.count).ok());
  const Status s = driver_->Wait(1);
  EXPECT_THAT(s.code(), ::testing::AnyOf(StatusCode::kDeadlock, StatusCode::kDeadlineExceeded)) << s.ToString();
  // A run that did not complete has no counters to report.
  DeviceCounters c;
  c.valid = true;
  ASSERT_TRUE(driver_->ReadCounters(&c).ok());
  EXPECT_FALSE(c.valid);
  // The device stays usable.
  TinyProgram q;
  {
    const Status ps = Place(*driver_, config_, &q);
    ASSERT_TRUE(ps.ok()) << ps.ToString();
  }
  ASSERT_TRUE(driver_->Submit(q.insns, q.count).ok());
  EXPECT_TRUE(driver_->Wait(10000).ok());
}

// A program that is merely long stops at the device-time limit of Wait, and on a simulator at the
// wall-clock limit of DriverOptions; the message names the instruction, and the device stays
// usable.
TEST_P(Conformance, LongProgramStopsAtDeviceTimeAndWallClockLimits) {
  driver_->Close();
  runtime::DriverOptions o;
  o.config = config_;
  o.memory_bytes = 1 << 20;
  o.wall_timeout_ms = 50;
  ASSERT_TRUE(driver_->Open(o).ok());
  TinyProgram p;
  {
    const Status ps = Place(*driver_, config_, &p, /*deadlock=*/false, /*endless=*/true);
    ASSERT_TRUE(ps.ok()) << ps.ToString();
  }
  // 1 ms of device time is 100000 cycles at 1x8x8's 100 MHz.
  ASSERT_TRUE(driver_->Submit(p.insns, p.count).ok());
  Status s = driver_->Wait(1);
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_THAT(s.message(), ::testing::HasSubstr("instruction 2 (alu.add"));
  // 60 s of device time would cover the program; the 50 ms of host time do not.
  ASSERT_TRUE(driver_->Submit(p.insns, p.count).ok());
  s = driver_->Wait(60000);
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_THAT(s.message(), ::testing::HasSubstr("wall-clock limit of 50 ms"));
  EXPECT_THAT(s.message(), ::testing::HasSubstr("instruction 2 (alu.add"));
  TinyProgram q;
  {
    const Status ps = Place(*driver_, config_, &q);
    ASSERT_TRUE(ps.ok()) << ps.ToString();
  }
  ASSERT_TRUE(driver_->Submit(q.insns, q.count).ok());
  s = driver_->Wait(10000);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_P(Conformance, SubmitChecksItsArguments) {
  TinyProgram p;
  {
    const Status ps = Place(*driver_, config_, &p);
    ASSERT_TRUE(ps.ok()) << ps.ToString();
  }
  EXPECT_EQ(driver_->Wait(10).code(), StatusCode::kFailedPrecondition);  // nothing submitted
  EXPECT_EQ(driver_->Submit(p.insns + 8, p.count).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(driver_->Submit(p.insns, 1000).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(driver_->Submit(p.insns, p.count).ok());
  EXPECT_EQ(driver_->Submit(p.insns, p.count).code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(driver_->Wait(10000).ok());
}

TEST_P(Conformance, CpuDriverRefusesSubmitAndMapsMemory) {
  if (driver_->executes_programs()) {
    EXPECT_EQ(driver_->HostPointer(0, 1), nullptr) << "devices that run programs are reached by copies";
    return;
  }
  uint64_t a = 0;
  ASSERT_TRUE(driver_->Allocate(64, 64, &a).ok());
  EXPECT_EQ(driver_->Submit(a, 1).code(), StatusCode::kUnimplemented);
  uint8_t* host = driver_->HostPointer(a, 64);
  ASSERT_NE(host, nullptr);
  host[3] = 42;
  uint8_t back[64];
  ASSERT_TRUE(driver_->CopyOut(back, a, 64).ok());
  EXPECT_EQ(back[3], 42);
}

TEST(NullDriver, NullReportsUnimplemented) {
  std::unique_ptr<Driver> d;
  ASSERT_TRUE(runtime::CreateDriver("null", &d).ok());
  runtime::DriverOptions o;
  const Status s = d->Open(o);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("does not implement Open"));
  uint64_t a = 0;
  EXPECT_EQ(d->Allocate(1, 1, &a).code(), StatusCode::kUnimplemented);
  EXPECT_EQ(d->Submit(0, 1).code(), StatusCode::kUnimplemented);
  DeviceCounters c;
  EXPECT_EQ(d->ReadCounters(&c).code(), StatusCode::kUnimplemented);
}

TEST(DriverRegistry, UnknownDeviceListsTheAvailableOnes) {
  std::unique_ptr<Driver> d;
  const Status s = runtime::CreateDriver("gpu", &d);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("available: cpu fsim"));
}

// The registry splits a device string at its first ':'; the arguments go to the caller for
// DriverOptions, or, when the caller cannot pass them on, the string is refused.
TEST(DriverRegistry, DeviceStringsSplitAtTheFirstColon) {
  std::string name, args;
  runtime::SplitDeviceString("zynq:dma=devmem:0x70000000:0x100000", &name, &args);
  EXPECT_EQ(name, "zynq");
  EXPECT_EQ(args, "dma=devmem:0x70000000:0x100000");
  runtime::SplitDeviceString("cpu", &name, &args);
  EXPECT_EQ(name, "cpu");
  EXPECT_EQ(args, "");
  std::unique_ptr<Driver> d;
  ASSERT_TRUE(runtime::CreateDriver("null:a=1", &d, &args).ok());
  EXPECT_STREQ(d->name(), "null");
  EXPECT_EQ(args, "a=1");
  Status s = runtime::CreateDriver("null:a=1", &d);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("cannot be passed on"));
  s = runtime::CreateDriver("gpu:0", &d, &args);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("unknown device 'gpu'"));
  // cpu and the simulators take no arguments.
  for (const std::string dev : {"cpu", "fsim"}) {
    ASSERT_TRUE(runtime::CreateDriver(dev, &d).ok());
    runtime::DriverOptions o;
    ASSERT_TRUE(LoadHwConfig("1x8x8", &o.config).ok());
    o.memory_bytes = 1 << 20;
    o.device_args = "x";
    s = d->Open(o);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << dev;
    EXPECT_THAT(s.message(), ::testing::HasSubstr("takes no arguments, got '" + dev + ":x'"));
  }
}

std::unique_ptr<Driver> CreateTestDevice() { return runtime::CreateNullDriver(); }
std::unique_ptr<Driver> CreateOtherTestDevice() { return runtime::CreateNullDriver(); }

// Drivers beyond the core ones come in through RegisterDriver (the simulators' library uses it).
TEST(DriverRegistry, RegistrationIsExplicitIdempotentAndChecked) {
  ASSERT_TRUE(runtime::RegisterDriver("test-device", &CreateTestDevice).ok());
  EXPECT_TRUE(runtime::RegisterDriver("test-device", &CreateTestDevice).ok());  // again: nothing
  EXPECT_THAT(runtime::DriverNames(), ::testing::HasSubstr("test-device"));
  std::unique_ptr<Driver> d;
  ASSERT_TRUE(runtime::CreateDriver("test-device", &d).ok());
  EXPECT_STREQ(d->name(), "null");
  Status s = runtime::RegisterDriver("test-device", &CreateOtherTestDevice);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("already registered as 'test-device'"));
  s = runtime::RegisterDriver("cpu", &CreateOtherTestDevice);  // a core driver cannot be replaced
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(runtime::RegisterDriver("", &CreateTestDevice).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(runtime::RegisterDriver("x", nullptr).code(), StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(runtime, Conformance, ::testing::ValuesIn(Drivers()),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace loom::testing
