#include "compiler/tensorize/schedule.h"

namespace loom::tensorize {

std::string Conv2dSignature(const Conv2dLayer& l, bool depthwise, bool window) {
  auto u = [](uint32_t v) { return std::to_string(v); };
  std::string s = !depthwise ? "conv2d" : window ? "depthwise_conv2d_window" : "depthwise_conv2d";
  s += " n" + u(l.n_blocks) + " c" + u(l.c_blocks) + " h" + u(l.h) + " w" + u(l.w) + " o" +
       u(l.o_blocks) + " k" + u(l.kh) + "x" + u(l.kw) + " s" + u(l.stride_h) + "x" + u(l.stride_w) +
       " p" + u(l.pad_top) + "," + u(l.pad_left) + "," + u(l.pad_bottom) + "," + u(l.pad_right) +
       " i8>i8 epi=";
  // The ALU passes EmitConv2d runs after the reduction, in its order (each one is time).
  std::string epi;
  auto add = [&epi](bool on, const char* pass) {
    if (on) epi += epi.empty() ? pass : std::string(",") + pass;
  };
  add(l.has_bias, "bias");
  add(l.pre_shift != 0, "shr");
  add(true, "mul");
  add(l.post_shift != 0, "shr");
  add(l.clip_lo > -128, "max");
  add(l.clip_hi < 127, "min");
  return s + epi;
}

}  // namespace loom::tensorize
