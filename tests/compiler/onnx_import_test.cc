// ONNX import from ModelProtos built here in C++: canonicalization of each op family checked by
// running the imported graph, input-shape overrides and freezing, and the failure modes (each a
// Status naming what is wrong, never an exception or crash) including truncations and byte flips
// of a valid model.
#include "compiler/frontend/onnx_import.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <random>

#include "compiler/interp/interpreter.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/passes/pass_manager.h"
#include "tests/compiler/test_util.h"

namespace loom::frontend {
namespace {

using ::testing::HasSubstr;

// --- a tiny ModelProto builder ---

struct ModelBuilder {
  onnx::ModelProto m;
  onnx::GraphProto* g;

  explicit ModelBuilder(int opset = 13) {
    m.set_ir_version(8);
    m.add_opset_import()->set_version(opset);
    g = m.mutable_graph();
    g->set_name("test");
  }
  static void SetType(onnx::ValueInfoProto* vi, const std::string& name, int elem,
                      const std::vector<int64_t>& dims) {
    vi->set_name(name);
    auto* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    auto* shape = t->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  }
  ModelBuilder& Input(const std::string& name, const std::vector<int64_t>& dims,
                      int elem = onnx::TensorProto::FLOAT) {
    SetType(g->add_input(), name, elem, dims);
    return *this;
  }
  ModelBuilder& Output(const std::string& name, const std::vector<int64_t>& dims,
                       int elem = onnx::TensorProto::FLOAT) {
    SetType(g->add_output(), name, elem, dims);
    return *this;
  }
  ModelBuilder& FloatInit(const std::string& name, const std::vector<int64_t>& dims,
                          const std::vector<float>& data) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : data) t->add_float_data(v);
    return *this;
  }
  ModelBuilder& Int64Init(const std::string& name, const std::vector<int64_t>& data) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(data.size()));
    for (int64_t v : data) t->add_int64_data(v);
    return *this;
  }
  onnx::NodeProto* Node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "") {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return n;
  }
  std::string Bytes() const { return m.SerializeAsString(); }
};

void IntAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void FloatAttr(onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
void IntsAttr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void StringAttr(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

Status Import(const ModelBuilder& b, ir::Graph* g, const ImportOptions& options = {}) {
  const std::string bytes = b.Bytes();
  return ImportOnnxBytes(bytes.data(), bytes.size(), options, g);
}

std::vector<float> RunF32(const ir::Graph& g, const std::vector<ir::Tensor>& inputs) {
  std::vector<ir::Tensor> out;
  Status s = interp::Run(g, inputs, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (out.empty()) return {};
  return std::vector<float>(out[0].data<float>(), out[0].data<float>() + out[0].num_elements());
}

// --- mapping ---

TEST(OnnxImport, KeepsNamesAndMapsTypes) {
  ModelBuilder b;
  b.Input("in:0", {2, 2}).Output("out", {2, 2});
  b.Node("Relu", {"in:0"}, {"out"}, "relu_node");
  ir::Graph g;
  ASSERT_TRUE(Import(b, &g).ok());
  EXPECT_EQ(ir::PrintGraph(g),
            "graph @test(%\"in:0\": f32[2,2]) {\n"
            "  %out: f32[2,2] = Relu(%\"in:0\") @relu_node\n"
            "  return %out\n"
            "}\n");
}

TEST(OnnxImport, AutoPadSameLowerPutsTheOddCellFirst) {
  ModelBuilder b;
  b.Input("x", {1, 1, 4, 4}).Output("y", {1, 1, 4, 4});
  b.FloatInit("w", {1, 1, 2, 2}, {1, 1, 1, 1});
  StringAttr(b.Node("Conv", {"x", "w"}, {"y"}), "auto_pad", "SAME_LOWER");
  ir::Graph g;
  ASSERT_TRUE(Import(b, &g).ok());
  EXPECT_EQ(g.nodes()[0]->GetInts("pads"), (std::vector<int64_t>{1, 1, 0, 0}));
  // Each output sums the 2x2 window ending at it: y[0][0] = x[0][0].
  ir::Tensor x = testing::RandomF32({1, 1, 4, 4}, 5);
  const std::vector<float> y = RunF32(g, {x});
  EXPECT_FLOAT_EQ(y[0], x.data<float>()[0]);
  EXPECT_FLOAT_EQ(
      y[5], x.data<float>()[0] + x.data<float>()[1] + x.data<float>()[4] + x.data<float>()[5]);
}

TEST(OnnxImport, LegacyBroadcastBecomesNumpyBroadcast) {
  // Add-6 with broadcast=1, axis=1: B [3] lines up with A's dim 1 of [2, 3, 2].
  ModelBuilder b(6);
  b.Input("a", {2, 3, 2}).Output("y", {2, 3, 2});
  b.FloatInit("b", {3}, {10, 20, 30});
  onnx::NodeProto* n = b.Node("Add", {"a", "b"}, {"y"});
  IntAttr(n, "broadcast", 1);
  IntAttr(n, "axis", 1);
  ir::Graph g;
  Status s = Import(b, &g);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_THAT(ir::PrintGraph(g), HasSubstr("Reshape(%b) {shape = [3, 1]}"));
  ir::Tensor a;
  ASSERT_TRUE(ir::Tensor::Create(DType::kF32, {2, 3, 2}, &a).ok());
  const std::vector<float> y = RunF32(g, {a});
  EXPECT_EQ(y, (std::vector<float>{10, 10, 20, 20, 30, 30, 10, 10, 20, 20, 30, 30}));
}

TEST(OnnxImport, Softmax11NormalizesFlattenedRows) {
  ModelBuilder b(11);
  b.Input("x", {2, 2, 2}).Output("y", {2, 2, 2});
  IntAttr(b.Node("Softmax", {"x"}, {"y"}), "axis", 1);
  ir::Graph g;
  ASSERT_TRUE(Import(b, &g).ok());
  const ir::Tensor x =
      ir::Tensor::FromVector<float>(DType::kF32, {2, 2, 2}, {0, 0, 0, 0, 1, 1, 1, 1});
  const std::vector<float> y = RunF32(g, {x});
  for (float v : y) EXPECT_FLOAT_EQ(v, 0.25f);  // each row of 4 equal values
}

TEST(OnnxImport, PadAttributeAndInputFormsAgree) {
  ModelBuilder old_form(2);
  old_form.Input("x", {2}).Output("y", {5});
  onnx::NodeProto* n = old_form.Node("Pad", {"x"}, {"y"});
  IntsAttr(n, "pads", {1, 2});
  FloatAttr(n, "value", 7.0f);
  ModelBuilder new_form(13);
  new_form.Input("x", {2}).Output("y", {5});
  new_form.Int64Init("pads", {1, 2}).FloatInit("v", {}, {7.0f});
  new_form.Node("Pad", {"x", "pads", "v"}, {"y"});
  const ir::Tensor x = ir::Tensor::FromVector<float>(DType::kF32, {2}, {1, 2});
  for (const ModelBuilder* b : {&old_form, &new_form}) {
    ir::Graph g;
    Status s = Import(*b, &g);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(RunF32(g, {x}), (std::vector<float>{7, 1, 2, 7, 7}));
  }
}

TEST(OnnxImport, ConstantNodeForms) {
  ModelBuilder b;
  b.Input("x", {3}).Output("y", {3});
  auto* c = b.Node("Constant", {}, {"k"});
  auto* a = c->add_attribute();
  a->set_name("value_floats");
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float v : {1.0f, 2.0f, 3.0f}) a->add_floats(v);
  b.Node("Mul", {"x", "k"}, {"y"});
  ir::Graph g;
  ASSERT_TRUE(Import(b, &g).ok());
  const ir::Tensor x = ir::Tensor::FromVector<float>(DType::kF32, {3}, {2, 2, 2});
  EXPECT_EQ(RunF32(g, {x}), (std::vector<float>{2, 4, 6}));
}

TEST(OnnxImport, InputShapeOverride) {
  ModelBuilder b;
  auto* in = b.g->add_input();
  ModelBuilder::SetType(in, "x", onnx::TensorProto::FLOAT, {});
  in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("batch");
  b.Output("y", {});
  b.g->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->add_dim()
      ->set_dim_param("batch");
  b.Node("Sigmoid", {"x"}, {"y"});
  ir::Graph g;
  Status s = Import(b, &g);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("symbolic dim 'batch'"));
  ImportOptions options;
  options.input_shapes["x"] = {5};
  ASSERT_TRUE(Import(b, &g, options).ok());
  EXPECT_EQ(g.value(g.outputs()[0]).shape, (ir::Shape{5}));
}

// A graph input that reaches a shape input through ops the import folds (Cast, Add) must be
// frozen too; one that only feeds computed ops must not.
TEST(OnnxImport, ShapeInputsThroughFoldableOpsMustBeFrozen) {
  ModelBuilder b;
  b.Input("x", {2, 3})
      .Input("n", {}, onnx::TensorProto::INT32)
      .Input("k", {}, onnx::TensorProto::INT64)
      .Output("y", {2, 3})
      .Output("r", {4});
  b.Node("Relu", {"x"}, {"y"});
  IntAttr(b.Node("Cast", {"n"}, {"n64"}), "to", onnx::TensorProto::INT64);
  b.Node("Add", {"n64", "k"}, {"limit"});
  b.Node("Range", {"k", "limit", "k"}, {"r"});
  const std::string bytes = b.Bytes();
  std::vector<OnnxInput> inputs;
  ASSERT_TRUE(ListOnnxInputs(bytes.data(), bytes.size(), &inputs).ok());
  ASSERT_EQ(inputs.size(), 3u);
  EXPECT_FALSE(inputs[0].compile_time);
  EXPECT_TRUE(inputs[1].compile_time);
  EXPECT_TRUE(inputs[2].compile_time);
}

TEST(OnnxImport, ShapeInputsMustBeFrozen) {
  ModelBuilder b;
  b.Input("x", {2, 3}).Input("shape", {2}, onnx::TensorProto::INT64).Output("y", {3, 2});
  b.Node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  const std::string bytes = b.Bytes();
  std::vector<OnnxInput> inputs;
  ASSERT_TRUE(ListOnnxInputs(bytes.data(), bytes.size(), &inputs).ok());
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_FALSE(inputs[0].compile_time);
  EXPECT_TRUE(inputs[1].compile_time);
  ir::Graph g;
  Status s = Import(b, &g);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("node 'reshape' (Reshape): the target shape (input 1) must "
                                     "be a constant"));
  ImportOptions options;
  options.constant_inputs["shape"] = ir::Tensor::FromVector<int64_t>(DType::kI64, {2}, {-1, 2});
  ASSERT_TRUE(Import(b, &g, options).ok());
  EXPECT_EQ(g.inputs().size(), 1u);
  EXPECT_EQ(g.nodes()[0]->GetInts("shape"), (std::vector<int64_t>{3, 2}));
  options.constant_inputs["shape"] = ir::Tensor::FromVector<int32_t>(DType::kI32, {2}, {3, 2});
  EXPECT_THAT(Import(b, &g, options).message(), HasSubstr("declared with another type"));
}

