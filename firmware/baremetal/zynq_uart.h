// Console output on the Zynq-7000's UART0 (Cadence UART at 0xE0000000, the Pynq-Z1's USB serial
// port and QEMU's first -serial). Polled, transmit only: the image prints and never reads.
#ifndef LOOM_FIRMWARE_BAREMETAL_ZYNQ_UART_H_
#define LOOM_FIRMWARE_BAREMETAL_ZYNQ_UART_H_

#include <cstddef>

namespace loom::baremetal {

// 115200 8N1 from the 100 MHz UART reference clock the Zynq boards run it at.
void UartInit();
// Writes `n` bytes, "\n" as "\r\n".
void UartWrite(const char* data, size_t n);
// Waits until the transmitter has sent everything (before exit).
void UartFlush();

}  // namespace loom::baremetal

#endif  // LOOM_FIRMWARE_BAREMETAL_ZYNQ_UART_H_
