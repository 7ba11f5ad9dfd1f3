// `loom-hwconfig xclbin BOARD -o FILE`: an xclbin holding an Alveo board's kernel metadata and no
// bitstream -- what XRT's noop emulation (XCL_EMULATION_MODE=noop) loads, so the xrt driver's
// device open, xclbin load, kernel lookup and buffer code run in CI with no card.
//
// Sections, as v++ would write them for `loom-hwconfig xo`'s kernel linked with its link.cfg:
//   EMBEDDED_METADATA  the kernel's ports and arguments (kernel.xml's) and its one instance; XRT
//                 sizes the register window from the slave port's range (kRegisterWindowBytes)
//   IP_LAYOUT     one compute unit "<kernel_name>:<kernel_name>_1", user-managed control
//                 (AP_CTRL_NONE), interrupt enabled, at the board's register_base
//   MEM_TOPOLOGY  DDR4 banks bank0..bankN up to the board's dma_port "DDR[N]"; only bank N is
//                 marked used, dram_bytes each
//   CONNECTIVITY  every pointer argument of kernel.xml (register_map.h) on bank N
// Debian's libxrt-utils ships xclbinutil as a wrapper without its binary, so the file is written
// here with the structs of XRT's own <xrt/xclbin.h>; XRT's parser (xrt::xclbin) reads it back in
// the xrt tests. Built only when the XRT headers are found (LOOM_HAVE_XCLBIN_H).
#ifndef LOOM_VTA_HW_GEN_XCLBIN_FILE_H_
#define LOOM_VTA_HW_GEN_XCLBIN_FILE_H_

#include <string>

#include "runtime/config/config_file.h"
#include "runtime/core/hw_config.h"
#include "runtime/core/status.h"

namespace loom::hwgen {

// The xclbin's bytes. Fails for a board that is not family alveo, or whose dma_port is not
// "DDR[N]" with N below 32.
Status GenerateMetadataXclbin(const Board& board, const HwConfig& config, std::string* out);

}  // namespace loom::hwgen

#endif  // LOOM_VTA_HW_GEN_XCLBIN_FILE_H_
