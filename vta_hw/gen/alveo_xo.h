// `loom-hwconfig xo BOARD -o DIR`: the Vitis RTL-kernel flow for an Alveo board (alveo-u250).
//
// The accelerator becomes a user-managed RTL kernel: the host starts it by writing CTRL through
// xrt::ip (docs/registers.md), not through XRT's ap_ctrl_hs handshake. The directory holds the RTL
// with the kernel wrapper (kernel_wrapper.h) named after the board's kernel_name, kernel.xml (the
// kernel's ports and arguments, from the register table of register_map.h), a Vivado Tcl script
// that packages the IP and calls package_xo, and the v++ link configuration that connects the
// kernel's one m_axi port to the board's memory bank at the board's clock.
//
// Nothing here runs Vivado or v++; tests/boards validates kernel.xml with xmllint and runs the Tcl
// under tclsh against stubs of the commands it calls.
#ifndef LOOM_VTA_HW_GEN_ALVEO_XO_H_
#define LOOM_VTA_HW_GEN_ALVEO_XO_H_

#include <string>
#include <vector>

#include "runtime/config/config_file.h"
#include "runtime/core/hw_config.h"
#include "runtime/core/status.h"
#include "vta_hw/gen/flow_files.h"

namespace loom::hwgen {

// The IP's vendor:library:name:version, the same in the packaged IP and in kernel.xml.
std::string KernelVlnv(const Board& board);

// kernel.xml alone (also part of GenerateAlveoKernel's output).
std::string GenerateKernelXml(const Board& board, const HwConfig& config);

// The directory's files: rtl/, kernel.xml, package_kernel.tcl, link.cfg, build.sh. `config` is the
// board's (LoadBoardConfig). Fails for a board that is not family alveo.
Status GenerateAlveoKernel(const Board& board, const HwConfig& config,
                           const std::vector<RtlSource>& rtl, std::vector<GeneratedFile>* out);

}  // namespace loom::hwgen

#endif  // LOOM_VTA_HW_GEN_ALVEO_XO_H_
