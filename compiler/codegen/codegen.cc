#include "compiler/codegen/codegen.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/Transforms/IPO/Internalize.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "compiler/codegen/kernel_bitcode.h"
#include "compiler/codegen/op_calls.h"
#include "runtime/exec/native_ops.h"

namespace loom::codegen {

namespace {

void InitLlvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Only the three backends native code is built for.
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    LLVMInitializeARMTargetInfo();
    LLVMInitializeARMTarget();
    LLVMInitializeARMTargetMC();
    LLVMInitializeARMAsmPrinter();
  });
}

std::string ErrorText(llvm::Error e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  return os.str();
}

Status MakeTargetMachine(const CpuTarget& t, std::unique_ptr<llvm::TargetMachine>* out) {
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(t.triple, err);
  if (target == nullptr) return Internal("LLVM has no backend for {}: {}", t.triple, err);
  llvm::TargetOptions opt;
  opt.FloatABIType = llvm::FloatABI::Hard;  // armv7: gnueabihf; ignored elsewhere
  // Static relocation model and small code model: what runtime/native's loader relocates.
  out->reset(target->createTargetMachine(t.triple, t.cpu, t.llvm_features, opt, llvm::Reloc::Static,
                                         llvm::CodeModel::Small, llvm::CodeGenOpt::Aggressive));
  if (*out == nullptr) return Internal("LLVM cannot build for {} cpu {}", t.triple, t.cpu);
  return Status::Ok();
}

// One op's function: its calls with constant arguments, then `return 0`.
Status BuildOpFunction(llvm::Module& m, const OpCalls& oc) {
  llvm::LLVMContext& ctx = m.getContext();
  llvm::Type* i8 = llvm::Type::getInt8Ty(ctx);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::PointerType* ptr = llvm::PointerType::get(i8, 0);
  auto* type = llvm::FunctionType::get(i32, {ptr, ptr, ptr}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, oc.symbol, m);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value* arena = fn->getArg(0);
  llvm::Value* constants = fn->getArg(1);
  llvm::Value* workspace = fn->getArg(2);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  // The op's rodata (packed weights) as private constants of the object, 64-byte aligned for
  // the row kernels' vector loads.
  std::vector<llvm::GlobalVariable*> rodata;
  for (size_t i = 0; i < oc.rodata.size(); ++i) {
    auto* init = llvm::ConstantDataArray::get(ctx, llvm::ArrayRef<uint8_t>(oc.rodata[i]));
    auto* g = new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                       llvm::GlobalValue::PrivateLinkage, init,
                                       oc.symbol + ".rodata" + std::to_string(i));
    g->setAlignment(llvm::Align(64));
    g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    rodata.push_back(g);
  }
  auto pointer = [&](const Buffer& buf, llvm::Type* want) -> llvm::Value* {
    llvm::Value* base = nullptr;
    switch (buf.kind) {
      case Buffer::kNull:
        return llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(want));
      case Buffer::kRodata:
        return b.CreatePointerCast(rodata[buf.offset], want);
      case Buffer::kArena:
        base = arena;
        break;
      case Buffer::kConstants:
        base = constants;
        break;
      case Buffer::kWorkspace:
        base = workspace;
        break;
    }
    return b.CreatePointerCast(b.CreateConstInBoundsGEP1_64(i8, base, buf.offset), want);
  };
  for (size_t c = 0; c < oc.calls.size(); ++c) {
    const KernelCall& call = oc.calls[c];
    if (call.entry == nullptr) {
      b.CreateMemSet(pointer(call.buffers[0], ptr), b.getInt8(0), b.getInt64(call.bytes),
                     llvm::MaybeAlign(1));
      continue;
    }
    llvm::Function* callee = m.getFunction(call.entry);
    if (callee == nullptr || callee->arg_size() != call.buffers.size() + 1) {
      return Internal("kernel bitcode: entry {} is missing or takes {} arguments, not {}",
                      call.entry, callee ? callee->arg_size() : 0, call.buffers.size() + 1);
    }
    auto* init = llvm::ConstantDataArray::get(ctx, llvm::ArrayRef<int32_t>(call.args));
    auto* args = new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                          llvm::GlobalValue::PrivateLinkage, init,
                                          oc.symbol + ".args" + std::to_string(c));
    args->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    llvm::SmallVector<llvm::Value*, 8> values;
    values.push_back(b.CreatePointerCast(args, callee->getArg(0)->getType()));
    for (size_t i = 0; i < call.buffers.size(); ++i) {
      values.push_back(
          pointer(call.buffers[i], callee->getArg(static_cast<unsigned>(i + 1))->getType()));
    }
    b.CreateCall(callee, values);
  }
  b.CreateRet(b.getInt32(0));
  return Status::Ok();
}

