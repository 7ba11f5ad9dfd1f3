// One convolution layer with a given tiling as a package of its own: what `loom tune` sends to a
// remote device (remote://), which runs packages rather than bare instruction streams. The
// constants are zeros and the input is the caller's; only the cycles matter.
#ifndef LOOM_COMPILER_TUNE_LAYER_PACKAGE_H_
#define LOOM_COMPILER_TUNE_LAYER_PACKAGE_H_

#include "compiler/package/writer.h"
#include "compiler/tensorize/conv2d.h"
#include "runtime/core/hw_config.h"
#include "runtime/core/status.h"

namespace loom::tune {

// The package: one accelerator segment holding the layer's op and its program (the tiling's
// code and FINISH), input "x" and output "y" in the arena at the layer's blocked shape (channels
// and batch padded to whole blocks). Depthwise layers are tuned as one channel block, which is a
// plain convolution to the emitter, and packaged as one.
Status LayerPackage(const HwConfig& config, const tensorize::Conv2dLayer& layer,
                    const tensorize::Conv2dTiling& tiling, package::PackageSpec* out);

}  // namespace loom::tune

#endif  // LOOM_COMPILER_TUNE_LAYER_PACKAGE_H_
