#include "sim/tsim/harness.h"

#include "runtime/config/config_file.h"

namespace loom::tsim {

Status FindModel(const HwConfig& config, const ModelInfo** out) {
  std::string built;
  const ModelInfo* by_hash = nullptr;
  for (const ModelInfo& m : BuiltModels()) {
    HwConfig c;
    LOOM_RETURN_IF_ERROR(ParseHwConfig(m.config_json, std::string("tsim model ") + m.name, &c));
    if (m.name == config.name) {
      *out = &m;
      return Status::Ok();
    }
    if (c.CompatibilityHash() == config.CompatibilityHash() && !by_hash) by_hash = &m;
    built += std::string(built.empty() ? "" : ", ") + m.name + " (hash " + c.HashHex() + ")";
  }
  if (by_hash) {
    *out = by_hash;
    return Status::Ok();
  }
  // Unimplemented: this build can run the config, it just did not verilate a model for it.
  return Unimplemented("tsim has no RTL model for config " + config.name + " (hash " +
                       config.HashHex() + "); this build has " +
                       (built.empty() ? std::string("none") : built) +
                       " (1x16x16 needs -DLOOM_TSIM_1X16X16=ON, 1x32x32 "
                       "-DLOOM_TSIM_1X32X32=ON)");
}

Harness::Harness(const HwConfig& rtl_config, uint64_t dram_bytes)
    : rtl_config_(rtl_config), dram_(dram_bytes) {}

Status Harness::Create(const ModelInfo& model, uint64_t dram_bytes, const std::string& waves,
                       std::unique_ptr<Harness>* out) {
  HwConfig rtl;
  LOOM_RETURN_IF_ERROR(
      ParseHwConfig(model.config_json, std::string("tsim model ") + model.name, &rtl));
  std::unique_ptr<Harness> h(new Harness(rtl, dram_bytes));
  h->ctrl_ = std::make_unique<SimCtrl>(model.create(!waves.empty()));
  h->bus_ = std::make_unique<AxiDram>(h->dram_, rtl.axi_bytes(), rtl.dma_burst_latency);
  h->regs_ = std::make_unique<AxilMaster>(*h->ctrl_);
  h->ctrl_->AddPlugin(h->bus_.get());
  h->ctrl_->AddPlugin(h->regs_.get());
  if (!waves.empty()) LOOM_RETURN_IF_ERROR(h->ctrl_->OpenWaves(waves));
  h->ctrl_->Reset();
  *out = std::move(h);
  return Status::Ok();
}

Status Harness::Read64(uint32_t offset, uint64_t* value) {
  uint32_t lo = 0, hi = 0;
  LOOM_RETURN_IF_ERROR(regs_->Read(offset, &lo));
  LOOM_RETURN_IF_ERROR(regs_->Read(offset + 4, &hi));
  *value = uint64_t{hi} << 32 | lo;
  return Status::Ok();
}

}  // namespace loom::tsim
