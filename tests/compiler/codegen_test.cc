// The code generator on its own: target parsing, the op-call description (its argument arrays
// decode back to the kernels' parameters), and objects for every triple that define each op's
// symbol and import nothing but memcpy and memset. Running the objects is the e2e tests' part
// (tests/e2e/native_test.cc): there the bytes must equal the portable kernels'.
#include "compiler/codegen/codegen.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <set>
#include <variant>

#include "compiler/codegen/op_calls.h"
#include "runtime/config/config_file.h"
#include "runtime/kernels/int8/abi/kernel_abi.h"
#include "runtime/kernels/int8/fast/rows_body.h"
#include "runtime/kernels/int8/fast/tile_pack.h"
#include "tests/runtime/test_packages.h"

namespace loom::codegen {
namespace {

using ::testing::HasSubstr;
namespace q = kernels::q;

std::unique_ptr<runtime::Package> ConvPackage(package::PackageSpec* spec) {
  HwConfig config;
  EXPECT_TRUE(LoadHwConfig("1x8x8", &config).ok());
  testing::ConvModelOptions mo;
  mo.float_input = true;
  EXPECT_TRUE(testing::BuildConvModel(config, mo, spec).ok());
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(package::SerializePackage(*spec, &bytes).ok());
  std::unique_ptr<runtime::Package> p;
  const Status s = runtime::Package::LoadMemory(bytes.data(), bytes.size(), &p);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return p;
}

TEST(CpuTargets, ParsesNamesCpusHostAndNone) {
  std::vector<CpuTarget> t;
  ASSERT_TRUE(ParseCpuTargets("x86_64,armv7,aarch64", &t).ok());
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].cpu, "x86-64-v3");
  EXPECT_EQ(t[1].triple, "armv7a-unknown-linux-gnueabihf");
  EXPECT_EQ(t[1].features, std::vector<std::string>{"neon"});
  EXPECT_EQ(t[2].cpu, "cortex-a53");
  ASSERT_TRUE(ParseCpuTargets("x86_64:x86-64-v4", &t).ok());
  EXPECT_THAT(t[0].features, ::testing::Contains("avx512bw"));
  ASSERT_TRUE(ParseCpuTargets("x86_64:cascadelake", &t).ok());
  EXPECT_THAT(t[0].features, ::testing::Contains("avx512vnni"));
  ASSERT_TRUE(ParseCpuTargets("none", &t).ok());
  EXPECT_TRUE(t.empty());
  if (!HostTargetName().empty()) {
    ASSERT_TRUE(ParseCpuTargets("host", &t).ok());
    EXPECT_EQ(t[0].name, HostTargetName());
  }
}

TEST(CpuTargets, RefusesWhatItCannotBuildOrCheck) {
  std::vector<CpuTarget> t;
  EXPECT_THAT(ParseCpuTargets("riscv64", &t).message(), HasSubstr("'riscv64' is not a target"));
  EXPECT_THAT(ParseCpuTargets("x86_64:skylake", &t).message(),
              HasSubstr("CPU 'skylake' of 'x86_64:skylake' is not supported"));
  EXPECT_THAT(ParseCpuTargets("armv7,armv7", &t).message(), HasSubstr("listed twice"));
  EXPECT_FALSE(ParseCpuTargets("", &t).ok());
}

