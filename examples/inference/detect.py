#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Detections drawn on the camera frame: efconvert in GStreamer's own
inference pipeline, its results mapped back to camera pixels through GstEf.

    camera or video (NV12) ! efconvert [crop, video-direction]
        ! video/x-raw,format=RGB  (the model's size: onnxinference asks for it)
        ! onnxinference model-file=MODEL ! ssdtensordec / ssdobjectdetector
        ! appsink

A pad probe on efconvert's sink keeps each camera frame until its
detections arrive; GstEf.analytics_relation_meta_copy_to_input() puts them
on (a copy of) that camera frame in camera pixels, and GStreamer's
objectdetectionoverlay draws them there (without it, the boxes are drawn
here). The last frame is written as a PPM image; every frame's boxes are
printed in camera pixels.

    python3 tests/inference/make_model.py --out /tmp/ef-model
    python3 examples/inference/detect.py --model /tmp/ef-model/brightest.onnx \\
        --labels /tmp/ef-model/labels.txt --direction 90l --out detections.ppm

The default source is videotestsrc's bouncing white ball on black (1280x720,
what the test model finds); --input FILE decodes a video instead. --check
finds the bright region in each camera frame itself and exits non-zero
unless each mapped box lies on it (to a model pixel): the example runs so
as a test.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_noise import quiet_onnx_schema_errors  # noqa: E402

import gi  # noqa: E402

SKIP = 77
try:
    gi.require_version("Gst", "1.0")
    gi.require_version("GstVideo", "1.0")
    gi.require_version("GstEf", "1.0")
    gi.require_version("GstAnalytics", "1.0")  # GStreamer 1.26 or newer
    from gi.repository import GLib, Gst, GstAnalytics, GstEf, GstVideo  # noqa: E402
except (ImportError, ValueError) as e:
    print(f"SKIP: a typelib is missing ({e}): GstAnalytics comes with "
          "gir1.2-gst-plugins-bad-1.0 from GStreamer 1.26, GstEf with ef")
    sys.exit(SKIP)


def source_description(args):
    if args.input:
        return (f"filesrc location={args.input} ! decodebin ! videoconvert "
                f"! video/x-raw,format=NV12")
    return (f"videotestsrc pattern=ball num-buffers={args.frames} "
            f"! video/x-raw,format=NV12,width=1280,height=720,framerate=30/1")


def decoder_name():
    for name in ("ssdtensordec", "ssdobjectdetector"):  # GStreamer 1.28, 1.26
        if Gst.ElementFactory.find(name):
            return name
    return None


class CameraFrames:
    """The camera frames going into efconvert, kept by timestamp until their
    detections come out of the decoder."""

    def __init__(self, convert):
        self.frames = {}
        self.pad = convert.get_static_pad("sink")
        self.pad.add_probe(Gst.PadProbeType.BUFFER, self._keep)

    def _keep(self, pad, info):
        buf = info.get_buffer()
        self.frames[buf.pts] = buf
        return Gst.PadProbeReturn.OK

    def take(self, pts):
        return self.frames.pop(pts, None)

    def caps(self):
        return self.pad.get_current_caps()


class Renderer:
    """Camera frames with their mapped detections, drawn: appsrc
    ! objectdetectionoverlay (where present) ! RGB ! appsink."""

    def __init__(self, caps):
        self.overlay = Gst.ElementFactory.find("objectdetectionoverlay") is not None
        draw = "objectdetectionoverlay ! videoconvert ! " if self.overlay else ""
        self.pipeline = Gst.parse_launch(
            f"appsrc name=src format=time ! videoconvert ! {draw}"
            "video/x-raw,format=RGB ! appsink name=sink sync=false")
        self.src = self.pipeline.get_by_name("src")
        self.src.set_property("caps", caps)
        self.sink = self.pipeline.get_by_name("sink")
        self.pipeline.set_state(Gst.State.PLAYING)

    def draw(self, camera, boxes):
        self.src.emit("push-buffer", camera)
        sample = self.sink.emit("try-pull-sample", 10 * Gst.SECOND)
        if sample is None:
            return None
        info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
        ok, mapped = sample.get_buffer().map(Gst.MapFlags.READ)
        rows = [bytearray(mapped.data[info.offset[0] + y * info.stride[0]:][:info.width * 3])
                for y in range(info.height)]
        sample.get_buffer().unmap(mapped)
        if not self.overlay:
            for box in boxes:
                outline(rows, box)
        return info.width, info.height, rows

    def close(self):
        self.src.emit("end-of-stream")
        self.pipeline.set_state(Gst.State.NULL)


