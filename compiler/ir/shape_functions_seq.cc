// Shape functions of the recurrent, signal and misc family (issue 12): RNN, GRU, LSTM, DFT, STFT,
// the windows, MelWeightMatrix, DynamicQuantizeLinear and Det. Attributes are the canonical ones
// the importer writes (op_registry.cc, docs/compiler.md); each function checks them too, so a
// hand-written IR file gets the errors an ONNX import would.
#include "compiler/ir/shape_functions.h"

namespace loom::ir::shape {
namespace {

// Gates of each recurrent op and the activations it takes per direction.
struct RecurrentKind {
  const char* op;
  int64_t gates;
  size_t activations;
};
constexpr RecurrentKind kRecurrent[] = {{"RNN", 1, 1}, {"GRU", 3, 2}, {"LSTM", 4, 3}};

Status ExpectInputShape(const InferContext& ctx, int i, const char* what, const Shape& want) {
  if (!ctx.has_input(i)) return Status::Ok();
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, i, {i == 4 ? DType::kI32 : DType::kF32}));
  if (ctx.input(i).shape != want) {
    return ctx.Error(std::string(what) + " is " + ShapeToString(ctx.input(i).shape) +
                     ", expected " + ShapeToString(want));
  }
  return Status::Ok();
}

// A generated tensor's element type: f32 or f64.
Status FloatDType(const InferContext& ctx, DType* t) {
  const std::string name = ctx.node().GetString("dtype", "f32");
  if (!ParseDType(name, t) || (*t != DType::kF32 && *t != DType::kF64)) {
    return ctx.Error("dtype \"" + name + "\" must be f32 or f64");
  }
  return Status::Ok();
}

}  // namespace

// Inputs X, W, R, B?, sequence_lens?, initial_h? (LSTM: initial_c?, P?); outputs Y, Y_h (LSTM:
// Y_c), shaped by `layout`.
Status Recurrent(InferContext& ctx) {
  const Node& n = ctx.node();
  const RecurrentKind* kind = nullptr;
  for (const RecurrentKind& k : kRecurrent) {
    if (n.op == k.op) kind = &k;
  }
  if (kind == nullptr) return ctx.Error("is not a recurrent op");
  for (int i = 0; i < 3; ++i) LOOM_RETURN_IF_ERROR(ExpectDType(ctx, i, {DType::kF32}));
  const Shape& x = ctx.input(0).shape;
  const int64_t hidden = n.GetInt("hidden_size", 0);
  const int64_t direction = n.GetInt("direction", 0);
  const int64_t layout = n.GetInt("layout", 0);
  if (x.size() != 3 || hidden < 1 || direction < 0 || direction > 2 || layout < 0 || layout > 1) {
    return ctx.Error(
        "needs X [seq, batch, input] (layout 1: [batch, seq, input]), hidden_size >= " +
        std::string("1, direction 0..2 and layout 0 or 1"));
  }
  const int64_t dirs = direction == 2 ? 2 : 1;
  const size_t acts = kind->activations * static_cast<size_t>(dirs);
  if (n.GetInts("activations").size() != acts || n.GetFloats("activation_alpha").size() != acts ||
      n.GetFloats("activation_beta").size() != acts) {
    return ctx.Error("activations, activation_alpha and activation_beta need " +
                     std::to_string(acts) + " entries each");
  }
  for (int64_t a : n.GetInts("activations")) {
    if (a < 0 || a > 10) return ctx.Error("activation code " + std::to_string(a) + " is not 0..10");
  }
  const int64_t seq = x[layout == 0 ? 0 : 1], batch = x[layout == 0 ? 1 : 0];
  const int64_t gh = kind->gates * hidden;
  LOOM_RETURN_IF_ERROR(ExpectInputShape(ctx, 1, "W", {dirs, gh, x[2]}));
  LOOM_RETURN_IF_ERROR(ExpectInputShape(ctx, 2, "R", {dirs, gh, hidden}));
  LOOM_RETURN_IF_ERROR(ExpectInputShape(ctx, 3, "B", {dirs, 2 * gh}));
  LOOM_RETURN_IF_ERROR(ExpectInputShape(ctx, 4, "sequence_lens", {batch}));
  const Shape state = layout == 0 ? Shape{dirs, batch, hidden} : Shape{batch, dirs, hidden};
  LOOM_RETURN_IF_ERROR(ExpectInputShape(ctx, 5, "initial_h", state));
  const bool lstm = kind->gates == 4;
  if (!lstm && ctx.num_inputs() > 6) return ctx.Error("takes at most 6 inputs");
  if (!lstm && ctx.num_outputs() > 2) return ctx.Error("has at most 2 outputs (Y, Y_h)");
  LOOM_RETURN_IF_ERROR(ExpectInputShape(ctx, 6, "initial_c", state));
  LOOM_RETURN_IF_ERROR(ExpectInputShape(ctx, 7, "P", {dirs, 3 * hidden}));
  ctx.SetOutput(0, DType::kF32,
                layout == 0 ? Shape{seq, dirs, batch, hidden} : Shape{batch, seq, dirs, hidden});
  for (int i = 1; i < ctx.num_outputs(); ++i) ctx.SetOutput(i, DType::kF32, state);
  return Status::Ok();
}