TEST(OpCalls, ConvAndPoolArgumentsDecodeToTheKernelsParameters) {
  package::PackageSpec spec;
  const auto p = ConvPackage(&spec);
  const std::vector<OpCalls> calls = NativeOpCalls(*p, ConvRows::kNone);
  // conv3x3 and conv1x1 (accelerator segments' op descriptions) and the max pool run natively;
  // Quantize, Dequantize and the float ops do not.
  std::set<int> kinds;
  for (const OpCalls& oc : calls) {
    ASSERT_EQ(oc.calls.size(), 1u) << oc.symbol;
    const KernelCall& c = oc.calls[0];
    const pkg::Op* op = p->root().segments()->Get(oc.segment)->ops()->Get(oc.op);
    EXPECT_EQ(oc.symbol, "loom_op_" + std::to_string(oc.segment) + "_" + std::to_string(oc.op));
    kinds.insert(static_cast<int>(op->params_type()));
    if (op->params_type() == pkg::OpParams::Conv2d) {
      EXPECT_STREQ(c.entry, q::abi::kConv2d);
      ASSERT_EQ(c.buffers.size(), 5u);
      EXPECT_EQ(c.buffers[1].kind, Buffer::kConstants);  // weights
      EXPECT_EQ(c.buffers[4].kind, Buffer::kArena);      // output
      q::Blocking b;
      q::Conv2dParams cp;
      q::abi::DecodeConv2d(c.args.data(), &b, &cp);
      EXPECT_EQ(b.block, 8u);
      const pkg::Conv2d* params = op->params_as_Conv2d();
      EXPECT_EQ(cp.kh, params->window()->kh());
      EXPECT_EQ(cp.pad_top, params->window()->pad_top());
      EXPECT_EQ(cp.rq.post_shift, params->requant()->post_shift());
      EXPECT_EQ(cp.rq.clip_lo, params->requant()->clip_lo());
      int32_t again[q::abi::kMaxArgs];
      ASSERT_EQ(q::abi::EncodeConv2d(b, cp, again), c.args.size());
      EXPECT_TRUE(std::equal(c.args.begin(), c.args.end(), again));
    } else {
      EXPECT_EQ(op->params_type(), pkg::OpParams::MaxPool);
      q::Blocking b;
      q::PoolParams pp;
      q::abi::DecodeMaxPool(c.args.data(), &b, &pp);
      EXPECT_EQ(pp.kh, 2u);
      EXPECT_EQ(pp.stride_w, 2u);
    }
  }
  EXPECT_EQ(kinds, (std::set<int>{static_cast<int>(pkg::OpParams::Conv2d),
                                  static_cast<int>(pkg::OpParams::MaxPool)}));
}

// With row kernels, a Conv2d calls its instruction set's entry with the weights packed at compile
// time (the tile layout of tile_pack.h, PackedTileStride apart) and the padded input in the
// workspace; the argument array is still EncodeConv2d's.
TEST(OpCalls, RowKernelsGetPackedWeightsAndAWorkspace) {
  package::PackageSpec spec;
  const auto p = ConvPackage(&spec);
  const std::vector<OpCalls> avx2 = NativeOpCalls(*p, ConvRows::kAvx2);
  // Block 8: the VNNI rows do not take it, so a VNNI CPU runs the AVX2 rows (as fast::Conv2d).
  const std::vector<OpCalls> vnni = NativeOpCalls(*p, ConvRows::kAvx512Vnni);
  // The max pool stays with the runtime's AVX2 MaxPool on x86 CPUs with AVX2; the rest as kNone.
  ASSERT_EQ(avx2.size() + 1, NativeOpCalls(*p, ConvRows::kNone).size());
  ASSERT_EQ(vnni.size(), avx2.size());
  size_t convs = 0;
  for (size_t k = 0; k < avx2.size(); ++k) {
    const OpCalls& oc = avx2[k];
    const pkg::Op* op = p->root().segments()->Get(oc.segment)->ops()->Get(oc.op);
    if (op->params_type() != pkg::OpParams::Conv2d) continue;
    ++convs;
    ASSERT_EQ(oc.calls.size(), 1u);
    const KernelCall& c = oc.calls[0];
    EXPECT_STREQ(c.entry, q::abi::kConv2dRowsAvx2);
    EXPECT_STREQ(vnni[k].calls[0].entry, q::abi::kConv2dRowsAvx2);
    ASSERT_EQ(c.buffers.size(), 7u);
    EXPECT_EQ(c.buffers[0].kind, Buffer::kArena);
    ASSERT_EQ(c.buffers[1].kind, Buffer::kRodata);
    EXPECT_EQ(c.buffers[2].kind, Buffer::kConstants);  // the stored weights (depthwise reads them)
    EXPECT_EQ(c.buffers[6].kind, Buffer::kWorkspace);
    q::Blocking b;
    q::Conv2dParams cp;
    q::abi::DecodeConv2d(c.args.data(), &b, &cp);
    EXPECT_EQ(oc.workspace_bytes, q::fast::ConvRowsWorkspaceBytes(2, 0, 0, false, b, cp));
    // The packed tiles are the stored tiles through PackAvx2Tile.
    ASSERT_LT(c.buffers[1].offset, oc.rodata.size());
    const std::vector<uint8_t>& packed = oc.rodata[c.buffers[1].offset];
    const size_t stride = q::fast::PackedTileStride(q::fast::Avx2TileBytes(b.block));
    const size_t tiles =
        size_t{CeilDiv(cp.out_c, b.block)} * CeilDiv(cp.in.c, b.block) * cp.kh * cp.kw;
    ASSERT_EQ(packed.size(), tiles * stride);
    const auto* w = reinterpret_cast<const int8_t*>(p->constants() + c.buffers[2].offset);
    std::vector<uint8_t> want(stride, 0);
    for (size_t t = 0; t < tiles; ++t) {
      q::fast::PackAvx2Tile(w + t * b.block * b.block, b.block, want.data());
      ASSERT_TRUE(std::equal(want.begin(), want.end(), packed.begin() + t * stride)) << t;
    }
  }
  EXPECT_EQ(convs, 2u);
}

