// LoadObject: ElfFile::Parse, the machine check, PlanLink, one block of code memory (or the
// caller's), Link, seal.
#include "runtime/native/loader.h"

#include <cstring>
#include <new>

#include "runtime/native/link.h"

namespace loom::runtime::native {

namespace {

uint16_t HostMachine() {
#if defined(__x86_64__)
  return elf::kMachineX86_64;
#elif defined(__aarch64__)
  return elf::kMachineAarch64;
#elif defined(__arm__)
  return elf::kMachineArm;
#else
  return 0;
#endif
}

// Parses and plans `data` for the running machine.
Status Plan(const uint8_t* data, size_t size, ElfFile* file, LinkPlan* plan) {
  LOOM_RETURN_IF_ERROR(ElfFile::Parse(data, size, file));
  const uint16_t host = HostMachine();
  if (host == 0) {
    return Unimplemented("this runtime runs on a machine the native loader does not support");
  }
  if (file->machine() != host) {
    // Named whether or not this build links that machine's relocations (bare metal keeps only its
    // own, LOOM_NATIVE_HOST_ONLY).
    if (const char* name = MachineName(file->machine())) {
      return InvalidArgument("object is for {}, this runtime runs {}", name, HostTriple());
    }
    return InvalidArgument("object is for ELF machine {}, this runtime runs {}", file->machine(),
                           HostTriple());
  }
  return PlanLink(*file, CodePageSize(), plan);
}

}  // namespace

const char* HostTriple() {
  const char* name = MachineName(HostMachine());
  return name != nullptr ? name : "unknown";
}

Module::~Module() { FreeCodeMemory(memory_); }

const void* Module::Symbol(const char* name) const {
  for (size_t i = 0; i < export_count_; ++i) {
    if (std::strcmp(export_name(i), name) == 0) {
      return reinterpret_cast<const void*>(static_cast<uintptr_t>(exports_[i].address));
    }
  }
  return nullptr;
}

const char* Module::export_name(size_t i) const {
  return reinterpret_cast<const char*>(memory_.base + exports_[i].name_offset);
}

// Loads into `memory` (the caller's, `capacity` bytes) or, when it is null, into a block of the
// module's own.
Status LoadInto(const uint8_t* data, size_t size, const Import* imports, size_t n_imports,
                void* memory, size_t capacity, std::unique_ptr<Module>* out) {
  out->reset();
  ElfFile file;
  LinkPlan plan;
  LOOM_RETURN_IF_ERROR(Plan(data, size, &file, &plan));
  std::unique_ptr<Module> module(new (std::nothrow) Module());
  if (module == nullptr) return FailedPrecondition("out of memory for a native module");
  CodeMemory& block = module->memory_;
  if (memory == nullptr) {
    LOOM_RETURN_IF_ERROR(
        AllocateCodeMemory(static_cast<size_t>(plan.total_size), plan.needs_low_address, &block));
  } else {
    const size_t page = CodePageSize();
    if (reinterpret_cast<uintptr_t>(memory) % page != 0) {
      return InvalidArgument("memory for native code at {} is not aligned to the {}-byte page",
                             static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(memory)),
                             page);
    }
    if (capacity < plan.total_size) {
      return OutOfRange("the object needs {} bytes of memory, {} were given", plan.total_size,
                        capacity);
    }
    block.base = static_cast<uint8_t*>(memory);
    block.size = static_cast<size_t>(plan.total_size);
    std::memset(block.base, 0, block.size);
  }
  LOOM_RETURN_IF_ERROR(
      Link(file, plan, imports, n_imports, block.base, reinterpret_cast<uintptr_t>(block.base)));
  LOOM_RETURN_IF_ERROR(SealCodeMemory(block, static_cast<size_t>(plan.exec_size)));
  block.sealed = static_cast<size_t>(plan.exec_size);
  module->exec_size_ = static_cast<size_t>(plan.exec_size);
  module->exports_ = Exports(block.base, plan);
  module->export_count_ = plan.export_count;
  *out = std::move(module);
  return Status::Ok();
}

Status LoadObject(const uint8_t* data, size_t size, const Import* imports, size_t n_imports,
                  std::unique_ptr<Module>* out) {
  return LoadInto(data, size, imports, n_imports, nullptr, 0, out);
}

Status LoadObjectInto(const uint8_t* data, size_t size, const Import* imports, size_t n_imports,
                      void* memory, size_t capacity, std::unique_ptr<Module>* out) {
  if (memory == nullptr) return InvalidArgument("LoadObjectInto: no memory given");
  return LoadInto(data, size, imports, n_imports, memory, capacity, out);
}

Status ObjectMemorySize(const uint8_t* data, size_t size, size_t* bytes) {
  *bytes = 0;
  ElfFile file;
  LinkPlan plan;
  LOOM_RETURN_IF_ERROR(Plan(data, size, &file, &plan));
  *bytes = static_cast<size_t>(plan.total_size);
  return Status::Ok();
}

}  // namespace loom::runtime::native
