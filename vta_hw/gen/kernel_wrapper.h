// The Verilog-2001 top level that puts loom_top into Vivado's and Vitis's hands. Both tools need a
// Verilog (not SystemVerilog) top for a block-design module reference and for IP packaging, and
// both infer the AXI interfaces from port names: s_axi_control_* (the registers), m_axi_gmem_*
// (DRAM), ap_clk, ap_rst_n and interrupt, the names Vitis RTL kernels use.
#ifndef LOOM_VTA_HW_GEN_KERNEL_WRAPPER_H_
#define LOOM_VTA_HW_GEN_KERNEL_WRAPPER_H_

#include <cstdint>
#include <string>

#include "runtime/core/hw_config.h"

namespace loom::hwgen {

// Address bits of s_axi_control: the 4 KiB register window (kRegisterWindowBytes). loom_top
// decodes the low 8, so the 256-byte map repeats through the page.
inline constexpr int kControlAddrBits = 12;

struct KernelWrapperOptions {
  std::string module;  // "loom_kernel" on Zynq, the board's kernel_name on Alveo
  // A coherent port snoops the CPU caches only for cacheable transactions, so the wrapper replaces
  // loom_top's AxCACHE (0011, normal non-cacheable) with write-back read/write-allocate (1111)
  // and AxPROT with `coherent_prot` (the security state of the memory Linux maps).
  bool coherent = false;
  uint32_t coherent_prot = 0;
};

// The wrapper's text; `config` sets the m_axi data width (axi_data_bits). The result instantiates
// loom_top, so it compiles with loom_hw_pkg for the same config and the vta_hw/rtl sources.
std::string GenerateKernelWrapper(const HwConfig& config, const KernelWrapperOptions& options);

}  // namespace loom::hwgen

#endif  // LOOM_VTA_HW_GEN_KERNEL_WRAPPER_H_
