// The opencl device (runtime/drivers/opencl) against fsim, through the driver interface: every
// instruction-level case of sim/programs/isa_cases leaves exactly fsim's DRAM image and counts,
// programs that must fail fail with fsim's status code and message, and the device string,
// binary cache and the no-platform report behave as docs/runtime.md says. Runs on whatever OpenCL
// platform the machine has (PoCL's CPU device in CI).
#include <dirent.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/config/config_file.h"
#include "runtime/drivers/driver.h"
#include "runtime/drivers/opencl/opencl_driver.h"
#include "runtime/drivers/sim/sim_drivers.h"
#include "sim/programs/isa_cases.h"
#include "sim/programs/program.h"

namespace loom {
namespace {

using ::testing::HasSubstr;

// Two configs: one kernel build each, and both the narrow and the VTA-sized field layouts.
const char* const kConfigs[] = {"1x8x8", "1x16x16"};

struct Outcome {
  Status status;
  std::vector<uint8_t> dram;  // the program's image after the run
  runtime::DeviceCounters counters;
};

// Runs `p` (laid out from address 0) on `device`: the image goes into one allocation at A, and
// every LOAD/STORE's dram_base moves by A in elements of its buffer, which is what the runtime's
// linker does for a package. Both devices hand out the same A, so their messages compare equal.
Outcome RunProgram(const std::string& device, const HwConfig& config, const programs::Program& p,
                   void (*patch)(std::vector<uint8_t>&, uint64_t insn_addr) = nullptr) {
  Outcome o;
  std::unique_ptr<runtime::Driver> d;
  o.status = runtime::CreateDriver(device, &d);
  if (!o.status.ok()) return o;
  runtime::DriverOptions opts;
  opts.config = config;
  opts.memory_bytes = p.dram_bytes() + (64 << 10);
  o.status = d->Open(opts);
  if (!o.status.ok()) return o;
  std::vector<uint8_t> image(p.dram_bytes());
  o.status = p.Install([&](uint64_t a, const uint8_t* b, size_t n) {
    std::copy(b, b + n, image.begin() + static_cast<std::ptrdiff_t>(a));
    return Status::Ok();
  });
  uint64_t base = 0;
  if (o.status.ok()) o.status = d->Allocate(image.size(), 4096, &base);
  if (!o.status.ok()) return o;
  for (size_t i = 0; i < p.insns().size(); ++i) {
    isa::Insn insn = p.insns()[i];
    if (insn.opcode == isa::Opcode::kLoad || insn.opcode == isa::Opcode::kStore) {
      insn.dram_base += static_cast<uint32_t>(base / isa::ElemBytes(config, insn.buffer));
    }
    isa::Word128 w;
    o.status = isa::Encode(p.layout(), insn, &w);
    if (!o.status.ok()) return o;
    isa::StoreWord(w, &image[p.insn_addr() + 16 * i]);
  }
  if (patch) patch(image, p.insn_addr());
  o.status = d->CopyIn(base, image.data(), image.size());
  if (o.status.ok()) o.status = d->Submit(base + p.insn_addr(), p.insn_count());
  if (o.status.ok()) o.status = d->Wait(60000);
  const Status read = d->CopyOut(image.data(), base, image.size());
  if (o.status.ok()) o.status = read;
  if (o.status.ok()) o.status = d->ReadCounters(&o.counters);
  o.dram = image;
  d->Close();
  return o;
}

bool HaveOpencl() {
  std::unique_ptr<runtime::Driver> d;
  return runtime::CreateDriver("opencl", &d).ok();
}

struct Cases {
  Status status;
  HwConfig config;
  std::vector<programs::IsaCase> cases;
};

const Cases& CasesFor(const std::string& name) {
  static std::map<std::string, Cases> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  Cases c;
  c.status = LoadHwConfig(name, &c.config);
  if (c.status.ok()) c.status = programs::BuildIsaCases(c.config, &c.cases);
  return cache.emplace(name, std::move(c)).first->second;
}

std::vector<std::tuple<std::string, std::string>> AllCases() {
  std::vector<std::tuple<std::string, std::string>> v;
  for (const char* config : kConfigs) {
    const Cases& c = CasesFor(config);
    if (c.cases.empty()) v.emplace_back(config, "cases_do_not_build");
    for (const programs::IsaCase& ic : c.cases) v.emplace_back(config, ic.name);
  }
  return v;
}

class OpenclIsa : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(runtime::RegisterSimulatorDrivers().ok());
    if (!HaveOpencl()) GTEST_SKIP() << "this build has no opencl driver";
  }
};

