// Putting the accelerator on the fabric from Linux user space: a bitstream through the kernel's
// FPGA manager, or a device-tree overlay through configfs (which also programs the bitstream its
// firmware-name names and creates the UIO and u-dma-buf devices).
#ifndef LOOM_RUNTIME_DRIVERS_ZYNQ_FPGA_MANAGER_H_
#define LOOM_RUNTIME_DRIVERS_ZYNQ_FPGA_MANAGER_H_

#include <string>

#include "runtime/core/status.h"

namespace loom::runtime::zynq {

struct FpgaOptions {
  std::string root = "/";         // sysfs, configfs and /lib/firmware are looked up under this
  std::string manager = "fpga0";  // /sys/class/fpga_manager/<manager>
};

// Loads /lib/firmware/<file_name> (a plain file name: the kernel only loads from the firmware
// folder) by writing the name to the manager's `firmware` attribute, then checks that `state`
// reads "operating". *state (optional) receives the state read back.
Status LoadBitstream(const FpgaOptions& options, const std::string& file_name,
                     std::string* state = nullptr);

// Applies /lib/firmware/<dtbo_file_name> as overlay `overlay_name`: creates
// /sys/kernel/config/device-tree/overlays/<overlay_name>, writes the file name to its `path`, and
// checks its `status` reads "applied". Then waits (at most `timeout_ms`, checking every 10 ms) for
// the UIO device named `uio_name` to appear; kDeadlineExceeded if it does not.
Status ApplyOverlay(const FpgaOptions& options, const std::string& overlay_name,
                    const std::string& dtbo_file_name, const std::string& uio_name, int timeout_ms);

// ApplyOverlay after its mkdir: the overlay folder exists (configfs made `path` and `status` in
// it); writes the file name, checks the status and waits for the UIO device. Split out so tests,
// whose fake folder cannot grow files by itself, can run the steps after mkdir.
Status CompleteOverlay(const FpgaOptions& options, const std::string& overlay_name,
                       const std::string& dtbo_file_name, const std::string& uio_name,
                       int timeout_ms);

}  // namespace loom::runtime::zynq

#endif  // LOOM_RUNTIME_DRIVERS_ZYNQ_FPGA_MANAGER_H_
