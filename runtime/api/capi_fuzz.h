// The input format of capi_fuzz (capi_fuzz.cc), shared with the program that writes its seed
// corpus (tests/runtime/make_test_package.cc). Bytes are read front to back, 0 once exhausted;
// 16-bit values are little-endian. First the index of the package in fuzz_packages.h, then calls,
// each an opcode byte followed by its operands.
#ifndef LOOM_RUNTIME_API_CAPI_FUZZ_H_
#define LOOM_RUNTIME_API_CAPI_FUZZ_H_

#include <cstdint>

namespace loom::fuzz {

enum CapiCall : uint8_t {
  // flags (bits 0-1 device cpu, fsim, NULL, unknown; bit 2 trace; bit 3 truncate the image to
  // `cut` % size bytes; bit 4 NULL options), config (% 5: NULL, 1x8x8, 1x16x16, "", unknown),
  // cut (16 bits)
  kCapiOpen,
  // name (kCapiName*), dtype (bit 0: int8), rank (% 10), one selector per dim (% 10: 0, -1,
  // INT64_MAX, INT64_MIN, 2^32, the model's dim times 1 + sel / 10 % 4, sel / 10 + 1, else the
  // model's dim), byte count (16 bits, % 4: what the shape needs, one less, none, value / 4), fill
  kCapiSetInput,
  kCapiRun,          // int8_outputs (% 3: loom_run, loom_run_ex with 1, with 2)
  kCapiGetOutput,    // name, dtype, byte count (16 bits; even: from loom_output_shape, exact,
                     // one more or one less by value / 2 % 3; odd: the value itself)
  kCapiOutputShape,  // name
  kCapiInfo,         // which (bit 0: output), index
  kCapiStats,
  kCapiResetStats,
  kCapiTrace,
  kCapiClose,
  kCapiStatusName,  // status value (% 16)
  kCapiNumCalls
};

// Name selectors (% 8): NULL, "", an unknown name, else the model's input or output number
// (sel % 8 - 3) % count.
inline constexpr uint8_t kCapiNameNull = 0;
inline constexpr uint8_t kCapiNameEmpty = 1;
inline constexpr uint8_t kCapiNameUnknown = 2;
inline constexpr uint8_t CapiModelName(uint8_t index) {
  return static_cast<uint8_t>(3 + index % 5);
}

}  // namespace loom::fuzz

#endif  // LOOM_RUNTIME_API_CAPI_FUZZ_H_