// --- failures ---

TEST(OnnxImportBad, NotAModel) {
  ir::Graph g;
  const std::string junk = "\x08\x96\x01 definitely not protobuf \xff\xff";
  Status s = ImportOnnxBytes(junk.data(), junk.size(), {}, &g);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  s = ImportOnnxBytes("", 0, {}, &g);  // an empty message parses, but has no graph
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("no graph"));
  s = ImportOnnxFile("/nonexistent/model.onnx", {}, &g);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
}

TEST(OnnxImportBad, UnsupportedOpAttributeAndDomain) {
  ModelBuilder op;
  op.Input("x", {2}).Output("y", {2});
  op.Node("RandomUniformLike", {"x"}, {"y"}, "t1");
  ir::Graph g;
  Status s = Import(op, &g);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(),
            "node 't1' (RandomUniformLike): operator RandomUniformLike is not supported");

  ModelBuilder attr;
  attr.Input("x", {1, 1, 3, 3}).Output("y", {1, 1, 3, 3});
  IntsAttr(attr.Node("MaxPool", {"x"}, {"y"}, "pool"), "kernel_shape", {1, 1});
  IntAttr(attr.g->mutable_node(0), "bogus", 1);
  s = Import(attr, &g);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(), "node 'pool' (MaxPool): attribute 'bogus' of MaxPool is not supported");

  ModelBuilder domain;
  domain.Input("x", {2}).Output("y", {2});
  domain.Node("Gelu", {"x"}, {"y"})->set_domain("com.microsoft");
  s = Import(domain, &g);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("com.microsoft::Gelu is not supported"));

  ModelBuilder dropout(6);
  dropout.Input("x", {2}).Output("y", {2});
  dropout.Node("Dropout", {"x"}, {"y"}, "drop");
  s = Import(dropout, &g);  // is_test defaults to 0 in Dropout-6: training mode
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("node 'drop' (Dropout): is_test=0"));
}

