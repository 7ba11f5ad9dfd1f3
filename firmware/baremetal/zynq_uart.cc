#include "firmware/baremetal/zynq_uart.h"

#include <cstdint>

namespace loom::baremetal {
namespace {

// Zynq-7000 TRM (UG585) appendix B.33, UART0.
constexpr uintptr_t kBase = 0xE0000000;
constexpr uint32_t kCr = 0x00, kMr = 0x04, kBaudGen = 0x18, kSr = 0x2C, kFifo = 0x30,
                   kBaudDiv = 0x34;
constexpr uint32_t kCrRxRst = 1u << 0, kCrTxRst = 1u << 1, kCrRxEn = 1u << 2, kCrTxEn = 1u << 4;
constexpr uint32_t kMr8N1 = 0x20;  // 8 data bits, no parity, 1 stop bit, normal mode
constexpr uint32_t kSrTxEmpty = 1u << 3, kSrTxFull = 1u << 4;
// 100 MHz / (124 * (6 + 1)) = 115207 baud.
constexpr uint32_t kBaudGenValue = 124, kBaudDivValue = 6;
// A bound on every wait for the transmitter, so a UART that is not clocked cannot hang the image.
constexpr uint32_t kSpinLimit = 1u << 22;

volatile uint32_t& Reg(uint32_t offset) {
  return *reinterpret_cast<volatile uint32_t*>(kBase + offset);
}

void PutByte(char c) {
  for (uint32_t i = 0; (Reg(kSr) & kSrTxFull) && i < kSpinLimit; ++i) {
  }
  Reg(kFifo) = static_cast<uint8_t>(c);
}

}  // namespace

void UartInit() {
  UartFlush();  // what a boot loader printed before us
  Reg(kCr) = kCrTxRst | kCrRxRst;
  Reg(kMr) = kMr8N1;
  Reg(kBaudGen) = kBaudGenValue;
  Reg(kBaudDiv) = kBaudDivValue;
  Reg(kCr) = kCrTxEn | kCrRxEn;
}

void UartWrite(const char* data, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (data[i] == '\n') PutByte('\r');
    PutByte(data[i]);
  }
}

void UartFlush() {
  for (uint32_t i = 0; !(Reg(kSr) & kSrTxEmpty) && i < kSpinLimit; ++i) {
  }
}

}  // namespace loom::baremetal