// x86's pre-register-allocation machine scheduler, off while an x86 object is emitted. The
// register-blocked rows hold up to 24 zmm accumulators and two weight vectors in 32 registers,
// one broadcast of an input quad at a time; the scheduler hoists all twelve broadcasts of an
// iteration above the vpdpbusd that use them (latency hiding by its model) and then spills
// accumulators to the stack in the innermost loop: 35 spill moves per iteration in
// Rows<16, 12, 2>, and ResNet-18's 64-channel layers 40 % slower than GCC's code for the same
// source. Without it, instructions keep the source's order and the loop has no spill, as GCC's
// (docs/cpu.md, "Native code"). LLVM has no per-function switch for this, only the global
// option (the `-mllvm -enable-misched=false` of clang), so it is set for the one emission and
// restored after. ARM targets keep the scheduler: their cores (Cortex-A9, A53) issue in order,
// where scheduling pays, and their rows do not spill with it. Process-global while it lives:
// CompileNative must not emit x86 code on two threads at once.
class MachineSchedulerOff {
 public:
  explicit MachineSchedulerOff(bool off) {
    if (!off) return;
    auto& options = llvm::cl::getRegisteredOptions();
    auto it = options.find("enable-misched");
    if (it == options.end() || it->second->getNumOccurrences() != 0) return;
    // As on a command line: the scheduler pass reads the value only when the option occurred.
    if (it->second->addOccurrence(0, "enable-misched", "false")) return;
    option_ = it->second;
  }
  ~MachineSchedulerOff() {
    if (option_ != nullptr) option_->reset();  // no occurrence, the default value
  }
  MachineSchedulerOff(const MachineSchedulerOff&) = delete;
  MachineSchedulerOff& operator=(const MachineSchedulerOff&) = delete;

 private:
  llvm::cl::Option* option_ = nullptr;
};

}  // namespace

ConvRows RowsFor(const CpuTarget& t) {
  auto has = [&](const char* f) {
    for (const std::string& g : t.features) {
      if (g == f) return true;
    }
    return false;
  };
  if (t.name == "aarch64" || has("neon")) return ConvRows::kNeon;
  if (has("avx512vnni")) return ConvRows::kAvx512Vnni;
  if (has("avx2")) return ConvRows::kAvx2;
  return ConvRows::kNone;
}

