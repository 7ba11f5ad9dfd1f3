// Mappers of the recurrent, signal and misc family (issue 12): RNN, GRU, LSTM, DFT, STFT,
// HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix, DynamicQuantizeLinear and Det.
// ONNX's defaults become explicit canonical attributes (docs/compiler.md §3): activation names
// become the kernel's codes with their alpha / beta resolved, direction a number, and the scalar
// inputs that decide a shape (DFT's dft_length and axis, STFT's frame_step and frame_length, a
// window's size, MelWeightMatrix's parameters) attributes read from constants.
#include <cctype>
#include <cmath>
#include <limits>

#include "compiler/frontend/onnx_internal.h"

namespace loom::frontend {
namespace {

using ir::Attribute;

// ONNX's activation names with the IR's code (docs/compiler.md; the kernels' RnnActivation in
// runtime/kernels/kernels_seq.h) and the alpha / beta defaults they take (NaN: the function has
// no such parameter, so none is consumed from activation_alpha / _beta).
struct ActivationDef {
  const char* name;  // lower case; ONNX compares case-insensitively in practice
  int code;
  float alpha, beta;
};
constexpr float kNone = std::numeric_limits<float>::quiet_NaN();
constexpr ActivationDef kActivations[] = {
    {"relu", 0, kNone, kNone},      {"tanh", 1, kNone, kNone},
    {"sigmoid", 2, kNone, kNone},   {"affine", 3, 1.0f, 0.0f},
    {"leakyrelu", 4, 0.01f, kNone}, {"thresholdedrelu", 5, 1.0f, kNone},
    {"scaledtanh", 6, 1.0f, 1.0f},  {"hardsigmoid", 7, 0.2f, 0.5f},
    {"elu", 8, 1.0f, kNone},        {"softsign", 9, kNone, kNone},
    {"softplus", 10, kNone, kNone},
};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// RNN, GRU, LSTM: the gate count and default activations per direction.
constexpr int kRnnGates = 1, kGruGates = 3, kLstmGates = 4;
struct RecurrentDef {
  const char* op;
  int gates;
  std::vector<const char*> defaults;
};
const RecurrentDef* FindRecurrent(const std::string& op) {
  static const RecurrentDef kDefs[] = {
      {"RNN", kRnnGates, {"tanh"}},
      {"GRU", kGruGates, {"sigmoid", "tanh"}},
      {"LSTM", kLstmGates, {"sigmoid", "tanh", "tanh"}},
  };
  for (const RecurrentDef& d : kDefs) {
    if (op == d.op) return &d;
  }
  return nullptr;
}

// activations / activation_alpha / activation_beta -> codes and one alpha and beta per entry.
Status ResolveActivations(ImportContext& ctx, const onnx::NodeProto& n, const RecurrentDef& def,
                          int dirs, ir::AttributeMap* attrs) {
  std::vector<std::string> names;
  if (const onnx::AttributeProto* a = FindAttr(n, "activations")) {
    for (const std::string& s : a->strings()) names.push_back(Lower(s));
  }
  const size_t per = def.defaults.size();
  if (names.empty()) {
    for (int d = 0; d < dirs; ++d)
      names.insert(names.end(), def.defaults.begin(), def.defaults.end());
  } else if (names.size() == per && dirs == 2) {
    names.insert(names.end(), names.begin(), names.end());  // one list for both directions
  }
  if (names.size() != per * static_cast<size_t>(dirs)) {
    return ctx.Invalid(n, "activations has " + std::to_string(names.size()) + " entries, " +
                              std::to_string(per * static_cast<size_t>(dirs)) + " expected (" +
                              std::to_string(per) + " per direction)");
  }
  std::vector<float> given_alpha, given_beta;
  if (const onnx::AttributeProto* a = FindAttr(n, "activation_alpha")) {
    given_alpha.assign(a->floats().begin(), a->floats().end());
  }
  if (const onnx::AttributeProto* a = FindAttr(n, "activation_beta")) {
    given_beta.assign(a->floats().begin(), a->floats().end());
  }
  size_t next_alpha = 0, next_beta = 0;
  std::vector<int64_t> codes;
  std::vector<float> alpha, beta;
  for (const std::string& name : names) {
    const ActivationDef* found = nullptr;
    for (const ActivationDef& a : kActivations) {
      if (name == a.name) found = &a;
    }
    if (found == nullptr) return ctx.Unsupported(n, "activation '" + name + "' is not supported");
    codes.push_back(found->code);
    const bool takes_alpha = !std::isnan(found->alpha), takes_beta = !std::isnan(found->beta);
    float al = takes_alpha ? found->alpha : 0.0f;
    float be = takes_beta ? found->beta : 0.0f;
    if (takes_alpha && next_alpha < given_alpha.size()) al = given_alpha[next_alpha++];
    if (takes_beta && next_beta < given_beta.size()) be = given_beta[next_beta++];
    alpha.push_back(al);
    beta.push_back(be);
  }
  (*attrs)["activations"] = Attribute::Ints(codes);
  (*attrs)["activation_alpha"] = Attribute::Floats(alpha);
  (*attrs)["activation_beta"] = Attribute::Floats(beta);
  return Status::Ok();
}

Status MapRecurrent(ImportContext& ctx, const onnx::NodeProto& n, int) {
  const RecurrentDef& def = *FindRecurrent(n.op_type());
  ir::ValueId r;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 2, &r));
  const std::string dir_name = AttrString(n, "direction", "forward");
  int direction = -1;
  if (dir_name == "forward") direction = 0;
  if (dir_name == "reverse") direction = 1;
  if (dir_name == "bidirectional") direction = 2;
  if (direction < 0) {
    return ctx.Invalid(n, "direction '" + dir_name + "' is not forward, reverse or bidirectional");
  }
  const ir::Shape rs = ctx.graph().value(r).shape;
  // hidden_size is optional in older opsets; R [dirs, gates * H, H] has it.
  const int64_t hidden = AttrInt(n, "hidden_size", rs.size() == 3 ? rs[2] : 0);
  const float clip = AttrFloat(n, "clip", 0.0f);
  if (FindAttr(n, "clip") != nullptr && !(clip > 0.0f)) {
    return ctx.Invalid(n, "clip must be > 0, is " + std::to_string(clip));
  }
  ir::AttributeMap attrs;
  attrs["hidden_size"] = Attribute::Int(hidden);
  attrs["direction"] = Attribute::Int(direction);
  attrs["layout"] = Attribute::Int(AttrInt(n, "layout", 0));
  attrs["clip"] = Attribute::Float(clip);
  LOOM_RETURN_IF_ERROR(ResolveActivations(ctx, n, def, direction == 2 ? 2 : 1, &attrs));
  if (def.gates == kGruGates) {
    attrs["linear_before_reset"] = Attribute::Int(AttrInt(n, "linear_before_reset", 0) != 0);
  }
  if (def.gates == kLstmGates) {
    attrs["input_forget"] = Attribute::Int(AttrInt(n, "input_forget", 0) != 0);
  }
  const int max_inputs = def.gates == kLstmGates ? 8 : 6;
  if (n.input_size() > max_inputs) {
    return ctx.Invalid(n, "takes at most " + std::to_string(max_inputs) + " inputs");
  }
  std::vector<ir::ValueId> ins(3);
  for (int i = 0; i < 3; ++i) LOOM_RETURN_IF_ERROR(ctx.Input(n, i, &ins[static_cast<size_t>(i)]));
  for (int i = 3; i < n.input_size(); ++i) ins.push_back(ctx.OptionalInput(n, i));
  while (ins.size() > 3 && ins.back() == ir::kNoValue) ins.pop_back();
  const std::vector<int> outs =
      def.gates == kLstmGates ? std::vector<int>{0, 1, 2} : std::vector<int>{0, 1};
  return ctx.Emit(n, def.op, ins, std::move(attrs), outs);
}

