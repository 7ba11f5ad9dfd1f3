#!/usr/bin/env python3
"""Writes the small .onnx models the golden tests of the reduction family read (Reduce*,
ArgMax/ArgMin, LogSoftmax/Hardmax, CumSum, TopK, NegativeLogLikelihoodLoss,
SoftmaxCrossEntropyLoss).

Same conventions as make_models.py (whose helpers it uses); the outputs are committed:

    /usr/bin/python3 tests/compiler/inputs/make_reduce_models.py   # needs python3-onnx
"""
import numpy as np
from onnx import TensorProto, helper

from make_models import CORPUS, INPUTS, f32, const, model

n = helper.make_node


def i64(name, *shape):
    return helper.make_tensor_value_info(name, TensorProto.INT64, list(shape))


def main():
    good = {
        # Reduce-13: axes as attributes (negative, unsorted), ReduceSum-13's as a constant input,
        # an empty axes list with and without noop_with_empty_axes.
        "reduce_axes": model(
            [n("ReduceMean", ["x"], ["m"], name="mean", axes=[-1, 0], keepdims=0),
             n("ReduceLogSumExp", ["x"], ["l"], name="lse"),
             n("ReduceSum", ["x", "axes"], ["s"], name="sum"),
             n("ReduceSum", ["x", "none"], ["id"], name="noop", noop_with_empty_axes=1),
             n("ReduceSumSquare", ["x"], ["q"], name="sq", axes=[1])],
            [f32("x", 2, 3, 4)],
            [f32("m", 3), f32("l", 1, 1, 1), f32("s", 2, 1, 4), f32("id", 2, 3, 4),
             f32("q", 2, 1, 4)],
            [const("axes", np.array([-2], dtype=np.int64)),
             const("none", np.array([], dtype=np.int64))], opset=13),
        # ArgMax with select_last_index; LogSoftmax-11 over a middle axis becomes the 2-D
        # coercion; Hardmax-13 stays one op; CumSum's axis input and TopK's k input as attributes.
        "argmax_softmax": model(
            [n("ArgMax", ["x"], ["a"], name="am", axis=-1, keepdims=0, select_last_index=1),
             n("ArgMin", ["x"], ["b"], name="an")],
            [f32("x", 2, 3, 4)], [i64("a", 2, 3), i64("b", 1, 3, 4)], opset=13),
        "log_softmax_11": model(
            [n("LogSoftmax", ["x"], ["y"], name="ls", axis=1)],
            [f32("x", 2, 3, 4)], [f32("y", 2, 3, 4)], opset=11),
        "scans": model(
            [n("Hardmax", ["x"], ["h"], name="hm", axis=1),
             n("CumSum", ["x", "ax"], ["c"], name="cs", exclusive=1, reverse=1),
             n("TopK", ["x", "k"], ["v", "i"], name="top", axis=1, largest=0)],
            [f32("x", 2, 3, 4)],
            [f32("h", 2, 3, 4), f32("c", 2, 3, 4), f32("v", 2, 2, 4), i64("i", 2, 2, 4)],
            [const("ax", np.array(-1, dtype=np.int32)),
             const("k", np.array([2], dtype=np.int64))], opset=13),
        "losses": model(
            [n("NegativeLogLikelihoodLoss", ["x", "t", "w"], ["nll"], name="nll",
               reduction="sum", ignore_index=-1),
             n("SoftmaxCrossEntropyLoss", ["x", "t"], ["sce", "lp"], name="sce",
               reduction="none")],
            [f32("x", 2, 3, 4), i64("t", 2, 4)], [f32("nll"), f32("sce", 2, 4), f32("lp", 2, 3, 4)],
            [const("w", np.array([1, 2, 0.5], dtype=np.float32))], opset=13),
        # Einsum: spaces, an ellipsis over a diagonal, an implicit output; MVN's default axes.
        "einsum_mvn": model(
            [n("Einsum", ["x", "x"], ["d"], name="diag", equation="...ii, ...ii -> ...i"),
             n("Einsum", ["d", "m"], ["e"], name="implicit", equation="bij,jk"),
             n("MeanVarianceNormalization", ["x"], ["v"], name="mvn")],
            [f32("x", 2, 3, 3, 3)],
            [f32("d", 2, 3, 3), f32("e", 2, 3, 4), f32("v", 2, 3, 3, 3)],
            [const("m", np.ones((3, 4), dtype=np.float32))], opset=13),
    }
    bad = {
        # k fed at run time: Loom needs the output shape at compile time.
        "topk_dynamic_k": model(
            [n("TopK", ["x", "k"], ["v", "i"], name="top")],
            [f32("x", 2, 5), i64("k", 1)], [f32("v", 2, None), i64("i", 2, None)], opset=13),
        "reduce_dynamic_axes": model(
            [n("ReduceSum", ["x", "axes"], ["s"], name="sum")],
            [f32("x", 2, 5), i64("axes", 1)], [f32("s", None, None)], opset=13),
        "reduce_bad_axis": model(
            [n("ReduceMax", ["x"], ["s"], name="max", axes=[2])],
            [f32("x", 2, 5)], [f32("s", None, None)], opset=13),
        "einsum_bad_equation": model(
            [n("Einsum", ["x"], ["y"], name="es", equation="i1->i")],
            [f32("x", 3)], [f32("y", 3)], opset=13),
        # Upper case with an implicit output (libonnx 1.12's inference overran a table on it).
        "einsum_implicit_upper": model(
            [n("Einsum", ["x"], ["y"], name="eu", equation="iJ")],
            [f32("x", 3, 4)], [f32("y", None, None)], opset=13),
        "sce_bad_reduction": model(
            [n("SoftmaxCrossEntropyLoss", ["x", "t"], ["l"], name="sce", reduction="average")],
            [f32("x", 2, 3), i64("t", 2)], [f32("l")], opset=13),
    }
    for name, m in {**good, **bad}.items():
        (INPUTS / f"{name}.onnx").write_bytes(m.SerializeToString(deterministic=True))
    # Seeds for the importer's fuzz target: the equation parser and the axes/k handling.
    for name in ("einsum_mvn", "reduce_axes", "scans", "einsum_bad_equation",
                 "einsum_implicit_upper"):
        (CORPUS / f"{name}.onnx").write_bytes((INPUTS / f"{name}.onnx").read_bytes())


if __name__ == "__main__":
    main()
