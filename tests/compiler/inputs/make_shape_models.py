#!/usr/bin/env python3
"""Writes the .onnx models of the shape-folding golden tests (golden/shape_folding.test): models
with dynamic axes whose shapes are computed at run time the way torch.onnx exports them.

Same conventions as make_models.py (whose helpers it uses); the outputs are committed. Debian's
python3 has onnx and numpy (python3-onnx):

    /usr/bin/python3 tests/compiler/inputs/make_shape_models.py
"""
import numpy as np
from onnx import TensorProto, helper

from make_models import INPUTS, const, model

n = helper.make_node


def dyn(name, elem, *dims):
    return helper.make_tensor_value_info(name, elem, list(dims))


def dynamic_classifier(rng):
    """A torchvision-style classifier exported with dynamic batch and spatial axes:
    conv -> relu -> global pool, then `x.view(x.size(0), -1)` (Shape -> Gather -> Unsqueeze ->
    Concat -> Reshape), a Linear; and a decoder branch that upsamples by 2 to a size computed
    from Shape (Slice, Mul, Concat -> Resize sizes), plus a position term from
    Range(0, feature count) and a ConstantOfShape mask, as transformer exports have."""
    nodes = [
        n("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        n("Relu", ["c"], ["r"], name="relu"),
        n("GlobalAveragePool", ["r"], ["p"], name="pool"),
        # x.view(x.size(0), -1)
        n("Shape", ["p"], ["p_shape"], name="size"),
        n("Gather", ["p_shape", "zero"], ["batch"], name="size0", axis=0),
        n("Unsqueeze", ["batch", "axes0"], ["batch1"], name="unsqueeze"),
        n("Concat", ["batch1", "minus_one"], ["view_shape"], name="view_shape", axis=0),
        n("Reshape", ["p", "view_shape"], ["flat"], name="view"),
        # + arange(features), features = flat.size(1); * ones(flat.shape)
        n("Shape", ["flat"], ["flat_shape"], name="flat_size"),
        n("Gather", ["flat_shape", "one"], ["features"], name="size1", axis=0),
        n("Range", ["zero", "features", "one"], ["positions"], name="arange"),
        n("Cast", ["positions"], ["positions_f"], name="to_float", to=TensorProto.FLOAT),
        n("Add", ["flat", "positions_f"], ["shifted"], name="add_positions"),
        n("ConstantOfShape", ["flat_shape"], ["ones"], name="ones",
          value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])),
        n("Mul", ["shifted", "ones"], ["masked"], name="mask"),
        n("Gemm", ["masked", "fc_w", "fc_b"], ["logits"], name="fc", transB=1),
        # F.interpolate(r, size=(2 * h, 2 * w)), h, w from r.shape
        n("Shape", ["r"], ["r_shape"], name="r_size"),
        n("Slice", ["r_shape", "s0", "s2", "s0"], ["nc"], name="nc"),
        n("Slice", ["r_shape", "s2", "s4", "s0"], ["hw"], name="hw"),
        n("Mul", ["hw", "two"], ["hw2"], name="double"),
        n("Concat", ["nc", "hw2"], ["sizes"], name="sizes", axis=0),
        n("Resize", ["r", "", "", "sizes"], ["up"], name="upsample", mode="nearest"),
    ]
    inits = [
        const("w", rng.uniform(-0.5, 0.5, (8, 3, 3, 3)).astype(np.float32)),
        const("b", rng.uniform(-0.1, 0.1, 8).astype(np.float32)),
        const("fc_w", rng.uniform(-0.5, 0.5, (10, 8)).astype(np.float32)),
        const("fc_b", rng.uniform(-0.1, 0.1, 10).astype(np.float32)),
        const("zero", np.array(0, dtype=np.int64)),
        const("one", np.array(1, dtype=np.int64)),
        const("two", np.array([2], dtype=np.int64)),
        const("axes0", np.array([0], dtype=np.int64)),
        const("minus_one", np.array([-1], dtype=np.int64)),
        const("s0", np.array([0], dtype=np.int64)),
        const("s2", np.array([2], dtype=np.int64)),
        const("s4", np.array([4], dtype=np.int64)),
    ]
    return model(nodes, [dyn("x", TensorProto.FLOAT, "N", 3, "H", "W")],
                 [dyn("logits", TensorProto.FLOAT, "N", 10),
                  dyn("up", TensorProto.FLOAT, "N", 8, "H2", "W2")],
                 inits, opset=13, name="dynamic_classifier")


