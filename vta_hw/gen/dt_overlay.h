// `loom-hwconfig overlay BOARD -o FILE.dtso`: the device-tree overlay that brings the accelerator
// up under Linux on a Zynq board, applied through configfs (docs/boards.md).
//
// One fragment on the fpga_full region (the whole PL, a label both the Zynq-7000 and the ZynqMP
// kernel trees define): firmware-name makes the FPGA manager load the bitstream from /lib/firmware,
// and the region's children appear once it is programmed:
//   - `loom@<base>`, compatible "generic-uio": the register window and the interrupt, for
//     uio_pdrv_genirq (its UIO name is "loom"); it also sets the PL clock to the board's clock_mhz;
//   - `udmabuf-loom`, compatible "ikwzm,u-dma-buf": the DMA region of dma_region_bytes, with
//     dma-coherent when the board's port snoops the CPU caches (/dev/udmabuf-loom).
// tests/boards compiles the result with dtc and checks the nodes in the decompiled tree.
#ifndef LOOM_VTA_HW_GEN_DT_OVERLAY_H_
#define LOOM_VTA_HW_GEN_DT_OVERLAY_H_

#include <string>

#include "runtime/config/config_file.h"
#include "runtime/core/status.h"

namespace loom::hwgen {

// What the zynq driver looks for once the overlay is applied.
inline constexpr char kUioName[] = "loom";                // /sys/class/uio/uioN/name
inline constexpr char kDmaBufferName[] = "udmabuf-loom";  // /dev/udmabuf-loom

// The overlay source (.dtso). Fails for a board that is not zynq7 or zynqmp.
Status GenerateDtOverlay(const Board& board, std::string* out);

}  // namespace loom::hwgen

#endif  // LOOM_VTA_HW_GEN_DT_OVERLAY_H_
