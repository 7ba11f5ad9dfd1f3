// ONNX GRU, gates z (update), r (reset), h (candidate) in that order in W, R and B:
//   z = f(X W_z^T + H R_z^T + Wb_z + Rb_z),  r = f(X W_r^T + H R_r^T + Wb_r + Rb_r)
//   h = g(X W_h^T + (r . H) R_h^T + Rb_h + Wb_h)        linear_before_reset = 0
//   h = g(X W_h^T + r . (H R_h^T + Rb_h) + Wb_h)        linear_before_reset = 1
//   H' = (1 - z) . h + z . H
#include "runtime/kernels/recurrent.h"

namespace loom::kernels {

Status Gru(const RecurrentParams& p, const RecurrentOperands& o, float* scratch) {
  auto cell = [&](const recurrent::Dims& d, int64_t dir, const float* x, float* h, float*,
                  float* work) {
    const int64_t H = d.hidden, G = 3 * H;
    const float* bias = o.b ? o.b->As<float>() + dir * 2 * G : nullptr;
    const float* r_mat = o.r->As<float>() + dir * G * H;
    float* z = work;
    float* r = work + H;
    float* cand = work + 2 * H;
    float* tmp = work + G;
    for (int64_t j = 0; j < G; ++j) work[j] = bias ? bias[j] : 0.0f;
    recurrent::AddMatVec(o.w->As<float>() + dir * G * d.input, G, d.input, x, work);
    // z and r see H R^T + Rb directly.
    for (int64_t j = 0; j < 2 * H; ++j) work[j] += bias ? bias[G + j] : 0.0f;
    recurrent::AddMatVec(r_mat, 2 * H, H, h, work);
    const RnnActivationSpec& f = p.activations[2 * dir];
    const RnnActivationSpec& g = p.activations[2 * dir + 1];
    for (int64_t j = 0; j < 2 * H; ++j)
      work[j] = recurrent::Activate(f, recurrent::Clip(work[j], p.clip));
    const float* rb_h = bias ? bias + G + 2 * H : nullptr;
    if (p.linear_before_reset) {
      for (int64_t j = 0; j < H; ++j) tmp[j] = rb_h ? rb_h[j] : 0.0f;
      recurrent::AddMatVec(r_mat + 2 * H * H, H, H, h, tmp);
      for (int64_t j = 0; j < H; ++j) cand[j] += r[j] * tmp[j];
    } else {
      for (int64_t j = 0; j < H; ++j) {
        tmp[j] = r[j] * h[j];
        cand[j] += rb_h ? rb_h[j] : 0.0f;
      }
      recurrent::AddMatVec(r_mat + 2 * H * H, H, H, tmp, cand);
    }
    for (int64_t j = 0; j < H; ++j) {
      const float hc = recurrent::Activate(g, recurrent::Clip(cand[j], p.clip));
      h[j] = (1.0f - z[j]) * hc + z[j] * h[j];
    }
  };
  return recurrent::RunTimeLoop("GRU", kGruGates, p, o, scratch, cell);
}

}  // namespace loom::kernels
