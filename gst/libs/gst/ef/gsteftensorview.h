/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_EF_TENSOR_VIEW_H__
#define __GST_EF_TENSOR_VIEW_H__

#include <gst/ef/gstef-prelude.h>
#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * SECTION:gsteftensorview
 * @title: GstEfTensorView
 * @short_description: a tensor buffer handed to a model without a copy (DLPack)
 *
 * A #GstEfTensorView is a tensor buffer (efconvert's `other/tensors`
 * output, or the tensor of a #GstEfTensorMeta) mapped once and described as
 * DLPack describes a tensor: the device, the address of its first element,
 * the shape and the strides (in elements, row-major, contiguous), the
 * element type. gst_ef_tensor_view_to_dlpack() makes a `DLManagedTensor`
 * of it (dlpack/dlpack.h, Debian's libdlpack-dev) that `torch.from_dlpack`,
 * `cupy.from_dlpack`, `numpy.from_dlpack`, onnxruntime or TensorRT take as
 * they are; Python, which GObject introspection cannot give a PyCapsule,
 * wraps the same tensor with `examples/python/ef_dlpack.py`.
 *
 * Where the bytes are:
 *
 * - system memory (efconvert's memfds, any mappable memory):
 *   %GST_EF_TENSOR_DEVICE_CPU, the address of the CPU mapping;
 * - CUDA memory (GstCudaMemory, memory type "gst.cuda.memory"):
 *   %GST_EF_TENSOR_DEVICE_CUDA, the device address on the memory's CUDA
 *   context and that context's device id; the CUDA stream a consumer must
 *   wait on before it reads (gst_ef_tensor_view_get_cuda_stream());
 * - GL buffers (`memory:GLBuffer`) are refused: mapping them for the CPU
 *   downloads the whole tensor behind the caller's back, and their bytes are
 *   a GL object only a GL or CUDA-GL-interop consumer can read (map the
 *   memory for GL, or ask efconvert for system or CUDA memory).
 *
 * Lifetime: the view holds a reference to the buffer and keeps it mapped
 * for reading until its last reference is dropped; each `DLManagedTensor`
 * holds a reference to the view, which its deleter drops (once). So the
 * bytes stay valid, and no pool reuses the buffer, until both the view and
 * every DLPack tensor made of it are released, whatever happens to the
 * pipeline meanwhile. The bytes are read-only: consumers must not write
 * them (the buffer may be shared).
 */

/**
 * GstEfTensorDevice:
 * @GST_EF_TENSOR_DEVICE_CPU: host memory (DLPack's kDLCPU)
 * @GST_EF_TENSOR_DEVICE_CUDA: CUDA device memory (DLPack's kDLCUDA)
 *
 * Where a tensor's bytes are; the values are DLPack's `DLDeviceType`.
 *
 * Since: 0.1
 */
typedef enum {
  GST_EF_TENSOR_DEVICE_CPU = 1,
  GST_EF_TENSOR_DEVICE_CUDA = 2,
} GstEfTensorDevice;

/**
 * GstEfTensorViewError:
 * @GST_EF_TENSOR_VIEW_ERROR_NOT_TENSOR: neither the caps nor a
 *   #GstEfTensorMeta say the buffer is a tensor
 * @GST_EF_TENSOR_VIEW_ERROR_CAPS: tensor caps this view cannot describe
 *   (another format, several tensors, an unknown type, bad dimensions)
 * @GST_EF_TENSOR_VIEW_ERROR_TRUNCATED: the buffer holds fewer bytes than the
 *   caps say
 * @GST_EF_TENSOR_VIEW_ERROR_MEMORY: memory no DLPack device can take (GL
 *   buffers, a CUDA tensor over several memories)
 * @GST_EF_TENSOR_VIEW_ERROR_MAP: the memory could not be mapped
 *
 * Errors of the #GST_EF_TENSOR_VIEW_ERROR domain.
 *
 * Since: 0.1
 */
typedef enum {
  GST_EF_TENSOR_VIEW_ERROR_NOT_TENSOR = 1,
  GST_EF_TENSOR_VIEW_ERROR_CAPS = 2,
  GST_EF_TENSOR_VIEW_ERROR_TRUNCATED = 3,
  GST_EF_TENSOR_VIEW_ERROR_MEMORY = 4,
  GST_EF_TENSOR_VIEW_ERROR_MAP = 5,
} GstEfTensorViewError;

/**
 * GST_EF_TENSOR_VIEW_ERROR:
 *
 * The error domain of gst_ef_tensor_view_new() ("gst-ef-tensor-view-error-quark").
 *
 * Since: 0.1
 */
#define GST_EF_TENSOR_VIEW_ERROR (gst_ef_tensor_view_error_quark())

/**
 * gst_ef_tensor_view_error_quark:
 *
 * The quark of the #GST_EF_TENSOR_VIEW_ERROR error domain.
 *
 * Returns: the quark of "gst-ef-tensor-view-error-quark"
 *
 * Since: 0.1
 */
GST_EF_API GQuark gst_ef_tensor_view_error_quark(void);

/**
 * GstEfTensorView:
 *
 * A mapped tensor buffer (opaque, reference counted).
 *
 * Since: 0.1
 */
typedef struct _GstEfTensorView GstEfTensorView;

/* DLPack's (dlpack/dlpack.h): declared, not defined, so this header needs
 * no DLPack; include dlpack/dlpack.h to read one. */
struct DLManagedTensor;

/**
 * gst_ef_tensor_view_get_type:
 *
 * Returns: the boxed #GType of #GstEfTensorView
 *
 * Since: 0.1
 */
GST_EF_API GType gst_ef_tensor_view_get_type(void);

/**
 * gst_ef_tensor_view_new:
 * @buffer: (transfer none): a tensor buffer, or a frame carrying a #GstEfTensorMeta
 * @caps: (nullable): the caps of @buffer (`other/tensors, format=static,
 *   num_tensors=1, types=…, dimensions=…`), or %NULL for the tensor of the
 *   #GstEfTensorMeta on @buffer
 * @error: (nullable): where to put a #GST_EF_TENSOR_VIEW_ERROR error
 *
 * Maps the tensor (for reading, and for CUDA where its memory is CUDA
 * memory) and describes it. The dimensions of the caps run innermost
 * first (NNStreamer's order): `3:640:640:1` is the shape (1, 640, 640, 3).
 * Types: uint8, int8, uint16, int16, uint32, int32, uint64, int64, float16,
 * float32, float64. A buffer larger than the caps say is described by its
 * first bytes.
 *
 * Returns: (transfer full) (nullable): the view, or %NULL with @error set
 *
 * Since: 0.1
 */
GST_EF_API GstEfTensorView *gst_ef_tensor_view_new(GstBuffer *buffer, GstCaps *caps,
                                                   GError **error);

/**
 * gst_ef_tensor_view_ref:
 * @view: a #GstEfTensorView
 *
 * Takes a reference: the buffer stays mapped while any is held.
 *
 * Returns: (transfer full): @view
 *
 * Since: 0.1
 */
GST_EF_API GstEfTensorView *gst_ef_tensor_view_ref(GstEfTensorView *view);

/**
 * gst_ef_tensor_view_unref:
 * @view: (transfer full): a #GstEfTensorView
 *
 * Drops a reference; the last one unmaps the buffer and releases it.
 *
 * Since: 0.1
 */
GST_EF_API void gst_ef_tensor_view_unref(GstEfTensorView *view);

/**
 * gst_ef_tensor_view_get_buffer:
 * @view: a #GstEfTensorView
 *
 * The buffer whose bytes the view maps, held as long as the view.
 *
 * Returns: (transfer none): the tensor's buffer (the tensor of the meta
 *   where the view was made of a frame)
 *
 * Since: 0.1
 */
GST_EF_API GstBuffer *gst_ef_tensor_view_get_buffer(const GstEfTensorView *view);

/**
 * gst_ef_tensor_view_get_device:
 * @view: a #GstEfTensorView
 * @device_id: (out) (optional): the device's number (the CUDA ordinal; 0
 *   for the CPU)
 *
 * Where the tensor's bytes are: host memory or a CUDA device.
 *
 * Returns: where the bytes are
 *
 * Since: 0.1
 */
GST_EF_API GstEfTensorDevice gst_ef_tensor_view_get_device(const GstEfTensorView *view,
                                                           gint *device_id);

/**
 * gst_ef_tensor_view_get_data:
 * @view: a #GstEfTensorView
 *
 * The address of the first element: a CPU address, or a CUDA device
 * address (`CUdeviceptr`) on the memory's context. DLPack's `byte_offset`
 * is 0: every consumer reads `data` as it is.
 *
 * Returns: the address, as an integer (for bindings)
 *
 * Since: 0.1
 */
GST_EF_API guint64 gst_ef_tensor_view_get_data(const GstEfTensorView *view);

/**
 * gst_ef_tensor_view_get_shape:
 * @view: a #GstEfTensorView
 * @ndim: (out): the number of dimensions
 *
 * The tensor's dimensions as DLPack orders them, outermost first (the
 * reverse of NNStreamer's `dimensions`).
 *
 * Returns: (array length=ndim) (transfer none): the shape, outermost first
 *
 * Since: 0.1
 */
GST_EF_API const gint64 *gst_ef_tensor_view_get_shape(const GstEfTensorView *view, guint *ndim);

/**
 * gst_ef_tensor_view_get_strides:
 * @view: a #GstEfTensorView
 * @ndim: (out): the number of dimensions
 *
 * The distance between neighbours along each dimension, as DLPack's
 * `strides` holds it.
 *
 * Returns: (array length=ndim) (transfer none): the strides, in elements
 *   (not bytes, as DLPack counts them), outermost first
 *
 * Since: 0.1
 */
GST_EF_API const gint64 *gst_ef_tensor_view_get_strides(const GstEfTensorView *view, guint *ndim);

/**
 * gst_ef_tensor_view_get_dtype:
 * @view: a #GstEfTensorView
 * @code: (out) (optional): DLPack's `DLDataTypeCode`: 0 signed integer,
 *   1 unsigned integer, 2 IEEE float
 * @bits: (out) (optional): the bits of one element (8, 16, 32, 64)
 *
 * The element type, as DLPack's `DLDataType` (one lane).
 *
 * Since: 0.1
 */
GST_EF_API void gst_ef_tensor_view_get_dtype(const GstEfTensorView *view, guint8 *code,
                                             guint8 *bits);

/**
 * gst_ef_tensor_view_get_cuda_stream:
 * @view: a #GstEfTensorView
 *
 * The CUDA stream (`CUstream`, on the memory's context) the tensor is still
 * being written on: a consumer makes its own stream wait on it (an event
 * recorded on it, then `cuStreamWaitEvent`; DLPack's `__dlpack__(stream=)`)
 * or synchronises it before reading. 0 where nothing is pending (CPU
 * tensors; CUDA memory its producer synchronised, as every GStreamer
 * before 1.24 does).
 *
 * Returns: the stream handle, as an integer, or 0
 *
 * Since: 0.1
 */
GST_EF_API guint64 gst_ef_tensor_view_get_cuda_stream(const GstEfTensorView *view);

/**
 * gst_ef_tensor_view_to_dlpack: (skip)
 * @view: a #GstEfTensorView
 *
 * A DLPack tensor of @view. It holds a reference to @view: its `deleter`
 * (which the consumer calls once, when it is done) drops it, and with the
 * last reference the buffer is unmapped and released. Its `manager_ctx` is
 * ef's; `dl_tensor.shape` and `strides` point into it and live as long.
 *
 * Returns: (transfer full): a new `DLManagedTensor`
 *
 * Since: 0.1
 */
GST_EF_API struct DLManagedTensor *gst_ef_tensor_view_to_dlpack(GstEfTensorView *view);

/**
 * gst_ef_tensor_view_to_dlpack_address:
 * @view: a #GstEfTensorView
 *
 * gst_ef_tensor_view_to_dlpack() for bindings: the new `DLManagedTensor`'s
 * address, which a binding wraps (Python: a PyCapsule named "dltensor",
 * examples/python/ef_dlpack.py) and whose deleter it calls where no
 * consumer took it.
 *
 * Returns: the address of a new `DLManagedTensor`, as an integer
 *
 * Since: 0.1
 */
GST_EF_API guint64 gst_ef_tensor_view_to_dlpack_address(GstEfTensorView *view);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GstEfTensorView, gst_ef_tensor_view_unref)

G_END_DECLS

#endif
