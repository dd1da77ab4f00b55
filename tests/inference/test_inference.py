#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""efconvert inside GStreamer's own inference pipeline, against the stock one.

For each geometry (letterbox, letterbox with odd margins, crop, and each of
the eight video-direction values on a cropped frame) one NV12 camera frame,
a bright rectangle at known camera coordinates on a textured background,
goes through

  A: appsrc ! efconvert crop=... video-direction=...
       ! video/x-raw,format=RGB,width=320,height=256
       ! onnxinference model-file=brightest.onnx ! DECODER ! appsink
  B: appsrc ! videocrop ! videoflip video-direction=... ! videoconvertscale
       ! (same caps) ! onnxinference ! DECODER ! appsink

DECODER is ssdtensordec (GStreamer 1.28) or ssdobjectdetector (1.26); the
model (tests/inference/make_model.py, built here, nothing downloaded) finds
the brightest region. Checked, per geometry:
  - both paths detect one object, each within a model pixel of where the
    rectangle lies in the model's frame (computed here from the geometry),
    and within a model pixel of each other: the same detection;
  - A's detection, mapped back by GstEf.analytics_relation_meta_copy_to_input()
    onto the camera buffer, lies within one model pixel's footprint (in camera
    pixels) of the rectangle, and agrees with
    GstEf.TransformMeta.map_boxes_to_input() on the same box.

