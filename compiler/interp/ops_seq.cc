// Executors of the recurrent, signal and misc family (issue 12) on the runtime's reference
// kernels (runtime/kernels/kernels_seq.h). The interpreter owns the scratch the recurrent ops and
// Det ask for. Attributes are trusted to be canonical (the verifier ran).
#include <vector>

#include "compiler/interp/op_table.h"
#include "runtime/kernels/kernels_seq.h"
#include "runtime/kernels/seq_attrs.h"

namespace loom::interp {
namespace {

using kernels::TensorView;

template <int kGates>
Status ExecRecurrent(ExecContext& ctx) {
  TensorView in[8], out[3];
  kernels::RecurrentOperands o;
  const TensorView** slots[] = {&o.x, &o.w, &o.r, &o.b, &o.seq_lens, &o.init_h, &o.init_c, &o.p};
  for (int i = 0; i < ctx.num_inputs() && i < 8; ++i) {
    bool present = false;
    LOOM_RETURN_IF_ERROR(ctx.InOpt(i, &in[i], &present));
    if (present) *slots[i] = &in[i];
  }
  const TensorView** outs[] = {&o.y, &o.y_h, &o.y_c};
  for (int i = 0; i < ctx.num_outputs() && i < 3; ++i) {
    LOOM_RETURN_IF_ERROR(ctx.Out(i, &out[i]));
    *outs[i] = &out[i];
  }
  kernels::RecurrentParams p;
  LOOM_RETURN_IF_ERROR(ctx.Wrap(kernels::RecurrentParamsFrom(ctx.node(), &p)));
  std::vector<float> scratch(kernels::RecurrentScratchFloats(kGates, p.hidden_size));
  if (kGates == kernels::kRnnGates) return ctx.Wrap(kernels::Rnn(p, o, scratch.data()));
  if (kGates == kernels::kGruGates) return ctx.Wrap(kernels::Gru(p, o, scratch.data()));
  return ctx.Wrap(kernels::Lstm(p, o, scratch.data()));
}

Status ExecDft(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const ir::Node& n = ctx.node();
  return ctx.Wrap(kernels::Dft(x, static_cast<int>(n.GetInt("axis", 1)), n.GetInt("dft_length", 0),
                               n.GetInt("inverse", 0) != 0, n.GetInt("onesided", 0) != 0, y));
}

Status ExecStft(ExecContext& ctx) {
  TensorView signal, window, y;
  bool has_window = false;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &signal));
  LOOM_RETURN_IF_ERROR(ctx.InOpt(1, &window, &has_window));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const ir::Node& n = ctx.node();
  return ctx.Wrap(kernels::Stft(signal, n.GetInt("frame_step", 0), has_window ? &window : nullptr,
                                n.GetInt("frame_length", 0), n.GetInt("onesided", 1) != 0, y));
}

template <kernels::WindowKind kKind>
Status ExecWindow(ExecContext& ctx) {
  TensorView y;
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  return ctx.Wrap(kernels::Window(kKind, ctx.node().GetInt("periodic", 1) != 0, y));
}

Status ExecMelWeightMatrix(ExecContext& ctx) {
  TensorView y;
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const ir::Node& n = ctx.node();
  return ctx.Wrap(kernels::MelWeightMatrix(n.GetInt("dft_length", 0), n.GetInt("sample_rate", 0),
                                           n.GetFloat("lower_edge_hertz", 0.0f),
                                           n.GetFloat("upper_edge_hertz", 0.0f), y));
}

Status ExecDynamicQuantizeLinear(ExecContext& ctx) {
  TensorView x, out[3];
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  for (int i = 0; i < ctx.num_outputs(); ++i) LOOM_RETURN_IF_ERROR(ctx.Out(i, &out[i]));
  // Unread scale / zero point outputs still need somewhere to go.
  float scale = 0.0f;
  uint8_t zero_point = 0;
  TensorView s = kernels::View(DType::kF32, &scale, {});
  TensorView zp = kernels::View(DType::kU8, &zero_point, {});
  return ctx.Wrap(kernels::DynamicQuantizeLinear(x, out[0], ctx.num_outputs() > 1 ? out[1] : s,
                                                 ctx.num_outputs() > 2 ? out[2] : zp));
}

Status ExecDet(ExecContext& ctx) {
  TensorView x, y;
  LOOM_RETURN_IF_ERROR(ctx.In(0, &x));
  LOOM_RETURN_IF_ERROR(ctx.Out(0, &y));
  const int64_t m = x.rank >= 2 ? x.shape[x.rank - 1] : 0;
  std::vector<double> scratch(static_cast<size_t>(m * m));
  return ctx.Wrap(kernels::Det(x, y, scratch.data()));
}

struct Entry {
  const char* op;
  ExecFn fn;
};

const Entry kSeqOps[] = {
    {"RNN", ExecRecurrent<kernels::kRnnGates>},
    {"GRU", ExecRecurrent<kernels::kGruGates>},
    {"LSTM", ExecRecurrent<kernels::kLstmGates>},
    {"DFT", ExecDft},
    {"STFT", ExecStft},
    {"HannWindow", ExecWindow<kernels::WindowKind::kHann>},
    {"HammingWindow", ExecWindow<kernels::WindowKind::kHamming>},
    {"BlackmanWindow", ExecWindow<kernels::WindowKind::kBlackman>},
    {"MelWeightMatrix", ExecMelWeightMatrix},
    {"DynamicQuantizeLinear", ExecDynamicQuantizeLinear},
    {"Det", ExecDet},
};

}  // namespace

ExecFn FindSeqExecutor(std::string_view op) {
  for (const Entry& e : kSeqOps) {
    if (op == e.op) return e.fn;
  }
  return nullptr;
}

}  // namespace loom::interp