// The package `spec` describes, written and loaded (null, with a test failure, if either fails).
std::unique_ptr<runtime::Package> WriteAndLoad(const package::PackageSpec& spec) {
  std::vector<uint8_t> bytes;
  Status s = package::SerializePackage(spec, &bytes);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<runtime::Package> p;
  if (s.ok()) s = runtime::Package::LoadMemory(bytes.data(), bytes.size(), &p);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return p;
}

// A pad value keeps a convolution on the rows (their padded copy holds it, fast/rows_body.h) and
// reaches them in EncodeConv2d's array; native_test runs it against the reference kernels.
TEST(OpCalls, APadValueStaysOnTheRowKernels) {
  package::PackageSpec spec;
  ConvPackage(&spec);
  for (package::SegmentSpec& seg : spec.segments) {
    for (package::OpSpec& op : seg.ops) {
      if (auto* c = std::get_if<package::Conv2dParams>(&op.params)) c->pad_value = -77;
    }
  }
  const auto p = WriteAndLoad(spec);
  ASSERT_NE(p, nullptr);
  size_t convs = 0;
  for (const OpCalls& oc : NativeOpCalls(*p, ConvRows::kAvx2)) {
    const pkg::Op* op = p->root().segments()->Get(oc.segment)->ops()->Get(oc.op);
    if (op->params_type() != pkg::OpParams::Conv2d) continue;
    ++convs;
    ASSERT_EQ(oc.calls.size(), 1u);
    EXPECT_STREQ(oc.calls[0].entry, q::abi::kConv2dRowsAvx2);
    q::Blocking b;
    q::Conv2dParams cp;
    q::abi::DecodeConv2d(oc.calls[0].args.data(), &b, &cp);
    EXPECT_EQ(cp.pad_value, -77);
  }
  EXPECT_EQ(convs, 2u);
}