Exits 77 (SKIP) with the reason where the machine lacks a piece: Debian 12
has no onnxinference, no tensor decoder, no analytics library, no
python3-onnx.
"""
import argparse
import os
import subprocess
import sys
import tempfile

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "inference"))
from onnx_noise import quiet_onnx_schema_errors  # noqa: E402

detections = None  # examples/inference/detect.py's, once the typelibs are known to be there
MODEL_W, MODEL_H = 320, 256

# (name, camera width, height, crop (x, y, w, h) or None, video-direction)
DIRECTIONS = ["identity", "90r", "180", "90l", "horiz", "vert", "ul-lr", "ur-ll"]
GEOMETRIES = [
    ("letterbox", 1280, 720, None, "identity"),
    # 640x361 into 320x256: a 181-row picture between 75 rows of borders.
    ("letterbox-odd", 640, 361, None, "identity"),
    ("crop", 1280, 720, (200, 100, 640, 480), "identity"),
] + [(d, 1280, 720, (100, 50, 900, 552), d) for d in DIRECTIONS]
# The object, camera pixels (x0, y0, x1, y1): inside every crop above.
OBJECT = {1280: (333, 217, 493, 337), 640: (171, 101, 251, 161)}


def skip(reason):
    print("SKIP: " + reason)
    sys.exit(SKIP)


def require_pieces(decoder_name):
    try:
        import gi

        gi.require_version("Gst", "1.0")
        gi.require_version("GstEf", "1.0")
        gi.require_version("GstVideo", "1.0")
        from gi.repository import Gst, GstEf, GstVideo
    except (ImportError, ValueError) as e:
        skip(f"PyGObject or the GstEf typelib is missing ({e})")
    try:
        gi.require_version("GstAnalytics", "1.0")
        from gi.repository import GstAnalytics
    except (ImportError, ValueError):
        skip("no GstAnalytics typelib (gir1.2-gst-plugins-bad-1.0, GStreamer 1.26 or newer)")
    if not hasattr(GstEf, "analytics_relation_meta_copy_to_input"):
        skip("libgstef-1.0 was built without gstreamer-analytics-1.0 (GStreamer 1.26 or newer)")
    global detections
    from detect import detections  # (box, score, label) of each object detection

    Gst.init(None)
    missing = [f for f in ["efconvert", "onnxinference", "appsrc", "appsink", "videocrop",
                           "videoflip", "videoconvertscale"]
               if Gst.ElementFactory.find(f) is None]
    if missing:
        skip("GStreamer elements missing: " + ", ".join(missing))
    decoders = [decoder_name] if decoder_name else ["ssdtensordec", "ssdobjectdetector"]
    decoder = next((d for d in decoders if Gst.ElementFactory.find(d)), None)
    if decoder is None:
        skip("no SSD tensor decoder (" + " or ".join(decoders) + ")")
    return Gst, GstEf, GstAnalytics, GstVideo, decoder


def build_model(out_dir):
    status = subprocess.call([sys.executable, os.path.join(HERE, "make_model.py"), "--out",
                              out_dir, "--width", str(MODEL_W), "--height", str(MODEL_H),
                              "--check"])
    if status == SKIP:
        skip("the model cannot be built here (see above)")
    if status != 0:
        print(f"make_model.py failed ({status})")
        sys.exit(1)
    return os.path.join(out_dir, "brightest.onnx"), os.path.join(out_dir, "labels.txt")


def camera_frame(GstVideo, width, height, box):
    """NV12 bytes laid out as GstVideoInfo says (an odd height rounds the
    luma plane up): a textured background (luma 60..129: stripes, a 3x5
    checker and a fine ramp) and the object in white (luma 235)."""
    import numpy as np

    info = GstVideo.VideoInfo.new()
    info.set_format(GstVideo.VideoFormat.NV12, width, height)
    frame = np.full(info.size, 128, dtype=np.uint8)
    y, x = np.mgrid[0:height, 0:width]
    luma = 60 + 40 * ((x // 3 + y // 5) % 2) + (x * 7 + y * 13) % 30
    x0, y0, x1, y1 = box
    luma[y0:y1, x0:x1] = 235
    stride = info.stride[0]
    plane = frame[info.offset[0]:info.offset[0] + stride * height].reshape(height, stride)
    plane[:, :width] = luma
    return frame.tobytes()


def model_plan(width, height, crop, direction):
    """Where the picture lies in the model's frame (efconvert's letterbox,
    written out here): crop, turned size, content rectangle."""
    cx, cy, cw, ch = crop or (0, 0, width, height)
    swap = direction in ("90r", "90l", "ul-lr", "ur-ll")
    tw, th = (ch, cw) if swap else (cw, ch)
    scale = min(MODEL_W / tw, MODEL_H / th)
    w, h = round(tw * scale + 1e-9), round(th * scale + 1e-9)
    return (cx, cy, cw, ch), (tw, th), ((MODEL_W - w) // 2, (MODEL_H - h) // 2, w, h)


def forward(point, width, height, crop, direction):
    """A camera point into the model's frame, by what each direction does to a
    picture (90r turns clockwise: the top-left corner goes top-right)."""
    (cx, cy, cw, ch), (tw, th), (ox, oy, w, h) = model_plan(width, height, crop, direction)
    a, b = point[0] - cx, point[1] - cy
    s, t = {
        "identity": (a, b), "90r": (ch - b, a), "180": (cw - a, ch - b), "90l": (b, cw - a),
        "horiz": (cw - a, b), "vert": (a, ch - b), "ul-lr": (b, a), "ur-ll": (ch - b, cw - a),
    }[direction]
    return ox + s * w / tw, oy + t * h / th


def expected_model_box(width, height, crop, direction):
    x0, y0, x1, y1 = OBJECT[width]
    u0, v0 = forward((x0, y0), width, height, crop, direction)
    u1, v1 = forward((x1, y1), width, height, crop, direction)
    return min(u0, u1), min(v0, v1), max(u0, u1), max(v0, v1)


def pipeline_descriptions(width, height, crop, direction, model, labels, decoder):
    caps_in = f"video/x-raw,format=NV12,width={width},height={height},framerate=30/1"
    caps_model = f"video/x-raw,format=RGB,width={MODEL_W},height={MODEL_H}"
    infer = (f"onnxinference model-file={model} ! {decoder} label-file={labels} "
             "! appsink name=sink sync=false")
    crop_prop = "" if crop is None else 'crop="<%d,%d,%d,%d>"' % crop
    ef = (f"appsrc name=src format=time caps={caps_in} ! efconvert backend=cpu "
          f"video-direction={direction} {crop_prop} ! {caps_model} ! {infer}")
    if crop is None:
        videocrop = ""
    else:
        x, y, w, h = crop
        videocrop = (f"videocrop left={x} top={y} right={width - x - w} "
                     f"bottom={height - y - h} ! ")
    stock = (f"appsrc name=src format=time caps={caps_in} ! {videocrop}"
             f"videoflip video-direction={direction} ! videoconvertscale add-borders=true ! "
             f"{caps_model},pixel-aspect-ratio=1/1 ! {infer}")
    return ef, stock


def run(Gst, description, frame, frames=2):
    pipeline = Gst.parse_launch(description)
    src, sink = pipeline.get_by_name("src"), pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    for i in range(frames):
        buf = Gst.Buffer.new_wrapped(frame)
        buf.pts = i * Gst.SECOND // 30
        buf.duration = Gst.SECOND // 30
        src.emit("push-buffer", buf)
    src.emit("end-of-stream")
    buffers = []
    for _ in range(frames):
        sample = sink.emit("try-pull-sample", 20 * Gst.SECOND)
        if sample is None:
            break
        buffers.append(sample.get_buffer())
    bus_error = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if bus_error:
        err, debug = bus_error.parse_error()
        raise RuntimeError(f"{err.message} ({debug})")
    return buffers


def check_geometry(pieces, geometry, model, labels, report):
    Gst, GstEf, GstAnalytics, GstVideo, decoder = pieces
    name, width, height, crop, direction = geometry
    frame = camera_frame(GstVideo, width, height, OBJECT[width])
    want = expected_model_box(width, height, crop, direction)
    ef_desc, stock_desc = pipeline_descriptions(width, height, crop, direction, model, labels,
                                                decoder)
    boxes = {}
    for path, desc in (("efconvert", ef_desc), ("stock", stock_desc)):
        for n, buf in enumerate(run(Gst, desc, frame)):
            found = detections(buf)
            if len(found) != 1:
                report(f"{name}/{path} frame {n}: {len(found)} detections, want 1")
                continue
            box, score, label = found[0]
            off = max(abs(g - w) for g, w in zip(box, want))
            if off > 1.0 or score < 0.9 or label != "bright":
                report(f"{name}/{path}: model box {box} score {score:.3f} label {label}, the "
                       f"object lies at ({want[0]:.2f}, {want[1]:.2f})-({want[2]:.2f}, "
                       f"{want[3]:.2f})")
            boxes.setdefault(path, box)
            if path == "efconvert" and n == 0:
                check_mapped(pieces, name, buf, Gst.Buffer.new_wrapped(frame), box, width, report)
    if len(boxes) == 2:
        apart = max(abs(a - b) for a, b in zip(boxes["efconvert"], boxes["stock"]))
        if apart > 1:
            report(f"{name}: efconvert detects {boxes['efconvert']}, the stock path "
                   f"{boxes['stock']}")
        print(f"[{name}] efconvert {boxes['efconvert']}, stock {boxes['stock']}, object at "
              f"({want[0]:.1f}, {want[1]:.1f})-({want[2]:.1f}, {want[3]:.1f}) in the model")


def check_mapped(pieces, name, model_buf, frame, model_box, width, report):
    """The detection on the camera frame, in camera pixels."""
    Gst, GstEf, GstAnalytics = pieces[:3]
    camera = GstEf.analytics_relation_meta_copy_to_input(model_buf, frame)
    if camera is None:
        report(f"{name}: analytics_relation_meta_copy_to_input() mapped nothing")
        return
    found = detections(camera)
    transform = GstEf.buffer_get_ef_transform_meta(model_buf)
    footprint = max(transform.scale_x, transform.scale_y)
    truth = OBJECT[width]
    if len(found) != 1:
        report(f"{name}: {len(found)} detections on the camera buffer, want 1")
        return
    box, _, label = found[0]
    if label != "bright":
        report(f"{name}: the label {label} did not come along")
    off = max(abs(g - t) for g, t in zip(box, truth))
    if off > footprint + 0.5:
        report(f"{name}: camera box {box}, the object is at {truth}: {off:.2f} px off, more "
               f"than a model pixel ({footprint:.2f} px)")
    batch = transform.map_boxes_to_input([float(v) for v in model_box])
    if any(abs(round(b) - g) > 0 for b, g in zip(batch, box)):
        report(f"{name}: map_boxes_to_input gives {[round(b, 2) for b in batch]}, the "
               f"relation meta {box}")
    print(f"[{name}] camera box {box}, object at {truth} (a model pixel is "
          f"{footprint:.2f} camera px)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decoder", help="ssdtensordec or ssdobjectdetector (default: either)")
    args = parser.parse_args()
    quiet_onnx_schema_errors()
    pieces = require_pieces(args.decoder)
    print(f"decoder: {pieces[4]}, GStreamer {pieces[0].version_string()}")
    failures = []
    with tempfile.TemporaryDirectory(prefix="ef-inference-") as tmp:
        model, labels = build_model(tmp)
        for geometry in GEOMETRIES:
            check_geometry(pieces, geometry, model, labels, failures.append)
    for f in failures:
        print("FAIL: " + f)
    print(f"{len(GEOMETRIES)} geometries, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
