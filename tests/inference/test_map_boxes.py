#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""GstEf.TransformMeta.map_boxes_to_input() from Python: a whole set of
boxes in one call, against the same boxes mapped point by point.

For efconvert's transform meta under each video-direction (a crop of a
1280x720 frame letterboxed into 320x256), 1000 boxes spread over the model's
frame and beyond it are mapped both ways; every value must agree (corners
in order, clamped to the crop). Then both ways are timed on 1000 boxes and
the figures printed; the batch call must be the faster. A set it cannot map
(a NaN or infinite value, a count not four a box) must raise GLib.Error
with its code, and an empty set give an empty list. Needs no analytics
library: runs on GStreamer 1.22 too.
"""
import array
import random
import sys
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
gi.require_version("GstEf", "1.0")
from gi.repository import GLib, Gst, GstEf, GstVideo  # noqa: E402

MODEL_W, MODEL_H = 320, 256
CROP = (100, 50, 900, 552)
DIRECTIONS = ["identity", "90r", "180", "90l", "horiz", "vert", "ul-lr", "ur-ll"]
N_BOXES = 1000


def rect(x, y, w, h):
    r = GstVideo.VideoRectangle()
    r.x, r.y, r.w, r.h = x, y, w, h
    return r


def transform_meta(direction):
    """The meta efconvert attaches for this geometry (its letterbox rule)."""
    swap = direction in ("90r", "90l", "ul-lr", "ur-ll")
    tw, th = (CROP[3], CROP[2]) if swap else (CROP[2], CROP[3])
    scale = min(MODEL_W / tw, MODEL_H / th)
    w, h = round(tw * scale), round(th * scale)
    content = rect((MODEL_W - w) // 2, (MODEL_H - h) // 2, w, h)
    method = GstVideo.VideoOrientationMethod(DIRECTIONS.index(direction))
    buf = Gst.Buffer.new()
    GstEf.buffer_add_ef_transform_meta(buf, rect(*CROP), content, method)
    return buf, GstEf.buffer_get_ef_transform_meta(buf)


def pointwise(meta, boxes):
    """What an application did before: two points a box, then order and clamp."""
    x_lo, y_lo = CROP[0], CROP[1]
    x_hi, y_hi = CROP[0] + CROP[2], CROP[1] + CROP[3]
    out = []
    for i in range(0, len(boxes), 4):
        ax, ay = meta.map_to_input(boxes[i], boxes[i + 1])
        bx, by = meta.map_to_input(boxes[i + 2], boxes[i + 3])
        out += [min(max(min(ax, bx), x_lo), x_hi), min(max(min(ay, by), y_lo), y_hi),
                min(max(max(ax, bx), x_lo), x_hi), min(max(max(ay, by), y_lo), y_hi)]
    return out


def random_boxes(rng):
    boxes = []
    for _ in range(N_BOXES):
        x, y = rng.uniform(-20, MODEL_W), rng.uniform(-20, MODEL_H)
        boxes += [x, y, x + rng.uniform(0, 80), y + rng.uniform(0, 80)]
    return boxes


def refusals(meta):
    """The sets map_boxes_to_input() must refuse, each with its error code
    (before, a NaN came back unclamped and a bad count as an empty list)."""
    nan, inf = float("nan"), float("inf")
    cases = [([nan, 10, 20, 30], GstEf.TransformError.NOT_FINITE, "box 0"),
             ([1, 2, 3, 4, 5, 6, inf, 8], GstEf.TransformError.NOT_FINITE, "box 1"),
             ([1, 2, 3, 4, 5, 6, 7], GstEf.TransformError.BAD_LENGTH, "7 values")]
    failures = 0
    for boxes, code, says in cases:
        try:
            got = meta.map_boxes_to_input(boxes)
            print(f"{boxes}: mapped to {got}, not refused")
            failures += 1
        except GLib.Error as e:
            if not e.matches(GstEf.TransformError.quark(), code) or says not in e.message:
                print(f"{boxes}: {e.domain} {e.code} '{e.message}', want code {int(code)} "
                      f"saying '{says}'")
                failures += 1
    if meta.map_boxes_to_input([]) != []:
        print("an empty set does not map to an empty list")
        failures += 1
    return failures


def best_of(fn, repeats=7):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    Gst.init(None)
    rng = random.Random(1)
    failures = 0
    for direction in DIRECTIONS:
        buf, meta = transform_meta(direction)
        boxes = random_boxes(rng)
        batch = meta.map_boxes_to_input(boxes)
        want = pointwise(meta, boxes)
        bad = [i for i, (a, b) in enumerate(zip(batch, want)) if abs(a - b) > 1e-9]
        if len(batch) != len(want) or bad:
            print(f"[{direction}] {len(bad)} values differ, first at {bad[:1]}")
            failures += 1
        # Any sequence of numbers will do, an array of doubles too.
        if meta.map_boxes_to_input(array.array("d", boxes)) != batch:
            print(f"[{direction}] an array('d') maps differently from a list")
            failures += 1
    buf, meta = transform_meta("90r")
    failures += refusals(meta)
    boxes = random_boxes(rng)
    batch_s = best_of(lambda: meta.map_boxes_to_input(boxes))
    point_s = best_of(lambda: pointwise(meta, boxes))
    print(f"{N_BOXES} boxes: map_boxes_to_input {batch_s * 1e3:.3f} ms, "
          f"point by point {point_s * 1e3:.3f} ms ({point_s / batch_s:.0f}x)")
    if batch_s >= point_s:
        print("the batch call is not faster than mapping point by point")
        failures += 1
    print(f"{len(DIRECTIONS)} directions, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