// A CPU-only package plus one AvgPool over an input of height `h`, its window 3x3 with pads 2
// above and below (so an empty plane still yields output rows, which the loader admits).
std::unique_ptr<runtime::Package> AvgPoolPackage(uint32_t h) {
  HwConfig config;
  EXPECT_TRUE(LoadHwConfig("1x8x8", &config).ok());
  package::PackageSpec spec;
  EXPECT_TRUE(testing::BuildCpuOnlyModel(config, &spec).ok());
  auto act = [&](const char* name, uint32_t height) {
    package::TensorSpec t;
    t.name = name;
    t.layout = package::TensorLayout::Blocked;
    t.shape = {1, 8, height, 4};
    t.offset = (spec.arena_bytes + 1023) / 1024 * 1024;
    spec.arena_bytes = t.offset + q::BlockedBytes({1, 8}, {1, 8, height, 4});
    spec.tensors.push_back(t);
    return static_cast<int32_t>(spec.tensors.size() - 1);
  };
  const int32_t x = act("pool_in", h);
  const int32_t y = act("pool_out", h + 4 - 3 + 1);
  package::TensorSpec mult;
  mult.name = "mult_by_count";
  mult.dtype = pkg::DType::Int32;
  mult.layout = package::TensorLayout::Plain;
  mult.shape = {9};
  mult.storage = package::Storage::Constant;
  mult.offset = (spec.constants.size() + 1023) / 1024 * 1024;
  spec.constants.resize(mult.offset + 36, 1);
  spec.tensors.push_back(mult);
  package::OpSpec op;
  op.name = "pool";
  package::AvgPoolParams ap;
  ap.window = {3, 3, 1, 1, 2, 1, 2, 1};
  op.params = ap;
  op.inputs = {x, static_cast<int32_t>(spec.tensors.size() - 1)};
  op.outputs = {y};
  spec.segments[0].ops.push_back(op);
  return WriteAndLoad(spec);
}

// An op with an empty operand stays on the checked kernels (which refuse it by name): the
// kernel bodies assume no dimension is 0.
TEST(OpCalls, AnEmptyOperandLeavesTheOpToTheKernels) {
  const auto pooled = AvgPoolPackage(2);
  ASSERT_NE(pooled, nullptr);
  const std::vector<OpCalls> calls = NativeOpCalls(*pooled, ConvRows::kNone);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_STREQ(calls[0].calls[0].entry, q::abi::kAvgPool);
  const auto empty = AvgPoolPackage(0);
  ASSERT_NE(empty, nullptr);
  EXPECT_TRUE(NativeOpCalls(*empty, ConvRows::kNone).empty());
}

// On x86 with AVX2 an AvgPool stays with the runtime's AVX2 fast::AvgPool, as Add and MaxPool do;
// ARM (and x86 without AVX2) runs it natively.
TEST(OpCalls, AvgPoolStaysWithTheRuntimeOnX86WithAvx2) {
  const auto pooled = AvgPoolPackage(2);
  ASSERT_NE(pooled, nullptr);
  EXPECT_TRUE(NativeOpCalls(*pooled, ConvRows::kAvx2).empty());
  EXPECT_TRUE(NativeOpCalls(*pooled, ConvRows::kAvx512Vnni).empty());
  EXPECT_EQ(NativeOpCalls(*pooled, ConvRows::kNeon).size(), 1u);
}

// One Conv2d (4 -> 4 channels, 1x1, over 2x2) in a CPU segment, for `config`'s blocking (its
// block_in and block_out both 32; the multipliers repeat per batch row). Every region is exactly as
// large as its tensors need, or the loader refuses the package.
std::unique_ptr<runtime::Package> CpuConvPackage(const HwConfig& config) {
  package::PackageSpec spec;
  EXPECT_TRUE(testing::BuildCpuOnlyModel(config, &spec).ok());
  auto add = [&](const char* name, pkg::DType dtype, package::TensorLayout layout,
                 std::vector<uint32_t> shape, uint64_t bytes, package::Storage storage) {
    package::TensorSpec t;
    t.name = name;
    t.dtype = dtype;
    t.layout = layout;
    t.shape = std::move(shape);
    t.storage = storage;
    if (storage == package::Storage::Arena) {
      t.offset = (spec.arena_bytes + 1023) / 1024 * 1024;
      spec.arena_bytes = t.offset + bytes;
    } else {
      t.offset = (spec.constants.size() + 1023) / 1024 * 1024;
      spec.constants.resize(t.offset + bytes, 1);
    }
    spec.tensors.push_back(t);
    return static_cast<int32_t>(spec.tensors.size() - 1);
  };
  using L = package::TensorLayout;
  const uint64_t act = q::BlockedBytes({config.batch, config.block_out}, {1, 4, 2, 2});
  const int32_t x =
      add("conv_in", pkg::DType::Int8, L::Blocked, {1, 4, 2, 2}, act, package::Storage::Arena);
  const int32_t w = add("conv_w", pkg::DType::Int8, L::BlockedWeights, {4, 4, 1, 1}, 32 * 32,
                        package::Storage::Constant);
  const int32_t m = add("conv_mult", pkg::DType::Int32, L::BlockedVector, {4},
                        config.batch * 32 * 4, package::Storage::Constant);
  const int32_t y =
      add("conv_out", pkg::DType::Int8, L::Blocked, {1, 4, 2, 2}, act, package::Storage::Arena);
  package::OpSpec op;
  op.name = "conv";
  op.params = package::Conv2dParams{};
  op.inputs = {x, w, -1, m};
  op.outputs = {y};
  spec.segments[0].ops.push_back(op);
  return WriteAndLoad(spec);
}

