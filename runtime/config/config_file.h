// Reading hardware configs (vta_hw/configs/*.json) and board definitions (boards/*.json).
//
// The files are the single source of the HwConfig that the compiler, the simulators, the runtime
// and the RTL package generator all share, so parsing is strict: an unknown, missing, duplicated
// or mistyped field is an error naming the file and the field, never a silent default. Every
// function here returns a Status; no exception escapes (nlohmann's are caught inside).
//
// Lookup by name: a value containing '/' or ending in ".json" is a path; anything else is a name,
// searched as NAME.json in the colon-separated directories of LOOM_CONFIG_PATH (LOOM_BOARD_PATH for
// boards), then in the source tree's vta_hw/configs (boards) compiled into the library.
#ifndef LOOM_RUNTIME_CONFIG_CONFIG_FILE_H_
#define LOOM_RUNTIME_CONFIG_CONFIG_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/hw_config.h"
#include "runtime/core/status.h"

namespace loom {

// Parses one config file's text. `source` names the text in error messages (usually its path).
// Checks field names and types, then HwConfig::Validate(). On error *out is left unchanged.
Status ParseHwConfig(std::string_view json_text, const std::string& source, HwConfig* out);

// Loads a config by name or path (see above). When loaded by name, the file's "name" field must
// equal the file stem, so a package's recorded config name always finds the same file.
Status LoadHwConfig(const std::string& name_or_path, HwConfig* out);

// Pretty JSON with the fields in file order; ParseHwConfig(HwConfigToJson(c)) yields c again.
std::string HwConfigToJson(const HwConfig& config);

// The FPGA's capacity, for utilisation reports and for refusing a config that cannot fit.
struct BoardResources {
  uint32_t lut = 0;
  uint32_t ff = 0;
  uint32_t dsp = 0;
  uint32_t bram36 = 0;
  uint32_t uram = 0;
};

// The accelerator's AXI-Lite register window as a board maps it: one 4 KiB page, the smallest
// segment Vivado's address editor assigns and the unit a UIO mmap covers. The registers
// (docs/registers.md) occupy its first 256 bytes.
inline constexpr uint64_t kRegisterWindowBytes = 0x1000;

// A board definition: where the accelerator lives and which config and driver it uses. The fields
// after `resources` exist only for the families named beside them (boards/README.md); on other
// boards they stay empty or 0, and a file that sets them is refused.
struct Board {
  std::string name;            // equals the file stem, e.g. "pynq-z1"
  std::string description;     // one line for humans
  std::string family;          // "sim" | "zynq7" | "zynqmp" | "alveo"
  std::string fpga_part;       // Vivado part name, "none" for sim
  double clock_mhz = 0.0;      // accelerator clock on this board; overrides the config's clock
  std::string config;          // name of a HwConfig (LoadHwConfig)
  std::string driver;          // runtime driver: "fsim", "tsim" or "cpu" (sim), "zynq", "xrt"
  uint64_t register_base = 0;  // AXI-Lite base of the accelerator; 0 where XRT maps it
  uint64_t dram_base = 0;      // physical DRAM window the accelerator's AXI master may use
  uint64_t dram_bytes = 0;
  BoardResources resources;

  // zynq7, zynqmp, alveo: where the accelerator's AXI master reaches DRAM, and whether the CPU
  // caches see that traffic. "noncoherent": the driver flushes before start and invalidates after
  // done; "coherent": the port snoops the CPU caches (Zynq ACP, ZynqMP HPC0/HPC1).
  std::string dma_port;   // "HP0".."HP3", "ACP" (zynq7); "HP0".."HP3", "HPC0", "HPC1" (zynqmp);
                          // the memory bank, e.g. "DDR[0]" (alveo)
  std::string coherence;  // "coherent" | "noncoherent"; always "noncoherent" on alveo

  // zynq7, zynqmp: the PS side of the design and what Linux sees.
  std::string control_port;       // PS master port of the registers: "GP0", "GP1" (zynq7);
                                  // "HPM0_FPD", "HPM1_FPD", "HPM0_LPD" (zynqmp)
  uint32_t irq = 0;               // GIC SPI number of the accelerator's interrupt, as in the
                                  // device tree's interrupts = <0 irq 4> (GIC ID minus 32)
  uint64_t dma_region_bytes = 0;  // size of the u-dma-buf (CMA) region the runtime allocates in
  std::string vivado_board_part;  // Vivado board part whose preset configures the PS (DDR, MIO)

  // alveo: the RTL kernel and the platform it is linked against.
  std::string kernel_name;     // kernel (and Verilog top) name; the compute unit is <name>_1
  std::string vitis_platform;  // v++ --platform, e.g. xilinx_u250_gen3x16_xdma_4_1_202210_1

  bool is_zynq() const { return family == "zynq7" || family == "zynqmp"; }
  bool coherent() const { return coherence == "coherent"; }
};

// Same strictness as ParseHwConfig; also checks that family, driver, part, ports, interrupt
// and windows agree.
Status ParseBoard(std::string_view json_text, const std::string& source, Board* out);

// Which of the PS's 16 fabric interrupt lines a Zynq board's `irq` (a GIC SPI number) is:
// Zynq-7000 IRQ_F2P[7:0] are SPI 29-36 and IRQ_F2P[15:8] SPI 52-59 (GIC IDs 61-68, 84-91);
// ZynqMP pl_ps_irq0[7:0] are SPI 89-96 and pl_ps_irq1[7:0] SPI 104-111 (GIC IDs 121-128,
// 136-143), lines 0-7 and 8-15 here. Fails for another family or an irq no PL line drives.
Status PlInterruptLine(const std::string& family, uint32_t irq, uint32_t* line);
// Loads a board by name (LOOM_BOARD_PATH, then boards/) or path.
Status LoadBoard(const std::string& name_or_path, Board* out);
// Loads the board's config and sets its clock to the board's, then validates the result.
Status LoadBoardConfig(const Board& board, HwConfig* out);

// Names of every config / board found on the search path, sorted, without duplicates.
std::vector<std::string> ListHwConfigs();
std::vector<std::string> ListBoards();

}  // namespace loom

#endif  // LOOM_RUNTIME_CONFIG_CONFIG_FILE_H_
