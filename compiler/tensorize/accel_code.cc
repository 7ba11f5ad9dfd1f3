#include "compiler/tensorize/accel_code.h"

#include <string>

#include "compiler/tensorize/insn_util.h"

namespace loom::tensorize {

uint32_t AccelCode::AddUops(const std::vector<isa::Uop>& more) {
  const uint32_t first = static_cast<uint32_t>(uops.size());
  uops.insert(uops.end(), more.begin(), more.end());
  return first;
}

Status AccelCode::AppendProgram(const HwConfig& config, const std::string& what,
                                const std::vector<isa::Uop>& uops_in, const AccelCode& body) {
  if (uops_in.size() > config.uop_depth()) {
    return InvalidArgument(what + " needs " + std::to_string(uops_in.size()) +
                           " micro-ops, the buffer holds " + std::to_string(config.uop_depth()));
  }
  const uint32_t first = AddUops(uops_in);
  const uint32_t n = static_cast<uint32_t>(uops_in.size());
  isa::Insn load = Dma(isa::Opcode::kLoad, isa::Buffer::kUop, 0, first, 1, n, n);
  Emit(load, Region::kUops);
  for (size_t i = 0; i < body.insns.size(); ++i) Emit(body.insns[i], body.regions[i]);
  return Status::Ok();
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
