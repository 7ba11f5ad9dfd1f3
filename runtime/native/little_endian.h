// Little-endian loads and stores of unaligned bytes: how the loader reads an ELF object's fields
// (elf_file.cc) and patches its code (arch_*.cc). The objects are little-endian whatever the host,
// and a field may sit at any offset, so nothing here casts a byte pointer to a wider type.
#ifndef LOOM_RUNTIME_NATIVE_LITTLE_ENDIAN_H_
#define LOOM_RUNTIME_NATIVE_LITTLE_ENDIAN_H_

#include <cstdint>

namespace loom::runtime::native {

inline uint16_t Load16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
inline uint32_t Load32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
inline uint64_t Load64(const uint8_t* p) { return Load32(p) | uint64_t{Load32(p + 4)} << 32; }
inline void Store16(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
inline void Store32(uint8_t* p, uint32_t v) {
  Store16(p, v);
  Store16(p + 2, v >> 16);
}
inline void Store64(uint8_t* p, uint64_t v) {
  Store32(p, static_cast<uint32_t>(v));
  Store32(p + 4, static_cast<uint32_t>(v >> 32));
}

}  // namespace loom::runtime::native

#endif  // LOOM_RUNTIME_NATIVE_LITTLE_ENDIAN_H_
