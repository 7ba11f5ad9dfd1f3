#!/usr/bin/env python3
"""Writes the small .onnx models the golden tests of the detection/vision family read (GridSample,
NonMaxSuppression, Unique) and of the unsigned element types.

Same conventions as make_models.py (whose helpers it uses); the outputs are committed:

    /usr/bin/python3 tests/compiler/inputs/make_vision2_models.py
"""
import numpy as np
from onnx import TensorProto, helper

from make_models import INPUTS, f32, const, model

n = helper.make_node


def tensor(name, elem, *shape):
    return helper.make_tensor_value_info(name, elem, list(shape))


def main():
    boxes = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 10, 1, 11], [0, 10.1, 1, 11.1]]],
                     dtype=np.float32)
    scores = np.array([[[0.9, 0.75, 0.6, 0.95]]], dtype=np.float32)
    good = {
        # Every mode and padding spelling (opset 16) becomes its code.
        "gridsample_modes": model(
            [n("GridSample", ["x", "g"], ["y"], name="gs"),
             n("GridSample", ["x", "g"], ["z"], name="gs_nearest", mode="nearest",
               padding_mode="reflection", align_corners=1),
             n("GridSample", ["x", "g"], ["c"], name="gs_cubic", mode="bicubic",
               padding_mode="border")],
            [f32("x", 1, 2, 4, 5), f32("g", 1, 3, 6, 2)],
            [f32("y", 1, 2, 3, 6), f32("z", 1, 2, 3, 6), f32("c", 1, 2, 3, 6)], opset=16),
        # Constant boxes: boxes 0/1 and 2/3 overlap, so two rows survive; the scalars become
        # attributes and the row count is fixed at import.
        "nms_constant": model(
            [n("NonMaxSuppression", ["boxes", "scores", "max", "iou", "thr"], ["sel"], name="nms")],
            [], [tensor("sel", TensorProto.INT64, None, 3)],
            [const("boxes", boxes), const("scores", scores),
             const("max", np.array([3], dtype=np.int64)),
             const("iou", np.array([0.5], dtype=np.float32)),
             const("thr", np.array([0.0], dtype=np.float32))], opset=11),
        # Unique of a constant, flattened and along axis 0.
        "unique_constant": model(
            [n("Unique", ["u"], ["y", "idx", "inv", "cnt"], name="flat", sorted=0),
             n("Unique", ["u"], ["rows"], name="rows", axis=-2)],
            [], [tensor("y", TensorProto.INT64, None), tensor("idx", TensorProto.INT64, None),
                 tensor("inv", TensorProto.INT64, None), tensor("cnt", TensorProto.INT64, None),
                 tensor("rows", TensorProto.INT64, None, 2)],
            [const("u", np.array([[1, 3], [2, 1], [1, 3]], dtype=np.int64))], opset=11),
        # The unsigned types flow through elementwise ops as themselves.
        "unsigned_types": model(
            [n("Max", ["a16", "b16"], ["m16"], name="max16"),
             n("Mod", ["a32", "b32"], ["r32"], name="mod32"),
             n("BitShift", ["a64", "b64"], ["s64"], name="shift64", direction="LEFT")],
            [tensor("a16", TensorProto.UINT16, 3), tensor("b16", TensorProto.UINT16, 3),
             tensor("a32", TensorProto.UINT32, 3), tensor("b32", TensorProto.UINT32, 3),
             tensor("a64", TensorProto.UINT64, 3), tensor("b64", TensorProto.UINT64, 3)],
            [tensor("m16", TensorProto.UINT16, 3), tensor("r32", TensorProto.UINT32, 3),
             tensor("s64", TensorProto.UINT64, 3)], opset=13),
    }
    bad = {
        # Per-element statistics (BatchNormalization-7's spatial=0) are not mapped.
        "bn_spatial": model(
            [n("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn", spatial=0)],
            [f32("x", 1, 2, 2, 2)], [f32("y", 1, 2, 2, 2)],
            [const(k, np.ones((2, 2, 2), np.float32)) for k in ("s", "b", "m", "v")], opset=7),
        # Boxes fed at run time: the number of selected rows is data-dependent.
        "nms_dynamic": model(
            [n("NonMaxSuppression", ["boxes", "scores", "max"], ["sel"], name="nms")],
            [f32("boxes", 1, 4, 4), f32("scores", 1, 1, 4)],
            [tensor("sel", TensorProto.INT64, None, 3)],
            [const("max", np.array([3], dtype=np.int64))], opset=11),
        "unique_dynamic": model(
            [n("Unique", ["x"], ["y"], name="uniq")],
            [f32("x", 6)], [tensor("y", TensorProto.FLOAT, None)], opset=11),
        "gridsample_mode": model(
            [n("GridSample", ["x", "g"], ["y"], name="gs", mode="area")],
            [f32("x", 1, 1, 4, 4), f32("g", 1, 2, 2, 2)], [f32("y", 1, 1, 2, 2)], opset=16),
    }
    for name, m in {**good, **bad}.items():
        (INPUTS / f"{name}.onnx").write_bytes(m.SerializeToString(deterministic=True))


if __name__ == "__main__":
    main()
