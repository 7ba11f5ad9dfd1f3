// The part RNN, GRU and LSTM share (rnn.cc, gru.cc, lstm.cc): operand checks, the activation
// functions, and the time loop over directions, batch rows and (sequence_lens-limited) steps.
// Each op supplies only its cell: one step of one batch row. Internal to runtime/kernels.
#ifndef LOOM_RUNTIME_KERNELS_RECURRENT_H_
#define LOOM_RUNTIME_KERNELS_RECURRENT_H_

#include <cmath>
#include <cstring>
#include <string>

#include "runtime/kernels/kernels_seq.h"

namespace loom::kernels::recurrent {

struct Dims {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 0;
  int gates = 0;
};

inline float Activate(const RnnActivationSpec& a, float x) {
  switch (a.kind) {
    case RnnActivation::kRelu:
      return x > 0.0f ? x : 0.0f;
    case RnnActivation::kTanh:
      return std::tanh(x);
    case RnnActivation::kSigmoid:
      return 1.0f / (1.0f + std::exp(-x));
    case RnnActivation::kAffine:
      return a.alpha * x + a.beta;
    case RnnActivation::kLeakyRelu:
      return x >= 0.0f ? x : a.alpha * x;
    case RnnActivation::kThresholdedRelu:
      return x > a.alpha ? x : 0.0f;
    case RnnActivation::kScaledTanh:
      return a.alpha * std::tanh(a.beta * x);
    case RnnActivation::kHardSigmoid:
      return std::fmax(0.0f, std::fmin(1.0f, a.alpha * x + a.beta));
    case RnnActivation::kElu:
      return x >= 0.0f ? x : a.alpha * (std::exp(x) - 1.0f);
    case RnnActivation::kSoftsign:
      return x / (1.0f + std::fabs(x));
    case RnnActivation::kSoftplus:
      return std::log1p(std::exp(x));
  }
  return x;
}

inline float Clip(float x, float clip) {
  return clip > 0.0f ? std::fmax(-clip, std::fmin(clip, x)) : x;
}

// out[r] += m[r, :] . v for a row-major m [rows, cols]; dot products in double.
inline void AddMatVec(const float* m, int64_t rows, int64_t cols, const float* v, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    double acc = 0.0;
    const float* row = m + r * cols;
    for (int64_t c = 0; c < cols; ++c) acc += static_cast<double>(row[c]) * v[c];
    out[r] += static_cast<float>(acc);
  }
}

inline Status ExpectShape(const char* op, const char* what, const TensorView* v,
                          std::initializer_list<int64_t> dims) {
  bool ok = v->dtype == DType::kF32 && v->rank == static_cast<int>(dims.size());
  int i = 0;
  for (int64_t d : dims) ok = ok && v->shape[i++] == d;
  if (ok) return Status::Ok();
  char got[96];
  std::string want = "f32[";
  i = 0;
  for (int64_t d : dims) want += (i++ ? "," : "") + std::to_string(d);
  return InvalidArgument(std::string(op) + ": " + what + " is " + FormatShape(*v, got, sizeof got) +
                         ", expected " + want + "]");
}

// Reads the dims from x and w, then checks every operand against them.
inline Status CheckOperands(const char* op, int gates, const RecurrentParams& p,
                            const RecurrentOperands& o, Dims* d) {
  if (o.x == nullptr || o.w == nullptr || o.r == nullptr) {
    return InvalidArgument(std::string(op) + ": X, W and R are required");
  }
  if (o.x->rank != 3 || o.w->rank != 3 || p.hidden_size <= 0 || p.direction < 0 ||
      p.direction > 2 || (p.layout != 0 && p.layout != 1)) {
    return InvalidArgument(std::string(op) + ": X and W must be 3-D, hidden_size > 0, direction " +
                           "0..2 and layout 0 or 1");
  }
  d->gates = gates;
  d->hidden = p.hidden_size;
  d->dirs = p.direction == 2 ? 2 : 1;
  d->seq = o.x->shape[p.layout == 0 ? 0 : 1];
  d->batch = o.x->shape[p.layout == 0 ? 1 : 0];
  d->input = o.x->shape[2];
  const int64_t gh = gates * d->hidden, s = d->seq, b = d->batch, h = d->hidden, n = d->dirs;
  LOOM_RETURN_IF_ERROR(ExpectShape(op, "X", o.x, {o.x->shape[0], o.x->shape[1], d->input}));
  LOOM_RETURN_IF_ERROR(ExpectShape(op, "W", o.w, {n, gh, d->input}));
  LOOM_RETURN_IF_ERROR(ExpectShape(op, "R", o.r, {n, gh, h}));
  if (o.b) LOOM_RETURN_IF_ERROR(ExpectShape(op, "B", o.b, {n, 2 * gh}));
  if (o.p) LOOM_RETURN_IF_ERROR(ExpectShape(op, "P", o.p, {n, 3 * h}));
  const bool l0 = p.layout == 0;
  for (const auto& [v, what] : {std::pair{o.init_h, "initial_h"}, std::pair{o.init_c, "initial_c"},
                                std::pair{o.y_h, "Y_h"}, std::pair{o.y_c, "Y_c"}}) {
    if (v) LOOM_RETURN_IF_ERROR(ExpectShape(op, what, v, {l0 ? n : b, l0 ? b : n, h}));
  }
  if (o.y) {
    LOOM_RETURN_IF_ERROR(l0 ? ExpectShape(op, "Y", o.y, {s, n, b, h})
                            : ExpectShape(op, "Y", o.y, {b, s, n, h}));
  }
  if (o.seq_lens &&
      (o.seq_lens->dtype != DType::kI32 || o.seq_lens->rank != 1 || o.seq_lens->shape[0] != b)) {
    return InvalidArgument(std::string(op) + ": sequence_lens must be i32[" + std::to_string(b) +
                           "]");
  }
  return Status::Ok();
}

