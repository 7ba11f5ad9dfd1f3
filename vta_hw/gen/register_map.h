// The accelerator's AXI4-Lite register map as data, for the files generated from it: the Alveo
// kernel.xml and its packaging Tcl, and the register comments in the Vivado Tcl and the
// device-tree overlay. docs/registers.md is the specification; tests/boards parses its table and
// compares it with this one (and with the RTL and the tsim header), so none of them can drift.
#ifndef LOOM_VTA_HW_GEN_REGISTER_MAP_H_
#define LOOM_VTA_HW_GEN_REGISTER_MAP_H_

#include <cstdint>
#include <string>
#include <vector>

namespace loom::hwgen {

// As the doc's "access" column writes it.
enum class RegAccess { kReadWrite, kReadOnly, kReadWrite1C };
const char* RegAccessText(RegAccess access);  // "R/W", "R", "R/W1C"

// How XRT sees a register in kernel.xml: as a kernel argument the host sets before a run, or not.
enum class KernelArg {
  kNone,
  kPointer,  // a 64-bit DRAM address: this register (_LO) and the next (_HI), on the m_axi port
  kScalar,   // a 32-bit value
};

struct Register {
  uint32_t offset;
  const char* name;  // as in docs/registers.md, e.g. "INSN_ADDR_LO"
  RegAccess access;
  KernelArg arg;
  const char* arg_name;  // the kernel.xml argument, or nullptr when arg is kNone
  const char* summary;   // one line for comments in generated files
};

// Every register in offset order.
const std::vector<Register>& RegisterMap();

// The map as comment lines for generated files: "<prefix>0x00  CTRL  R/W  start (bit 0), ...\n".
std::string RegisterMapComment(const std::string& prefix);

}  // namespace loom::hwgen

#endif  // LOOM_VTA_HW_GEN_REGISTER_MAP_H_
