#include "vta_hw/gen/vivado_bd.h"

#include <cctype>
#include <cstdio>
#include <sstream>
#include <utility>

#include "vta_hw/gen/kernel_wrapper.h"
#include "vta_hw/gen/register_map.h"
#include "vta_hw/gen/sv_package.h"

namespace loom::hwgen {
namespace {

constexpr char kWrapperModule[] = "loom_kernel";

// What the block design needs to know about one board's PS: the IP, its configuration and the
// names of the pins the accelerator connects to. Pin and property names are the PS IPs' own
// (processing_system7, zynq_ultra_ps_e).
struct PsDesign {
  std::string ip;
  std::string automation_rule;
  std::string clock_pin;
  std::string reset_pin;
  std::string control_intf;  // PS master port of the registers
  std::string control_clock;
  std::string dma_intf;  // PS slave port of the accelerator's DRAM master
  std::string dma_clock;
  std::string irq_pin;
  uint32_t irq_bit = 0;
  std::vector<std::pair<std::string, std::string>> properties;
};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Mhz(double mhz) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", mhz);
  return buf;
}

Status Zynq7Design(const Board& board, uint32_t line, PsDesign* ps) {
  ps->ip = "processing_system7";
  ps->automation_rule = "xilinx.com:bd_rule:processing_system7";
  ps->clock_pin = "FCLK_CLK0";
  ps->reset_pin = "FCLK_RESET0_N";
  ps->control_intf = "M_AXI_" + board.control_port;  // M_AXI_GP0
  ps->control_clock = ps->control_intf + "_ACLK";
  ps->dma_intf = "S_AXI_" + board.dma_port;  // S_AXI_HP0, S_AXI_ACP
  ps->dma_clock = ps->dma_intf + "_ACLK";
  ps->irq_pin = "IRQ_F2P";
  ps->irq_bit = line;
  auto& p = ps->properties;
  p.push_back({"PCW_FPGA0_PERIPHERAL_FREQMHZ", Mhz(board.clock_mhz)});
  p.push_back({"PCW_EN_CLK0_PORT", "1"});
  p.push_back({"PCW_EN_RST0_PORT", "1"});
  // Unused masters off: an enabled port with an unconnected clock fails validation.
  for (const char* gp : {"GP0", "GP1"}) {
    p.push_back({std::string("PCW_USE_M_AXI_") + gp, board.control_port == gp ? "1" : "0"});
  }
  p.push_back({"PCW_USE_S_AXI_" + board.dma_port, "1"});
  if (board.dma_port == "ACP") {
    // The ACP is coherent only for transactions marked shared in AxUSER; the PS drives them so.
    p.push_back({"PCW_USE_DEFAULT_ACP_USER_VAL", "1"});
  } else {
    p.push_back({"PCW_S_AXI_" + board.dma_port + "_DATA_WIDTH", "64"});
  }
  p.push_back({"PCW_USE_FABRIC_INTERRUPT", "1"});
  p.push_back({"PCW_IRQ_F2P_INTR", "1"});
  return Status::Ok();
}

Status ZynqMpDesign(const Board& board, uint32_t line, PsDesign* ps) {
  ps->ip = "zynq_ultra_ps_e";
  ps->automation_rule = "xilinx.com:bd_rule:zynq_ultra_ps_e";
  ps->clock_pin = "pl_clk0";
  ps->reset_pin = "pl_resetn0";
  // zynq_ultra_ps_e numbers its AXI ports: masters GP0-GP2 are HPM0_FPD, HPM1_FPD, HPM0_LPD;
  // slaves GP0-GP1 are HPC0-HPC1, GP2-GP5 are HP0-HP3.
  const std::vector<std::pair<std::string, std::string>> masters = {
      {"HPM0_FPD", "GP0"}, {"HPM1_FPD", "GP1"}, {"HPM0_LPD", "GP2"}};
  const std::vector<std::pair<std::string, std::string>> slaves = {{"HPC0", "GP0"}, {"HPC1", "GP1"},
                                                                   {"HP0", "GP2"},  {"HP1", "GP3"},
                                                                   {"HP2", "GP4"},  {"HP3", "GP5"}};
  ps->control_intf = "M_AXI_" + board.control_port;  // M_AXI_HPM0_FPD
  ps->control_clock = "maxi" + Lower(board.control_port) + "_aclk";
  const std::string domain = "_FPD";
  ps->dma_intf = "S_AXI_" + board.dma_port + domain;  // S_AXI_HP0_FPD
  ps->dma_clock = "saxi" + Lower(board.dma_port) + Lower(domain) + "_aclk";
  ps->irq_pin = line < 8 ? "pl_ps_irq0" : "pl_ps_irq1";
  ps->irq_bit = line % 8;
  auto& p = ps->properties;
  p.push_back({"PSU__FPGA_PL0_ENABLE", "1"});
  p.push_back({"PSU__CRL_APB__PL0_REF_CTRL__FREQMHZ", Mhz(board.clock_mhz)});
  std::string slave_gp;
  for (const auto& [port, gp] : slaves) {
    if (port == board.dma_port) slave_gp = gp;
  }
  if (slave_gp.empty()) return Internal("no zynq_ultra_ps_e port for dma_port " + board.dma_port);
  for (const auto& [port, gp] : masters) {
    const bool used = port == board.control_port;
    p.push_back({"PSU__USE__M_AXI_" + gp, used ? "1" : "0"});
    // 128 bits: the PS's AFI width must match the port, and 128 is what the boot firmware of the
    // usual images (and the PS reset state of the FPD ports) configures.
    if (used) p.push_back({"PSU__MAXI" + gp + "__DATA_WIDTH", "128"});
  }
  p.push_back({"PSU__USE__S_AXI_" + slave_gp, "1"});
  p.push_back({"PSU__SAXI" + slave_gp + "__DATA_WIDTH", "128"});
  p.push_back({line < 8 ? "PSU__USE__IRQ0" : "PSU__USE__IRQ1", "1"});
  return Status::Ok();
}

std::string Pins(const std::vector<std::string>& pins) {
  std::string out;
  for (const auto& pin : pins) out += " [get_bd_pins " + pin + "]";
  return out;
}

std::string BuildTcl(const Board& board, const HwConfig& config, const PsDesign& ps,
                     const std::vector<std::string>& rtl_files) {
  const std::string stem = BitstreamStem(board);
  const uint32_t line = ps.irq_pin == "pl_ps_irq1" ? ps.irq_bit + 8 : ps.irq_bit;
  std::ostringstream t;
  t << "# Generated by loom-hwconfig vivado " << board.name << " from boards/" << board.name
    << ".json; do not edit, regenerate.\n"
    << "# " << CommentText(board.description) << "\n"
    << "#\n"
    << "# Builds the Loom accelerator (config " << config.name << ", hash " << config.HashHex()
    << ", " << Mhz(board.clock_mhz) << " MHz) into a\n"
    << "# bitstream for the Linux FPGA manager:\n"
    << "#   vivado -mode batch -source build_bitstream.tcl      (or ./build.sh)\n"
    << "# It writes " << stem << ".bit, " << stem << ".bin (for /lib/firmware) and " << stem
    << ".xsa next to this\n"
    << "# script; the project is in vivado/. Written for Vivado 2022.2; docs/boards.md has the "
       "whole flow.\n"
    << "#\n"
    << "# Block design (" << ps.ip << ", preset of " << board.vivado_board_part << "):\n"
    << "#   " << ps.control_intf << " -> SmartConnect -> loom_0/s_axi_control at "
    << HexString(board.register_base) << " (4 KiB)\n"
    << "#   loom_0/m_axi_gmem -> SmartConnect -> " << ps.dma_intf << " (" << board.coherence
    << ")\n"
    << "#   loom_0/interrupt -> " << ps.irq_pin << "[" << ps.irq_bit << "] (PL interrupt line "
    << line << ", GIC SPI " << board.irq << ")\n"
    << "#   " << ps.clock_pin << " at " << Mhz(board.clock_mhz) << " MHz clocks all of it\n"
    << "#\n"
    << "# Registers (docs/registers.md), offsets from " << HexString(board.register_base) << ":\n"
    << RegisterMapComment("#   ") << "\n";

  t << "set loom_board      " << board.name << "\n"
    << "set loom_part       " << board.fpga_part << "\n"
    << "set loom_board_part " << board.vivado_board_part << "\n"
    << "set loom_clock_mhz  " << Mhz(board.clock_mhz) << "\n"
    << "set loom_reg_base   " << HexString(board.register_base) << "\n"
    << "set loom_reg_range  " << HexString(kRegisterWindowBytes) << "\n"
    << "set loom_output     " << stem << "\n"
    << "set loom_jobs [expr {[info exists ::env(LOOM_VIVADO_JOBS)] ? $::env(LOOM_VIVADO_JOBS) : "
       "4}]\n"
    << "set here [file dirname [file normalize [info script]]]\n\n"
    << "# The newest installed version of a Xilinx IP, so the script does not pin one release.\n"
    << "proc loom_ipdef {name} {\n"
    << "  set defs [lsort -dictionary [get_ipdefs -all xilinx.com:ip:${name}:*]]\n"
    << "  if {[llength $defs] == 0} { error \"loom: Vivado has no IP xilinx.com:ip:${name}\" }\n"
    << "  return [lindex $defs end]\n"
    << "}\n\n";

  t << "create_project -force loom_$loom_board [file join $here vivado] -part $loom_part\n"
    << "set_property target_language Verilog [current_project]\n"
    << "# The board preset configures the PS (DDR, MIO, clocks). Without the board files the PL\n"
    << "# bitstream is the same, but the .xsa would not boot the board.\n"
    << "set use_preset [expr {[llength [get_board_parts -quiet $loom_board_part]] > 0}]\n"
    << "if {$use_preset} {\n"
    << "  set_property board_part $loom_board_part [current_project]\n"
    << "} else {\n"
    << "  puts \"WARNING: loom: board files for $loom_board_part are not installed; the PS keeps "
       "its defaults (docs/boards.md)\"\n"
    << "}\n\n"
    << "add_files -norecurse [list \\\n";
  for (const auto& f : rtl_files) t << "  [file join $here rtl " << f << "] \\\n";
  t << "]\n"
    << "update_compile_order -fileset sources_1\n\n";

  t << "create_bd_design loom\n"
    << "set ps [create_bd_cell -type ip -vlnv [loom_ipdef " << ps.ip << "] ps]\n";
  if (ps.ip == "processing_system7") {
    t << "apply_bd_automation -rule " << ps.automation_rule
      << " -config [list make_external \"FIXED_IO, DDR\" apply_board_preset $use_preset] $ps\n";
  } else {
    t << "apply_bd_automation -rule " << ps.automation_rule
      << " -config [list apply_board_preset $use_preset] $ps\n";
  }
  t << "set_property -dict [list \\\n";
  for (const auto& [key, value] : ps.properties) {
    t << "  CONFIG." << key << " {" << value << "} \\\n";
  }
  t << "] $ps\n\n"
    << "create_bd_cell -type module -reference " << kWrapperModule << " loom_0\n"
    << "create_bd_cell -type ip -vlnv [loom_ipdef proc_sys_reset] rst_0\n"
    << "foreach ic {ctrl_ic mem_ic} {\n"
    << "  create_bd_cell -type ip -vlnv [loom_ipdef smartconnect] $ic\n"
    << "  set_property -dict [list CONFIG.NUM_SI {1} CONFIG.NUM_MI {1}] [get_bd_cells $ic]\n"
    << "}\n\n"
    << "# One clock, the PS's PL clock at the board's clock_mhz, and one reset for everything.\n"
    << "connect_bd_net"
    << Pins({"ps/" + ps.clock_pin, "loom_0/ap_clk", "rst_0/slowest_sync_clk", "ctrl_ic/aclk",
             "mem_ic/aclk", "ps/" + ps.control_clock, "ps/" + ps.dma_clock})
    << "\n"
    << "connect_bd_net" << Pins({"ps/" + ps.reset_pin, "rst_0/ext_reset_in"}) << "\n"
    << "connect_bd_net"
    << Pins({"rst_0/peripheral_aresetn", "loom_0/ap_rst_n", "ctrl_ic/aresetn", "mem_ic/aresetn"})
    << "\n\n"
    << "# Registers on " << ps.control_intf << ", DRAM through " << ps.dma_intf << ".\n"
    << "connect_bd_intf_net [get_bd_intf_pins ps/" << ps.control_intf
    << "] [get_bd_intf_pins ctrl_ic/S00_AXI]\n"
    << "connect_bd_intf_net [get_bd_intf_pins ctrl_ic/M00_AXI] [get_bd_intf_pins "
       "loom_0/s_axi_control]\n"
    << "connect_bd_intf_net [get_bd_intf_pins loom_0/m_axi_gmem] [get_bd_intf_pins "
       "mem_ic/S00_AXI]\n"
    << "connect_bd_intf_net [get_bd_intf_pins mem_ic/M00_AXI] [get_bd_intf_pins ps/" << ps.dma_intf
    << "]\n\n";

  t << "# The interrupt on " << ps.irq_pin << "[" << ps.irq_bit << "], GIC SPI " << board.irq
    << " (boards/" << board.name << ".json irq).\n";
  if (ps.irq_bit == 0) {
    t << "connect_bd_net" << Pins({"loom_0/interrupt", "ps/" + ps.irq_pin}) << "\n\n";
  } else {
    std::vector<std::string> low;
    low.push_back("irq_low/dout");
    for (uint32_t i = 0; i < ps.irq_bit; ++i) low.push_back("irq_concat/In" + std::to_string(i));
    t << "create_bd_cell -type ip -vlnv [loom_ipdef xlconcat] irq_concat\n"
      << "set_property CONFIG.NUM_PORTS {" << ps.irq_bit + 1 << "} [get_bd_cells irq_concat]\n"
      << "create_bd_cell -type ip -vlnv [loom_ipdef xlconstant] irq_low\n"
      << "set_property -dict [list CONFIG.CONST_VAL {0} CONFIG.CONST_WIDTH {1}] "
         "[get_bd_cells irq_low]\n"
      << "connect_bd_net" << Pins(low) << "\n"
      << "connect_bd_net"
      << Pins({"loom_0/interrupt", "irq_concat/In" + std::to_string(ps.irq_bit)}) << "\n"
      << "connect_bd_net" << Pins({"irq_concat/dout", "ps/" + ps.irq_pin}) << "\n\n";
  }

  t << "# The register window where the board file says; DRAM at the PS's own addresses.\n"
    << "assign_bd_address -offset $loom_reg_base -range $loom_reg_range -target_address_space "
       "[get_bd_addr_spaces ps/Data] [get_bd_addr_segs loom_0/s_axi_control/*] -force\n"
    << "assign_bd_address\n"
    << "validate_bd_design\n"
    << "save_bd_design\n\n";

  t << "set bd_file [get_files loom.bd]\n"
    << "generate_target all $bd_file\n"
    << "make_wrapper -files $bd_file -top -import\n"
    << "set_property top loom_wrapper [current_fileset]\n"
    << "update_compile_order -fileset sources_1\n\n"
    << "launch_runs synth_1 -jobs $loom_jobs\n"
    << "wait_on_run synth_1\n"
    << "if {[get_property PROGRESS [get_runs synth_1]] ne \"100%\"} {\n"
    << "  error \"loom: synthesis failed; see [file join $here vivado] (runme.log of synth_1)\"\n"
    << "}\n"
    << "launch_runs impl_1 -jobs $loom_jobs\n"
    << "wait_on_run impl_1\n"
    << "if {[get_property PROGRESS [get_runs impl_1]] ne \"100%\"} {\n"
    << "  error \"loom: implementation failed; see [file join $here vivado] (runme.log of "
       "impl_1)\"\n"
    << "}\n"
    << "open_run impl_1\n"
    << "report_utilization -file [file join $here ${loom_output}_utilization.txt]\n"
    << "report_timing_summary -file [file join $here ${loom_output}_timing.txt]\n"
    << "set slack [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]]\n"
    << "if {$slack ne \"\" && $slack < 0} {\n"
    << "  puts \"CRITICAL WARNING: loom: timing not met at $loom_clock_mhz MHz (slack $slack ns);"
       " lower clock_mhz in the board file\"\n"
    << "}\n"
    << "# -bin_file: the same configuration data without the .bit header, what the FPGA manager "
       "loads.\n"
    << "write_bitstream -force -bin_file [file join $here ${loom_output}.bit]\n"
    << "write_hw_platform -fixed -include_bit -force [file join $here ${loom_output}.xsa]\n"
    << "puts \"loom: wrote [file join $here ${loom_output}.bit], .bin and .xsa\"\n";
  return t.str();
}

}  // namespace

