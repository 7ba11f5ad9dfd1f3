#!/usr/bin/env python3
"""Writes the small .onnx models the compiler tests read, and the ONNX fuzz target's seed corpus.

The outputs are committed, so CI needs no Python; rerun this after changing it:

    python3 -m pip install onnx numpy      # the machine's python3 (not Debian's)
    python3 tests/compiler/inputs/make_models.py

Models use IR version 8 and opset 13 (what libonnx 1.12 reads), fixed seeds, and are written
byte-for-byte reproducibly. Corpus files named regress_*.onnx are not written here: they are
inputs the fuzzer found (kept as seeds so their bugs stay fixed).
"""
import os
import pathlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = pathlib.Path(__file__).resolve().parents[3]
INPUTS = ROOT / "tests" / "compiler" / "inputs"
CORPUS = ROOT / "compiler" / "frontend" / "onnx_fuzz_corpus"
RNG = np.random.default_rng(20240611)


def model(nodes, inputs, outputs, inits=(), opset=13, name="g"):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="loom-tests")
    m.ir_version = 8
    return m


def f32(name, *shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def rand(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, size=shape).astype(np.float32)


def tiny_cnn():
    """Conv+BN+Relu, MaxPool, 1x1 Conv + bias Add + Clip (ReLU6), Identity, Dropout, global pool,
    Flatten, Gemm, Softmax: every default pass has something to do."""
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        n("BatchNormalization", ["c1", "s", "bb", "m", "v"], ["bn1"], name="bn1", epsilon=1e-3),
        n("Relu", ["bn1"], ["r1"], name="relu1"),
        n("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        n("Identity", ["p1"], ["id1"], name="identity1"),
        n("Conv", ["id1", "w2"], ["c2"], name="conv2"),
        n("Add", ["c2", "b2"], ["a2"], name="bias2"),
        n("Clip", ["a2", "zero", "six"], ["r2"], name="relu6"),
        n("Dropout", ["r2"], ["d2"], name="dropout"),
        n("GlobalAveragePool", ["d2"], ["gp"], name="gap"),
        n("Flatten", ["gp"], ["flat"], name="flatten"),
        n("Gemm", ["flat", "wf", "bf"], ["logits"], name="fc", transB=1),
        n("Softmax", ["logits"], ["probs"], name="softmax"),
    ]
    inits = [
        const("w1", rand(4, 3, 3, 3)), const("b1", rand(4)),
        const("s", rand(4, lo=0.5, hi=1.5)), const("bb", rand(4)), const("m", rand(4)),
        const("v", rand(4, lo=0.5, hi=2.0)),
        const("w2", rand(4, 4, 1, 1)), const("b2", rand(1, 4, 1, 1)),
        const("zero", np.float32(0)), const("six", np.float32(6)),
        const("wf", rand(3, 4)), const("bf", rand(3)),
    ]
    return model(nodes, [f32("x", 1, 3, 8, 8)], [f32("probs", 1, 3)], inits, name="tiny_cnn")


def symbolic_batch():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])
    return model([helper.make_node("Relu", ["x"], ["y"])], [x], [y], name="symbolic_batch")


def cast_types():
    """Cast to float16, CastLike to a float64 input's type, Cast to int16: three element types."""
    f64 = helper.make_tensor_value_info("like", TensorProto.DOUBLE, [1])
    nodes = [
        helper.make_node("Cast", ["x"], ["h"], name="to_f16", to=TensorProto.FLOAT16),
        helper.make_node("CastLike", ["h", "like"], ["d"], name="like_f64"),
        helper.make_node("Cast", ["d"], ["y"], name="to_i16", to=TensorProto.INT16),
    ]
    return model(nodes, [f32("x", 2, 3), f64],
                 [helper.make_tensor_value_info("y", TensorProto.INT16, [2, 3])], opset=15,
                 name="cast_types")


def int_input():
    """An int64 input beside a float one (Gather's indices): `loom compile` calibrates it on
    int64 samples. No random weights, so the seeded generator's sequence stays as it was."""
    idx = helper.make_tensor_value_info("idx", TensorProto.INT64, [2])
    nodes = [
        helper.make_node("Gather", ["x", "idx"], ["g"], name="pick", axis=1),
        helper.make_node("Relu", ["g"], ["y"], name="relu"),
    ]
    return model(nodes, [f32("x", 1, 4, 3, 3), idx], [f32("y", 1, 2, 3, 3)], name="int_input")


def single(op, inputs, outputs, inits=(), opset=13, **attrs):
    names = [i.name for i in inputs] + [t.name for t in inits]
    node = helper.make_node(op, names, [o.name for o in outputs], name=op.lower(), **attrs)
    return model([node], inputs, outputs, inits, opset=opset, name=op.lower())


