#include "compiler/tensorize/accel_code.h"

#include <string>

namespace loom::tensorize {

uint32_t AccelCode::AddUops(const std::vector<isa::Uop>& more) {
  const uint32_t first = static_cast<uint32_t>(uops.size());
  uops.insert(uops.end(), more.begin(), more.end());
  return first;
}

Status Link(const HwConfig& config, const AccelCode& code, const RegionBases& bases,
            std::vector<isa::Insn>* out) {
  if (code.regions.size() != code.insns.size()) {
    return Internal("accelerator code has " + std::to_string(code.insns.size()) +
                    " instructions but " + std::to_string(code.regions.size()) + " regions");
  }
  return runtime::Link(config, code.insns.data(), code.regions.data(), code.insns.size(), bases,
                       out);
}

}  // namespace loom::tensorize
