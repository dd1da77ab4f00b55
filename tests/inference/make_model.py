#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Builds the inference tests' detector: an ONNX model that finds the
brightest region of an RGB frame and reports its box the way an SSD detector
does, so that GStreamer's own tensor decoders read it.

    python3 make_model.py --out DIR [--width 320 --height 256]

writes, in DIR:
  brightest.onnx            the model (input uint8 [1, H, W, 3], HWC RGB)
  brightest.onnx.modelinfo  its tensors' ids for GStreamer 1.28's onnxinference
  labels.txt                the one class, "bright", on lines 0 and 1: class
                            1 is line 1 for 1.26's ssdobjectdetector, line 0
                            for 1.28's ssdtensordec (which skips the
                            background class 0)

The model, from ONNX operators only (nothing trained, nothing downloaded):
  luma  = mean of R, G, B                               [1, H, W]
  peak  = max of luma over the frame
  mask  = luma > 3/4 of peak                            the brightest region
  columns, rows = max of mask down each column / along each row
  x0, x1 = first and last column of the region (ArgMax, first and last index)
  y0, y1 = first and last row
Outputs, SSD MobileNet's layout (tensor ids: GStreamer 1.26's in the model's
metadata_props, 1.28's in the .modelinfo file):
  detection_boxes   [1, N, 4] float: ymin, xmin, ymax, xmax of the region,
                    normalised (edges in pixels plus a quarter pixel: the
                    decoders truncate box * size to whole pixels)
  detection_scores  [1, N] float: peak / 255
  detection_classes [1, N] float: 1 ("bright")
  num_detections    [1] float: N
N is 1 when the frame has any light (0 for a black frame), found by NonZero:
a dynamic dimension, as in the models the decoders were written for (1.28's
ssdtensordec takes only a dynamic N in its caps, and onnxruntime reports a
fixed one where it can infer it).