def shape_ops():
    """Each remaining folding rule once, on a static [2, 3, 4] input: a reversed shape (Slice with
    a negative step), Size / Squeeze(Slice) (integer Div), and a position table Expand-ed to
    Where(Equal(shape, 3), 1, shape) = [2, 1, 4]."""
    i64 = lambda name, v: const(name, np.array(v, dtype=np.int64))
    nodes = [
        n("Shape", ["x"], ["s"], name="shape"),
        n("Slice", ["s", "m1", "big_neg", "ax0", "m1"], ["rev"], name="reverse"),
        n("Reshape", ["x", "rev"], ["y1"], name="reshape_rev"),
        n("Size", ["x"], ["size"], name="size"),
        n("Slice", ["s", "two", "three"], ["last1"], name="last"),
        n("Squeeze", ["last1", "ax0"], ["last"], name="squeeze"),
        n("Div", ["size", "last"], ["rows"], name="rows"),
        n("Unsqueeze", ["rows", "ax0"], ["rows1"], name="unsqueeze"),
        n("Concat", ["rows1", "last1"], ["t2"], name="t2", axis=0),
        n("Reshape", ["x", "t2"], ["y2"], name="reshape_rows"),
        n("Gather", ["s", "two_s"], ["w"], name="width", axis=0),
        n("Range", ["zero_s", "w", "one_s"], ["pos"], name="arange"),
        n("Cast", ["pos"], ["posf"], name="to_float", to=TensorProto.FLOAT),
        n("Equal", ["s", "three"], ["is3"], name="is3"),
        n("Where", ["is3", "one", "s"], ["target"], name="where"),
        n("Expand", ["posf", "target"], ["e"], name="expand"),
        n("Add", ["x", "e"], ["y3"], name="add"),
    ]
    inits = [i64("m1", [-1]), i64("big_neg", [-(2**63)]), i64("ax0", [0]), i64("two", [2]),
             i64("three", [3]), i64("one", [1]), i64("two_s", 2), i64("zero_s", 0),
             i64("one_s", 1)]
    f = lambda name, *d: dyn(name, TensorProto.FLOAT, *d)
    return model(nodes, [f("x", 2, 3, 4)], [f("y1", 4, 3, 2), f("y2", 6, 4), f("y3", 2, 3, 4)],
                 inits, opset=13, name="shape_ops")


def nonzero_reshape():
    """A truly data-dependent shape: the count of nonzero inputs decides a Reshape's target."""
    nodes = [
        n("NonZero", ["x"], ["nz"], name="nonzero"),
        n("Shape", ["nz"], ["nz_shape"], name="nz_size"),
        n("Gather", ["nz_shape", "one"], ["count"], name="count", axis=0),
        n("Unsqueeze", ["count", "axes0"], ["count1"], name="unsqueeze"),
        n("Concat", ["count1", "minus_one"], ["target"], name="target", axis=0),
        n("Reshape", ["x", "target"], ["y"], name="reshape"),
    ]
    inits = [const("one", np.array(1, dtype=np.int64)),
             const("axes0", np.array([0], dtype=np.int64)),
             const("minus_one", np.array([-1], dtype=np.int64))]
    return model(nodes, [dyn("x", TensorProto.FLOAT, 4, 6)], [dyn("y", TensorProto.FLOAT, None, None)],
                 inits, opset=13, name="nonzero_reshape")


def main():
    rng = np.random.default_rng(20261126)
    models = {"dynamic_classifier": dynamic_classifier(rng), "shape_ops": shape_ops(),
              "nonzero_reshape": nonzero_reshape()}
    for name, m in models.items():
        (INPUTS / f"{name}.onnx").write_bytes(m.SerializeToString(deterministic=True))


if __name__ == "__main__":
    main()
