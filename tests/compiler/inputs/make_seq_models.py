#!/usr/bin/env python3
"""Writes the small .onnx models the golden tests of the recurrent, signal and misc family read
(RNN, GRU, LSTM, DFT, STFT, the windows, MelWeightMatrix, DynamicQuantizeLinear, Det) and of
control flow (If, Loop, Scan); the good ones also seed the ONNX importer's fuzz corpus.

Same conventions as make_models.py (whose helpers it uses); the outputs are committed:

    /usr/bin/python3 tests/compiler/inputs/make_seq_models.py
"""
import numpy as np
from onnx import TensorProto, helper

from make_models import CORPUS, INPUTS, f32, const, model

n = helper.make_node


def scalar(name, value, dtype=np.int64):
    return const(name, np.array(value, dtype=dtype))


def neg_body(negs):
    """A Loop body negating its carried value `negs` times (cond passed through)."""
    names = ["v_in"] + [f"v{k}" for k in range(1, negs)] + ["v_out"]
    nodes = [n("Identity", ["c_in"], ["c_out"])]
    nodes += [n("Neg", [names[k]], [names[k + 1]]) for k in range(negs)]
    return helper.make_graph(
        nodes, "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c_in", TensorProto.BOOL, []), f32("v_in", 2)],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []), f32("v_out", 2)])


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
        # If on a run-time condition (both branches, then Where); Loop with a constant trip
        # count (unrolled 3 times, the iteration number folding into Slice); Scan-9 summing rows.
        "control": model(
            [n("If", ["c"], ["sel"], name="if",
               then_branch=helper.make_graph([n("Add", ["x", "x"], ["t"])], "then", [],
                                             [f32("t", 3, 2)]),
               else_branch=helper.make_graph([n("Neg", ["x"], ["e"])], "else", [],
                                             [f32("e", 3, 2)])),
             n("Loop", ["trips", "", "acc0"], ["acc", "rows"], name="loop",
               body=helper.make_graph(
                   [n("Unsqueeze", ["i", "ax"], ["i1"]),
                    n("Add", ["i1", "one"], ["i2"]),
                    n("Slice", ["x", "i1", "i2"], ["row"]),
                    n("Add", ["acc_in", "row"], ["acc_out"]),
                    n("Identity", ["cond_in"], ["cond_out"]),
                    n("Identity", ["row"], ["row_out"])], "body",
                   [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                    helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                    f32("acc_in", 1, 2)],
                   [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
                    f32("acc_out", 1, 2), f32("row_out", 1, 2)])),
             n("Scan", ["s0", "x"], ["sum", "partial"], name="scan", num_scan_inputs=1,
               body=helper.make_graph(
                   [n("Add", ["s_in", "next"], ["s_out"]), n("Identity", ["s_out"], ["p"])],
                   "scan_body", [f32("s_in", 2), f32("next", 2)], [f32("s_out", 2), f32("p", 2)]))],
            [f32("x", 3, 2), helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
            [f32("sel", 3, 2), f32("acc", 1, 2), f32("rows", 3, 1, 2), f32("sum", 2),
             f32("partial", 3, 2)],
            [scalar("trips", 3), scalar("ax", [0]), scalar("one", 1),
             const("acc0", np.zeros((1, 2), np.float32)), const("s0", np.zeros(2, np.float32))],
            opset=13),
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
        # A trip count fed at run time: Loom unrolls loops, so it must be a constant.
        "loop_dynamic_trips": model(
            [n("Loop", ["m", "", "v"], ["out"], name="loop",
               body=helper.make_graph(
                   [n("Identity", ["c_in"], ["c_out"]), n("Neg", ["v_in"], ["v_out"])], "body",
                   [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                    helper.make_tensor_value_info("c_in", TensorProto.BOOL, []), f32("v_in", 2)],
                   [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []), f32("v_out", 2)]))],
            [helper.make_tensor_value_info("m", TensorProto.INT64, []), f32("v", 2)],
            [f32("out", 2)], opset=13),
        # A trip count past what is unrolled (INT64_MAX, which a double cannot hold), and 4096
        # steps of a 20-node body (past the unrolled-node budget).
        "loop_huge_trips": model(
            [n("Loop", ["m", "", "v"], ["out"], name="loop", body=neg_body(1))],
            [f32("v", 2)], [f32("out", 2)], [scalar("m", np.iinfo(np.int64).max)], opset=13),
        "loop_too_large": model(
            [n("Loop", ["m", "", "v"], ["out"], name="loop", body=neg_body(20))],
            [f32("v", 2)], [f32("out", 2)], [scalar("m", 4096)], opset=13),
        "window_int": model(
            [n("HammingWindow", ["size"], ["y"], name="ham", output_datatype=TensorProto.INT32)],
            [], [helper.make_tensor_value_info("y", TensorProto.INT32, [8])], [scalar("size", 8)],
            opset=17),
    }
    for name, m in {**good, **bad}.items():
        (INPUTS / f"{name}.onnx").write_bytes(m.SerializeToString(deterministic=True))
    for name, m in good.items():
        (CORPUS / f"seq_{name}.onnx").write_bytes(m.SerializeToString(deterministic=True))


if __name__ == "__main__":
    main()