// HwConfig allows blockings up to 64 x 256; the kernel body's accumulator tile holds 1024: a
// convolution beyond it stays on the checked kernel, which refuses it by name.
TEST(OpCalls, AConvBeyondTheAccumulatorTileStaysOnTheKernel) {
  HwConfig config;
  ASSERT_TRUE(LoadHwConfig("1x32x32", &config).ok());
  const auto fits = CpuConvPackage(config);
  ASSERT_NE(fits, nullptr);
  ASSERT_EQ(NativeOpCalls(*fits, ConvRows::kNone).size(), 1u);
  config.batch = 64;  // 64 x 32: twice the tile
  const auto beyond = CpuConvPackage(config);
  ASSERT_NE(beyond, nullptr);
  EXPECT_TRUE(NativeOpCalls(*beyond, ConvRows::kNone).empty());
}

// The ARM EABI's run-time helpers (division on cores without a divider, memory copies), which
// LLVM may call on armv7 and the runtime's loader provides there (runtime/exec/native_ops.cc).
bool KnownAeabiHelper(const std::string& name) {
  for (const char* h : {"__aeabi_uidiv", "__aeabi_idiv", "__aeabi_uidivmod", "__aeabi_idivmod",
                        "__aeabi_uldivmod", "__aeabi_ldivmod", "__aeabi_memcpy", "__aeabi_memcpy4",
                        "__aeabi_memcpy8", "__aeabi_memmove", "__aeabi_memmove4",
                        "__aeabi_memmove8", "__aeabi_memset", "__aeabi_memset4", "__aeabi_memset8",
                        "__aeabi_memclr", "__aeabi_memclr4", "__aeabi_memclr8"}) {
    if (name == h) return true;
  }
  return false;
}

class Objects : public ::testing::TestWithParam<const char*> {};