// One constant scalar input as an int64; *present is false when omitted.
Status ScalarInt(ImportContext& ctx, const onnx::NodeProto& n, int i, const char* what,
                 int64_t* out, bool* present) {
  std::vector<int64_t> v;
  LOOM_RETURN_IF_ERROR(ctx.ConstantInts(n, i, what, &v, present));
  if (*present && v.size() != 1) return ctx.Invalid(n, std::string(what) + " must be a scalar");
  if (*present) *out = v[0];
  return Status::Ok();
}

Status RequiredScalarInt(ImportContext& ctx, const onnx::NodeProto& n, int i, const char* what,
                         int64_t* out) {
  bool present = false;
  LOOM_RETURN_IF_ERROR(ScalarInt(ctx, n, i, what, out, &present));
  if (!present)
    return ctx.Invalid(n, std::string(what) + " (input " + std::to_string(i) + ") is required");
  return Status::Ok();
}

// DFT-17 has axis as an attribute (default 1), DFT-20 as input 2 (default -2).
Status MapDft(ImportContext& ctx, const onnx::NodeProto& n, int since) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  const ir::Shape xs = ctx.graph().value(x).shape;
  const int64_t rank = static_cast<int64_t>(xs.size());
  int64_t axis = since >= 20 ? -2 : AttrInt(n, "axis", 1);
  bool present = false;
  if (since >= 20) LOOM_RETURN_IF_ERROR(ScalarInt(ctx, n, 2, "axis", &axis, &present));
  if (rank < 2 || axis < -rank || axis > rank - 2 || axis == -1) {
    return ctx.Invalid(n, "axis " + std::to_string(axis) + " must name a signal dim of x " +
                              ir::ShapeToString(xs) + " (not its last, the complex dim)");
  }
  if (axis < 0) axis += rank;
  int64_t length = xs[static_cast<size_t>(axis)];
  LOOM_RETURN_IF_ERROR(ScalarInt(ctx, n, 1, "dft_length", &length, &present));
  if (length < 1) return ctx.Invalid(n, "dft_length must be >= 1, is " + std::to_string(length));
  ir::AttributeMap attrs;
  attrs["axis"] = Attribute::Int(axis);
  attrs["dft_length"] = Attribute::Int(length);
  attrs["inverse"] = Attribute::Int(AttrInt(n, "inverse", 0) != 0);
  attrs["onesided"] = Attribute::Int(AttrInt(n, "onesided", 0) != 0);
  return ctx.Emit(n, "DFT", {x}, std::move(attrs));
}

