// ONNX RNN (the Elman cell): H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb), on the shared time loop.
#include "runtime/kernels/recurrent.h"

namespace loom::kernels {

size_t RecurrentScratchFloats(int gates, int64_t hidden_size) {
  // h and c, the gates' pre-activations, and one more row (GRU's r . h or R_h h).
  return static_cast<size_t>((3 + gates) * hidden_size);
}

Status Rnn(const RecurrentParams& p, const RecurrentOperands& o, float* scratch) {
  auto cell = [&](const recurrent::Dims& d, int64_t dir, const float* x, float* h, float*,
                  float* work) {
    const int64_t H = d.hidden;
    const float* bias = o.b ? o.b->As<float>() + dir * 2 * H : nullptr;
    for (int64_t j = 0; j < H; ++j) work[j] = bias ? bias[j] + bias[H + j] : 0.0f;
    recurrent::AddMatVec(o.w->As<float>() + dir * H * d.input, H, d.input, x, work);
    recurrent::AddMatVec(o.r->As<float>() + dir * H * H, H, H, h, work);
    const RnnActivationSpec& f = p.activations[dir];
    for (int64_t j = 0; j < H; ++j) h[j] = recurrent::Activate(f, recurrent::Clip(work[j], p.clip));
  };
  return recurrent::RunTimeLoop("RNN", kRnnGates, p, o, scratch, cell);
}

}  // namespace loom::kernels
