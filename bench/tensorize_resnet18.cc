// Per-layer tiling and GEMM utilization of ResNet-18's convolutions (224x224, batch 1), as the
// tensorizer's search chooses them and fsim's timing model times them, beside each layer's real-MAC
// utilization (the model's own MACs, no channel padding) and roofline bound. Prints a table.
// Run: build/bin/tensorize_resnet18 [--config 1x16x16]
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "compiler/tensorize/conv2d.h"
#include "runtime/config/config_file.h"
#include "runtime/core/roofline.h"

namespace {

struct Conv {
  const char* name;
  uint32_t c, hw, o, k, stride, pad;
  uint32_t count;         // identical layers in the network (0: an alternative, not in the total)
  uint32_t pad_end = 0;   // bottom/right padding when it differs from `pad`
  uint64_t src_macs = 0;  // the source layer's MACs per output element when rewritten
  uint32_t kw = 0;        // kernel width when it differs from `k` (its width pads are then 0)
};

// conv1 as the compiler emits it (space-to-depth by the stride, then a width im2col,
// passes::PackFirstLayers: 48 channels of 112x112, a 4x1 kernel, the width padding the host's),
// with the space-to-depth alone (12 channels, a 4x4 kernel with the window shifted one row and
// column), the unpacked layer and a full im2col of its 7x7x3 window (147 channels, 1x1) for
// comparison; then per stage: the strided 3x3, the 1x1 downsample, and the remaining 3x3s; fc as
// 1x1.
const Conv kLayers[] = {
    {"conv1 s2d+cols 4x1", 48, 112, 64, 4, 1, 2, 1, 1, 3 * 7 * 7, 1},
    {"conv1 s2d 4x4", 12, 112, 64, 4, 1, 2, 0, 1, 3 * 7 * 7},
    {"conv1 7x7/2 unpacked", 3, 224, 64, 7, 2, 3, 0},
    {"conv1 im2col 1x1", 147, 112, 64, 1, 1, 0, 0},
    {"layer1 3x3", 64, 56, 64, 3, 1, 1, 4},
    {"layer2.0 3x3/2", 64, 56, 128, 3, 2, 1, 1},
    {"layer2.0 down 1x1/2", 64, 56, 128, 1, 2, 0, 1},
    {"layer2 3x3", 128, 28, 128, 3, 1, 1, 3},
    {"layer3.0 3x3/2", 128, 28, 256, 3, 2, 1, 1},
    {"layer3.0 down 1x1/2", 128, 28, 256, 1, 2, 0, 1},
    {"layer3 3x3", 256, 14, 256, 3, 1, 1, 3},
    {"layer4.0 3x3/2", 256, 14, 512, 3, 2, 1, 1},
    {"layer4.0 down 1x1/2", 256, 14, 512, 1, 2, 0, 1},
    {"layer4 3x3", 512, 7, 512, 3, 1, 1, 3},
    {"fc", 512, 1, 1000, 1, 1, 0, 1},
};

uint32_t Blocks(uint32_t n, uint32_t b) { return (n + b - 1) / b; }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ResNet-18 conv layers: tiling search and utilization on fsim's timing model"};
  std::string config_name = "1x16x16";
  app.add_option("--config", config_name, "hardware config")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  loom::HwConfig c;
  if (loom::Status s = loom::LoadHwConfig(config_name, &c); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("config %s, %llu MACs/cycle, DRAM %.2f bytes/cycle per port, %.0f MHz\n\n",
              c.name.c_str(), static_cast<unsigned long long>(c.macs_per_cycle()),
              loom::DramBytesPerCycle(c), c.clock_mhz);
  std::printf("%-22s %5s %-28s %10s %7s %7s %10s %6s %6s %9s\n", "layer", "count", "tiling",
              "cycles", "util", "real", "bound", "x bnd", "cands", "search");
  uint64_t total_cycles = 0, total_macs = 0, total_real = 0, total_bound = 0;
  double total_search = 0;
  for (const Conv& l : kLayers) {
    loom::tensorize::Conv2dLayer layer;
    layer.name = l.name;
    layer.c_blocks = Blocks(l.c, c.block_in);
    layer.o_blocks = Blocks(l.o, c.block_out);
    layer.h = layer.w = l.hw;
    layer.kh = layer.kw = l.k;
    layer.stride_h = layer.stride_w = l.stride;
    layer.pad_top = layer.pad_left = l.pad;
    layer.pad_bottom = layer.pad_right = l.pad_end ? l.pad_end : l.pad;
    if (l.kw) {
      layer.kw = l.kw;
      layer.pad_left = layer.pad_right = 0;
    }
    layer.pre_shift = 4;
    layer.post_shift = 16;
    layer.clip_lo = 0;
    const auto t0 = std::chrono::steady_clock::now();
    loom::tensorize::TilingChoice choice;
    if (loom::Status s = loom::tensorize::ChooseConv2dTiling(c, layer, &choice); !s.ok()) {
      std::printf("%-22s %s\n", l.name, s.ToString().c_str());
      continue;
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    total_search += secs;
    const uint64_t oh = layer.out_h(), ow = layer.out_w();
    const uint64_t real_macs =
        uint64_t{l.o} * oh * ow * (l.src_macs ? l.src_macs : l.c * l.k * (l.kw ? l.kw : l.k));
    uint64_t read = 0, written = 0;
    loom::tensorize::Conv2dCompulsoryBytes(c, layer, &read, &written);
    const loom::RooflineBound bound = loom::Roofline(c, real_macs, read, written);
    total_cycles += choice.cycles * l.count;
    total_macs += choice.macs * l.count;
    total_real += real_macs * l.count;
    total_bound += bound.cycles() * l.count;
    std::printf("%-22s %5u %-28s %10llu %6.1f%% %6.1f%% %9llu%s %6.2f %6u %8.3fs\n", l.name,
                l.count, choice.tiling.ToString().c_str(),
                static_cast<unsigned long long>(choice.cycles), 100.0 * choice.utilization,
                100.0 * real_macs / (static_cast<double>(choice.cycles) * c.macs_per_cycle()),
                static_cast<unsigned long long>(bound.cycles()), bound.dram_bound() ? "d" : " ",
                bound.Ratio(choice.cycles), choice.candidates, secs);
  }
  const double peak_cycles = static_cast<double>(total_cycles) * c.macs_per_cycle();
  std::printf(
      "\nall convs: %llu cycles (%.2f ms at %.0f MHz), utilization %.1f%% (real MACs "
      "%.1f%%), roofline bound %llu cycles (x %.2f), search %.2f s\n",
      static_cast<unsigned long long>(total_cycles), total_cycles / (c.clock_mhz * 1e3),
      c.clock_mhz, 100.0 * static_cast<double>(total_macs) / peak_cycles,
      100.0 * static_cast<double>(total_real) / peak_cycles,
      static_cast<unsigned long long>(total_bound),
      total_bound ? static_cast<double>(total_cycles) / total_bound : 0.0, total_search);
  std::printf(
      "util: GEMM MACs incl. channel padding; real: the model's MACs; bound: roofline, "
      "max(real MACs / peak, compulsory DRAM bytes / rate), d = DRAM-bound; x bnd = "
      "cycles / bound\n");
  return 0;
}
