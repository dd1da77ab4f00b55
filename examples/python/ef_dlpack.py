# SPDX-License-Identifier: LGPL-2.1-or-later
"""efconvert's tensor buffers for Python array libraries, without a copy.

    from ef_dlpack import TensorView
    view = TensorView(sample.get_buffer(), sample.get_caps())
    x = torch.from_dlpack(view)      # or cupy.from_dlpack, numpy.from_dlpack

TensorView wraps GstEf.TensorView (libgstef-1.0 through GObject
introspection) and speaks the protocols array libraries take:

- ``__dlpack__(stream=None)`` and ``__dlpack_device__()``: a PyCapsule named
  "dltensor" around the DLManagedTensor libgstef makes
  (gst_ef_tensor_view_to_dlpack_address). GObject introspection cannot return
  a PyCapsule, so the capsule is made here with ctypes; where no consumer
  took it, the capsule's destructor calls the tensor's deleter.
- ``__cuda_array_interface__`` (CUDA tensors: Numba, CuPy, PyTorch) and
  ``__array_interface__`` (CPU tensors: numpy.asarray).

Lifetime: the buffer stays mapped, and out of its pool, while this object,
or any array a consumer made of it, lives. The bytes are read-only.

Ordering (CUDA): where the tensor is still being written on a CUDA stream
(GstCuda 1.24+ memory flagged NEED_SYNC), ``__dlpack__(stream=s)`` makes the
consumer's stream ``s`` wait for it on the GPU (an event, through the CUDA
driver); ``stream=None`` waits for the producer's stream on the host; -1
does nothing (the consumer has ordered it itself).
"""
import ctypes

import gi

gi.require_version("GstEf", "1.0")
from gi.repository import GstEf  # noqa: E402

KDL_CPU, KDL_CUDA = 1, 2
# DLDataTypeCode: 0 int, 1 uint, 2 float, as numpy's typestr kinds.
_TYPESTR_KIND = {0: "i", 1: "u", 2: "f"}
_CAPSULE_NAME = b"dltensor"
_USED_NAME = b"used_dltensor"


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _DELETER)]

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
# The destructor gets the capsule while it is being freed: as a plain
# address, never a Python object (that would revive it).
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule):
    # A consumer that took the tensor renamed the capsule "used_dltensor" and
    # calls the deleter itself; an untaken one is released here.
    if _api.PyCapsule_IsValid(capsule, _CAPSULE_NAME):
        address = _api.PyCapsule_GetPointer(capsule, _CAPSULE_NAME)
        managed = ctypes.cast(address, ctypes.POINTER(_DLManagedTensor))
        managed.contents.deleter(managed)


def dlpack_capsule(view):
    """A "dltensor" PyCapsule of a GstEf.TensorView."""
    address = view.to_dlpack_address()
    return _api.PyCapsule_New(address, _CAPSULE_NAME,
                              ctypes.cast(_capsule_destructor, ctypes.c_void_p))


class _Driver:
    """The CUDA driver's few calls ordering a consumer after ef's stream,
    opened at first use (nothing CUDA is needed for CPU tensors)."""
    _lib = None

    @classmethod
    def lib(cls):
        if cls._lib is None:
            cls._lib = ctypes.CDLL("libcuda.so.1")
        return cls._lib

    @classmethod
    def call(cls, name, *args):
        result = getattr(cls.lib(), name)(*args)
        if result != 0:
            raise BufferError(f"{name} failed: CUDA error {result}")

    @classmethod
    def order_after(cls, producer, consumer):
        """`consumer` (a CUstream, or None: the host) waits for `producer`."""
        p = ctypes.c_void_p(producer)
        if consumer is None:
            cls.call("cuStreamSynchronize", p)
            return
        context = ctypes.c_void_p()
        cls.call("cuStreamGetCtx", p, ctypes.byref(context))
        cls.call("cuCtxPushCurrent_v2", context)
        event = ctypes.c_void_p()
        try:
            cls.call("cuEventCreate", ctypes.byref(event), ctypes.c_uint(2))  # DISABLE_TIMING
            cls.call("cuEventRecord", event, p)
        finally:
            cls.call("cuCtxPopCurrent_v2", ctypes.byref(ctypes.c_void_p()))
        # An event of another context may be waited on; destroying it after
        # the wait is queued is allowed (the driver frees it when done).
        cls.call("cuStreamWaitEvent", ctypes.c_void_p(consumer), event, ctypes.c_uint(0))
        cls.call("cuEventDestroy_v2", event)


class TensorView:
    """A tensor buffer (caps other/tensors, or a frame with a GstEfTensorMeta
    when caps is None) for DLPack, CUDA and numpy array consumers."""

    def __init__(self, buffer, caps=None):
        # GLib.Error (GstEf.TensorViewError) says why a buffer cannot be one.
        self.view = GstEf.TensorView.new(buffer, caps)
        self.device, self.device_id = self.view.get_device()
        self.shape = tuple(self.view.get_shape())
        self.strides = tuple(self.view.get_strides())
        code, bits = self.view.get_dtype()
        self.typestr = "<" + _TYPESTR_KIND[code] + str(bits // 8)
        self.data = self.view.get_data()
        self.cuda_stream = self.view.get_cuda_stream()

    def __dlpack_device__(self):
        return (int(self.device), self.device_id)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if copy:
            raise BufferError("ef's tensors are exported without a copy")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"the tensor is on {self.__dlpack_device__()}, not {dl_device}")
        if self.device == KDL_CPU and stream is not None:
            raise BufferError("stream is for CUDA tensors; this one is in host memory")
        if self.cuda_stream and stream != -1:
            # DLPack's stream numbers: 1 the legacy default stream, 2 the
            # per-thread one (CU_STREAM_LEGACY, CU_STREAM_PER_THREAD).
            _Driver.order_after(self.cuda_stream, stream)
        return dlpack_capsule(self.view)

    @property
    def __array_interface__(self):
        if self.device != KDL_CPU:
            raise AttributeError("a CUDA tensor: use __cuda_array_interface__ or __dlpack__")
        return {"shape": self.shape, "typestr": self.typestr, "data": (self.data, True),
                "strides": None, "version": 3}

    @property
    def __cuda_array_interface__(self):
        if self.device != KDL_CUDA:
            raise AttributeError("a CPU tensor: use __array_interface__ or __dlpack__")
        # version 3: a consumer synchronises on `stream` where one is given.
        return {"shape": self.shape, "typestr": self.typestr, "data": (self.data, True),
                "strides": None, "version": 3, "stream": self.cuda_stream or None}
