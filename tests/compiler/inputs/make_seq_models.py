#!/usr/bin/env python3
"""Writes the small .onnx models the golden tests of the recurrent, signal and misc family read
(RNN, GRU, LSTM, DFT, STFT, the windows, MelWeightMatrix, DynamicQuantizeLinear, Det).

Same conventions as make_models.py (whose helpers it uses); the outputs are committed:

    /usr/bin/python3 tests/compiler/inputs/make_seq_models.py
"""
import numpy as np
from onnx import TensorProto, helper

from make_models import INPUTS, f32, const, model

n = helper.make_node


def scalar(name, value, dtype=np.int64):
    return const(name, np.array(value, dtype=dtype))


def main():
    rng = np.random.default_rng(20261126)

    def w(*shape):
        return rng.uniform(-0.5, 0.5, shape).astype(np.float32)

    good = {
        # LSTM bidirectional with named activations (alpha consumed by HardSigmoid only) and
        # clip; GRU reverse, batch-major, linear_before_reset; RNN with Y unnamed (Y_h only).
        "recurrent": model(
            [n("LSTM", ["x", "wl", "rl", "bl"], ["yl", "hl", "cl"], name="lstm", hidden_size=3,
               direction="bidirectional", clip=5.0,
               activations=["HardSigmoid", "Tanh", "Tanh", "Sigmoid", "Tanh", "Tanh"],
               activation_alpha=[0.3], activation_beta=[0.4]),
             n("GRU", ["xb", "wg", "rg"], ["yg"], name="gru", hidden_size=2, direction="reverse",
               layout=1, linear_before_reset=1),
             n("RNN", ["x", "wr", "rr"], ["", "hr"], name="rnn", hidden_size=4)],
            [f32("x", 5, 2, 4), f32("xb", 2, 5, 4)],
            [f32("yl", 5, 2, 2, 3), f32("hl", 2, 2, 3), f32("cl", 2, 2, 3),
             f32("yg", 2, 5, 1, 2), f32("hr", 1, 2, 4)],
            [const("wl", w(2, 12, 4)), const("rl", w(2, 12, 3)), const("bl", w(2, 24)),
             const("wg", w(1, 6, 4)), const("rg", w(1, 6, 2)),
             const("wr", w(1, 4, 4)), const("rr", w(1, 4, 4))], opset=14),
        # Scalar shape inputs become attributes; the windows and the mel matrix take no inputs.
        "signal": model(
            [n("DFT", ["x", "len"], ["d"], name="dft", axis=-3, onesided=1),
             n("STFT", ["s", "step", "win"], ["st"], name="stft"),
             n("HannWindow", ["size"], ["hann"], name="hann", periodic=0),
             n("BlackmanWindow", ["size"], ["black"], name="black",
               output_datatype=TensorProto.DOUBLE),
             n("MelWeightMatrix", ["bins", "dftlen", "rate", "lo", "hi"], ["mel"], name="mel"),
             n("DynamicQuantizeLinear", ["x"], ["q", "qs", "qz"], name="dql"),
             n("Det", ["m"], ["det"], name="det")],
            [f32("x", 2, 6, 3, 1), f32("s", 1, 32, 1), f32("m", 3, 4, 4)],
            [f32("d", 2, 5, 3, 2), f32("st", 1, 7, 5, 2), f32("hann", 8),
             helper.make_tensor_value_info("black", TensorProto.DOUBLE, [8]), f32("mel", 9, 4),
             helper.make_tensor_value_info("q", TensorProto.UINT8, [2, 6, 3, 1]), f32("qs"),
             helper.make_tensor_value_info("qz", TensorProto.UINT8, []), f32("det", 3)],
            [scalar("len", 8), scalar("step", 4), const("win", np.hanning(8).astype(np.float32)),
             scalar("size", 8), scalar("bins", 4), scalar("dftlen", 16), scalar("rate", 8000),
             scalar("lo", 0.0, np.float32), scalar("hi", 4000.0, np.float32)], opset=17),
    }
    bad = {
        # frame_step fed at run time: it decides the number of frames.
        "stft_dynamic_step": model(
            [n("STFT", ["s", "step", "", "len"], ["y"], name="stft")],
            [f32("s", 1, 32, 1), helper.make_tensor_value_info("step", TensorProto.INT64, [])],
            [f32("y", 1, None, 5, 2)], [scalar("len", 8)], opset=17),
        "rnn_activation": model(
            [n("RNN", ["x", "w", "r"], ["y"], name="rnn", hidden_size=2, activations=["Gelu"])],
            [f32("x", 3, 1, 2)], [f32("y", 3, 1, 1, 2)],
            [const("w", w(1, 2, 2)), const("r", w(1, 2, 2))], opset=14),
        "window_int": model(
            [n("HammingWindow", ["size"], ["y"], name="ham", output_datatype=TensorProto.INT32)],
            [], [helper.make_tensor_value_info("y", TensorProto.INT32, [8])], [scalar("size", 8)],
            opset=17),
    }
    for name, m in {**good, **bad}.items():
        (INPUTS / f"{name}.onnx").write_bytes(m.SerializeToString(deterministic=True))


if __name__ == "__main__":
    main()
