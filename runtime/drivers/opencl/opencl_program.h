// The kernel program for one device and HwConfig: vta.cl (embedded in the library) built with the
// config as -D options, or a precompiled binary for an FPGA platform. Source builds are cached as
// device binaries, keyed by a hash of the source, the options and the platform, device and driver
// versions, in $LOOM_OPENCL_CACHE, else $XDG_CACHE_HOME/loom/opencl, else ~/.cache/loom/opencl.
// The cache is best effort: a cache that cannot be read or written only costs a rebuild.
#ifndef LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_PROGRAM_H_
#define LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_PROGRAM_H_

#include <string>

#include "runtime/core/hw_config.h"
#include "runtime/drivers/opencl/opencl_device.h"

namespace loom::runtime::opencl {

// vta.cl with opencl_abi.h in place of its #include (generated at build time).
extern const char kKernelSource[];

// "-D LOOM_BATCH=1 ...": every config value the kernel reads.
std::string BuildOptions(const HwConfig& config);

// Where the program came from, for messages and tests.
enum class ProgramOrigin { kSource, kCache, kBinary };

// Builds (or loads) the program and returns it built for `dev.device`. `binary`: a precompiled
// kernel file (DeviceArgs::binary), which must have been compiled from vta.cl with
// BuildOptions(config). `cache`: DeviceArgs::cache.
Status BuildProgram(cl_context context, const SelectedDevice& dev, const HwConfig& config,
                    const std::string& binary, const std::string& cache, cl_program* out,
                    ProgramOrigin* origin);

// The cache folder `cache` (DeviceArgs::cache) selects; empty when caching is off or no folder
// is known.
std::string CacheDir(const std::string& cache);

}  // namespace loom::runtime::opencl

#endif  // LOOM_RUNTIME_DRIVERS_OPENCL_OPENCL_PROGRAM_H_
