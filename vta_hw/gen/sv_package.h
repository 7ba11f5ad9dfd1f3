// Generates the SystemVerilog package `loom_hw_pkg` from a HwConfig, so the RTL reads the same
// parameters (shape, widths, buffer depths) and the same instruction bit layout (isa::Fields) as
// the compiler, the simulators and the runtime. Nothing in the RTL restates a number by hand.
#ifndef LOOM_VTA_HW_GEN_SV_PACKAGE_H_
#define LOOM_VTA_HW_GEN_SV_PACKAGE_H_

#include <string>

#include "runtime/core/hw_config.h"

namespace loom {

// The package text (lowRISC style: localparam int unsigned, typedef enum ... _e). The config must
// have passed HwConfig::Validate(); otherwise the result says so in a comment and holds no package.
std::string GenerateSvPackage(const HwConfig& config);

}  // namespace loom

#endif  // LOOM_VTA_HW_GEN_SV_PACKAGE_H_