Status CompileNative(const runtime::Package& package, const CpuTarget& target,
                     const CodegenOptions& options, package::NativeCodeSpec* out) {
  InitLlvm();
  std::unique_ptr<llvm::TargetMachine> tm;
  LOOM_RETURN_IF_ERROR(MakeTargetMachine(target, &tm));
  const Bitcode bc = KernelBitcode(target.name);
  if (bc.size == 0) return Internal("no kernel bitcode for target {}", target.name);

  llvm::LLVMContext ctx;
  auto buffer = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(reinterpret_cast<const char*>(bc.data), bc.size), "kernel_abi.bc",
      /*RequiresNullTerminator=*/false);
  llvm::Expected<std::unique_ptr<llvm::Module>> parsed = llvm::parseBitcodeFile(*buffer, ctx);
  if (!parsed) {
    return Internal("kernel bitcode for {} does not parse: {}", target.name,
                    ErrorText(parsed.takeError()));
  }
  // The kernels' module is the base: the op functions are added to it, which links them.
  std::unique_ptr<llvm::Module> m = std::move(*parsed);
  m->setModuleIdentifier("loom_native_" + target.name);
  m->setTargetTriple(target.triple);
  m->setDataLayout(tm->createDataLayout());

  const std::vector<OpCalls> ops = NativeOpCalls(package, RowsFor(target));
  for (size_t i = 0; i < ops.size(); ++i) {
    LOOM_RETURN_IF_ERROR(BuildOpFunction(*m, ops[i]));
    if (options.progress) options.progress(i + 1, ops.size());
  }
  // Every function is compiled for the chosen CPU, the kernels included (clang gave them the
  // triple's default CPU), so the inliner may merge them and the vectorizer use its registers.
  const std::string features = tm->getTargetFeatureString().str();
  for (llvm::Function& f : *m) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", target.cpu);
    f.addFnAttr("target-features", features);
    f.removeFnAttr("tune-cpu");
    // No jump tables: their absolute addresses would need relocations the loader has no reason
    // to carry, for no gain in these loops.
    f.addFnAttr("no-jump-tables", "true");
    // Each op gets its own copy of its kernel, specialized on the op's constants: that copy is
    // the point of compiling ahead of time, so the inliner is not left to weigh it. The row
    // kernels' innermost functions are the exception their source marks `noinline`
    // (LOOM_ROW_KERNEL, and the NEON rows' per-position functions): shared by every op of
    // their block and position count, compiled once per module.
    if (!f.getName().startswith("loom_op_") && !f.hasFnAttribute(llvm::Attribute::NoInline)) {
      f.addFnAttr(llvm::Attribute::AlwaysInline);
    }
  }
  llvm::internalizeModule(
      *m, [](const llvm::GlobalValue& gv) { return gv.getName().startswith("loom_op_"); });
  std::string verify;
  llvm::raw_string_ostream vs(verify);
  if (llvm::verifyModule(*m, &vs)) return Internal("generated LLVM IR is invalid: {}", vs.str());

  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(tm.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(*m, mam);
  }

  // LOOM_CODEGEN_DUMP=PREFIX writes the optimized IR to PREFIX<target>.ll, to see what LLVM made
  // of the kernels (docs/cpu.md, "Native code").
  if (const char* dump = std::getenv("LOOM_CODEGEN_DUMP")) {
    std::error_code ec;
    llvm::raw_fd_ostream os(std::string(dump) + target.name + ".ll", ec);
    if (!ec) m->print(os, nullptr);
  }
  llvm::SmallVector<char, 0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager pm;
    const MachineSchedulerOff no_misched(tm->getTargetTriple().isX86());
    if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_ObjectFile)) {
      return Internal("LLVM cannot emit an object file for {}", target.triple);
    }
    pm.run(*m);
  }
  if (options.progress) options.progress(ops.size(), ops.size());

  out->target = target.name;
  out->cpu = target.cpu;
  out->features = target.features;
  out->object.assign(object.begin(), object.end());
  out->symbols.clear();
  out->workspace_bytes = 0;
  for (const OpCalls& oc : ops) {
    out->symbols.push_back({oc.segment, oc.op, oc.symbol});
    out->workspace_bytes = std::max(out->workspace_bytes, oc.workspace_bytes);
  }
  // Code that uses its workspace must not run where the runtime passes none: a 1.8 runtime
  // skips workspace_bytes, but refuses a feature it does not know and runs the kernels instead.
  if (out->workspace_bytes > 0) out->features.push_back(runtime::kWorkspaceFeature);
  return Status::Ok();
}

Status AddNativeCode(const std::vector<CpuTarget>& targets, const CodegenOptions& options,
                     package::PackageSpec* spec) {
  if (targets.empty()) return Status::Ok();
  std::vector<uint8_t> bytes;
  LOOM_RETURN_IF_ERROR(package::SerializePackage(*spec, &bytes));
  std::unique_ptr<runtime::Package> loaded;
  LOOM_RETURN_IF_ERROR(runtime::Package::LoadMemory(bytes.data(), bytes.size(), &loaded));
  for (const CpuTarget& t : targets) {
    const auto start = std::chrono::steady_clock::now();
    package::NativeCodeSpec code;
    LOOM_RETURN_IF_ERROR(CompileNative(*loaded, t, options, &code)
                             .WithContext("native code for {} ({})", t.name, t.cpu));
    if (options.done) {
      options.done(t, code,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    spec->native.push_back(std::move(code));
  }
  return Status::Ok();
}

}  // namespace loom::codegen