// STFT(signal, frame_step, window?, frame_length?): frame_length defaults to the window's length.
Status MapStft(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId signal;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &signal));
  int64_t step = 0, length = 0;
  bool has_length = false;
  LOOM_RETURN_IF_ERROR(RequiredScalarInt(ctx, n, 1, "frame_step", &step));
  LOOM_RETURN_IF_ERROR(ScalarInt(ctx, n, 3, "frame_length", &length, &has_length));
  const ir::ValueId window = ctx.OptionalInput(n, 2);
  if (window != ir::kNoValue) {
    const ir::Shape ws = ctx.graph().value(window).shape;
    if (ws.size() != 1 || (has_length && ws[0] != length)) {
      return ctx.Invalid(n, "window " + ir::ShapeToString(ws) + " must be 1-D of frame_length " +
                                std::to_string(length));
    }
    length = ws[0];
    has_length = true;
  }
  if (!has_length) return ctx.Invalid(n, "needs a window or a frame_length");
  ir::AttributeMap attrs;
  attrs["frame_step"] = Attribute::Int(step);
  attrs["frame_length"] = Attribute::Int(length);
  attrs["onesided"] = Attribute::Int(AttrInt(n, "onesided", 1) != 0);
  std::vector<ir::ValueId> ins = {signal};
  if (window != ir::kNoValue) ins.push_back(window);
  return ctx.Emit(n, "STFT", ins, std::move(attrs));
}

// output_datatype (an ONNX TensorProto type, FLOAT by default) as the IR's dtype name.
Status OutputDType(ImportContext& ctx, const onnx::NodeProto& n, ir::AttributeMap* attrs) {
  DType t;
  LOOM_RETURN_IF_ERROR(DTypeFromOnnx(static_cast<int32_t>(AttrInt(n, "output_datatype", 1)), &t)
                           .WithContext(ctx.Label(n) + ": output_datatype"));
  if (t != DType::kF32 && t != DType::kF64) {
    return ctx.Unsupported(n, std::string("output_datatype ") + DTypeName(t) +
                                  " is not supported (float and double are)");
  }
  (*attrs)["dtype"] = Attribute::String(DTypeName(t));
  return Status::Ok();
}

