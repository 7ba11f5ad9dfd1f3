// loom-hwconfig: inspect hardware configs and boards, and generate the RTL's loom_hw_pkg.
//
//   loom-hwconfig show NAME|FILE          primary and derived values, instruction bit budget, hash
//   loom-hwconfig hash NAME|FILE          the compatibility hash alone (for scripts)
//   loom-hwconfig sv NAME|FILE [-o FILE]  the SystemVerilog package
//   loom-hwconfig list                    every config and board on the search path
//   loom-hwconfig board NAME|FILE         a board and the config it runs
//   loom-hwconfig vivado BOARD -o DIR     Vivado project for a Zynq board's bitstream
//   loom-hwconfig xo BOARD -o DIR         Vitis RTL kernel and v++ link files for an Alveo board
//   loom-hwconfig overlay BOARD [-o FILE] device-tree overlay (.dtso) for a Zynq board
//   loom-hwconfig xclbin BOARD -o FILE    metadata-only xclbin of an Alveo board (XRT noop
//                                         emulation; where XRT's headers were found)
//
// The three board flows are compiled in only where CMake defines LOOM_HWCONFIG_FLOWS: tsim's first
// configure compiles a bootstrap copy of this file with sv_package.cc alone, for the `sv` command
// (sim/tsim/CMakeLists.txt).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/config/config_file.h"
#include "runtime/core/isa.h"
#include "vta_hw/gen/sv_package.h"

#ifdef LOOM_HWCONFIG_FLOWS
#include "vta_hw/gen/alveo_xo.h"
#include "vta_hw/gen/dt_overlay.h"
#include "vta_hw/gen/flow_files.h"
#include "vta_hw/gen/vivado_bd.h"
#endif
#ifdef LOOM_HWCONFIG_XCLBIN
#include "vta_hw/gen/xclbin_file.h"
#endif

