// The native-code loader: makes the ELF relocatable objects that `loom compile --cpu-targets`
// produces with LLVM (one per target triple, carried in the package) callable in the running
// process, without linking LLVM or a system dynamic linker (DESIGN.md §2.7, docs/cpu.md "Native
// code loader"). It is a small static linker for one object: it lays the object's allocatable
// sections out in one block, resolves undefined symbols from a table the caller gives, applies
// every relocation and makes the code executable. Freestanding C++17, so it builds for bare metal.
//
// Accepted: little-endian ET_REL objects for x86-64 (ELF64), aarch64 (ELF64) and armv7 (ELF32,
// ARM and Thumb-2 code, hard-float), of the machine this build runs on. Unwind tables
// (.eh_frame, .ARM.exidx/.ARM.extab) are not loaded: native code must not throw through the loader.
#ifndef LOOM_RUNTIME_NATIVE_LOADER_H_
#define LOOM_RUNTIME_NATIVE_LOADER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/core/status.h"
#include "runtime/native/code_memory.h"

namespace loom::runtime::native {

// A symbol the object may reference that it does not define (memcpy, memset, a runtime helper).
// On armv7 a Thumb function's address has bit 0 set, as C function pointers do.
struct Import {
  const char* name;
  const void* address;
};

// One defined global symbol of a loaded module, kept inside the module's read-only memory.
struct Export {
  uint64_t name_offset;  // from the start of the module's block; a NUL-terminated string
  uint64_t address;
};

// A loaded object: its code, read-only data and GOT in one read+execute region, its writable data
// and .bss in a read+write region after it (one allocation). Owns the memory; the code stays valid
// until the Module is destroyed, so function pointers from Symbol() must not outlive it.
class Module {
 public:
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The address of a defined global (or weak) symbol, or null when the object defines none of that
  // name. A Thumb function's address has bit 0 set, so it can be called through a pointer.
  const void* Symbol(const char* name) const;

  size_t export_count() const { return export_count_; }
  const char* export_name(size_t i) const;
  // The block: code, read-only data and GOT first (code_size bytes), then writable data.
  const uint8_t* code() const { return memory_.base; }
  size_t code_size() const { return exec_size_; }
  size_t total_size() const { return memory_.size; }

 private:
  friend Status LoadInto(const uint8_t*, size_t, const Import*, size_t, void*, size_t,
                         std::unique_ptr<Module>*);
  Module() = default;

  CodeMemory memory_;
  size_t exec_size_ = 0;
  const Export* exports_ = nullptr;
  size_t export_count_ = 0;
};

// Parses an ELF relocatable object for the running machine, lays out its allocatable sections
// (.text*, .rodata*, .data*, .bss*, literal pools) in one block, applies every relocation,
// resolves undefined symbols from `imports`, and makes the code executable. `data` is only read
// during the call. Errors name the problem and where (section, relocation index, symbol, type).
Status LoadObject(const uint8_t* data, size_t size, const Import* imports, size_t n_imports,
                  std::unique_ptr<Module>* out);

// The bytes LoadObjectInto needs for this object: code, data, GOT, veneers and the loader's
// scratch, a multiple of CodePageSize(). Checks the object as LoadObject does, imports aside.
Status ObjectMemorySize(const uint8_t* data, size_t size, size_t* bytes);

// LoadObject into memory the caller provides instead of a block of its own (a static arena on
// bare metal, a region set aside for code): `memory` is aligned to CodePageSize() and holds
// `capacity` >= ObjectMemorySize() bytes, readable and writable, and stays the caller's. The Module
// borrows it until destroyed and then leaves it writable again (on Linux the code part is
// read+execute meanwhile, so nothing else may live in it).
Status LoadObjectInto(const uint8_t* data, size_t size, const Import* imports, size_t n_imports,
                      void* memory, size_t capacity, std::unique_ptr<Module>* out);

// "x86_64", "aarch64" or "armv7": the triple of the code this build executes ("unknown" on any
// other machine, where LoadObject reports kUnimplemented).
const char* HostTriple();

}  // namespace loom::runtime::native

#endif  // LOOM_RUNTIME_NATIVE_LOADER_H_
