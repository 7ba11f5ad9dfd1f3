#!/usr/bin/env python3
"""Writes the small .onnx models the golden tests of the elementwise math, logic and activation
family read (onnx_import_math.test).

Same conventions as make_models.py (whose helpers it uses); the outputs are committed:

    /usr/bin/python3 tests/compiler/inputs/make_math_models.py   # Debian's python3-onnx
"""
import numpy as np
from onnx import TensorProto, helper

from make_models import INPUTS, f32, const, model

n = helper.make_node


def vi(name, elem, *shape):
    return helper.make_tensor_value_info(name, elem, list(shape))


def main():
    good = {
        # Defaults written out; IsInf's flags as ints; Mod's fmod kept; BitShift's direction a
        # code; Mean as a chain of Adds over a count constant; one-input Max an Identity. Neg and
        # Abs of a constant fold away under the default pipeline.
        "math_ops": model(
            [n("Elu", ["x"], ["elu"], name="elu"),
             n("Selu", ["x"], ["selu"], name="selu", alpha=2.0),
             n("HardSigmoid", ["x"], ["hs"], name="hsig"),
             n("Shrink", ["x"], ["sh"], name="shrink", lambd=1.5),
             n("IsInf", ["x"], ["inf"], name="isinf", detect_positive=0),
             n("Mod", ["x", "d"], ["m"], name="mod", fmod=1),
             n("Mean", ["x", "x", "d"], ["mean"], name="mean"),
             n("Max", ["x"], ["one"], name="max1"),
             n("Greater", ["x", "d"], ["gt"], name="gt"),
             n("Where", ["gt", "x", "d"], ["w"], name="where"),
             n("Neg", ["e"], ["ne"], name="neg"),
             n("Abs", ["ne"], ["ae"], name="abs"),
             n("Pow", ["x", "ae"], ["p"], name="pow"),
             n("BitShift", ["u", "s"], ["shr"], name="shr", direction="RIGHT")],
            [f32("x", 2, 3), vi("u", TensorProto.UINT8, 3)],
            [f32("elu", 2, 3), f32("selu", 2, 3), f32("hs", 2, 3), f32("sh", 2, 3),
             vi("inf", TensorProto.BOOL, 2, 3), f32("m", 2, 3), f32("mean", 2, 3),
             f32("one", 2, 3), vi("gt", TensorProto.BOOL, 2, 3), f32("w", 2, 3),
             f32("p", 2, 3), vi("shr", TensorProto.UINT8, 3)],
            [const("d", np.array([1, 2, 3], dtype=np.float32)),
             const("e", np.array(2, dtype=np.int64)),
             const("s", np.array([1, 2, 3], dtype=np.uint8))], opset=13),
    }
    bad = {
        # Integer modulus on floats: ONNX requires fmod=1 there.
        "mod_float_fmod0": model(
            [n("Mod", ["x", "x"], ["y"], name="mod")], [f32("x", 2)], [f32("y", 2)], opset=13),
        # Exp has no integer form.
        "exp_int32": model(
            [n("Exp", ["x"], ["y"], name="exp")], [vi("x", TensorProto.INT32, 2)],
            [vi("y", TensorProto.INT32, 2)], opset=13),
    }
    for name, m in {**good, **bad}.items():
        (INPUTS / f"{name}.onnx").write_bytes(m.SerializeToString(deterministic=True))


if __name__ == "__main__":
    main()
