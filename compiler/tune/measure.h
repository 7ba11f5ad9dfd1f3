// How `loom tune` measures a candidate: one layer's instruction stream, alone, on a device.
//   "fsim"        fsim's timing model, no data touched (what the built-in search times with);
//   remote://...  a device served by `loom-run serve`: each candidate as a one-layer package
//                 (layer_package.h), run once, its device cycles read from the run's profile;
//   other names   any registered runtime driver (tsim, hardware) through the Driver interface
//                 (runtime/drivers/driver.h): the layer's code is linked into device memory,
//                 submitted, and the device's cycle counter read back.
#ifndef LOOM_COMPILER_TUNE_MEASURE_H_
#define LOOM_COMPILER_TUNE_MEASURE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "compiler/tensorize/conv2d.h"
#include "runtime/core/hw_config.h"
#include "runtime/core/status.h"

namespace loom::tune {

class Measurer {
 public:
  virtual ~Measurer() = default;
  // The device string, recorded in the log.
  virtual const std::string& device() const = 0;
  // Cycles of the layer alone with the tiling. Fails when the emitter refuses the tiling or the
  // device fails the run; the search then skips the candidate.
  virtual Status Measure(const tensorize::Conv2dLayer& layer, const tensorize::Conv2dTiling& tiling,
                         uint64_t* cycles) = 0;
};

// Opens the measurer for a device string. Drivers come from the runtime's registry, so the caller
// registers them first (runtime::RegisterHostRuntime). `wall_timeout_ms` bounds one simulated run.
Status CreateMeasurer(const std::string& device, const HwConfig& config, uint32_t wall_timeout_ms,
                      std::unique_ptr<Measurer>* out);
// Always through the Driver interface, "fsim" included (its driver runs the data path too, so it
// is slower than the timing model and must agree with it; the tests check that).
Status CreateDriverMeasurer(const std::string& device, const HwConfig& config,
                            uint32_t wall_timeout_ms, std::unique_ptr<Measurer>* out);

}  // namespace loom::tune

#endif  // LOOM_COMPILER_TUNE_MEASURE_H_