Status MapWindow(ImportContext& ctx, const onnx::NodeProto& n, int) {
  int64_t size = 0;
  LOOM_RETURN_IF_ERROR(RequiredScalarInt(ctx, n, 0, "size", &size));
  if (size < 0) return ctx.Invalid(n, "size must be >= 0, is " + std::to_string(size));
  ir::AttributeMap attrs;
  attrs["size"] = Attribute::Int(size);
  attrs["periodic"] = Attribute::Int(AttrInt(n, "periodic", 1) != 0);
  LOOM_RETURN_IF_ERROR(OutputDType(ctx, n, &attrs));
  return ctx.Emit(n, n.op_type(), {}, std::move(attrs));
}

Status MapMelWeightMatrix(ImportContext& ctx, const onnx::NodeProto& n, int) {
  static const char* const kInts[] = {"num_mel_bins", "dft_length", "sample_rate"};
  ir::AttributeMap attrs;
  for (int i = 0; i < 3; ++i) {
    int64_t v = 0;
    LOOM_RETURN_IF_ERROR(RequiredScalarInt(ctx, n, i, kInts[i], &v));
    if (v < 1) return ctx.Invalid(n, std::string(kInts[i]) + " must be >= 1");
    attrs[kInts[i]] = Attribute::Int(v);
  }
  static const char* const kHz[] = {"lower_edge_hertz", "upper_edge_hertz"};
  for (int i = 3; i < 5; ++i) {
    const ir::Tensor* t = ctx.ConstantInput(n, i);
    if (t == nullptr || t->num_elements() != 1) {
      return ctx.Unsupported(n, std::string(kHz[i - 3]) + " (input " + std::to_string(i) +
                                    ") must be a constant scalar");
    }
    attrs[kHz[i - 3]] = Attribute::Float(static_cast<float>(t->ElementAsDouble(0)));
  }
  LOOM_RETURN_IF_ERROR(OutputDType(ctx, n, &attrs));
  return ctx.Emit(n, "MelWeightMatrix", {}, std::move(attrs));
}

Status MapDynamicQuantizeLinear(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  return ctx.Emit(n, "DynamicQuantizeLinear", {x}, {}, {0, 1, 2});
}

Status MapDet(ImportContext& ctx, const onnx::NodeProto& n, int) {
  ir::ValueId x;
  LOOM_RETURN_IF_ERROR(ctx.Input(n, 0, &x));
  return ctx.Emit(n, "Det", {x}, {});
}

}  // namespace

const std::vector<OpMapper>& SeqOpMappers() {
  // op, first schema version with the semantics mapped, attributes understood, inputs that must
  // be constants (they decide a shape), mapper.
  static const std::vector<const char*> kRecurrentAttrs = {
      "activation_alpha", "activation_beta", "activations", "clip",
      "direction",        "hidden_size",     "layout"};
  auto with = [](std::vector<const char*> v, const char* extra) {
    v.push_back(extra);
    return v;
  };
  static const std::vector<OpMapper> table = {
      {"RNN", 7, kRecurrentAttrs, {}, MapRecurrent},
      {"GRU", 7, with(kRecurrentAttrs, "linear_before_reset"), {}, MapRecurrent},
      {"LSTM", 7, with(kRecurrentAttrs, "input_forget"), {}, MapRecurrent},
      {"DFT", 17, {"axis", "inverse", "onesided"}, {1, 2}, MapDft},
      {"STFT", 17, {"onesided"}, {1, 3}, MapStft},
      {"HannWindow", 17, {"output_datatype", "periodic"}, {0}, MapWindow},
      {"HammingWindow", 17, {"output_datatype", "periodic"}, {0}, MapWindow},
      {"BlackmanWindow", 17, {"output_datatype", "periodic"}, {0}, MapWindow},
      {"MelWeightMatrix", 17, {"output_datatype"}, {0, 1, 2, 3, 4}, MapMelWeightMatrix},
      {"DynamicQuantizeLinear", 11, {}, {}, MapDynamicQuantizeLinear},
      {"Det", 11, {}, {}, MapDet},
      // Control flow (onnx_ops_control.cc). Loop's trip count and start condition must be
      // constants: it is unrolled.
      {"If", 1, {"then_branch", "else_branch"}, {}, MapIf},
      {"Loop", 1, {"body"}, {0, 1}, MapLoop},
      {"Scan",
       8,
       {"body", "num_scan_inputs", "directions", "scan_input_axes", "scan_input_directions",
        "scan_output_axes", "scan_output_directions"},
       {},
       MapScan},
  };
  return table;
}

}  // namespace loom::frontend
