#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A detector's view of efconvert, from Python (PyGObject + GstEf-1.0).

The pipeline turns camera-sized frames into the model's 640x640 RGB input:

    videotestsrc ! NV12 1280x720 ! efconvert crop=... video-direction=...
        ! RGB 640x640 ! appsink

For every pulled sample it prints the identity of the frame (from
GstEfIdentityMeta: the memfd inode of efconvert's pool buffer, the same in
every process that holds it) and maps a box found in model coordinates back
onto the source frame through GstEfTransformMeta.

    python3 detect_boxes.py                 # one geometry, boxes printed
    python3 detect_boxes.py --check         # every geometry, checked

--check compares each mapped box with the one computed here from the
geometry alone (letterbox, crop, quarter turn) and exits non-zero on a
mismatch; it is run as a test against the typelib built in the tree.
"""
import argparse
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstEf", "1.0")
from gi.repository import Gst, GstEf  # noqa: E402

SRC_W, SRC_H = 1280, 720
MODEL = 640

# (name, crop (x, y, w, h) or None, video-direction)
GEOMETRIES = [
    ("letterbox", None, "identity"),
    ("crop", (160, 90, 960, 540), "identity"),
    ("crop+90r", (160, 90, 960, 540), "90r"),
    ("crop+180", (320, 0, 640, 720), "180"),
]

# Boxes a detector might report, in model pixels: (x0, y0, x1, y1).
BOXES = [(320.0, 320.0, 400.0, 480.0), (100.0, 150.0, 200.0, 250.0)]


def content_rect(crop, direction):
    """Where the letterboxed picture lies in the model input: x, y, w, h."""
    _, _, cw, ch = crop
    tw, th = (ch, cw) if direction in ("90r", "90l") else (cw, ch)
    scale = min(MODEL / tw, MODEL / th)
    w, h = round(tw * scale), round(th * scale)
    return (MODEL - w) // 2, (MODEL - h) // 2, w, h


def content_centre(crop, direction):
    x, y, w, h = content_rect(crop, direction)
    return x + w / 2, y + h / 2


def expected_point(u, v, crop, direction):
    """The source point under model point (u, v), from the geometry alone."""
    cx, cy, cw, ch = crop
    tw, th = (ch, cw) if direction in ("90r", "90l") else (cw, ch)
    off_x, off_y, content_w, content_h = content_rect(crop, direction)
    s = (u - off_x) * tw / content_w
    t = (v - off_y) * th / content_h
    if direction == "identity":
        a, b = s, t
    elif direction == "90r":  # the crop turned clockwise: undo it
        a, b = t, tw - s
    elif direction == "90l":
        a, b = th - t, s
    elif direction == "180":
        a, b = tw - s, th - t
    else:
        raise ValueError(direction)
    return cx + a, cy + b


def run(name, crop, direction, frames, check):
    crop_prop = "" if crop is None else 'crop="<%d,%d,%d,%d>"' % crop
    desc = (
        f"videotestsrc num-buffers={frames} pattern=smpte "
        f"! video/x-raw,format=NV12,width={SRC_W},height={SRC_H} "
        f"! efconvert name=conv backend=cpu letterbox=true video-direction={direction} {crop_prop} "
        f"! video/x-raw,format=RGB,width={MODEL},height={MODEL} "
        "! appsink name=sink sync=false max-buffers=2"
    )
    pipeline = Gst.parse_launch(desc)
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    failures = 0
    ids = set()
    pulled = 0
    full_crop = crop or (0, 0, SRC_W, SRC_H)
    while True:
        sample = sink.emit("try-pull-sample", 5 * Gst.SECOND)
        if sample is None:
            break
        buf = sample.get_buffer()
        pulled += 1
        identity_meta = GstEf.buffer_get_ef_identity_meta(buf)
        if identity_meta is None:
            print(f"[{name}] frame {pulled}: no GstEfIdentityMeta")
            failures += 1
            continue
        ok, identity = identity_meta.get_identity(0)
        if not ok or identity.kind != GstEf.IdentityKind.DMA_BUF:
            print(f"[{name}] frame {pulled}: identity {identity.kind} is not a memfd's")
            failures += 1
        ids.add(identity.id)
        transform = GstEf.buffer_get_ef_transform_meta(buf)
        if transform is None:
            print(f"[{name}] frame {pulled}: no GstEfTransformMeta")
            failures += 1
            continue
        if check:
            # Known by hand: the middle of the picture in the model input is
            # the middle of the crop, whatever the turn and the letterbox.
            mx, my = transform.map_to_input(*content_centre(full_crop, direction))
            centre = (full_crop[0] + full_crop[2] / 2, full_crop[1] + full_crop[3] / 2)
            if abs(mx - centre[0]) > 1e-6 or abs(my - centre[1]) > 1e-6:
                print(f"[{name}] model centre -> ({mx}, {my}), crop centre is {centre}")
                failures += 1
        for box in BOXES:
            x0, y0 = transform.map_to_input(box[0], box[1])
            x1, y1 = transform.map_to_input(box[2], box[3])
            mapped = (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
            if pulled == 1 or not check:
                print(
                    f"[{name}] frame {pulled} id {identity.id:016x}: model box "
                    f"{box} -> source ({mapped[0]:.1f}, {mapped[1]:.1f}, "
                    f"{mapped[2]:.1f}, {mapped[3]:.1f})"
                )
            if check:
                ex0, ey0 = expected_point(box[0], box[1], full_crop, direction)
                ex1, ey1 = expected_point(box[2], box[3], full_crop, direction)
                want = (min(ex0, ex1), min(ey0, ey1), max(ex0, ex1), max(ey0, ey1))
                if any(abs(m - w) > 1e-6 for m, w in zip(mapped, want)):
                    print(f"[{name}] MISMATCH: mapped {mapped}, expected {want}")
                    failures += 1
    pipeline.set_state(Gst.State.NULL)
    if pulled != frames:
        print(f"[{name}] pulled {pulled} of {frames} frames")
        failures += 1
    # The pool recycles its buffers: a handful of identities, not one a frame.
    if check and len(ids) > min(frames, 8):
        print(f"[{name}] {len(ids)} identities for {frames} frames: ids are not stable")
        failures += 1
    print(f"[{name}] {pulled} frames, {len(ids)} distinct identities, {failures} failures")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="check every geometry")
    parser.add_argument("--frames", type=int, default=12)
    args = parser.parse_args()
    Gst.init(None)
    if Gst.ElementFactory.find("efconvert") is None:
        print("SKIP: the ef plugin is not on GST_PLUGIN_PATH")
        return 77
    geometries = GEOMETRIES if args.check else GEOMETRIES[2:3]
    failures = sum(run(n, c, d, args.frames, args.check) for n, c, d in geometries)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
