// ARM semihosting, for the one thing a UART cannot do: end the run with a status the host sees
// (QEMU's -semihosting, a debugger's). Without a semihosting host the call returns (startup.S's
// SVC handler) and the image parks the core instead.
#ifndef LOOM_FIRMWARE_BAREMETAL_SEMIHOSTING_H_
#define LOOM_FIRMWARE_BAREMETAL_SEMIHOSTING_H_

namespace loom::baremetal {

// SYS_EXIT_EXTENDED with ADP_Stopped_ApplicationExit and `status` as the exit code; returns only
// when nothing took the call.
void SemihostingExit(int status);

}  // namespace loom::baremetal

#endif  // LOOM_FIRMWARE_BAREMETAL_SEMIHOSTING_H_
