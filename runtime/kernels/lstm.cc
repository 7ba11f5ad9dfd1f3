// ONNX LSTM, gates i, o, f, c in that order in W, R and B; peepholes P = [P_i, P_o, P_f]:
//   i = f(X W_i^T + H R_i^T + P_i . C + Wb_i + Rb_i)
//   f' = f(X W_f^T + H R_f^T + P_f . C + Wb_f + Rb_f)     (input_forget: f' = 1 - i)
//   c = g(X W_c^T + H R_c^T + Wb_c + Rb_c),  C' = f' . C + i . c
//   o = f(X W_o^T + H R_o^T + P_o . C' + Wb_o + Rb_o),  H' = o . h(C')
#include "runtime/kernels/recurrent.h"

namespace loom::kernels {

Status Lstm(const RecurrentParams& p, const RecurrentOperands& o, float* scratch) {
  auto cell = [&](const recurrent::Dims& d, int64_t dir, const float* x, float* h, float* c,
                  float* work) {
    const int64_t H = d.hidden, G = 4 * H;
    const float* bias = o.b ? o.b->As<float>() + dir * 2 * G : nullptr;
    const float* peep = o.p ? o.p->As<float>() + dir * 3 * H : nullptr;
    for (int64_t j = 0; j < G; ++j) work[j] = bias ? bias[j] + bias[G + j] : 0.0f;
    recurrent::AddMatVec(o.w->As<float>() + dir * G * d.input, G, d.input, x, work);
    recurrent::AddMatVec(o.r->As<float>() + dir * G * H, G, H, h, work);
    const RnnActivationSpec& f = p.activations[3 * dir];
    const RnnActivationSpec& g = p.activations[3 * dir + 1];
    const RnnActivationSpec& act_h = p.activations[3 * dir + 2];
    const float* gi = work;
    const float* go = work + H;
    const float* gf = work + 2 * H;
    const float* gc = work + 3 * H;
    for (int64_t j = 0; j < H; ++j) {
      const float pi = peep ? peep[j] : 0.0f, po = peep ? peep[H + j] : 0.0f,
                  pf = peep ? peep[2 * H + j] : 0.0f;
      const float i = recurrent::Activate(f, recurrent::Clip(gi[j] + pi * c[j], p.clip));
      const float fg = p.input_forget
                           ? 1.0f - i
                           : recurrent::Activate(f, recurrent::Clip(gf[j] + pf * c[j], p.clip));
      const float cand = recurrent::Activate(g, recurrent::Clip(gc[j], p.clip));
      c[j] = fg * c[j] + i * cand;
      const float og = recurrent::Activate(f, recurrent::Clip(go[j] + po * c[j], p.clip));
      h[j] = og * recurrent::Activate(act_h, c[j]);
    }
  };
  return recurrent::RunTimeLoop("LSTM", kLstmGates, p, o, scratch, cell);
}

}  // namespace loom::kernels