--check runs the model in onnxruntime on frames made here with numpy and
exits non-zero unless it reports each bright rectangle exactly (in a child
process: Debian forky's onnx and onnxruntime both register ONNX's operator
schemas, and loading both into one process prints thousands of complaints).
Exit code 77 (SKIP) when python3-onnx (or, for --check, onnxruntime) is
missing.
"""
import argparse
import os
import subprocess
import sys

SKIP = 77
# GStreamer 1.26's onnxinference reads each output's tensor id from the
# model's metadata_props (output name -> id); ssdobjectdetector looks them up.
IDS_126 = {
    "detection_boxes": "Gst.Model.ObjectDetector.Boxes",
    "detection_scores": "Gst.Model.ObjectDetector.Scores",
    "detection_classes": "Gst.Model.ObjectDetector.Classes",
    "num_detections": "Gst.Model.ObjectDetector.NumDetections",
}
# GStreamer 1.28's onnxinference reads them from the .modelinfo file, with a
# group id; ssdtensordec's caps name these.
GROUP_128 = "ssd-mobilenet-v1-variant-1-out"
IDS_128 = {
    "detection_boxes": GROUP_128 + "-boxes",
    "detection_scores": GROUP_128 + "-scores",
    "detection_classes": GROUP_128 + "-classes",
    "num_detections": "generic-variant-1-out-count",
}
# The region: pixels brighter than this fraction of the frame's brightest.
THRESHOLD = 0.75
# Added to the region's edges before normalising (see the docstring).
EDGE_BIAS = 0.25


def build(width, height):
    from onnx import TensorProto, helper

    f32 = TensorProto.FLOAT
    nodes = []

    def node(op, inputs, outputs, **attrs):
        nodes.append(helper.make_node(op, inputs, outputs, **attrs))
        return outputs[0]

    def const(name, values, dims, dtype=f32):
        return node("Constant", [], [name],
                    value=helper.make_tensor(name + "_v", dtype, dims, values))

    pixels = node("Cast", ["image"], ["pixels"], to=f32)
    luma = node("ReduceMean", [pixels], ["luma"], axes=[3], keepdims=0)
    peak = node("ReduceMax", [luma], ["peak"], axes=[1, 2], keepdims=1)
    threshold = node("Mul", [peak, const("fraction", [THRESHOLD], [])], ["threshold"])
    mask = node("Cast", [node("Greater", [luma, threshold], ["bright"])], ["mask"], to=f32)
    columns = node("ReduceMax", [mask], ["columns"], axes=[1], keepdims=0)  # [1, W]
    rows = node("ReduceMax", [mask], ["rows"], axes=[2], keepdims=0)  # [1, H]

    def edge(profile, name, last, size):
        index = node("ArgMax", [profile], [name + "_i"], axis=1, keepdims=1,
                     select_last_index=1 if last else 0)
        pixel = node("Cast", [index], [name + "_px"], to=f32)
        # The far edge of the last pixel is one further.
        offset = EDGE_BIAS + (1.0 if last else 0.0)
        shifted = node("Add", [pixel, const(name + "_off", [offset], [])], [name + "_e"])
        return node("Div", [shifted, const(name + "_size", [float(size)], [])], [name])

    ymin = edge(rows, "ymin", False, height)
    xmin = edge(columns, "xmin", False, width)
    ymax = edge(rows, "ymax", True, height)
    xmax = edge(columns, "xmax", True, width)
    box = node("Concat", [ymin, xmin, ymax, xmax], ["box"], axis=1)  # [1, 4]
    score = node("Reshape", [node("Div", [peak, const("full", [255.0], [])], ["score3"]),
                             const("shape_1", [1], [1], TensorProto.INT64)], ["score"])  # [1]
    # One detection where the frame has any light at all: found by NonZero,
    # so the count N is the data's, a dynamic dimension for onnxruntime too.
    lit = node("Greater", [score, const("dark", [0.0], [])], ["lit"])
    keep = node("Squeeze", [node("NonZero", [lit], ["lit_at"]),
                            const("axis0", [0], [1], TensorProto.INT64)], ["keep"])  # [N]
    node("Unsqueeze", [node("Gather", [box, keep], ["boxes_n"], axis=0), "axis0"],
         ["detection_boxes"])  # [1, N, 4]
    node("Unsqueeze", [node("Gather", [score, keep], ["scores_n"], axis=0), "axis0"],
         ["detection_scores"])  # [1, N]
    # Class 1, "bright" (SSD MobileNet's classes count from 1, 0 being the
    # background): Mul by 0 keeps the scores' dynamic shape.
    node("Add", [node("Mul", ["detection_scores", const("zero", [0.0], [])], ["no_class"]),
                 const("class_1", [1.0], [])], ["detection_classes"])
    node("Cast", [node("Shape", [keep], ["count"])], ["num_detections"], to=f32)  # [1]

    graph = helper.make_graph(
        nodes, "brightest",
        [helper.make_tensor_value_info("image", TensorProto.UINT8, [1, height, width, 3])],
        [
            helper.make_tensor_value_info("detection_boxes", f32, [1, "N", 4]),
            helper.make_tensor_value_info("detection_scores", f32, [1, "N"]),
            helper.make_tensor_value_info("detection_classes", f32, [1, "N"]),
            helper.make_tensor_value_info("num_detections", f32, [1]),
        ])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="ef tests/inference/make_model.py")
    model.ir_version = 8  # what onnxruntime 1.21 (Debian 13) reads
    helper.set_model_props(model, IDS_126)
    return model


def modelinfo(width, height):
    lines = ["[modelinfo]", "version=1.0", "group-id=" + GROUP_128, "",
             "[image]", "id=image", "type=uint8", f"dims=1,{height},{width},3", "dir=input",
             "ranges=0.0,255.0", ""]
    dims = {"detection_boxes": "1,-1,4", "detection_scores": "1,-1",
            "detection_classes": "1,-1", "num_detections": "1"}
    for name, tensor_id in IDS_128.items():
        lines += [f"[{name}]", "id=" + tensor_id, "type=float32", "dims=" + dims[name],
                  "dir=output", ""]
    return "\n".join(lines)


def check(path, width, height):
    """The model against rectangles drawn here: every box exact."""
    import numpy as np
    import onnxruntime

    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(7)
    failures = 0
    cases = [(0, 0, 1, 1), (width - 3, height - 5, 3, 5), (17, 9, 40, 23), (1, 2, width - 2, 7)]
    for x, y, w, h in cases:
        frame = rng.integers(20, 140, size=(1, height, width, 3), dtype=np.uint8)
        frame[0, y:y + h, x:x + w] = 250
        boxes, scores, classes, count = session.run(
            ["detection_boxes", "detection_scores", "detection_classes", "num_detections"],
            {"image": frame})
        ymin, xmin, ymax, xmax = boxes[0, 0]
        # What the decoders compute: truncation of box * size.
        got = (int(xmin * width), int(ymin * height), int(xmax * width) - int(xmin * width),
               int(ymax * height) - int(ymin * height))
        ok = got == (x, y, w, h) and abs(scores[0, 0] - 250 / 255) < 1e-6 and count[0] == 1
        ok = ok and classes.shape == (1, 1) and classes[0, 0] == 1
        if not ok:
            print(f"model check: rectangle {(x, y, w, h)} -> {got}, score {scores[0, 0]}")
            failures += 1
    return failures


def verify(path, width, height):
    try:
        import numpy  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        print("SKIP: python3-onnxruntime is missing (scripts/install-deps.sh installs it on Debian 13 and later)")
        return SKIP
    return 1 if check(path, width, height) else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    parser.add_argument("--width", type=int, default=320)
    parser.add_argument("--height", type=int, default=256)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--verify", metavar="MODEL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.verify:
        return verify(args.verify, args.width, args.height)
    if not args.out:
        parser.error("--out is required")
    try:
        import onnx
    except ImportError:
        print("SKIP: python3-onnx is missing (scripts/install-deps.sh installs it on Debian 13 and later)")
        return SKIP
    os.makedirs(args.out, exist_ok=True)
    model = build(args.width, args.height)
    onnx.checker.check_model(model)
    path = os.path.join(args.out, "brightest.onnx")
    onnx.save(model, path)
    with open(path + ".modelinfo", "w") as f:
        f.write(modelinfo(args.width, args.height))
    with open(os.path.join(args.out, "labels.txt"), "w") as f:
        f.write("bright\nbright\n")
    if args.check:
        status = subprocess.call([sys.executable, __file__, "--verify", path,
                                  "--width", str(args.width), "--height", str(args.height)])
        if status:
            return status
    print(f"model: {path} ({args.width}x{args.height})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
