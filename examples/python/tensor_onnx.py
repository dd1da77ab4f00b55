#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""efconvert's tensors straight into a model (onnxruntime), from Python.

The pipeline turns camera frames into the model's input in one pass:

    videotestsrc ! NV12 320x240 ! efconvert mean=<ImageNet> std=<ImageNet>
        ! other/tensors,types=float32,dimensions=W:H:3:1 ! appsink

(NCHW float32, normalised; NNStreamer's caps, innermost dimension first).
Each tensor buffer is handed to onnxruntime as it is (numpy.frombuffer, no
copy, no loop over pixels). The model is a small convolution network this
script builds with the onnx package.

    python3 tensor_onnx.py            # prints each frame's model output
    python3 tensor_onnx.py --check    # and checks it, exit 1 on a mismatch

--check runs the same frames a second way, as an application without
efconvert's tensors would: efconvert's 8-bit RGB output of the same frame,
normalised in numpy (the loop onnxinference and most Python code run), and
compares the model's outputs. Where onnxruntime, onnx or numpy is missing
(Debian 12 has no onnxruntime) it prints SKIP and exits 77.
"""
import argparse
import sys

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
except ImportError as missing:  # Debian 12: no python3-onnxruntime
    print(f"SKIP: {missing.name} is not installed (Debian 13: python3-onnxruntime, "
          "python3-onnx, python3-numpy)")
    sys.exit(77)

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

SIZE = 96  # the model's input: 96x96, letterboxed
FRAMES = 6
MEAN = (123.675, 116.28, 103.53)  # ImageNet, in 0-255 units, R, G, B
STD = (58.395, 57.12, 57.375)


def array_text(values):
    return "<" + ", ".join(str(v) for v in values) + ">"


def make_model():
    """A 3x3 convolution to 4 channels, ReLU, global average: (1, 4, 1, 1)."""
    rng = np.random.RandomState(7)
    weights = rng.randn(4, 3, 3, 3).astype(np.float32)
    bias = rng.randn(4).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["input", "w", "b"], ["conv"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["conv"], ["relu"]),
         helper.make_node("GlobalAveragePool", ["relu"], ["output"])],
        "ef_tensor_check",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, SIZE, SIZE])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 1, 1])],
        initializer=[numpy_helper.from_array(weights, "w"), numpy_helper.from_array(bias, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8  # what onnxruntime 1.21 reads
    onnx.checker.check_model(model)
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def pull(sink):
    sample = sink.emit("pull-sample")
    if sample is None:
        raise RuntimeError(f"{sink.get_name()}: no sample (the pipeline stopped)")
    buffer = sample.get_buffer()
    ok, info = buffer.map(Gst.MapFlags.READ)
    if not ok:
        raise RuntimeError("cannot map a buffer")
    data = bytes(info.data)
    buffer.unmap(info)
    return data


def run(check):
    Gst.init(None)
    session = make_model()
    tensor_caps = (f"other/tensors,format=static,num_tensors=1,types=float32,"
                   f"dimensions={SIZE}:{SIZE}:3:1")
    branch = f"queue ! efconvert backend=cpu"
    description = (
        f"videotestsrc num-buffers={FRAMES} pattern=ball ! "
        f"video/x-raw,format=NV12,width=320,height=240 ! tee name=t "
        f"t. ! {branch} mean=\"{array_text(MEAN)}\" std=\"{array_text(STD)}\" ! "
        f"{tensor_caps} ! appsink name=tensors sync=false max-buffers={FRAMES} "
        f"t. ! {branch} ! video/x-raw,format=RGB,width={SIZE},height={SIZE} ! "
        f"appsink name=frames sync=false max-buffers={FRAMES}")
    pipeline = Gst.parse_launch(description)
    tensors = pipeline.get_by_name("tensors")
    frames = pipeline.get_by_name("frames")
    pipeline.set_state(Gst.State.PLAYING)
    worst = 0.0
    try:
        for n in range(FRAMES):
            tensor = np.frombuffer(pull(tensors), dtype=np.float32)
            ours = session.run(None, {"input": tensor.reshape(1, 3, SIZE, SIZE)})[0].ravel()
            print(f"frame {n}: model output {np.array2string(ours, precision=4)}")
            if not check:
                continue
            rgb = np.frombuffer(pull(frames), dtype=np.uint8).reshape(SIZE, SIZE, 3)
            normalised = (rgb.astype(np.float64) - np.array(MEAN)) / np.array(STD)
            nchw = normalised.astype(np.float32).transpose(2, 0, 1)[np.newaxis].copy()
            theirs = session.run(None, {"input": nchw})[0].ravel()
            worst = max(worst, float(np.max(np.abs(ours - theirs))))
            if not np.allclose(ours, theirs, rtol=1e-4, atol=1e-4):
                print(f"MISMATCH frame {n}: numpy-normalised input gives "
                      f"{np.array2string(theirs, precision=4)}")
                return 1
    finally:
        pipeline.set_state(Gst.State.NULL)
    if check:
        print(f"all {FRAMES} frames: the same outputs as numpy's normalisation "
              f"(largest difference {worst:.2e})")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the same frames normalised in numpy")
    sys.exit(run(parser.parse_args().check))
