// LoadObject: ElfFile::Parse, the machine check, PlanLink, one block of code memory, Link, seal.
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

}  // namespace

const char* HostTriple() {
  const uint16_t machine = HostMachine();
  return machine == 0 ? "unknown" : MachineName(machine);
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

Status LoadObject(const uint8_t* data, size_t size, const Import* imports, size_t n_imports,
                  std::unique_ptr<Module>* out) {
  out->reset();
  ElfFile file;
  LOOM_RETURN_IF_ERROR(ElfFile::Parse(data, size, &file));
  const uint16_t host = HostMachine();
  if (host == 0) {
    return Unimplemented("this runtime runs on a machine the native loader does not support");
  }
  if (file.machine() != host) {
    if (ArchForMachine(file.machine()) != nullptr) {
      return InvalidArgument("object is for {}, this runtime runs {}", MachineName(file.machine()),
                             HostTriple());
    }
    return InvalidArgument("object is for ELF machine {}, this runtime runs {}", file.machine(),
                           HostTriple());
  }
  LinkPlan plan;
  LOOM_RETURN_IF_ERROR(PlanLink(file, CodePageSize(), &plan));
  std::unique_ptr<Module> module(new (std::nothrow) Module());
  if (module == nullptr) return FailedPrecondition("out of memory for a native module");
  LOOM_RETURN_IF_ERROR(AllocateCodeMemory(static_cast<size_t>(plan.total_size),
                                          plan.needs_low_address, &module->memory_));
  LOOM_RETURN_IF_ERROR(Link(file, plan, imports, n_imports, module->memory_.base,
                            reinterpret_cast<uintptr_t>(module->memory_.base)));
  LOOM_RETURN_IF_ERROR(SealCodeMemory(module->memory_, static_cast<size_t>(plan.exec_size)));
  module->exec_size_ = static_cast<size_t>(plan.exec_size);
  module->exports_ = Exports(module->memory_.base, plan);
  module->export_count_ = plan.export_count;
  *out = std::move(module);
  return Status::Ok();
}

}  // namespace loom::runtime::native