TEST_P(OpenclIsa, MatchesFsimBitForBit) {
  const auto& [config_name, case_name] = GetParam();
  const Cases& all = CasesFor(config_name);
  ASSERT_TRUE(all.status.ok()) << all.status.ToString();
  const programs::IsaCase* ic = nullptr;
  for (const programs::IsaCase& c : all.cases) {
    if (c.name == case_name) ic = &c;
  }
  ASSERT_NE(ic, nullptr);
  const Outcome want = RunProgram("fsim", all.config, ic->program);
  ASSERT_TRUE(want.status.ok()) << want.status.ToString();
  const Outcome got = RunProgram("opencl", all.config, ic->program);
  ASSERT_TRUE(got.status.ok()) << got.status.ToString() << "\n" << ic->program.Listing();
  for (const programs::Check& check : ic->checks) {
    const std::vector<uint8_t> bytes(
        got.dram.begin() + static_cast<std::ptrdiff_t>(check.addr),
        got.dram.begin() + static_cast<std::ptrdiff_t>(check.addr + check.expected.size()));
    EXPECT_EQ(bytes, check.expected) << check.what;
  }
  EXPECT_EQ(got.dram, want.dram) << "the DRAM image differs from fsim's";
  EXPECT_TRUE(got.counters.valid);
  EXPECT_FALSE(got.counters.timed);
  EXPECT_EQ(got.counters.cycles, 0u);
  EXPECT_EQ(got.counters.insns, want.counters.insns);
  EXPECT_EQ(got.counters.module_insns, want.counters.module_insns);
  EXPECT_EQ(got.counters.macs, want.counters.macs);
  EXPECT_EQ(got.counters.bytes_loaded, want.counters.bytes_loaded);
  EXPECT_EQ(got.counters.bytes_stored, want.counters.bytes_stored);
}

INSTANTIATE_TEST_SUITE_P(Cases, OpenclIsa, ::testing::ValuesIn(AllCases()), [](const auto& p) {
  return std::get<0>(p.param) + "_" + std::get<1>(p.param);
});

// Programs that must fail: the same code and message as fsim, word for word.
struct BadProgram {
  const char* name;
  std::string text;  // docs/isa.md §5; micro-ops at element 0 of the image
  std::string uops = "uop dst=0 src=0 wgt=0";
  void (*patch)(std::vector<uint8_t>&, uint64_t) = nullptr;
  StatusCode code;
};

