#!/usr/bin/env python3
"""Writes the small .onnx models the golden tests of the vision and normalization family read
(ConvTranspose, Resize/Upsample, LayerNormalization, InstanceNormalization, LRN, GlobalMaxPool).

Same conventions as make_models.py (whose helpers it uses); the outputs are committed:

    python3 tests/compiler/inputs/make_vision_models.py
"""
import numpy as np
from onnx import TensorProto, helper

from make_models import INPUTS, f32, const, model

n = helper.make_node


def main():
    w = np.arange(18, dtype=np.float32).reshape(1, 2, 3, 3) / 10
    good = {
        # output_shape 10x8 from a 3x3 input, strides 3x2: one cell beyond the unpadded output
        # in each dim becomes output_padding; SAME_UPPER's odd padding goes to the end.
        "convtranspose_shapes": model(
            [n("ConvTranspose", ["x", "w"], ["y"], name="up", strides=[3, 2], output_shape=[10, 8]),
             n("ConvTranspose", ["x", "w"], ["z"], name="same", strides=[2, 2],
               auto_pad="SAME_UPPER")],
            [f32("x", 1, 1, 3, 3)], [f32("y", 1, 2, 10, 8), f32("z", 1, 2, 6, 6)],
            [const("w", w)], opset=13),
        # Resize by sizes (linear, align_corners) and by scales (nearest, defaults); Upsample-9.
        "resize_modes": model(
            [n("Resize", ["x", "", "", "sizes"], ["y"], name="by_sizes", mode="linear",
               coordinate_transformation_mode="align_corners"),
             n("Resize", ["x", "", "scales"], ["z"], name="by_scales", mode="cubic",
               cubic_coeff_a=-0.5, exclude_outside=1),
             n("Resize", ["x", "roi", "", "sizes"], ["c"], name="crop",
               coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=9.0)],
            [f32("x", 1, 1, 2, 4)], [f32("y", 1, 1, 3, 5), f32("z", 1, 1, 1, 2),
                                     f32("c", 1, 1, 3, 5)],
            [const("sizes", np.array([1, 1, 3, 5], dtype=np.int64)),
             const("scales", np.array([1, 1, 0.6, 0.6], dtype=np.float32)),
             const("roi", np.array([0, 0, 0.25, 0.5, 1, 1, 0.75, 1], dtype=np.float32))],
            opset=13),
        "upsample_opset9": model(
            [n("Upsample", ["x", "scales"], ["y"], name="up", mode="nearest")],
            [f32("x", 1, 1, 2, 2)], [f32("y", 1, 1, 4, 6)],
            [const("scales", np.array([1, 1, 2, 3], dtype=np.float32))], opset=9),
        "norms": model(
            [n("LayerNormalization", ["x", "s"], ["y", "mean", "inv"], name="ln", axis=-2,
               epsilon=1e-3),
             n("InstanceNormalization", ["x", "c", "c"], ["i"], name="in"),
             n("LRN", ["x"], ["l"], name="lrn", size=3),
             n("GlobalMaxPool", ["x"], ["g"], name="gmp")],
            [f32("x", 2, 3, 4)],
            [f32("y", 2, 3, 4), f32("mean", 2, 1, 1), f32("inv", 2, 1, 1), f32("i", 2, 3, 4),
             f32("l", 2, 3, 4), f32("g", 2, 3, 1)],
            [const("s", np.ones((3, 4), dtype=np.float32)),
             const("c", np.ones(3, dtype=np.float32))], opset=17),
    }
    # A small decoder for the pipeline test: an accelerator conv, then ConvTranspose, Resize,
    # InstanceNormalization, LRN and GlobalMaxPool in the package's CPU segment.
    rng = np.random.default_rng(20261123)
    good["decoder"] = model(
        [n("Conv", ["x", "wc", "bc"], ["c"], name="conv", pads=[1, 1, 1, 1]),
         n("Relu", ["c"], ["r"], name="relu"),
         n("ConvTranspose", ["r", "wt", "bt"], ["u"], name="deconv", strides=[2, 2]),
         n("Resize", ["u", "", "scales"], ["z"], name="resize", mode="linear"),
         n("InstanceNormalization", ["z", "gamma", "beta"], ["y"], name="inorm"),
         n("LRN", ["z"], ["l"], name="lrn", size=3),
         n("GlobalMaxPool", ["l"], ["g"], name="gmp")],
        [f32("x", 1, 3, 8, 8)], [f32("y", 1, 4, 32, 32), f32("g", 1, 4, 1, 1)],
        [const("wc", rng.uniform(-0.5, 0.5, (8, 3, 3, 3)).astype(np.float32)),
         const("bc", rng.uniform(-0.1, 0.1, 8).astype(np.float32)),
         const("wt", rng.uniform(-0.5, 0.5, (8, 4, 2, 2)).astype(np.float32)),
         const("bt", rng.uniform(-0.1, 0.1, 4).astype(np.float32)),
         const("scales", np.array([1, 1, 2, 2], dtype=np.float32)),
         const("gamma", rng.uniform(0.5, 1.5, 4).astype(np.float32)),
         const("beta", rng.uniform(-0.5, 0.5, 4).astype(np.float32))], opset=13)
    bad = {
        # sizes fed at run time: Loom needs the output shape at compile time.
        "resize_dynamic_sizes": model(
            [n("Resize", ["x", "", "", "sizes"], ["y"], name="rs")],
            [f32("x", 1, 1, 2, 2), helper.make_tensor_value_info("sizes", TensorProto.INT64, [4])],
            [f32("y", 1, 1, None, None)], opset=13),
        "layernorm_stash": model(
            [n("LayerNormalization", ["x", "s"], ["y"], name="ln", stash_type=0)],
            [f32("x", 2, 3)], [f32("y", 2, 3)], [const("s", np.ones(3, dtype=np.float32))],
            opset=17),
    }
    for name, m in {**good, **bad}.items():
        (INPUTS / f"{name}.onnx").write_bytes(m.SerializeToString(deterministic=True))


if __name__ == "__main__":
    main()
