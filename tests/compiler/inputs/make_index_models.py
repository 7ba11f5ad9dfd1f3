#!/usr/bin/env python3
"""Writes the small .onnx models the golden tests of the shape and indexing family read
(onnx_import_index.test, onnx_import_index_bad.test): Squeeze/Unsqueeze, Slice, Split, Shape,
Size, Gather*, Scatter*, Expand, Tile, Trilu, Range, ConstantOfShape, EyeLike, OneHot, NonZero,
Compress, ReverseSequence, DepthToSpace/SpaceToDepth, in their old (attribute) and new (input)
forms. They also seed the ONNX fuzz target (compiler/frontend/onnx_fuzz_corpus).

Same conventions as make_models.py (whose helpers it uses); the outputs are committed:

    python3 tests/compiler/inputs/make_index_models.py
"""
import numpy as np
from onnx import TensorProto, helper

from make_models import CORPUS, INPUTS, f32, const, model

n = helper.make_node


def i64(name, *shape):
    return helper.make_tensor_value_info(name, TensorProto.INT64, list(shape))


def ints(name, values):
    return const(name, np.array(values, dtype=np.int64))


def main():
    good = {
        # Opset 13: axes, starts/ends/steps and split sizes are (constant) inputs.
        "index_opset13": model(
            [n("Unsqueeze", ["x", "uax"], ["u"], name="unsq"),           # unsorted, negative
             n("Squeeze", ["u"], ["s"], name="sq"),                      # no axes: every 1
             n("Slice", ["x", "st", "en", "ax", "sp"], ["sl"], name="slice"),
             n("Split", ["x", "parts"], ["p0", "p1"], name="split", axis=1),
             n("Gather", ["x", "gi"], ["g"], name="gather", axis=-1),
             n("GatherElements", ["x", "ge"], ["e"], name="gather_elements", axis=0),
             n("GatherND", ["x3", "gn"], ["nd"], name="gather_nd", batch_dims=1),
             n("Expand", ["col", "eshape"], ["ex"], name="expand"),
             n("Tile", ["x", "reps"], ["t"], name="tile"),
             n("Size", ["x"], ["sz"], name="size")],
            [f32("x", 3, 4), f32("x3", 2, 3, 4), f32("col", 3, 1)],
            [f32("s", 3, 4), f32("sl", 2, 2), f32("p0", 3, 1), f32("p1", 3, 3), f32("g", 3, 2),
             f32("e", 2, 4), f32("nd", 2, 4), f32("ex", 2, 3, 5), f32("t", 6, 4),
             i64("sz")],
            [ints("uax", [-1, 0]),
             # rows from the last backwards by 2 (ends far past the start), columns 1..2
             ints("st", [-1, 1]), ints("en", [-(2 ** 63), 3]), ints("ax", [0, -1]),
             ints("sp", [-2, 1]),
             ints("parts", [1, 3]), ints("gi", [3, -4]), ints("ge", [[0, 1, 2, 0], [2, 2, 2, -1]]),
             ints("gn", [[1], [0]]), ints("eshape", [2, 1, 5]), ints("reps", [2, 1])],
            opset=13),
        # Opset 9: the attribute forms (Slice-1, Squeeze/Unsqueeze-1, Split-2), Scatter-9 and
        # Compress, DepthToSpace without mode.
        "index_opset9": model(
            [n("Unsqueeze", ["x"], ["u"], name="unsq", axes=[1]),
             n("Squeeze", ["u"], ["s"], name="sq", axes=[1]),
             n("Slice", ["x"], ["sl"], name="slice", starts=[1, -100], ends=[1000, -1],
               axes=[0, 1]),
             n("Split", ["x"], ["p0", "p1"], name="split", axis=0, split=[1, 2]),
             n("Scatter", ["x", "si", "su"], ["sc"], name="scatter", axis=1),
             n("Compress", ["x", "cond"], ["c"], name="compress", axis=1),
             n("Compress", ["x", "cond"], ["cf"], name="compress_flat"),
             n("DepthToSpace", ["d"], ["ds"], name="d2s", blocksize=2)],
            [f32("x", 3, 4), f32("su", 1, 2), f32("d", 1, 8, 2, 3)],
            [f32("s", 3, 4), f32("sl", 2, 3), f32("p0", 1, 4), f32("p1", 2, 4), f32("sc", 3, 4),
             f32("c", 3, 2), f32("cf", 2), f32("ds", 1, 2, 4, 6)],
            [ints("si", [[3, 0]]), const("cond", np.array([False, True, True]))],
            opset=9),
        # Opset 16: Shape-15's start/end, ScatterND/ScatterElements reductions, Trilu, and the
        # generators on constant inputs.
        "index_opset16": model(
            [n("Shape", ["x"], ["sh"], name="shape", start=-2, end=100),
             n("ScatterND", ["x", "ni", "nu"], ["snd"], name="scatter_nd", reduction="mul"),
             n("ScatterElements", ["x", "ei", "eu"], ["se"], name="scatter_el", axis=-1,
               reduction="add"),
             n("Trilu", ["x", "k"], ["tr"], name="tril", upper=0),
             n("Range", ["r0", "r1", "r2"], ["rg"], name="range"),
             n("ConstantOfShape", ["cs"], ["co"], name="cos",
               value=helper.make_tensor("v", TensorProto.INT32, [1], [7])),
             n("EyeLike", ["x"], ["eye"], name="eye", k=1, dtype=TensorProto.INT64),
             n("OneHot", ["oi", "depth", "ov"], ["oh"], name="onehot", axis=0),
             n("NonZero", ["nzc"], ["nz"], name="nonzero"),
             n("ReverseSequence", ["x", "lens"], ["rs"], name="revseq", batch_axis=0,
               time_axis=1),
             n("SpaceToDepth", ["d"], ["sd"], name="s2d", blocksize=2),
             n("DepthToSpace", ["d"], ["dc"], name="d2s_crd", blocksize=2, mode="CRD")],
            [f32("x", 3, 4), f32("nu", 1, 4), f32("eu", 3, 1), f32("d", 1, 4, 2, 2)],
            [i64("sh", 2), f32("snd", 3, 4), f32("se", 3, 4), f32("tr", 3, 4), f32("rg", 3),
             helper.make_tensor_value_info("co", TensorProto.INT32, [2, 2]),
             i64("eye", 3, 4), f32("oh", 5, 2), i64("nz", 2, 2), f32("rs", 3, 4),
             f32("sd", 1, 16, 1, 1), f32("dc", 1, 1, 4, 4)],
            [ints("ni", [[2]]), ints("ei", [[0], [3], [-1]]), ints("k", 1),
             const("r0", np.float32(1)), const("r1", np.float32(2.5)), const("r2", np.float32(0.5)),
             ints("cs", [2, 2]), ints("oi", [1, -1]), const("depth", np.float32(5)),
             const("ov", np.array([0, 1], dtype=np.float32)),
             const("nzc", np.array([[0, 1], [2, 0]], dtype=np.int32)),
             ints("lens", [4, 1, 2])],
            opset=16),
        # Gather with a constant scalar index (x[-1]: drops the axis) or a run of consecutive
        # indices imports as Slice + Reshape; Mod of constants (Python's sign rule) folds, here
        # into a Reshape's shape.
        "gather_const_index": model(
            [n("Gather", ["x", "last"], ["row"], name="row", axis=0),
             n("Gather", ["x", "mid"], ["cols"], name="cols", axis=1),
             n("Mod", ["num", "den"], ["shape"], name="mod"),
             n("Reshape", ["x6", "shape"], ["r"], name="reshape")],
            [f32("x", 3, 4), f32("x6", 2, 6)],
            [f32("row", 4), f32("cols", 3, 2), f32("r", 3, 4)],
            [const("last", np.array(-1, dtype=np.int64)), ints("mid", [1, 2]),
             ints("num", [-9, 11]), ints("den", [4, 7])],
            opset=13),
    }
    bad = {
        # starts fed at run time: the output shape would depend on it.
        "slice_dynamic_starts": model(
            [n("Slice", ["x", "st", "en"], ["y"], name="slice")],
            [f32("x", 4), i64("st", 1)], [f32("y", None)], [ints("en", [4])]),
        "squeeze_not_one": model(
            [n("Squeeze", ["x", "ax"], ["y"], name="sq")],
            [f32("x", 2, 3)], [f32("y", 3)], [ints("ax", [0])]),
        "nonzero_dynamic": model(
            [n("NonZero", ["x"], ["y"], name="nz")],
            [f32("x", 2, 2)], [i64("y", 2, None)]),
        "split_uneven": model(
            [n("Split", ["x"], ["a", "b"], name="split")],
            [f32("x", 5)], [f32("a", None), f32("b", None)]),
        "gather_axis": model(
            [n("Gather", ["x", "i"], ["y"], name="gather", axis=2)],
            [f32("x", 2, 2)], [f32("y", None)], [ints("i", [0])]),
        "depth_to_space_channels": model(
            [n("DepthToSpace", ["x"], ["y"], name="d2s", blocksize=2)],
            [f32("x", 1, 6, 2, 2)], [f32("y", None)]),
    }
    for name, m in {**good, **bad}.items():
        data = m.SerializeToString(deterministic=True)
        (INPUTS / f"{name}.onnx").write_bytes(data)
        # Seeds for the ONNX fuzz target: the mappers' attribute and input forms.
        (CORPUS / f"{name}.onnx").write_bytes(data)


if __name__ == "__main__":
    main()