namespace loom {
namespace {

uint32_t UsedBits(const std::vector<isa::FieldSpec>& fields) {
  uint32_t bits = 0;
  for (const auto& f : fields) bits = std::max(bits, f.lsb + f.width);
  return bits;
}

void PrintConfig(const HwConfig& c) {
  std::printf("config %s  hash %s\n\n", c.name.c_str(), c.HashHex().c_str());
  std::printf("core      %u x %u x %u (batch x block_in x block_out), %llu MACs/cycle\n", c.batch,
              c.block_in, c.block_out, static_cast<unsigned long long>(c.macs_per_cycle()));
  std::printf("widths    inp %u, wgt %u, acc %u, out %u bits\n", c.inp_bits, c.wgt_bits, c.acc_bits,
              c.out_bits);
  std::printf("queues    token %u, cmd %u\n", c.token_queue_depth, c.cmd_queue_depth);
  std::printf("memory    AXI %u bits, DMA latency %u cycles, bursts up to %u beats\n",
              c.axi_data_bits, c.dma_burst_latency, c.dma_max_burst_beats);
  // Peak = 2 ops per MAC per cycle; shows at a glance what a shape or clock change buys.
  std::printf("clock     %g MHz, peak %.1f GOP/s\n\n", c.clock_mhz,
              2.0 * static_cast<double>(c.macs_per_cycle()) * c.clock_mhz / 1000.0);

  std::printf("%-6s %10s %10s %8s %9s\n", "buffer", "bytes", "elem_bytes", "depth", "idx_bits");
  const struct {
    const char* name;
    uint32_t bytes, elem, depth;
  } rows[] = {
      {"uop", c.uop_buffer_bytes, HwConfig::kUopBytes, c.uop_depth()},
      {"inp", c.inp_buffer_bytes, c.inp_elem_bytes(), c.inp_depth()},
      {"wgt", c.wgt_buffer_bytes, c.wgt_elem_bytes(), c.wgt_depth()},
      {"acc", c.acc_buffer_bytes, c.acc_elem_bytes(), c.acc_depth()},
      {"out", c.out_buffer_bytes(), c.out_elem_bytes(), c.out_depth()},
  };
  for (const auto& r : rows) {
    std::printf("%-6s %10u %10u %8u %9u\n", r.name, r.bytes, r.elem, r.depth,
                HwConfig::Log2(r.depth));
  }

  isa::Layout layout;
  if (!isa::Layout::Create(c, &layout).ok()) return;  // loading validated it; cannot happen
  std::printf("\ninstruction bits used\n");
  const struct {
    const char* name;
    uint32_t used, limit;
  } formats[] = {
      {"load/store", UsedBits(isa::Fields(layout, isa::Opcode::kLoad)), 128},
      {"gemm", UsedBits(isa::Fields(layout, isa::Opcode::kGemm)), 128},
      {"alu", UsedBits(isa::Fields(layout, isa::Opcode::kAlu)), 128},
      {"finish", UsedBits(isa::Fields(layout, isa::Opcode::kFinish)), 128},
      {"micro-op", UsedBits(isa::UopFields(layout)), 32},
  };
  for (const auto& f : formats) {
    std::printf("  %-10s %3u of %3u (%u spare)\n", f.name, f.used, f.limit, f.limit - f.used);
  }
}

Status Show(const std::string& target) {
  HwConfig config;
  LOOM_RETURN_IF_ERROR(LoadHwConfig(target, &config));
  PrintConfig(config);
  return Status::Ok();
}

Status Hash(const std::string& target) {
  HwConfig config;
  LOOM_RETURN_IF_ERROR(LoadHwConfig(target, &config));
  std::printf("%s\n", config.HashHex().c_str());
  return Status::Ok();
}

Status Sv(const std::string& target, const std::string& output) {
  HwConfig config;
  LOOM_RETURN_IF_ERROR(LoadHwConfig(target, &config));
  const std::string text = GenerateSvPackage(config);
  if (output.empty() || output == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return Status::Ok();
  }
  std::ofstream out(output, std::ios::binary);
  out << text;
  out.close();
  if (!out) return InvalidArgument("cannot write " + output);
  return Status::Ok();
}

Status List() {
  std::printf("configs\n");
  for (const auto& name : ListHwConfigs()) {
    HwConfig c;
    Status s = LoadHwConfig(name, &c);
    if (s.ok()) {
      std::printf("  %-16s %s  %ux%ux%u\n", name.c_str(), c.HashHex().c_str(), c.batch, c.block_in,
                  c.block_out);
    } else {
      std::printf("  %-16s (invalid: %s)\n", name.c_str(), s.message().c_str());
    }
  }
  std::printf("boards\n");
  for (const auto& name : ListBoards()) {
    Board b;
    Status s = LoadBoard(name, &b);
    if (s.ok()) {
      std::printf("  %-16s %-7s %-24s %-8s %g MHz\n", name.c_str(), b.family.c_str(),
                  b.fpga_part.c_str(), b.config.c_str(), b.clock_mhz);
    } else {
      std::printf("  %-16s (invalid: %s)\n", name.c_str(), s.message().c_str());
    }
  }
  return Status::Ok();
}

Status ShowBoard(const std::string& target) {
  Board b;
  LOOM_RETURN_IF_ERROR(LoadBoard(target, &b));
  HwConfig config;
  LOOM_RETURN_IF_ERROR(LoadBoardConfig(b, &config));
  std::printf("board     %s: %s\n", b.name.c_str(), b.description.c_str());
  std::printf("family    %s, part %s, driver %s\n", b.family.c_str(), b.fpga_part.c_str(),
              b.driver.c_str());
  std::printf("registers 0x%llx\n", static_cast<unsigned long long>(b.register_base));
  std::printf("dram      0x%llx + 0x%llx (%llu MiB)\n",
              static_cast<unsigned long long>(b.dram_base),
              static_cast<unsigned long long>(b.dram_bytes),
              static_cast<unsigned long long>(b.dram_bytes >> 20));
  if (b.is_zynq()) {
    std::printf("ps        registers on %s, DRAM over %s (%s), irq GIC SPI %u\n",
                b.control_port.c_str(), b.dma_port.c_str(), b.coherence.c_str(), b.irq);
    std::printf("linux     DMA region %llu MiB; board part %s\n",
                static_cast<unsigned long long>(b.dma_region_bytes >> 20),
                b.vivado_board_part.c_str());
  } else if (b.family == "alveo") {
    std::printf("kernel    %s on %s (%s), platform %s\n", b.kernel_name.c_str(), b.dma_port.c_str(),
                b.coherence.c_str(), b.vitis_platform.c_str());
  }
  std::printf("resources %u LUT, %u FF, %u DSP, %u BRAM36, %u URAM\n\n", b.resources.lut,
              b.resources.ff, b.resources.dsp, b.resources.bram36, b.resources.uram);
  PrintConfig(config);
  return Status::Ok();
}

#ifdef LOOM_HWCONFIG_FLOWS
// The board, the config it runs at the board's clock, and the RTL to copy.
Status FlowInputs(const std::string& target, Board* board, HwConfig* config,
                  std::vector<hwgen::RtlSource>* rtl) {
  LOOM_RETURN_IF_ERROR(LoadBoard(target, board));
  LOOM_RETURN_IF_ERROR(LoadBoardConfig(*board, config));
  return hwgen::ReadRtlSources(LOOM_RTL_DIR, rtl);
}

void PrintWritten(const std::string& dir, const std::vector<hwgen::GeneratedFile>& files,
                  const char* next) {
  std::printf("wrote %zu files to %s:", files.size(), dir.c_str());
  for (const auto& f : files) {
    if (f.path.find('/') == std::string::npos) std::printf(" %s", f.path.c_str());
  }
  std::printf(" and rtl/\n%s\n", next);
}

// A flow folder: the board's inputs through one generator, written to `dir`, then what to do next.
using FlowGenerator = Status (*)(const Board&, const HwConfig&,
                                 const std::vector<hwgen::RtlSource>&,
                                 std::vector<hwgen::GeneratedFile>*);
Status WriteFlow(const std::string& target, const std::string& dir, FlowGenerator generate,
                 const char* next) {
  Board board;
  HwConfig config;
  std::vector<hwgen::RtlSource> rtl;
  LOOM_RETURN_IF_ERROR(FlowInputs(target, &board, &config, &rtl));
  std::vector<hwgen::GeneratedFile> files;
  LOOM_RETURN_IF_ERROR(generate(board, config, rtl, &files));
  LOOM_RETURN_IF_ERROR(hwgen::WriteGeneratedFiles(dir, files));
  PrintWritten(dir, files, next);
  return Status::Ok();
}

Status Vivado(const std::string& target, const std::string& dir) {
  return WriteFlow(target, dir, &hwgen::GenerateVivadoProject,
                   "next: run build.sh there on a machine with Vivado (docs/boards.md); it writes "
                   "the .bit, the .bin and the .xsa");
}

Status Xo(const std::string& target, const std::string& dir) {
  return WriteFlow(target, dir, &hwgen::GenerateAlveoKernel,
                   "next: run build.sh there on a machine with Vivado and Vitis (docs/boards.md); "
                   "it writes the .xo and the .xclbin");
}

Status Overlay(const std::string& target, const std::string& output) {
  Board board;
  LOOM_RETURN_IF_ERROR(LoadBoard(target, &board));
  std::string text;
  LOOM_RETURN_IF_ERROR(hwgen::GenerateDtOverlay(board, &text));
  if (output.empty() || output == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return Status::Ok();
  }
  std::ofstream out(output, std::ios::binary);
  out << text;
  out.close();
  if (!out) return InvalidArgument("cannot write " + output);
  return Status::Ok();
}
#endif  // LOOM_HWCONFIG_FLOWS

#ifdef LOOM_HWCONFIG_XCLBIN
Status Xclbin(const std::string& target, const std::string& output) {
  Board board;
  HwConfig config;
  LOOM_RETURN_IF_ERROR(LoadBoard(target, &board));
  LOOM_RETURN_IF_ERROR(LoadBoardConfig(board, &config));
  std::string bytes;
  LOOM_RETURN_IF_ERROR(hwgen::GenerateMetadataXclbin(board, config, &bytes));
  std::ofstream out(output, std::ios::binary);
  out << bytes;
  out.close();
  if (!out) return InvalidArgument("cannot write " + output);
  return Status::Ok();
}
#endif

}  // namespace
}  // namespace loom