def main():
    INPUTS.mkdir(parents=True, exist_ok=True)
    CORPUS.mkdir(parents=True, exist_ok=True)
    good = {
        "tiny_cnn": tiny_cnn(),
        "cast_types": cast_types(),
        "symbolic_batch": symbolic_batch(),
        "int_input": int_input(),
        "conv_same_upper": single("Conv", [f32("x", 1, 1, 5, 5)], [f32("y", 1, 2, 3, 3)],
                                  [const("w", rand(2, 1, 3, 3))], auto_pad="SAME_UPPER",
                                  strides=[2, 2]),
        "softmax_opset11": single("Softmax", [f32("x", 2, 3, 4)], [f32("y", 2, 3, 4)], opset=11,
                                  axis=1),
        "clip_opset6": single("Clip", [f32("x", 2, 2)], [f32("y", 2, 2)], opset=6, min=-1.0,
                              max=1.0),
        "qlinear_matmul": single(
            "QLinearMatMul",
            [helper.make_tensor_value_info("a", TensorProto.UINT8, [2, 4])],
            [helper.make_tensor_value_info("y", TensorProto.UINT8, [2, 3])],
            [const("as", np.float32(0.02)), const("az", np.uint8(128)),
             const("b", RNG.integers(0, 255, size=(4, 3), dtype=np.uint8)),
             const("bs", np.float32(0.01)), const("bz", np.uint8(120)),
             const("ys", np.float32(0.05)), const("yz", np.uint8(100))]),
    }
    # QLinearMatMul takes (a, as, az, b, bs, bz, ys, yz): fix the input order.
    q = good["qlinear_matmul"].graph.node[0]
    del q.input[:]
    q.input.extend(["a", "as", "az", "b", "bs", "bz", "ys", "yz"])

    bad = {
        # A random op: out of scope for good (issue 12), so it stays unsupported.
        "unsupported_op": single("RandomUniformLike", [f32("x", 2)], [f32("y", 2)]),
        "bn_training": single(
            "BatchNormalization", [f32("x", 1, 2, 2, 2)],
            [f32("y", 1, 2, 2, 2), f32("running_mean", 2), f32("running_var", 2)],
            [const(k, np.ones(2, np.float32)) for k in ("s", "b", "m", "v")], opset=15,
            training_mode=1),
        "bfloat16_input": single(
            "Relu", [helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [2])],
            [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [2])]),
        "missing_initializer": model(
            [helper.make_node("Conv", ["x", "w"], ["y"], name="conv")], [f32("x", 1, 1, 3, 3)],
            [f32("y", 1, 1, 1, 1)], name="missing_initializer"),
        "broadcast_mismatch": single("Add", [f32("a", 2, 3), f32("b", 4)], [f32("y", 2, 3)]),
        "opset18": single("Relu", [f32("x", 2)], [f32("y", 2)], opset=18),
        # The declared output shape contradicts the graph: ONNX's inference catches it.
        "wrong_output_shape": single("Relu", [f32("x", 2, 3)], [f32("y", 2, 2)]),
        # Sizes: attributes that wrap int64 and shapes past the element limit, each an error
        # naming the node (docs/compiler.md, "Sizes and limits").
        "huge_pads": single("Pad", [f32("x", 2)], [f32("y", 3)],
                            [const("pads", np.array([2**63 - 2, 2], np.int64))]),
        "huge_dilations": single("Conv", [f32("x", 1, 1, 4, 4)], [f32("y", 1, 1, 2, 2)],
                                 [const("w", rand(1, 1, 3, 3))], dilations=[2**62, 1]),
        "huge_broadcast": single("Add", [f32("a", 2**30, 1), f32("b", 1, 2**30)],
                                 [f32("y", 2**30, 2**30)]),
        # 2^40 elements: imports (shapes only), but calibrating on it would allocate 4 TiB.
        "huge_input": single("Relu", [f32("x", 1, 1, 2**20, 2**20)],
                             [f32("y", 1, 1, 2**20, 2**20)]),
    }
    for name, m in {**good, **bad}.items():
        data = m.SerializeToString(deterministic=True)
        (INPUTS / f"{name}.onnx").write_bytes(data)
        (CORPUS / f"{name}.onnx").write_bytes(data)
    tiny = (INPUTS / "tiny_cnn.onnx").read_bytes()
    (INPUTS / "truncated.onnx").write_bytes(tiny[: len(tiny) // 2])
    (INPUTS / "not_protobuf.onnx").write_bytes(b"this is not an ONNX model\n")
    for name in ("truncated", "not_protobuf"):
        (CORPUS / f"{name}.onnx").write_bytes((INPUTS / f"{name}.onnx").read_bytes())
    # Byte-level damage for the fuzzer to start from: flipped bytes in a valid model.
    damaged = bytearray(tiny)
    for i in range(7, len(damaged), 97):
        damaged[i] ^= 0x5A
    (CORPUS / "tiny_cnn_damaged.onnx").write_bytes(bytes(damaged))
    (CORPUS / "empty.onnx").write_bytes(b"")


if __name__ == "__main__":
    main()
