// `loom-hwconfig vivado BOARD -o DIR`: a Vivado project for a Zynq board (pynq-z1, ultra96-v2,
// zcu104) that turns the RTL into a bitstream the Linux FPGA manager loads.
//
// The block design: the board's PS (processing_system7 or zynq_ultra_ps_e, configured from the
// board part's preset), loom_top behind the kernel wrapper (kernel_wrapper.h), its registers on the
// board's control_port at register_base, its DRAM master on dma_port, its interrupt on the PL-to-PS
// line of the board's irq, and one PL clock at clock_mhz for all of it. The script then runs
// synthesis and implementation and writes the .bit, the .bin and the .xsa.
//
// Nothing here runs Vivado; tests/boards runs the generated Tcl under tclsh against stubs of the
// Vivado commands it calls.
#ifndef LOOM_VTA_HW_GEN_VIVADO_BD_H_
#define LOOM_VTA_HW_GEN_VIVADO_BD_H_

#include <string>
#include <vector>

#include "runtime/config/config_file.h"
#include "runtime/core/hw_config.h"
#include "runtime/core/status.h"
#include "vta_hw/gen/flow_files.h"

namespace loom::hwgen {

// "loom-<board>": the stem of the .bit/.bin/.xsa the script writes; the device-tree overlay names
// <stem>.bin as the firmware to load.
std::string BitstreamStem(const Board& board);

// The project directory's files: build_bitstream.tcl, build.sh, and rtl/ with loom_hw_pkg.sv for
// `config`, the `rtl` sources and the wrapper loom_kernel.v. `config` is the board's
// (LoadBoardConfig). Fails for a board that is not zynq7 or zynqmp, naming the right command.
Status GenerateVivadoProject(const Board& board, const HwConfig& config,
                             const std::vector<RtlSource>& rtl, std::vector<GeneratedFile>* out);

}  // namespace loom::hwgen

#endif  // LOOM_VTA_HW_GEN_VIVADO_BD_H_