int main(int argc, char** argv) {
  CLI::App app{"Inspect Loom hardware configs and boards; generate the RTL parameter package."};
  app.require_subcommand(1);
  std::string target;
  std::string output;
  const char* kTargetHelp =
      "config name (searched in LOOM_CONFIG_PATH, then vta_hw/configs) or .json path";

  CLI::App* show = app.add_subcommand("show", "Print primary and derived values and the hash");
  show->add_option("config", target, kTargetHelp)->required();
  CLI::App* hash = app.add_subcommand("hash", "Print the compatibility hash");
  hash->add_option("config", target, kTargetHelp)->required();
  CLI::App* sv = app.add_subcommand("sv", "Generate the SystemVerilog package loom_hw_pkg");
  sv->add_option("config", target, kTargetHelp)->required();
  sv->add_option("-o,--output", output, "output file (default: stdout)");
  CLI::App* list = app.add_subcommand("list", "List configs and boards");
  CLI::App* board = app.add_subcommand("board", "Print a board and the config it runs");
  board->add_option("board", target, "board name (LOOM_BOARD_PATH, then boards/) or .json path")
      ->required();

#ifdef LOOM_HWCONFIG_FLOWS
  const char* kBoardHelp = "board name (LOOM_BOARD_PATH, then boards/) or .json path";
  CLI::App* vivado =
      app.add_subcommand("vivado", "Write the Vivado project that builds a Zynq board's bitstream");
  vivado->add_option("board", target, kBoardHelp)->required();
  vivado->add_option("-o,--output", output, "output directory")->required();
  CLI::App* xo = app.add_subcommand(
      "xo",
      "Write the Vitis RTL kernel (kernel.xml, packaging Tcl, v++ link config) of an Alveo "
      "board");
  xo->add_option("board", target, kBoardHelp)->required();
  xo->add_option("-o,--output", output, "output directory")->required();
  CLI::App* overlay =
      app.add_subcommand("overlay", "Write the device-tree overlay (.dtso) of a Zynq board");
  overlay->add_option("board", target, kBoardHelp)->required();
  overlay->add_option("-o,--output", output, "output file (default: stdout)");
#endif

#ifdef LOOM_HWCONFIG_XCLBIN
  CLI::App* xclbin = app.add_subcommand(
      "xclbin",
      "Write a metadata-only xclbin of an Alveo board (IP layout, memory topology, connectivity; "
      "no bitstream): what XRT's noop emulation loads");
  xclbin->add_option("board", target, "board name (LOOM_BOARD_PATH, then boards/) or .json path")
      ->required();
  xclbin->add_option("-o,--output", output, "output file")->required();
#endif

  CLI11_PARSE(app, argc, argv);

  loom::Status status;
  if (*show) status = loom::Show(target);
  if (*hash) status = loom::Hash(target);
  if (*sv) status = loom::Sv(target, output);
  if (*list) status = loom::List();
  if (*board) status = loom::ShowBoard(target);
#ifdef LOOM_HWCONFIG_FLOWS
  if (*vivado) status = loom::Vivado(target, output);
  if (*xo) status = loom::Xo(target, output);
  if (*overlay) status = loom::Overlay(target, output);
#endif
#ifdef LOOM_HWCONFIG_XCLBIN
  if (*xclbin) status = loom::Xclbin(target, output);
#endif
  if (!status.ok()) {
    std::fprintf(stderr, "loom-hwconfig: %s\n", status.message().c_str());
    return 1;
  }
  return 0;
}
