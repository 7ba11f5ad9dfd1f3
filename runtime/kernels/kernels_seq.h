// The reference kernels of the recurrent, signal and misc family (issue 12): RNN, GRU, LSTM, DFT,
// STFT, the Hann / Hamming / Blackman windows, MelWeightMatrix, DynamicQuantizeLinear and Det.
// Same contract as kernels.h: the caller provides every output at its final shape and any
// scratch the kernel names (sized by the *ScratchFloats helpers); no kernel allocates.
//
// Float operands are float32 (the recurrent ops, DFT, STFT, Det, DynamicQuantizeLinear); sums
// run in double so that long sequences and DFT lengths stay close to the fp64 references.
#ifndef LOOM_RUNTIME_KERNELS_KERNELS_SEQ_H_
#define LOOM_RUNTIME_KERNELS_KERNELS_SEQ_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/status.h"
#include "runtime/kernels/tensor.h"

namespace loom::kernels {

// Not M_PI: strict C++17 (the bare-metal builds) does not define it.
constexpr double kPi = 3.14159265358979323846;

// --- recurrent ops (rnn.cc, gru.cc, lstm.cc; the shared time loop in recurrent.h) ---

// The activation functions ONNX's RNN, GRU and LSTM accept, with their alpha / beta.
enum class RnnActivation : uint8_t {
  kRelu = 0,
  kTanh = 1,
  kSigmoid = 2,
  kAffine = 3,           // alpha * x + beta
  kLeakyRelu = 4,        // alpha (0.01)
  kThresholdedRelu = 5,  // alpha (1.0)
  kScaledTanh = 6,       // alpha * tanh(beta * x)
  kHardSigmoid = 7,      // max(0, min(1, alpha * x + beta)), (0.2, 0.5)
  kElu = 8,              // alpha (1.0)
  kSoftsign = 9,
  kSoftplus = 10,
};
constexpr int kNumRnnActivations = 11;

struct RnnActivationSpec {
  RnnActivation kind = RnnActivation::kTanh;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// Up to three activations per direction (LSTM's f, g, h), two directions.
constexpr int kMaxRnnActivations = 6;

struct RecurrentParams {
  int64_t hidden_size = 0;
  int direction = 0;  // 0 forward, 1 reverse, 2 bidirectional
  int layout = 0;     // 0: X [seq, batch, in]; 1: X [batch, seq, in] (Y, Y_h, Y_c follow)
  float clip = 0.0f;  // > 0: gate pre-activations are clipped to [-clip, clip]
  // Per direction, in the op's order (RNN: f; GRU: f, g; LSTM: f, g, h).
  RnnActivationSpec activations[kMaxRnnActivations];
  bool linear_before_reset = false;  // GRU
  bool input_forget = false;         // LSTM: the forget gate is 1 - the input gate
};

// Operands; null for an omitted optional input or an output nobody reads. Shapes (layout 0,
// D directions, G gates: RNN 1, GRU 3, LSTM 4): x [S, B, I], w [D, G*H, I], r [D, G*H, H],
// b [D, 2*G*H] (input bias, then recurrence bias), seq_lens i32 [B], init_h / init_c [D, B, H],
// p [D, 3*H] (LSTM peepholes i, o, f); y [S, D, B, H], y_h / y_c [D, B, H].
struct RecurrentOperands {
  const TensorView* x = nullptr;
  const TensorView* w = nullptr;
  const TensorView* r = nullptr;
  const TensorView* b = nullptr;
  const TensorView* seq_lens = nullptr;
  const TensorView* init_h = nullptr;
  const TensorView* init_c = nullptr;
  const TensorView* p = nullptr;
  const TensorView* y = nullptr;
  const TensorView* y_h = nullptr;
  const TensorView* y_c = nullptr;
};

// Gates per cell; the scratch an op needs is RecurrentScratchFloats(gates, hidden_size) floats.
constexpr int kRnnGates = 1;
constexpr int kGruGates = 3;
constexpr int kLstmGates = 4;
size_t RecurrentScratchFloats(int gates, int64_t hidden_size);

// rnn.cc — ONNX RNN: H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb).
Status Rnn(const RecurrentParams& p, const RecurrentOperands& o, float* scratch);
// gru.cc — ONNX GRU (gates z, r, h), with or without linear_before_reset.
Status Gru(const RecurrentParams& p, const RecurrentOperands& o, float* scratch);
// lstm.cc — ONNX LSTM (gates i, o, f, c), peepholes, input_forget.
Status Lstm(const RecurrentParams& p, const RecurrentOperands& o, float* scratch);

// --- signal ops ---

// dft.cc — ONNX DFT along `axis` of x [..., N, ..., 1 or 2] (real or complex in the last dim):
// y [..., L, ..., 2] with L = dft_length (onesided: dft_length / 2 + 1); x is zero-padded or
// truncated to dft_length. inverse scales by 1 / dft_length. f32.
Status Dft(const TensorView& x, int axis, int64_t dft_length, bool inverse, bool onesided,
           const TensorView& y);

// stft.cc — ONNX STFT of signal [B, T, 1 or 2]: frame f starts at f * frame_step, is
// frame_length samples long and is weighted by window (null: all ones); y [B, F, L, 2] with
// L = frame_length (onesided: frame_length / 2 + 1). f32.
Status Stft(const TensorView& signal, int64_t frame_step, const TensorView* window,
            int64_t frame_length, bool onesided, const TensorView& y);

enum class WindowKind : uint8_t { kHann = 0, kHamming = 1, kBlackman = 2 };

// window.cc — the Hann, Hamming (alpha 25/46) or Blackman window of y's length, periodic
// (denominator N) or symmetric (N - 1). y is f32 or f64.
Status Window(WindowKind kind, bool periodic, const TensorView& y);

// mel_weight_matrix.cc — ONNX MelWeightMatrix: y [dft_length / 2 + 1, num_mel_bins] of
// triangular filters between lower_hz and upper_hz on the mel scale. y is f32 or f64.
Status MelWeightMatrix(int64_t dft_length, int64_t sample_rate, double lower_hz, double upper_hz,
                       const TensorView& y);

// --- misc ---

// dynamic_quantize_linear.cc — ONNX DynamicQuantizeLinear: the u8 scale and zero point of x's
// range widened to include 0, and x quantized with them (round half to even). x f32; y u8 of
// x's shape; y_scale f32 and y_zero_point u8 of one element.
Status DynamicQuantizeLinear(const TensorView& x, const TensorView& y, const TensorView& y_scale,
                             const TensorView& y_zero_point);

// det.cc — ONNX Det of x [..., M, M] into y [...] by LU decomposition with partial pivoting;
// scratch holds M * M doubles. f32.
Status Det(const TensorView& x, const TensorView& y, double* scratch);

}  // namespace loom::kernels

#endif  // LOOM_RUNTIME_KERNELS_KERNELS_SEQ_H_
