// Shared by the ONNX importer's files: the per-model ImportContext the op mappers emit IR through,
// attribute readers, TensorProto conversion, and the op-mapper table. Internal to
// compiler/frontend; the only place besides the .cc files that sees protobuf types.
#ifndef LOOM_COMPILER_FRONTEND_ONNX_INTERNAL_H_
#define LOOM_COMPILER_FRONTEND_ONNX_INTERNAL_H_

#include <onnx/onnx_pb.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ir/graph.h"
#include "runtime/core/status.h"

namespace loom::frontend {

// --- tensors and types (onnx_tensor.cc) ---

// kUnimplemented for element types Loom does not support, naming the type.
Status DTypeFromOnnx(int32_t elem_type, DType* out);
const char* OnnxTypeName(int32_t elem_type);
Status TensorFromProto(const onnx::TensorProto& proto, ir::Tensor* out);
void TensorToProto(const ir::Tensor& t, const std::string& name, onnx::TensorProto* out);

// --- attributes ---

const onnx::AttributeProto* FindAttr(const onnx::NodeProto& n, const std::string& name);
int64_t AttrInt(const onnx::NodeProto& n, const std::string& name, int64_t fallback);
float AttrFloat(const onnx::NodeProto& n, const std::string& name, float fallback);
std::string AttrString(const onnx::NodeProto& n, const std::string& name,
                       const std::string& fallback);
std::vector<int64_t> AttrInts(const onnx::NodeProto& n, const std::string& name);

// --- the context op mappers work in ---

class ImportContext {
 public:
  ImportContext(ir::Graph* g, int opset) : g_(g), opset_(opset) {}

  ir::Graph& graph() { return *g_; }
  int opset() const { return opset_; }

  // "node 'conv1' (Conv)" or "node #3 (Conv)".
  std::string Label(const onnx::NodeProto& n) const;
  // kUnimplemented / kInvalidArgument prefixed with the node's label.
  Status Unsupported(const onnx::NodeProto& n, const std::string& what) const;
  Status Invalid(const onnx::NodeProto& n, const std::string& what) const;

  // ONNX name -> IR value, for graph inputs, initializers and mapped node outputs.
  void Bind(const std::string& onnx_name, ir::ValueId id) { names_[onnx_name] = id; }
  ir::ValueId Lookup(const std::string& onnx_name) const;
  // Compares the IR type of the value bound to `name` with the type ONNX shape inference found
  // for it; kInternal on a disagreement (a bug on one side).
  Status CrossCheck(const std::string& name, const onnx::TypeProto& type) const;

  bool HasInput(const onnx::NodeProto& n, int i) const {
    return i < n.input_size() && !n.input(i).empty();
  }
  // A required input; fails naming the node if absent or undefined.
  Status Input(const onnx::NodeProto& n, int i, ir::ValueId* out) const;
  ir::ValueId OptionalInput(const onnx::NodeProto& n, int i) const;
  // The input's constant data, or nullptr if absent or not a constant.
  const ir::Tensor* ConstantInput(const onnx::NodeProto& n, int i) const;
  // A constant 0-D or 1-D integer input (i32/i64) that decides a shape (axes, k, starts, repeats,
  // ...) as int64s; *present is false when omitted. A value computed at run time is refused,
  // naming `what` and the input: Loom fixes shapes at compile time.
  Status ConstantInts(const onnx::NodeProto& n, int i, const char* what, std::vector<int64_t>* out,
                      bool* present) const;
  // An axis attribute or input in [-rank, rank + extra) to [0, rank + extra); `what` names it in
  // the error ("axis", "batch_axis"). `extra` is 1 where the axis may point past the last dim
  // (Unsqueeze-like ops).
  Status NormalizeAxis(const onnx::NodeProto& n, const char* what, int64_t rank, int64_t* axis,
                       int64_t extra = 0) const;

  // Emits an IR node whose outputs become the ONNX node's outputs `onnx_outputs` (indices into
  // n.output(); empty names are skipped). Types come from Loom's shape functions, which also
  // validate the node.
  Status Emit(const onnx::NodeProto& n, const std::string& op, std::vector<ir::ValueId> inputs,
              ir::AttributeMap attrs, const std::vector<int>& onnx_outputs = {0});
  // Emits an IR node with one output that no ONNX name refers to (a canonicalization helper);
  // `suffix` names it after the ONNX node's first output.
  Status EmitInternal(const onnx::NodeProto& n, const std::string& op,
                      std::vector<ir::ValueId> inputs, ir::AttributeMap attrs,
                      const std::string& suffix, ir::ValueId* out);
  // A constant created by a mapper (e.g. Clip's attribute bounds as inputs).
  ir::ValueId AddConstant(const std::string& name_hint, ir::Tensor t);

  int node_index = 0;  // of the node being mapped, for labels of unnamed nodes

