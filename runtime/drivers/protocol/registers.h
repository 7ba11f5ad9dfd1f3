// The accelerator's AXI4-Lite register map, as the protocol (accelerator.h) sees it.
// docs/registers.md is the specification; vta_hw/rtl/loom_regs.sv implements it.
#ifndef LOOM_RUNTIME_DRIVERS_PROTOCOL_REGISTERS_H_
#define LOOM_RUNTIME_DRIVERS_PROTOCOL_REGISTERS_H_

#include <cstdint>

namespace loom::runtime::reg {

inline constexpr uint32_t kCtrl = 0x00;
inline constexpr uint32_t kGie = 0x04;
inline constexpr uint32_t kIer = 0x08;
inline constexpr uint32_t kIsr = 0x0C;
inline constexpr uint32_t kInsnAddrLo = 0x10;
inline constexpr uint32_t kInsnAddrHi = 0x14;
inline constexpr uint32_t kInsnCount = 0x18;
inline constexpr uint32_t kStatus = 0x20;
inline constexpr uint32_t kErrorInsn = 0x24;
inline constexpr uint32_t kCyclesLo = 0x28;
inline constexpr uint32_t kCyclesHi = 0x2C;
inline constexpr uint32_t kLoadLast = 0x30;
inline constexpr uint32_t kComputeLast = 0x34;
inline constexpr uint32_t kStoreLast = 0x38;
inline constexpr uint32_t kFetched = 0x3C;
inline constexpr uint32_t kConfigHashLo = 0x40;
inline constexpr uint32_t kConfigHashHi = 0x44;
inline constexpr uint32_t kVersion = 0x48;
inline constexpr uint32_t kLoadBusy = 0x50;
inline constexpr uint32_t kComputeBusy = 0x54;
inline constexpr uint32_t kStoreBusy = 0x58;
inline constexpr uint32_t kGemmIters = 0x5C;
inline constexpr uint32_t kBytesReadLo = 0x60;
inline constexpr uint32_t kBytesReadHi = 0x64;
inline constexpr uint32_t kBytesWrittenLo = 0x68;
inline constexpr uint32_t kBytesWrittenHi = 0x6C;
inline constexpr uint32_t kTokens = 0x70;

// CTRL bits.
inline constexpr uint32_t kCtrlStart = 1u << 0;
inline constexpr uint32_t kCtrlDone = 1u << 1;
inline constexpr uint32_t kCtrlIdle = 1u << 2;
inline constexpr uint32_t kCtrlReady = 1u << 3;

// STATUS: bit 0 error, bits 7:4 the code.
inline constexpr uint32_t kStatusError = 1u << 0;
inline constexpr uint32_t StatusCode(uint32_t status) { return (status >> 4) & 0xf; }
inline constexpr uint32_t kErrInvalidInsn = 1;
inline constexpr uint32_t kErrTokens = 2;
inline constexpr uint32_t kErrDram = 3;
inline constexpr uint32_t kErrStream = 4;

// The RTL version (VERSION, 0x00MMmmpp) this protocol was written against; another major version
// is refused at open.
inline constexpr uint32_t kExpectedVersion = 0x00010000;

}  // namespace loom::runtime::reg

#endif  // LOOM_RUNTIME_DRIVERS_PROTOCOL_REGISTERS_H_
