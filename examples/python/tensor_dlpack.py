#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""NVDEC -> efconvert -> a CUDA tensor -> PyTorch, with no host copy.

    videotestsrc ! nvh264enc ! h264parse ! nvh264dec      (or --clip FILE.mp4)
        ! efconvert mean=<ImageNet> std=<ImageNet>
        ! other/tensors(memory:CUDAMemory),types=float32,dimensions=224:224:3:1
        ! appsink

Each tensor goes into torch as it lies in GPU memory (torch.from_dlpack on
ef_dlpack.TensorView: DLPack, the buffer held until torch lets it go, torch's
stream ordered after ef's), and a small model in eval mode (no weights to
download: random ones) runs on it. The check: the torch tensor's address is
the buffer's own (nothing was copied) and its shape the caps'.

    python3 tensor_dlpack.py                  # CUDA (SKIP, exit 77, without one)
    python3 tensor_dlpack.py --device cpu     # the same with a tensor in host memory
    python3 tensor_dlpack.py --check ...      # exit 1 on a mismatch

--device cpu (the test suite runs it; no GPU, torch optional) makes the
tensor from videotestsrc in system memory, and checks numpy.from_dlpack and
numpy.asarray (__array_interface__) against the buffer's mapped bytes: the
same bytes at the same address, released once when the arrays go.
"""
import argparse
import os
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ef_dlpack import KDL_CPU, KDL_CUDA, TensorView  # noqa: E402

SKIP = 77
SIZE = 224
IMAGENET = "mean=<123.675,116.28,103.53> std=<58.395,57.12,57.375>"


def skip(reason):
    print(f"SKIP: {reason}")
    sys.exit(SKIP)


def tensor_caps(cuda, dtype):
    feature = "(memory:CUDAMemory)" if cuda else ""
    return (f"other/tensors{feature},format=static,num_tensors=1,types={dtype},"
            f"dimensions=(string){SIZE}:{SIZE}:3:1")


def source(args, cuda):
    if not cuda:
        return f"videotestsrc num-buffers={args.frames} pattern=smpte"
    if args.clip:
        return f"filesrc location={args.clip} ! parsebin ! nvh264dec"
    return (f"videotestsrc num-buffers={args.frames} ! video/x-raw,width=1280,height=720 "
            "! nvh264enc ! h264parse ! nvh264dec")


def samples(args, cuda, dtype):
    """Each (buffer, caps) the appsink gets."""
    line = (f"{source(args, cuda)} ! efconvert {IMAGENET if dtype == 'float32' else ''} "
            f"! {tensor_caps(cuda, dtype)} ! appsink name=out sync=false enable-last-sample=false")
    pipeline = Gst.parse_launch(line)
    sink = pipeline.get_by_name("out")
    pipeline.set_state(Gst.State.PLAYING)
    try:
        while True:
            sample = sink.emit("pull-sample")
            if sample is None:
                break
            yield sample.get_buffer(), sample.get_caps()
        message = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
        if message:
            error, debug = message.parse_error()
            raise RuntimeError(f"{error.message} ({debug})")
    finally:
        pipeline.set_state(Gst.State.NULL)


def check(ok, what):
    if not ok:
        print(f"FAIL: {what}")
        sys.exit(1)


def check_released(buffer, caps):
    """The view and the arrays made of it hold the buffer until the last of
    them goes, then give it back once. Counted on a copy that only this
    function holds: the pipeline's threads drop their own references to a
    buffer they passed on whenever they get to it."""
    import numpy as np
    own = buffer.copy_deep()
    refs = own.mini_object.refcount
    view = TensorView(own, caps)
    array = np.from_dlpack(view)
    check(own.mini_object.refcount > refs, "the view holds no reference to the buffer")
    del view
    check(own.mini_object.refcount > refs, "the array outlived the view's hold on the buffer")
    del array
    check(own.mini_object.refcount == refs,
          f"the buffer's refcount {own.mini_object.refcount}, not {refs}, once every array is gone")


def run_cpu(args):
    import numpy as np
    for dtype, np_type in (("float32", np.float32), ("uint8", np.uint8)):
        released = False
        for buffer, caps in samples(args, False, dtype):
            if not released:
                check_released(buffer, caps)
                released = True
            view = TensorView(buffer, caps)
            check(view.__dlpack_device__() == (KDL_CPU, 0), "not a CPU tensor")
            ok, info = buffer.map(Gst.MapFlags.READ)
            mapped = np.frombuffer(info.data, dtype=np_type).reshape(1, 3, SIZE, SIZE)
            buffer.unmap(info)
            from_dlpack = np.from_dlpack(view)
            check(from_dlpack.shape == (1, 3, SIZE, SIZE), f"shape {from_dlpack.shape}")
            check(from_dlpack.dtype == np_type, f"dtype {from_dlpack.dtype}")
            check(np.array_equal(from_dlpack, mapped), "numpy.from_dlpack differs from the bytes")
            # The buffer's own bytes, not a copy of them.
            check(from_dlpack.ctypes.data == view.data, "numpy.from_dlpack copied the tensor")
            array = np.asarray(view)
            check(array.ctypes.data == view.data and np.array_equal(array, mapped),
                  "__array_interface__ is not the buffer's bytes")
            torch_note = torch_cpu(view, mapped)
            del from_dlpack, array, view
    print(f"numpy.from_dlpack and __array_interface__: the buffer's bytes in place{torch_note}")


def torch_cpu(view, mapped):
    try:
        import torch
    except ImportError:
        return " (torch not installed: not tried)"
    x = torch.from_dlpack(view)
    check(x.data_ptr() == view.data and (x.numpy() == mapped).all(), "torch copied the tensor")
    return "; torch.from_dlpack likewise"


def run_cuda(args):
    if not Gst.ElementFactory.find("nvh264dec"):
        skip("no nvh264dec (GStreamer's nvcodec plugin found no NVIDIA GPU or driver)")
    try:
        import torch
    except ImportError:
        skip("torch is not installed")
    if not torch.cuda.is_available():
        skip("torch sees no CUDA device")
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, stride=2), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10)).cuda().eval()
    frames = 0
    for buffer, caps in samples(args, True, "float32"):
        view = TensorView(buffer, caps)
        check(view.__dlpack_device__()[0] == KDL_CUDA, "efconvert gave no CUDA tensor")
        # torch's current stream waits for ef's on the GPU (__dlpack__(stream=)).
        x = torch.from_dlpack(view)
        check(x.is_cuda and x.data_ptr() == view.data, "the tensor was copied")
        check(tuple(x.shape) == (1, 3, SIZE, SIZE), f"shape {tuple(x.shape)}")
        with torch.no_grad():
            scores = model(x)
        frames += 1
        del x, view
    torch.cuda.synchronize()
    check(frames > 0, "no frames")
    print(f"{frames} CUDA tensors into torch without a copy; last scores {scores[0, :3].tolist()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--frames", type=int, default=4)
    parser.add_argument("--clip", help="an H.264 file to decode instead of videotestsrc")
    parser.add_argument("--check", action="store_true", help="exit 1 on a mismatch")
    args = parser.parse_args()
    Gst.init(None)
    (run_cpu if args.device == "cpu" else run_cuda)(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