TEST(OnnxImportBad, CheckerAndInferenceFailures) {
  ModelBuilder missing;
  missing.Input("x", {2}).Output("y", {2});
  missing.Node("Add", {"x", "nowhere"}, {"y"});
  ir::Graph g;
  Status s = Import(missing, &g);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("onnx checker"));
  EXPECT_THAT(s.message(), HasSubstr("nowhere"));

  ModelBuilder no_output;
  no_output.Input("x", {2}).Output("z", {2});
  no_output.Node("Relu", {"x"}, {"y"});
  s = Import(no_output, &g);
  EXPECT_FALSE(s.ok());

  ModelBuilder bad_conv;  // weights with more channels than the input has
  bad_conv.Input("x", {1, 2, 3, 3}).Output("y", {1, 1, 1, 1});
  bad_conv.FloatInit("w", {1, 3, 3, 3}, std::vector<float>(27, 1.0f));
  bad_conv.Node("Conv", {"x", "w"}, {"y"}, "conv");
  s = Import(bad_conv, &g);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

TEST(OnnxImportBad, BrokenTensors) {
  ModelBuilder b;
  b.Input("x", {4}).Output("y", {4});
  b.FloatInit("k", {4}, {1, 2, 3});  // one element short
  b.Node("Add", {"x", "k"}, {"y"});
  ir::Graph g;
  Status s = Import(b, &g);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("'k'"));

  ModelBuilder ext;
  ext.Input("x", {1}).Output("y", {1});
  ext.FloatInit("k", {1}, {});
  onnx::TensorProto* t = ext.g->mutable_initializer(0);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* entry = t->add_external_data();
  entry->set_key("location");
  entry->set_value("weights.bin");
  ext.Node("Add", {"x", "k"}, {"y"});
  s = Import(ext, &g);
  EXPECT_FALSE(s.ok());

  // ParseTensorProto: narrow types come as one int32 each; counts must match.
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::INT8);
  p.add_dims(3);
  for (int v : {-1, 2, -128}) p.add_int32_data(v);
  const std::string bytes = p.SerializeAsString();
  ir::Tensor out;
  std::string name;
  ASSERT_TRUE(ParseTensorProto(bytes.data(), bytes.size(), &out, &name).ok());
  EXPECT_EQ(out.data<int8_t>()[2], -128);
  p.add_dims(2);  // now [3, 2]: 6 elements, data has 3
  const std::string short_bytes = p.SerializeAsString();
  s = ParseTensorProto(short_bytes.data(), short_bytes.size(), &out, &name);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("needs 6 elements, the data holds 3"));
}

// --- sizes: files, shapes and attributes that would hang, wrap or allocate without bound ---

TEST(OnnxImportBad, NotARegularFile) {
  ir::Graph g;
  Status s = ImportOnnxFile("/dev/zero", {}, &g);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("ONNX model /dev/zero is a character device"));
  s = ImportOnnxFile("/", {}, &g);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("is a directory"));
}

TEST(OnnxImportBad, BroadcastPastTheElementLimit) {
  // Inputs of 2^30 elements each, whose broadcast sum would have 2^60.
  ModelBuilder b;
  b.Input("a", {int64_t{1} << 30, 1}).Input("b", {1, int64_t{1} << 30});
  b.Output("y", {int64_t{1} << 30, int64_t{1} << 30});
  b.Node("Add", {"a", "b"}, {"y"}, "add");
  ir::Graph g;
  Status s = Import(b, &g);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("node 'add' (Add): output 0 %y: shape "
                                     "[1073741824,1073741824] has too many elements"));
}

TEST(OnnxImportBad, PadsNearInt64Max) {
  ModelBuilder b;
  b.Input("x", {2}).Output("y", {3});
  b.Int64Init("pads", {INT64_MAX - 1, 2});
  b.Node("Pad", {"x", "pads"}, {"y"}, "pad");
  ir::Graph g;
  Status s = Import(b, &g);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("node 'pad' (Pad): dimension 0 (2) plus pads "
                                     "9223372036854775806 and 2 overflows 64 bits"));
}