std::vector<BadProgram> BadPrograms(const HwConfig& c) {
  const std::string far_acc = std::to_string((uint64_t{1} << 31) / c.acc_elem_bytes());
  const std::string far_out = std::to_string((uint64_t{1} << 31) / c.out_elem_bytes());
  std::string full_cmd =
      "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
      "gemm uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0 @pop_prev\n";
  for (uint32_t i = 0; i < c.cmd_queue_depth; ++i)
    full_cmd += "alu.add uop=0:1 loop=1x1 dst=0,0 imm=0\n";
  full_cmd += "load.inp sram=0 dram=0 y=1 x=1 stride=1 @push_next\nfinish\n";
  std::string full_push = "load.uop sram=0 dram=0 y=1 x=1 stride=1\n";
  for (uint32_t i = 0; i <= c.token_queue_depth; ++i) {
    full_push += "alu.add uop=0:1 loop=1x1 dst=0,0 imm=0 @push_next\n";
  }
  full_push += "finish\n";
  const std::string acc_last = std::to_string(c.acc_depth() - 1);
  return {
      {"deadlock_empty_queue",
       "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
       "gemm uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0 @pop_prev\nfinish\n",
       "uop dst=0 src=0 wgt=0", nullptr, StatusCode::kDeadlock},
      {"deadlock_cyclic",
       "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
       "load.inp sram=0 dram=0 y=1 x=1 stride=1 @pop_next @push_next\n"
       "gemm uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0 @pop_prev @push_prev\nfinish\n",
       "uop dst=0 src=0 wgt=0", nullptr, StatusCode::kDeadlock},
      {"deadlock_full_command_queue", full_cmd, "uop dst=0 src=0 wgt=0", nullptr,
       StatusCode::kDeadlock},
      {"deadlock_push_to_full_queue", full_push, "uop dst=0 src=0 wgt=0", nullptr,
       StatusCode::kDeadlock},
      {"token_imbalance",
       "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
       "load.inp sram=0 dram=0 y=1 x=1 stride=1 @push_next\n"
       "alu.add uop=0:1 loop=1x1 dst=0,0 imm=0 @push_next\n"
       "alu.add uop=0:1 loop=1x1 dst=0,0 imm=0 @push_next\nfinish\n",
       "uop dst=0 src=0 wgt=0", nullptr, StatusCode::kFailedPrecondition},
      {"dma_read_outside_dram", "load.acc sram=0 dram=" + far_acc + " y=1 x=1 stride=1\nfinish\n",
       "uop dst=0 src=0 wgt=0", nullptr, StatusCode::kOutOfRange},
      {"dma_write_outside_dram", "store.out sram=0 dram=" + far_out + " y=2 x=1 stride=1\nfinish\n",
       "uop dst=0 src=0 wgt=0", nullptr, StatusCode::kOutOfRange},
      {"acc_index_out_of_range",
       "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
       "alu.add uop=0:1 loop=2x1 dst=" +
           acc_last + ",0 imm=1\nfinish\n",
       "uop dst=1 src=0 wgt=0", nullptr, StatusCode::kOutOfRange},
      {"inp_index_out_of_range",
       "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
       "gemm uop=0:1 loop=1x2 dst=0,0 src=0," +
           std::to_string(c.inp_depth() - 1) + " wgt=0,0\nfinish\n",
       "uop dst=0 src=1 wgt=0", nullptr, StatusCode::kOutOfRange},
      {"uop_reserved_bits", "load.uop sram=0 dram=0 y=1 x=1 stride=1\nfinish\n",
       "uop dst=0 src=0 wgt=0", [](std::vector<uint8_t>& image, uint64_t) { image[3] = 0xff; },
       StatusCode::kInvalidArgument},
      {"reserved_instruction_bit", "alu.add uop=0:1 loop=1x1 dst=0,0 imm=0\nfinish\n",
       "uop dst=0 src=0 wgt=0",
       [](std::vector<uint8_t>& image, uint64_t insn) { image[insn + 15] = 0x80; },
       StatusCode::kInvalidArgument},
      {"unknown_opcode", "alu.add uop=0:1 loop=1x1 dst=0,0 imm=0\nfinish\n",
       "uop dst=0 src=0 wgt=0",
       [](std::vector<uint8_t>& image, uint64_t insn) { image[insn] |= 7; },
       StatusCode::kInvalidArgument},
      {"finish_not_last", "finish\nalu.add uop=0:1 loop=1x1 dst=0,0 imm=0\nfinish\n",
       "uop dst=0 src=0 wgt=0", nullptr, StatusCode::kInvalidArgument},
      // A fused REQUANT (docs/isa.md §3.4.2) whose GEMM never comes: an ALU, or FINISH, first.
      {"epilogue_then_alu",
       "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
       "alu.requant uop=0:1 loop=1x1 dst=0,0 shift=0,0 clip=0,0 clear fuse\n"
       "alu.add uop=0:1 loop=1x1 dst=0,0 imm=0\nfinish\n",
       "uop dst=0 src=0 wgt=0", nullptr, StatusCode::kFailedPrecondition},
      {"epilogue_then_finish",
       "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
       "alu.requant uop=0:1 loop=1x1 dst=0,0 shift=0,0 clip=0,0 clear fuse\nfinish\n",
       "uop dst=0 src=0 wgt=0", nullptr, StatusCode::kFailedPrecondition},
      // Sets `depthwise` (bit 117 of a 1x8x8 GEMM word, docs/isa.md §2.6) on the reset GEMM.
      {"depthwise_with_reset",
       "load.uop sram=0 dram=0 y=1 x=1 stride=1\n"
       "gemm reset uop=0:1 loop=1x1 dst=0,0 src=0,0 wgt=0,0\nfinish\n",
       "uop dst=0 src=0 wgt=0",
       [](std::vector<uint8_t>& image, uint64_t insn) {
         image[insn + 16 + 117 / 8] |= 1 << 117 % 8;
       },
       StatusCode::kInvalidArgument},
  };
}