// The objects import only what runtime/exec/native_ops.cc's table provides.
TEST_P(Objects, DefineEveryOpAndImportOnlyWhatTheRuntimeProvides) {
  package::PackageSpec spec;
  const auto p = ConvPackage(&spec);
  std::vector<CpuTarget> targets;
  ASSERT_TRUE(ParseCpuTargets(GetParam(), &targets).ok());
  size_t progress_calls = 0;
  CodegenOptions options;
  options.progress = [&](size_t, size_t) { ++progress_calls; };
  package::NativeCodeSpec code;
  const Status s = CompileNative(*p, targets[0], options, &code);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(code.target, targets[0].name);
  EXPECT_EQ(code.symbols.size(), NativeOpCalls(*p, RowsFor(targets[0])).size());
  EXPECT_EQ(progress_calls, code.symbols.size() + 1);

  auto buffer = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(reinterpret_cast<const char*>(code.object.data()), code.object.size()), "",
      false);
  auto object = llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  ASSERT_TRUE(static_cast<bool>(object));
  const llvm::object::ObjectFile& obj = **object;
  EXPECT_TRUE(obj.isELF() && obj.isRelocatableObject());
  const std::map<std::string, unsigned> arch = {{"x86_64", llvm::Triple::x86_64},
                                                {"aarch64", llvm::Triple::aarch64},
                                                {"armv7", llvm::Triple::arm}};
  EXPECT_EQ(static_cast<unsigned>(obj.getArch()), arch.at(code.target));
  std::set<std::string> defined, undefined;
  for (const llvm::object::SymbolRef& sym : obj.symbols()) {
    auto name = sym.getName();
    auto flags = sym.getFlags();
    ASSERT_TRUE(static_cast<bool>(name) && static_cast<bool>(flags));
    if (name->empty() || !(*flags & llvm::object::SymbolRef::SF_Global)) continue;
    ((*flags & llvm::object::SymbolRef::SF_Undefined) ? undefined : defined).insert(name->str());
  }
  std::set<std::string> ops;
  for (const package::NativeSymbolSpec& sym : code.symbols) ops.insert(sym.name);
  // The kernels were internalized: only the ops' functions are global.
  EXPECT_EQ(defined, ops);
  for (const std::string& u : undefined) {
    const bool ok = u == "memcpy" || u == "memmove" || u == "memset" ||
                    (code.target == "armv7" && KnownAeabiHelper(u));
    EXPECT_TRUE(ok) << code.target << " imports " << u;
  }
}

INSTANTIATE_TEST_SUITE_P(Triples, Objects,
                         ::testing::Values("x86_64", "x86_64:cascadelake", "x86_64:x86-64",
                                           "aarch64", "armv7"));

// The functions of an x86-64 object whose names contain `part`, each as its instructions in AT&T
// syntax, one per line (LLVM's own disassembler, for the CPU the object was built for).
std::map<std::string, std::vector<std::string>> DisassembleX86(const std::vector<uint8_t>& object,
                                                               const std::string& cpu,
                                                               const std::string& part) {
  LLVMInitializeX86TargetInfo();
  LLVMInitializeX86TargetMC();
  LLVMInitializeX86Disassembler();
  const std::string triple = "x86_64-unknown-linux-gnu";
  std::string err;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, err);
  EXPECT_NE(t, nullptr) << err;
  if (t == nullptr) return {};
  std::unique_ptr<llvm::MCRegisterInfo> mri(t->createMCRegInfo(triple));
  llvm::MCTargetOptions mco;
  std::unique_ptr<llvm::MCAsmInfo> mai(t->createMCAsmInfo(*mri, triple, mco));
  std::unique_ptr<llvm::MCSubtargetInfo> sti(t->createMCSubtargetInfo(triple, cpu, ""));
  std::unique_ptr<llvm::MCInstrInfo> mii(t->createMCInstrInfo());
  llvm::MCContext ctx{llvm::Triple(triple), mai.get(), mri.get(), sti.get()};
  std::unique_ptr<llvm::MCDisassembler> dis(t->createMCDisassembler(*sti, ctx));
  std::unique_ptr<llvm::MCInstPrinter> printer(
      t->createMCInstPrinter(llvm::Triple(triple), /*AT&T*/ 0, *mai, *mii, *mri));
  auto buffer = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(reinterpret_cast<const char*>(object.data()), object.size()), "", false);
  auto file = llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  EXPECT_TRUE(static_cast<bool>(file));
  if (!file) return {};
  std::map<std::string, std::vector<std::string>> out;
  for (const llvm::object::ELFSymbolRef sym :
       llvm::cast<llvm::object::ELFObjectFileBase>(**file).symbols()) {
    auto name = sym.getName();
    auto type = sym.getType();
    auto section = sym.getSection();
    auto value = sym.getValue();
    if (!name || !type || !section || !value || *type != llvm::object::SymbolRef::ST_Function ||
        name->find(part) == llvm::StringRef::npos) {
      continue;
    }
    auto contents = (*section)->getContents();
    if (!contents) continue;
    const auto bytes = llvm::arrayRefFromStringRef(contents->substr(*value, sym.getSize()));
    std::vector<std::string>& lines = out[name->str()];
    for (uint64_t at = 0; at < bytes.size();) {
      llvm::MCInst inst;
      uint64_t size = 0;
      if (dis->getInstruction(inst, size, bytes.slice(at), at, llvm::nulls()) !=
          llvm::MCDisassembler::Success) {
        lines.push_back("<undecodable>");
        size = std::max<uint64_t>(size, 1);
      } else {
        std::string text;
        llvm::raw_string_ostream os(text);
        printer->printInst(&inst, at, "", *sti, os);
        lines.push_back(os.str());
      }
      at += size;
    }
  }
  return out;
}