TEST(OnnxImportBad, HugeDilationsAndStrides) {
  // dilation * (kernel - 1) past INT64_MAX.
  ModelBuilder b;
  b.Input("x", {1, 1, 4, 4}).Output("y", {1, 1, 2, 2});
  b.FloatInit("w", {1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  onnx::NodeProto* n = b.Node("Conv", {"x", "w"}, {"y"}, "conv");
  IntsAttr(n, "dilations", {int64_t{1} << 62, 1});
  ir::Graph g;
  Status s = Import(b, &g);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("node 'conv' (Conv): spatial dim 0:"));
  EXPECT_THAT(s.message(), HasSubstr("overflows 64 bits"));

  // SAME padding with a stride near INT64_MAX: ceil(in / stride) must not wrap.
  ModelBuilder same;
  same.Input("x", {1, 1, 4, 4}).Output("y", {1, 1, 1, 1});
  same.FloatInit("w", {1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  n = same.Node("Conv", {"x", "w"}, {"y"}, "conv");
  StringAttr(n, "auto_pad", "SAME_UPPER");
  IntsAttr(n, "strides", {INT64_MAX, INT64_MAX});
  s = Import(same, &g);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(g.value(g.outputs()[0]).shape, (ir::Shape{1, 1, 1, 1}));

  // A Reshape target whose known dims multiply past 64 bits, with a -1 to infer.
  ModelBuilder reshape;
  reshape.Input("x", {4}).Output("y", {4});
  reshape.Int64Init("shape", {int64_t{1} << 62, 4, -1});
  reshape.Node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  s = Import(reshape, &g);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("node 'reshape' (Reshape): target shape"));
}

TEST(OnnxImportBad, HugeConstantIsRefusedBeforeAllocating) {
  // A Constant node claiming 2^36 floats (256 GiB) with one element of data: refused by what the
  // data holds; with the data there, by the per-tensor limit.
  ModelBuilder b;
  b.Output("y", {int64_t{1} << 36});
  onnx::NodeProto* n = b.Node("Constant", {}, {"y"}, "c");
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(int64_t{1} << 36);
  a->mutable_t()->add_float_data(1.0f);
  ir::Graph g;
  Status s = Import(b, &g);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("needs 68719476736 elements, the data holds 1"));
}

TEST(OnnxImport, HugeInputImportsAndTheDefaultPipelineAllocatesNothing) {
  // 2^40 elements (4 TiB as f32) is within the element limit: import and the default pipeline
  // work on shapes only. The interpreter is what refuses to allocate it, naming the value.
  ModelBuilder b;
  b.Input("x", {1, 1, int64_t{1} << 20, int64_t{1} << 20});
  b.Output("y", {1, 1, int64_t{1} << 20, int64_t{1} << 20});
  b.Node("Relu", {"x"}, {"r"}, "relu");
  b.Node("Identity", {"r"}, {"y"}, "id");
  ir::Graph g;
  Status s = Import(b, &g);
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = passes::RunPipeline(passes::DefaultPipeline(), &g);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ir::Tensor x;
  s = ir::Tensor::Create(DType::kF32, g.value(g.inputs()[0]).shape, &x);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("tensor f32[1,1,1048576,1048576] needs 4398046511104 bytes, "
                                     "more than the compiler's limit of 4294967296 bytes"));
  const ir::Node& relu = *g.nodes()[0];
  std::vector<ir::Tensor> out;
  const ir::Tensor small = ir::Tensor::FromVector<float>(DType::kF32, {1}, {1.0f});
  s = interp::EvaluateNode(g, relu, {&small}, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("node 'relu' (Relu): output %y: tensor f32[1,1,1048576,"
                                     "1048576] needs 4398046511104 bytes"));
}

// Every truncation and a few thousand single-byte corruptions of a valid model must come back as
// a Status (ok or not), never as a crash or an exception.
TEST(OnnxImportBad, SurvivesTruncationAndCorruption) {
  ModelBuilder b;
  b.Input("x", {1, 2, 4, 4}).Output("y", {1, 2, 2, 2});
  b.FloatInit("w", {2, 2, 3, 3}, std::vector<float>(36, 0.5f));
  onnx::NodeProto* conv = b.Node("Conv", {"x", "w"}, {"c"}, "conv");
  IntsAttr(conv, "pads", {1, 1, 1, 1});
  onnx::NodeProto* pool = b.Node("MaxPool", {"c"}, {"y"}, "pool");
  IntsAttr(pool, "kernel_shape", {2, 2});
  IntsAttr(pool, "strides", {2, 2});
  const std::string model = b.Bytes();
  ir::Graph g;
  ASSERT_TRUE(ImportOnnxBytes(model.data(), model.size(), {}, &g).ok());
  for (size_t n = 0; n < model.size(); ++n) {
    (void)ImportOnnxBytes(model.data(), n, {}, &g);
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::string damaged = model;
    damaged[rng() % damaged.size()] = static_cast<char>(rng());
    Status s = ImportOnnxBytes(damaged.data(), damaged.size(), {}, &g);
    if (s.ok()) {
      EXPECT_TRUE(ir::Verify(g).ok());
    }
  }
}

}  // namespace
}  // namespace loom::frontend