def outline(rows, box, rgb=b"\x00\xff\x00"):
    x0, y0, x1, y1 = box
    height, width = len(rows), len(rows[0]) // 3
    for x in range(max(x0, 0), min(x1, width)):
        for y in (y0, y1 - 1):
            if 0 <= y < height:
                rows[y][3 * x:3 * x + 3] = rgb
    for y in range(max(y0, 0), min(y1, height)):
        for x in (x0, x1 - 1):
            if 0 <= x < width:
                rows[y][3 * x:3 * x + 3] = rgb


def write_ppm(path, image):
    width, height, rows = image
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (width, height))
        for row in rows:
            f.write(row)


def detections(buf):
    """(box (x0, y0, x1, y1), score, label) of each object detection on buf."""
    rmeta = GstAnalytics.buffer_get_analytics_relation_meta(buf)
    found = []
    for i in range(GstAnalytics.relation_get_length(rmeta) if rmeta else 0):
        ok, od = rmeta.get_od_mtd(i)
        if ok:
            _, x, y, w, h, score = od.get_location()
            found.append(((x, y, x + w, y + h), score, GLib.quark_to_string(od.get_obj_type())))
    return found


def boxes_of(buf):
    return [box for box, _, _ in detections(buf)]


def bright_region(camera, caps):
    """The camera frame's own brightest region (luma above 3/4 of its peak),
    found here without the model: what --check holds the boxes to."""
    import numpy as np

    info = GstVideo.VideoInfo.new_from_caps(caps)
    ok, mapped = camera.map(Gst.MapFlags.READ)
    plane = np.frombuffer(mapped.data, dtype=np.uint8, count=info.stride[0] * info.height,
                          offset=info.offset[0]).reshape(info.height, info.stride[0])
    luma = plane[:, :info.width].astype(np.int32)
    camera.unmap(mapped)
    ys, xs = np.nonzero(luma > 0.75 * luma.max())
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="the ONNX model (its .modelinfo beside it)")
    parser.add_argument("--labels", help="labels file for the decoder")
    parser.add_argument("--input", help="a video file (default: videotestsrc's ball)")
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--crop", help="x,y,w,h: efconvert's crop")
    parser.add_argument("--direction", default="identity", help="efconvert's video-direction")
    parser.add_argument("--out", default="detections.ppm", help="the last frame, drawn")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    quiet_onnx_schema_errors()
    Gst.init(None)
    decoder = decoder_name()
    missing = [f for f in ("efconvert", "onnxinference") if not Gst.ElementFactory.find(f)]
    if missing or decoder is None or not hasattr(GstEf, "analytics_relation_meta_copy_to_input"):
        print("SKIP: needs efconvert, onnxinference, an SSD tensor decoder and libgstef-1.0 "
              "built with gstreamer-analytics-1.0 (GStreamer 1.26 or newer)")
        return SKIP
    crop = "" if not args.crop else 'crop="<%s>"' % args.crop
    labels = f"label-file={args.labels}" if args.labels else ""
    pipeline = Gst.parse_launch(
        f"{source_description(args)} ! efconvert name=convert video-direction={args.direction} "
        f"{crop} ! video/x-raw,format=RGB ! onnxinference model-file={args.model} "
        f"! {decoder} {labels} ! appsink name=sink sync=false")
    frames = CameraFrames(pipeline.get_by_name("convert"))
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    renderer, last, failures, count = None, None, 0, 0
    while True:
        sample = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        if sample is None:
            break
        model_buf = sample.get_buffer()
        camera = frames.take(model_buf.pts)
        if camera is None:
            print(f"frame {count}: no camera frame for pts {model_buf.pts}")
            failures += 1
            continue
        # The camera's pixels with the detections in camera coordinates.
        drawn = GstEf.analytics_relation_meta_copy_to_input(model_buf, camera)
        boxes = boxes_of(drawn)
        transform = GstEf.buffer_get_ef_transform_meta(model_buf)
        print(f"frame {count}: {len(boxes_of(model_buf))} detections, model boxes "
              f"{boxes_of(model_buf)} -> camera boxes {boxes}")
        if args.check:
            truth = bright_region(camera, frames.caps())
            slack = max(transform.scale_x, transform.scale_y) + 1
            if len(boxes) != 1 or max(abs(a - b) for a, b in zip(boxes[0], truth)) > slack:
                print(f"frame {count}: the bright region is at {truth} in the camera frame")
                failures += 1
        if renderer is None:
            renderer = Renderer(frames.caps())
        last = renderer.draw(drawn, boxes) or last
        count += 1
    bus_error = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if renderer:
        renderer.close()
    if bus_error:
        print("error: " + bus_error.parse_error()[0].message)
        return 1
    if last:
        write_ppm(args.out, last)
        print(f"{count} frames; the last one, drawn, in {args.out}")
    if count == 0 or failures:
        print(f"{failures} failures in {count} frames")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