// The VNNI rows keep their 24 accumulators, two weight vectors and one broadcast in the 32 zmm
// registers: no vector moves to or from the stack between the first and the last vpdpbusd (the
// reduction loop). LLVM's x86 machine scheduler, left on, hoisted every broadcast above the
// multiply-adds and spilled accumulators there (codegen.cc MachineSchedulerOff).
TEST(Objects, VnniRowsKeepTheirAccumulatorsInRegisters) {
  HwConfig config;
  ASSERT_TRUE(LoadHwConfig("1x16x16", &config).ok());
  testing::ConvModelOptions mo;
  mo.c = 40;
  mo.hw = 24;  // rows of 24 positions: two calls of 12
  mo.o = 48;   // three output blocks: a pair, then one
  mo.o2 = 32;
  package::PackageSpec spec;
  ASSERT_TRUE(testing::BuildConvModel(config, mo, &spec).ok());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(package::SerializePackage(spec, &bytes).ok());
  std::unique_ptr<runtime::Package> p;
  ASSERT_TRUE(runtime::Package::LoadMemory(bytes.data(), bytes.size(), &p).ok());
  std::vector<CpuTarget> targets;
  ASSERT_TRUE(ParseCpuTargets("x86_64:cascadelake", &targets).ok());
  package::NativeCodeSpec code;
  const Status s = CompileNative(*p, targets[0], CodegenOptions{}, &code);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const auto functions = DisassembleX86(code.object, "cascadelake", "4vnni4Rows");
  ASSERT_FALSE(functions.empty());
  bool pair_rows = false;
  for (const auto& [name, lines] : functions) {
    pair_rows |= name.find("ILj16ELj12ELj2E") != std::string::npos;  // Rows<16, 12, 2>
    size_t first = lines.size(), last = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].find("vpdpbusd") == std::string::npos) continue;
      first = std::min(first, i);
      last = i;
    }
    ASSERT_LT(first, lines.size()) << name << " has no vpdpbusd";
    for (size_t i = first; i <= last; ++i) {
      const bool vector = lines[i].find("%zmm") != std::string::npos;
      const bool stack = lines[i].find("(%rsp") != std::string::npos;
      EXPECT_FALSE(vector && stack) << name << " spills in its reduction: " << lines[i];
    }
  }
  EXPECT_TRUE(pair_rows) << "no Rows<16, 12, 2>: the model no longer exercises the widest rows";
}

TEST(AddNativeCode, AppendsOneEntryPerTargetThatTheLoaderAccepts) {
  package::PackageSpec spec;
  ConvPackage(&spec);
  std::vector<CpuTarget> targets;
  ASSERT_TRUE(ParseCpuTargets("armv7,aarch64:generic", &targets).ok());
  std::vector<std::string> done;
  CodegenOptions options;
  options.done = [&](const CpuTarget& t, const package::NativeCodeSpec&, double) {
    done.push_back(t.name);
  };
  ASSERT_TRUE(AddNativeCode(targets, options, &spec).ok());
  EXPECT_EQ(done, (std::vector<std::string>{"armv7", "aarch64"}));
  ASSERT_EQ(spec.native.size(), 2u);
  std::vector<uint8_t> bytes;
  const Status s = package::SerializePackage(spec, &bytes);  // loads it back
  ASSERT_TRUE(s.ok()) << s.ToString();
}

}  // namespace
}  // namespace loom::codegen
