#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""efconvert's model input as a numpy array, and a box found in it mapped
back onto the camera frame: numpy and PyGObject only (runs on Debian 12).

    appsrc (a 1280x720 RGB camera frame made here) ! efconvert crop=<160, 0, 960, 720>
        mean=<ImageNet> std=<ImageNet>
        ! other/tensors,types=float32,dimensions=640:640:3:1 ! appsink

`dimensions` lists the innermost dimension first (NNStreamer's order), so
640:640:3:1 is width 640, height 640, 3 channels, batch 1: the (1, 3, 640,
640) NCHW input of a PyTorch or ONNX model, read here with
`numpy.frombuffer(...).reshape(1, 3, 640, 640)`. 3:640:640:1 would be NHWC,
(1, 640, 640, 3).

The frame is a grid of solid colour blocks with one magenta "object" in it.
numpy finds the object in the tensor (its bounding box in model pixels) and
GstEf.TransformMeta.map_boxes_to_input() puts that box back on the camera
frame, undoing the letterbox and the crop.

    python3 tensor_numpy.py            # prints the box in model and camera pixels
    python3 tensor_numpy.py --check    # and checks the tensor, exit 1 on a mismatch

--check compares the tensor with one numpy makes from the frame itself,
not with efconvert's own output: the letterbox scale and offset computed
here from the sizes alone, each model pixel the ImageNet-normalised colour of
the block under it (pixels whose footprint straddles two blocks are left
out), the borders the normalised fill colour, and the box mapped back where
the object was drawn. A wrong scale, offset, channel order or layout fails it.
"""
import argparse
import sys

import gi
import numpy as np

gi.require_version("Gst", "1.0")
gi.require_version("GstEf", "1.0")
from gi.repository import Gst, GstEf  # noqa: E402

CAMERA_W, CAMERA_H = 1280, 720
CROP = (160, 0, 960, 720)  # x, y, width, height: what the model sees
MODEL = 640
MEAN = np.array([123.675, 116.28, 103.53])  # ImageNet, in 0-255 units, R, G, B
STD = np.array([58.395, 57.12, 57.375])
BLOCK = 160  # the frame is a grid of 160x160 solid blocks
OBJECT = (460, 240, 640, 360)  # x0, y0, x1, y1 on the camera frame
OBJECT_RGB = (250, 20, 200)  # a colour no block has


def array_text(values):
    return "<" + ", ".join(str(v) for v in values) + ">"


def block_colours():
    """A colour for each block of the grid, distinct in every channel's order."""
    rows, cols = CAMERA_H // BLOCK + 1, CAMERA_W // BLOCK
    ramp = np.arange(rows * cols)
    return np.stack([(40 + 23 * ramp) % 200, (90 + 57 * ramp) % 190, (10 + 91 * ramp) % 180],
                    axis=-1).reshape(rows, cols, 3).astype(np.uint8)


def camera_frame():
    """The RGB frame and, for each pixel, the number of the region it lies in
    (a block, or -1 for the object)."""
    ys, xs = np.mgrid[0:CAMERA_H, 0:CAMERA_W]
    region = (ys // BLOCK) * (CAMERA_W // BLOCK) + xs // BLOCK
    frame = block_colours()[ys // BLOCK, xs // BLOCK]
    x0, y0, x1, y1 = OBJECT
    frame[y0:y1, x0:x1] = OBJECT_RGB
    region[y0:y1, x0:x1] = -1
    return np.ascontiguousarray(frame), region


def letterbox():
    """Where the crop lands in the model input, from the sizes alone (centred,
    an odd pixel of margin on the right or at the bottom): x, y, w, h, scale."""
    _, _, cw, ch = CROP
    scale = min(MODEL / cw, MODEL / ch)
    w, h = round(cw * scale), round(ch * scale)
    return (MODEL - w) // 2, (MODEL - h) // 2, w, h, scale


def footprints(start, origin, length, scale):
    """For model rows (or columns) from `start`, the first and last camera
    row (column) each averages, with a pixel of margin, inside the crop."""
    steps = np.arange(round(length * scale))
    first = np.floor(origin + steps / scale).astype(int) - 1
    last = np.ceil(origin + (steps + 1) / scale).astype(int)
    return np.clip(first, origin, origin + length - 1), np.clip(last, origin, origin + length - 1)


def reference(frame, region):
    """The tensor numpy expects, (3, MODEL, MODEL), and a mask of the model
    pixels it can vouch for: those whose footprint lies in one region (the
    regions are rectangles larger than a footprint, so its corners say)."""
    cx, cy, cw, ch = CROP
    x, y, w, h, scale = letterbox()
    fill = (np.zeros(3) - MEAN) / STD  # fill-color's default is black
    want = np.broadcast_to(fill[:, None, None], (3, MODEL, MODEL)).copy()
    known = np.ones((MODEL, MODEL), bool)
    top, bottom = footprints(y, cy, ch, scale)
    left, right = footprints(x, cx, cw, scale)
    corner = region[top[:, None], left[None, :]]
    uniform = np.ones_like(corner, bool)
    for rows in (top, bottom):
        for cols in (left, right):
            uniform &= region[rows[:, None], cols[None, :]] == corner
    rgb = frame[top[:, None], left[None, :]].astype(np.float64)
    want[:, y:y + h, x:x + w] = ((rgb - MEAN) / STD).transpose(2, 0, 1)
    known[y:y + h, x:x + w] = uniform
    return want, known


def pull_tensor(frame):
    description = (
        f"appsrc name=camera format=time caps=\"video/x-raw,format=RGB,width={CAMERA_W},"
        f"height={CAMERA_H},framerate=30/1\" ! "
        f"efconvert crop=\"{array_text(CROP)}\" mean=\"{array_text(MEAN)}\" "
        f"std=\"{array_text(STD)}\" ! "
        f"other/tensors,format=static,num_tensors=1,types=float32,"
        f"dimensions={MODEL}:{MODEL}:3:1 ! appsink name=model sync=false")
    pipeline = Gst.parse_launch(description)
    camera = pipeline.get_by_name("camera")
    pipeline.set_state(Gst.State.PLAYING)
    try:
        buffer = Gst.Buffer.new_wrapped(frame.tobytes())
        buffer.pts = 0
        buffer.duration = Gst.SECOND // 30
        camera.emit("push-buffer", buffer)
        camera.emit("end-of-stream")
        sample = pipeline.get_by_name("model").emit("pull-sample")
        if sample is None:
            raise RuntimeError("no tensor came out (the pipeline stopped: run with GST_DEBUG=2)")
        tensor_buffer = sample.get_buffer()
        ok, info = tensor_buffer.map(Gst.MapFlags.READ)
        if not ok:
            raise RuntimeError("cannot map the tensor")
        # NNStreamer's 640:640:3:1 is numpy's (1, 3, 640, 640): NCHW.
        tensor = np.frombuffer(info.data, dtype=np.float32).reshape(1, 3, MODEL, MODEL).copy()
        tensor_buffer.unmap(info)
        transform = GstEf.buffer_get_ef_transform_meta(tensor_buffer)
        if transform is None:
            raise RuntimeError("the tensor carries no GstEfTransformMeta")
        return tensor, transform, sample
    finally:
        pipeline.set_state(Gst.State.NULL)


def find_object(tensor):
    """The object's bounding box in model pixels (x0, y0, x1, y1, pixel
    edges): the model pixels whose colour is the object's, within a level."""
    rgb = tensor[0] * STD[:, None, None] + MEAN[:, None, None]
    near = (np.abs(rgb - np.array(OBJECT_RGB)[:, None, None]) < 1.0).all(axis=0)
    rows, cols = np.nonzero(near)
    if rows.size == 0:
        raise RuntimeError("the object is not in the tensor")
    return [float(cols.min()), float(rows.min()), float(cols.max() + 1), float(rows.max() + 1)]


def check_tensor(tensor, want, known):
    """Failures of efconvert's tensor against numpy's, where numpy vouches."""
    diff = np.abs(tensor[0] - want).max(axis=0)
    tolerance = 0.5 / STD.max()  # half a level of the 8-bit scale, normalised
    bad = known & (diff > tolerance)
    print(f"check: {known.sum()} of {MODEL * MODEL} model pixels vouched for by numpy, "
          f"largest difference {diff[known].max():.2e} (tolerance {tolerance:.2e})")
    if not bad.any():
        return 0
    v, u = np.argwhere(bad)[0]
    print(f"MISMATCH at model pixel ({u}, {v}): {tensor[0][:, v, u]}, "
          f"numpy wants {want[:, v, u]} ({bad.sum()} pixels differ)")
    return 1


def check_box(camera_box):
    """Failures of the box mapped back against where the object was drawn,
    to a model pixel (in camera pixels)."""
    slack = 1.0 / letterbox()[4]
    off = max(abs(a - b) for a, b in zip(camera_box, OBJECT))
    if off > slack:
        print(f"MISMATCH: the object maps back to {camera_box}, it was drawn at {OBJECT}")
        return 1
    print(f"check: the box maps back within {off:.2f} camera pixels of where it was drawn")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare the tensor with numpy's own letterbox and normalisation")
    args = parser.parse_args()
    Gst.init(None)
    frame, region = camera_frame()
    tensor, transform, _sample = pull_tensor(frame)
    model_box = find_object(tensor)
    camera_box = transform.map_boxes_to_input(model_box)
    print(f"tensor {tensor.shape} {tensor.dtype}; object at {model_box} in model pixels, "
          f"{[round(v, 2) for v in camera_box]} on the camera frame")
    if not args.check:
        return 0
    return 1 if check_tensor(tensor, *reference(frame, region)) + check_box(camera_box) else 0


if __name__ == "__main__":
    sys.exit(main())