// x [..., N, ..., 1 or 2] -> [..., L, ..., 2] along `axis`.
Status Dft(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  Shape s = ctx.input(0).shape;
  const int64_t axis = ctx.node().GetInt("axis", 1);
  const int64_t length = ctx.node().GetInt("dft_length", 0);
  const bool onesided = ctx.node().GetInt("onesided", 0) != 0;
  const int64_t rank = static_cast<int64_t>(s.size());
  if (rank < 2 || (s.back() != 1 && s.back() != 2) || axis < 0 || axis >= rank - 1 || length < 1) {
    return ctx.Error("needs x [..., 1 or 2] of rank >= 2, axis in [0, " + std::to_string(rank - 1) +
                     ") and dft_length >= 1; got " + ShapeToString(s) + ", axis " +
                     std::to_string(axis) + ", dft_length " + std::to_string(length));
  }
  if (onesided && ctx.node().GetInt("inverse", 0) != 0) {
    return ctx.Error("onesided and inverse cannot both be set");
  }
  s[static_cast<size_t>(axis)] = onesided ? length / 2 + 1 : length;
  s.back() = 2;
  ctx.SetOutput(0, DType::kF32, s);
  return Status::Ok();
}

// signal [B, T, 1 or 2], window? [frame_length] -> [B, frames, bins, 2].
Status Stft(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  const Shape& s = ctx.input(0).shape;
  const int64_t step = ctx.node().GetInt("frame_step", 0);
  const int64_t length = ctx.node().GetInt("frame_length", 0);
  if (s.size() != 3 || (s[2] != 1 && s[2] != 2) || step < 1 || length < 1 || s[1] < length) {
    return ctx.Error("needs signal [batch, length, 1 or 2] at least frame_length long, " +
                     std::string("frame_step >= 1 and frame_length >= 1; got ") + ShapeToString(s) +
                     ", frame_step " + std::to_string(step) + ", frame_length " +
                     std::to_string(length));
  }
  LOOM_RETURN_IF_ERROR(ExpectInputShape(ctx, 1, "window", {length}));
  const int64_t bins = ctx.node().GetInt("onesided", 1) != 0 ? length / 2 + 1 : length;
  ctx.SetOutput(0, DType::kF32, {s[0], (s[1] - length) / step + 1, bins, 2});
  return Status::Ok();
}

// HannWindow, HammingWindow, BlackmanWindow: no inputs, [size] of dtype.
Status Window(InferContext& ctx) {
  DType t;
  LOOM_RETURN_IF_ERROR(FloatDType(ctx, &t));
  const int64_t size = ctx.node().GetInt("size", -1);
  if (size < 0) return ctx.Error("size must be >= 0, is " + std::to_string(size));
  ctx.SetOutput(0, t, {size});
  return Status::Ok();
}

Status MelWeightMatrix(InferContext& ctx) {
  DType t;
  LOOM_RETURN_IF_ERROR(FloatDType(ctx, &t));
  const Node& n = ctx.node();
  const int64_t bins = n.GetInt("num_mel_bins", 0), length = n.GetInt("dft_length", 0);
  if (bins < 1 || length < 1 || n.GetInt("sample_rate", 0) < 1) {
    return ctx.Error("num_mel_bins, dft_length and sample_rate must be >= 1");
  }
  ctx.SetOutput(0, t, {length / 2 + 1, bins});
  return Status::Ok();
}

// x f32 -> y u8 (x's shape), y_scale f32 [], y_zero_point u8 [].
Status DynamicQuantizeLinear(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  ctx.SetOutput(0, DType::kU8, ctx.input(0).shape);
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DType::kF32, {});
  if (ctx.num_outputs() > 2) ctx.SetOutput(2, DType::kU8, {});
  return Status::Ok();
}

// x [..., M, M] -> [...].
Status Det(InferContext& ctx) {
  LOOM_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DType::kF32}));
  const Shape& s = ctx.input(0).shape;
  if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2]) {
    return ctx.Error("needs square matrices [..., M, M], got " + ShapeToString(s));
  }
  ctx.SetOutput(0, DType::kF32, Shape(s.begin(), s.end() - 2));
  return Status::Ok();
}

}  // namespace loom::ir::shape