 private:
  ir::Graph* g_;
  int opset_;
  std::unordered_map<std::string, ir::ValueId> names_;
};

// --- shape folding (onnx_shape_folding.cc) ---

// Evaluates `n` at import when its outputs are compile-time constants (Shape and Size of any
// value; Gather, Unsqueeze, Concat, Slice, Cast, Range, arithmetic... of constants) and binds
// them as constants: *folded says whether it did. Refuses a node whose output shape depends on
// run-time data (NonZero of an input), naming it. Otherwise leaves the node to its mapper and
// says why it did not fold in *why_not (empty for ops it never folds). Outputs of `g` (the model's
// outputs) are never folded.
Status FoldShapeNode(ImportContext& ctx, const onnx::GraphProto& g, const onnx::NodeProto& n,
                     int since, bool* folded, std::string* why_not);
// Whether FoldShapeNode decides about `op`: it evaluates it (when its inputs allow) or refuses
// it on run-time data (NonZero, ...). Such ops pass the import's op screen even without a mapper.
bool IsFoldableShapeOp(const std::string& op);

// --- subgraphs (onnx_import.cc) ---

// Maps g's nodes in order into ctx (folding what folds), as the model's own graph is mapped;
// a subgraph's outputs may fold, the model's may not.
Status ImportNodes(ImportContext& ctx, const onnx::GraphProto& g, bool is_subgraph);
// A control-flow body inlined into the outer graph: binds its initializers, then ImportNodes.
// Its names share the outer scope (ONNX forbids a subgraph to shadow an outer name).
Status ImportSubgraph(ImportContext& ctx, const onnx::GraphProto& g);

// --- op mappers (onnx_ops_nn.cc, onnx_ops_tensor.cc) ---

// `since` is the version of the op's schema in effect (e.g. 13 for Softmax in an opset-17 model).
using MapFn = Status (*)(ImportContext& ctx, const onnx::NodeProto& n, int since);

struct OpMapper {
  const char* op;
  int min_since;                   // older schema versions have different semantics
  std::vector<const char*> attrs;  // attributes the mapper understands; others are rejected
  std::vector<int> static_inputs;  // inputs that must be constants (shapes, pads, modes)
  MapFn map;
};

const std::vector<OpMapper>& OpMappers();
const OpMapper* FindOpMapper(const std::string& op);

// Mapper entry points.
Status MapConv(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapConvInteger(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapQLinearConv(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapGemm(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapMatMul(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapMatMulInteger(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapQLinearMatMul(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapBatchNorm(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapMaxPool(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapAveragePool(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapGlobalAveragePool(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapQuantizeLinear(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapDequantizeLinear(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapUnary(ImportContext& ctx, const onnx::NodeProto& n, int since);  // Relu, Sigmoid
Status MapLeakyRelu(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapClip(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapBinary(ImportContext& ctx, const onnx::NodeProto& n, int since);  // Add, Sub, Mul
Status MapFlatten(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapReshape(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapTranspose(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapConcat(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapPad(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapSoftmax(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapIdentity(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapDropout(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapConstant(ImportContext& ctx, const onnx::NodeProto& n, int since);
// Element types, casts, shape and indexing ops (onnx_ops_shape.cc).
Status MapCast(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapCastLike(ImportContext& ctx, const onnx::NodeProto& n, int since);
// Vision and normalization family (onnx_ops_vision.cc).
Status MapConvTranspose(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapResize(ImportContext& ctx, const onnx::NodeProto& n, int since);  // also Upsample
Status MapLayerNorm(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapInstanceNorm(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapLrn(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapGlobalMaxPool(ImportContext& ctx, const onnx::NodeProto& n, int since);
// Reduction family (onnx_ops_reduce.cc); LogSoftmax and Hardmax use MapSoftmax.
Status MapReduce(ImportContext& ctx, const onnx::NodeProto& n, int since);     // Reduce*
Status MapArgReduce(ImportContext& ctx, const onnx::NodeProto& n, int since);  // ArgMax, ArgMin
Status MapCumSum(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapTopK(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapNllLoss(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapSoftmaxCrossEntropyLoss(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapMeanVarianceNorm(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapEinsum(ImportContext& ctx, const onnx::NodeProto& n, int since);  // onnx_ops_einsum.cc
// Elementwise math, logic and activation family (onnx_ops_math.cc): its own mapper table,
// appended to OpMappers().
const std::vector<OpMapper>& MathOpMappers();
// Shape and indexing family (onnx_ops_index.cc, onnx_ops_generate.cc), with its own mapper table
// that OpMappers() appends.
const std::vector<OpMapper>& IndexOpMappers();
Status MapSqueeze(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapUnsqueeze(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapSlice(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapSplit(ImportContext& ctx, const onnx::NodeProto& n, int since);  // one Slice per output
Status MapShape(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapSize(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapGather(ImportContext& ctx, const onnx::NodeProto& n, int since);  // + GatherElements
Status MapGatherND(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapScatter(ImportContext& ctx, const onnx::NodeProto& n,
                  int since);  // ND, Elements, Scatter
Status MapExpand(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapTile(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapTrilu(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapDepthToSpace(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapSpaceToDepth(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapCompress(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapRange(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapConstantOfShape(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapEyeLike(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapOneHot(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapNonZero(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapReverseSequence(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapMaxUnpool(ImportContext& ctx, const onnx::NodeProto& n, int since);
// Recurrent, signal and misc family (onnx_ops_seq.cc): RNN, GRU, LSTM, DFT, STFT, windows,
// MelWeightMatrix, DynamicQuantizeLinear, Det; its own table, appended to OpMappers().
const std::vector<OpMapper>& SeqOpMappers();
// Control flow (onnx_ops_control.cc), rows in SeqOpMappers(): If inlines its branches, Loop
// and Scan are unrolled.
Status MapIf(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapLoop(ImportContext& ctx, const onnx::NodeProto& n, int since);
Status MapScan(ImportContext& ctx, const onnx::NodeProto& n, int since);
// Detection/vision family (onnx_ops_vision2.cc): GridSample, RoiAlign, NonMaxSuppression, Unique;
// its own mapper table, appended to OpMappers().
const std::vector<OpMapper>& Vision2OpMappers();
// BatchNormalization with training_mode=1 (MapBatchNorm hands it over).
Status MapBatchNormTraining(ImportContext& ctx, const onnx::NodeProto& n, int since);

}  // namespace loom::frontend

#endif  // LOOM_COMPILER_FRONTEND_ONNX_INTERNAL_H_
