#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""efconvert's tensors straight into a model (onnxruntime), from Python.

The pipeline (tensor_numpy.py's) turns a camera frame into the model's input
in one pass:

    appsrc (1280x720 RGB) ! efconvert crop=... mean=<ImageNet> std=<ImageNet>
        ! other/tensors,types=float32,dimensions=640:640:3:1 ! appsink

(NCHW float32, normalised; NNStreamer's caps list the innermost dimension
first, so 640:640:3:1 is the model's (1, 3, 640, 640)). The tensor buffer
is handed to onnxruntime as it is (numpy.frombuffer, no loop over pixels).
The model is a small convolution network this script builds with the onnx
package.

    python3 tensor_onnx.py            # prints the model's output
    python3 tensor_onnx.py --check    # and checks it, exit 1 on a mismatch

--check first checks the tensor against the one numpy makes from the frame
itself (tensor_numpy.py: the letterbox computed from the sizes, the blocks'
normalised colours), which needs numpy only, then runs the model on both
and compares its outputs (the pixels numpy cannot vouch for, whose footprint
straddles two colour blocks, are efconvert's in both). Where onnxruntime or
onnx is missing (Debian 12 has neither) the model is not run: it prints SKIP
and exits 77, after the numpy check where --check asks for it (a mismatch
there still exits 1).
"""
import argparse
import sys

import numpy as np

import tensor_numpy as ef_tensor
from gi.repository import Gst  # noqa: E402 (tensor_numpy chose the versions)


def make_model():
    """A 3x3 convolution to 4 channels, ReLU, global average: (1, 4, 1, 1)."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.RandomState(7)
    weights = rng.randn(4, 3, 3, 3).astype(np.float32)
    bias = rng.randn(4).astype(np.float32)
    size = ef_tensor.MODEL
    graph = helper.make_graph(
        [helper.make_node("Conv", ["input", "w", "b"], ["conv"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["conv"], ["relu"]),
         helper.make_node("GlobalAveragePool", ["relu"], ["output"])],
        "ef_tensor_check",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 1, 1])],
        initializer=[numpy_helper.from_array(weights, "w"), numpy_helper.from_array(bias, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8  # what onnxruntime 1.21 reads
    onnx.checker.check_model(model)
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def run(check):
    Gst.init(None)
    frame, region = ef_tensor.camera_frame()
    tensor, _transform, _sample = ef_tensor.pull_tensor(frame)
    failures = 0
    if check:
        want, known = ef_tensor.reference(frame, region)
        failures += ef_tensor.check_tensor(tensor, want, known)
    try:
        session = make_model()
    except ImportError as missing:  # Debian 12: no python3-onnxruntime
        print(f"SKIP: {missing.name} is not installed, the model is not run (Debian 13: "
              "python3-onnxruntime, python3-onnx)")
        return 1 if failures else 77
    ours = session.run(None, {"input": tensor})[0].ravel()
    print(f"model output {np.array2string(ours, precision=4)}")
    if not check:
        return 0
    theirs_input = np.where(known, want, tensor[0])[np.newaxis].astype(np.float32)
    theirs = session.run(None, {"input": theirs_input})[0].ravel()
    if not np.allclose(ours, theirs, rtol=1e-4, atol=1e-4):
        print(f"MISMATCH: numpy's tensor gives {np.array2string(theirs, precision=4)}")
        failures += 1
    else:
        print(f"check: the model's output on numpy's tensor is the same (largest difference "
              f"{float(np.max(np.abs(ours - theirs))):.2e})")
    return 1 if failures else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with numpy's own letterbox and normalisation of the frame")
    sys.exit(run(parser.parse_args().check))
