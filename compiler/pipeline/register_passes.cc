// One place that knows every library with passes; tools call it, libraries never do.
#include "compiler/pack/pack.h"
#include "compiler/partition/partition.h"
#include "compiler/pipeline/compile.h"
#include "compiler/quantize/quantize.h"

namespace loom::pipeline {

void RegisterAllPasses() {
  static const bool once = [] {
    quantize::RegisterQuantizePasses();
    pack::RegisterPackPasses();
    partition::RegisterPartitionPasses();
    return true;
  }();
  (void)once;
}

}  // namespace loom::pipeline