// Offsets of x[t, b, :], y[t, dir, b, :] and the state tensors' [dir, b, :] under the layout.
inline int64_t XAt(const Dims& d, int layout, int64_t t, int64_t b) {
  return (layout == 0 ? t * d.batch + b : b * d.seq + t) * d.input;
}
inline int64_t YAt(const Dims& d, int layout, int64_t t, int64_t dir, int64_t b) {
  return (layout == 0 ? (t * d.dirs + dir) * d.batch + b : (b * d.seq + t) * d.dirs + dir) *
         d.hidden;
}
inline int64_t StateAt(const Dims& d, int layout, int64_t dir, int64_t b) {
  return (layout == 0 ? dir * d.batch + b : b * d.dirs + dir) * d.hidden;
}

// The time loop. Per direction and batch row: h and c start from initial_h / initial_c (or 0),
// then `cell(dims, dir, x_t, h, c, work)` advances them one step, over the row's sequence_lens
// steps (backwards for the reverse direction); Y past a row's length is 0. Scratch: h, c (H each),
// then the cell's work area.
template <typename Cell>
Status RunTimeLoop(const char* op, int gates, const RecurrentParams& p, const RecurrentOperands& o,
                   float* scratch, Cell cell) {
  Dims d;
  LOOM_RETURN_IF_ERROR(CheckOperands(op, gates, p, o, &d));
  const int64_t H = d.hidden;
  float* h = scratch;
  float* c = scratch + H;
  float* work = scratch + 2 * H;
  const float* x = o.x->As<float>();
  for (int64_t dir = 0; dir < d.dirs; ++dir) {
    const bool reverse = p.direction == 1 || dir == 1;
    for (int64_t b = 0; b < d.batch; ++b) {
      const int64_t state = StateAt(d, p.layout, dir, b);
      for (int64_t j = 0; j < H; ++j) {
        h[j] = o.init_h ? o.init_h->As<float>()[state + j] : 0.0f;
        c[j] = o.init_c ? o.init_c->As<float>()[state + j] : 0.0f;
      }
      int64_t len = d.seq;
      if (o.seq_lens) {
        len = o.seq_lens->As<int32_t>()[b];
        if (len < 0 || len > d.seq) {
          return InvalidArgument(std::string(op) + ": sequence_lens[" + std::to_string(b) +
                                 "] is " + std::to_string(len) + ", outside [0, " +
                                 std::to_string(d.seq) + "]");
        }
      }
      for (int64_t k = 0; k < len; ++k) {
        const int64_t t = reverse ? len - 1 - k : k;
        cell(d, dir, x + XAt(d, p.layout, t, b), h, c, work);
        if (o.y) std::memcpy(o.y->As<float>() + YAt(d, p.layout, t, dir, b), h, H * sizeof(float));
      }
      for (int64_t t = len; o.y && t < d.seq; ++t) {
        std::memset(o.y->As<float>() + YAt(d, p.layout, t, dir, b), 0, H * sizeof(float));
      }
      if (o.y_h) std::memcpy(o.y_h->As<float>() + state, h, H * sizeof(float));
      if (o.y_c) std::memcpy(o.y_c->As<float>() + state, c, H * sizeof(float));
    }
  }
  return Status::Ok();
}

}  // namespace loom::kernels::recurrent

#endif  // LOOM_RUNTIME_KERNELS_RECURRENT_H_