std::string BitstreamStem(const Board& board) { return "loom-" + board.name; }

Status GenerateVivadoProject(const Board& board, const HwConfig& config,
                             const std::vector<RtlSource>& rtl, std::vector<GeneratedFile>* out) {
  if (!board.is_zynq()) {
    return InvalidArgument(
        "board " + board.name + " is family " + board.family +
        "; the Vivado block design is for Zynq boards (zynq7, zynqmp)" +
        (board.family == "alveo"
             ? ". An Alveo card gets an RTL kernel: loom-hwconfig xo " + board.name
             : std::string(", and a sim board has no FPGA")));
  }
  if (config.name != board.config) {
    return InvalidArgument("board " + board.name + " runs config " + board.config + ", not " +
                           config.name);
  }
  uint32_t line = 0;
  LOOM_RETURN_IF_ERROR(PlInterruptLine(board.family, board.irq, &line)
                           .WithContext("board " + board.name + ", field 'irq'"));
  PsDesign ps;
  LOOM_RETURN_IF_ERROR(board.family == "zynq7" ? Zynq7Design(board, line, &ps)
                                               : ZynqMpDesign(board, line, &ps));

  KernelWrapperOptions wrapper;
  wrapper.module = kWrapperModule;
  wrapper.coherent = board.coherent();
  // Linux runs non-secure (EL1) on ZynqMP, so a snooping transaction must be non-secure too
  // (AxPROT[1] = 1); Zynq-7000 Linux runs in the secure state.
  wrapper.coherent_prot = board.family == "zynqmp" ? 0b010 : 0b000;

  std::vector<GeneratedFile> files;
  std::vector<std::string> rtl_files = {"loom_hw_pkg.sv"};
  files.push_back({"rtl/loom_hw_pkg.sv", GenerateSvPackage(config)});
  for (const auto& source : rtl) {
    rtl_files.push_back(source.name);
    files.push_back({"rtl/" + source.name, source.text});
  }
  rtl_files.push_back(std::string(kWrapperModule) + ".v");
  files.push_back({"rtl/" + rtl_files.back(), GenerateKernelWrapper(config, wrapper)});
  files.push_back({"build_bitstream.tcl", BuildTcl(board, config, ps, rtl_files)});
  files.push_back({"build.sh",
                   "#!/bin/sh\n"
                   "# Generated by loom-hwconfig vivado " +
                       board.name +
                       "; do not edit. Needs Vivado (2022.2) on PATH.\n"
                       "set -eu\n"
                       "cd \"$(dirname \"$0\")\"\n"
                       "exec vivado -mode batch -nojournal -log build_bitstream.log "
                       "-source build_bitstream.tcl\n",
                   true});
  *out = std::move(files);
  return Status::Ok();
}

}  // namespace loom::hwgen