class OpenclErrors : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(runtime::RegisterSimulatorDrivers().ok());
    if (!HaveOpencl()) GTEST_SKIP() << "this build has no opencl driver";
    ASSERT_TRUE(LoadHwConfig("1x8x8", &config_).ok());
  }
  HwConfig config_;
};

TEST_P(OpenclErrors, SameCodeAndMessageAsFsim) {
  for (const BadProgram& b : BadPrograms(config_)) {
    if (b.name != GetParam()) continue;
    isa::Layout layout;
    ASSERT_TRUE(isa::Layout::Create(config_, &layout).ok());
    std::vector<isa::Uop> uops;
    std::vector<isa::Insn> insns;
    ASSERT_TRUE(isa::AssembleUops(layout, b.uops, &uops).ok());
    const Status as = isa::Assemble(layout, b.text, &insns);
    ASSERT_TRUE(as.ok()) << as.ToString();
    programs::Program p(config_);
    uint64_t uop_addr = 1;
    ASSERT_TRUE(p.AddUops(uops, &uop_addr).ok());
    ASSERT_EQ(uop_addr, 0u);
    for (const isa::Insn& i : insns) p.Emit(i);
    ASSERT_TRUE(p.Finalize().ok());
    const Outcome want = RunProgram("fsim", config_, p, b.patch);
    const Outcome got = RunProgram("opencl", config_, p, b.patch);
    EXPECT_EQ(want.status.code(), b.code) << want.status.ToString();
    EXPECT_EQ(got.status.code(), want.status.code()) << got.status.ToString();
    EXPECT_EQ(got.status.message(), want.status.message());
    return;
  }
  FAIL() << "no program " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Programs, OpenclErrors, ::testing::ValuesIn([] {
                           HwConfig c;
                           EXPECT_TRUE(LoadHwConfig("1x8x8", &c).ok());
                           std::vector<std::string> names;
                           for (const BadProgram& b : BadPrograms(c)) names.push_back(b.name);
                           return names;
                         }()),
                         [](const auto& p) { return p.param; });

// A depthwise GEMM on a config whose block_in and block_out differ (docs/isa.md §3.3.1): fsim's
// code and message, and a plain GEMM runs there (the kernel builds for the config).
TEST(OpenclDepthwise, NeedsBlockInEqualToBlockOut) {
  ASSERT_TRUE(runtime::RegisterSimulatorDrivers().ok());
  if (!HaveOpencl()) GTEST_SKIP() << "this build has no opencl driver";
  HwConfig c;
  ASSERT_TRUE(LoadHwConfig("1x16x16", &c).ok());
  c = programs::HalfOutputBlock(c);
  ASSERT_TRUE(c.Validate().ok());
  for (bool depthwise : {false, true}) {
    programs::Program p(c);
    ASSERT_TRUE(programs::OneGemmProgram(depthwise, &p).ok());
    const Outcome want = RunProgram("fsim", c, p);
    const Outcome got = RunProgram("opencl", c, p);
    EXPECT_EQ(want.status.code(), depthwise ? StatusCode::kInvalidArgument : StatusCode::kOk)
        << want.status.ToString();
    EXPECT_EQ(got.status.code(), want.status.code()) << got.status.ToString();
    EXPECT_EQ(got.status.message(), want.status.message());
    if (depthwise) {
      EXPECT_THAT(got.status.message(), HasSubstr("config 1x16x8 has 16x8"));
    }
  }
}

class OpenclDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HaveOpencl()) GTEST_SKIP() << "this build has no opencl driver";
    ASSERT_TRUE(LoadHwConfig("1x8x8", &options_.config).ok());
    options_.memory_bytes = 1 << 16;
  }
  Status Open(const std::string& args) {
    EXPECT_TRUE(runtime::CreateDriver("opencl", &driver_).ok());
    options_.device_args = args;
    return driver_->Open(options_);
  }
  runtime::DriverOptions options_;
  std::unique_ptr<runtime::Driver> driver_;
};

TEST_F(OpenclDevice, DeviceStringsSelectByNameOrIndex) {
  Status s = Open("0:0");
  EXPECT_TRUE(s.ok()) << s.ToString();
  driver_->Close();
  s = Open("no such platform");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no device matches platform 'no such platform'"));
  EXPECT_THAT(s.message(), HasSubstr("platforms: 0: '"));  // lists what there is
  s = Open("0:0:speed=fast");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("unknown option 'speed'"));
  s = Open("a:b:c");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("'c' is a third name"));
  s = Open("0:0:binary=/nonexistent/vta.aocx");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("cannot read the kernel binary '/nonexistent/vta.aocx'"));
}

// Built kernels land in the cache folder; a damaged cache file only costs a rebuild.
TEST_F(OpenclDevice, BinaryCacheIsWrittenAndSurvivesDamage) {
  char dir[] = "/tmp/loom-opencl-cache-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  Status s = Open(std::string(":cache=") + dir);
  ASSERT_TRUE(s.ok()) << s.ToString();
  driver_->Close();
  std::vector<std::string> files;
  if (DIR* d = opendir(dir)) {
    while (const dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') files.push_back(std::string(dir) + "/" + e->d_name);
    }
    closedir(d);
  }
  ASSERT_EQ(files.size(), 1u) << "one cached kernel";
  EXPECT_THAT(files[0], HasSubstr("/vta-"));
  s = Open(std::string(":cache=") + dir);  // from the cache
  EXPECT_TRUE(s.ok()) << s.ToString();
  driver_->Close();
  FILE* f = std::fopen(files[0].c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("not a kernel", f);
  std::fclose(f);
  s = Open(std::string(":cache=") + dir);
  EXPECT_TRUE(s.ok()) << s.ToString();
  driver_->Close();
  std::remove(files[0].c_str());
  rmdir(dir);
}

TEST_F(OpenclDevice, DescribesItsPlatforms) {
  const std::string text = runtime::DescribeOpenclDevices();
  EXPECT_THAT(text, HasSubstr("platform 0: "));
  EXPECT_THAT(text, HasSubstr("--device opencl:0:0"));
}

// Run by ctest with OCL_ICD_VENDORS pointing at an empty folder (the ICD loader reads it once per
// process): Open must say what the loader saw.
TEST(OpenclNoPlatform, OpenSaysWhatTheLoaderSaw) {
  const char* vendors = std::getenv("OCL_ICD_VENDORS");
  if (std::getenv("LOOM_TEST_NO_OPENCL_PLATFORM") == nullptr || vendors == nullptr) {
    GTEST_SKIP() << "runs as its own ctest with an empty OCL_ICD_VENDORS folder";
  }
  if (!HaveOpencl()) GTEST_SKIP() << "this build has no opencl driver";
  std::unique_ptr<runtime::Driver> d;
  ASSERT_TRUE(runtime::CreateDriver("opencl", &d).ok());
  runtime::DriverOptions o;
  ASSERT_TRUE(LoadHwConfig("1x8x8", &o.config).ok());
  o.memory_bytes = 1 << 16;
  const Status s = d->Open(o);
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("found no platform"));
  EXPECT_THAT(s.message(), HasSubstr(std::string("vendor folder ") + vendors));
  EXPECT_THAT(s.message(), HasSubstr("no .icd files"));
  EXPECT_THAT(s.message(), HasSubstr("pocl-opencl-icd"));
}

}  // namespace
}  // namespace loom
