// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gst/ef/gsteftensorview.h"

#include <dlpack/dlpack.h>

#include <string>
#include <variant>

#include "cuda_memory.hpp"
#include "gst/ef/gsteftensormeta.h"
#include "tensor_description.hpp"

using ef::gst::TensorDescription;
namespace cuda_memory = ef::gst::cuda_memory;

static_assert(int(GST_EF_TENSOR_DEVICE_CPU) == int(kDLCPU) &&
              int(GST_EF_TENSOR_DEVICE_CUDA) == int(kDLCUDA));

// clang-format off
G_DEFINE_QUARK(gst-ef-tensor-view-error-quark, gst_ef_tensor_view_error)
// clang-format on

struct _GstEfTensorView {
  gatomicrefcount refs;
  GstBuffer *buffer;
  // The CUDA memory mapped for its device address, else the buffer is
  // mapped for the CPU.
  GstMemory *cuda_memory;
  GstMapInfo map;
  GstEfTensorDevice device;
  gint device_id;
  guint64 stream;
  TensorDescription description;
  int64_t strides[ef::gst::kMaxTensorRank];
};

G_DEFINE_BOXED_TYPE(GstEfTensorView, gst_ef_tensor_view, gst_ef_tensor_view_ref,
                    gst_ef_tensor_view_unref)

namespace {

GstEfTensorView *fail(GError **error, int code, const std::string &message) {
  g_set_error_literal(error, GST_EF_TENSOR_VIEW_ERROR, code, message.c_str());
  return nullptr;
}

// GstGL's memories (any GstGLBaseMemory: buffers, textures), known by their
// allocator's type without linking GstGL.
bool is_gl_memory(GstMemory *mem) {
  GType gl = g_type_from_name("GstGLBaseMemoryAllocator");
  return gl && mem->allocator && g_type_is_a(G_OBJECT_TYPE(mem->allocator), gl);
}

// Maps `view->buffer` where DLPack can name its bytes; false with `error`.
bool map_tensor(GstEfTensorView *view, GError **error) {
  GstBuffer *buffer = view->buffer;
  guint n = gst_buffer_n_memory(buffer);
  for (guint i = 0; i < n; ++i) {
    GstMemory *mem = gst_buffer_peek_memory(buffer, i);
    if (is_gl_memory(mem)) {
      fail(error, GST_EF_TENSOR_VIEW_ERROR_MEMORY,
           "a GL tensor (memory:GLBuffer): its bytes are a GL buffer object, which a CPU "
           "mapping would download whole; map it for GL or ask efconvert for system or "
           "CUDA memory");
      return false;
    }
    if (gst_memory_is_type(mem, cuda_memory::kType)) {
      if (n != 1) {
        fail(error, GST_EF_TENSOR_VIEW_ERROR_MEMORY,
             "a CUDA tensor over " + std::to_string(n) + " memories: DLPack needs one");
        return false;
      }
      if (!cuda_memory::pending_stream(mem, &view->stream)) {
        fail(error, GST_EF_TENSOR_VIEW_ERROR_MEMORY,
             "the CUDA memory is still being written and GstCuda's stream is unknown");
        return false;
      }
      if (!gst_memory_map(mem, &view->map, GstMapFlags(GST_MAP_READ | cuda_memory::kMapCuda))) {
        fail(error, GST_EF_TENSOR_VIEW_ERROR_MAP, "the CUDA memory cannot be mapped for CUDA");
        return false;
      }
      view->cuda_memory = gst_memory_ref(mem);
      view->device = GST_EF_TENSOR_DEVICE_CUDA;
      view->device_id = MAX(cuda_memory::device_id(mem), 0);
      return true;
    }
  }
  if (!gst_buffer_map(buffer, &view->map, GST_MAP_READ)) {
    fail(error, GST_EF_TENSOR_VIEW_ERROR_MAP, "the tensor's buffer cannot be mapped for reading");
    return false;
  }
  view->device = GST_EF_TENSOR_DEVICE_CPU;
  return true;
}

void unmap_tensor(GstEfTensorView *view) {
  if (view->cuda_memory) {
    gst_memory_unmap(view->cuda_memory, &view->map);
    gst_memory_unref(view->cuda_memory);
  } else {
    gst_buffer_unmap(view->buffer, &view->map);
  }
}

// The description of the caps, or of the frame's GstEfTensorMeta (whose
// buffer is then the tensor's); null with `error`.
GstBuffer *describe(GstBuffer *buffer, GstCaps *caps, TensorDescription *out, GError **error) {
  if (!caps) {
    GstEfTensorMeta *meta = gst_buffer_get_ef_tensor_meta(buffer);
    if (!meta || !meta->tensor) {
      fail(error, GST_EF_TENSOR_VIEW_ERROR_NOT_TENSOR,
           "no caps given and the buffer carries no GstEfTensorMeta");
      return nullptr;
    }
    *out = ef::gst::describe_meta(meta);
    return meta->tensor;
  }
  auto described = ef::gst::describe_caps(caps);
  if (auto *e = std::get_if<ef::gst::DescriptionError>(&described)) {
    fail(error, e->code, e->message);
    return nullptr;
  }
  *out = std::get<TensorDescription>(described);
  return buffer;
}

void delete_dlpack(DLManagedTensor *self) {
  gst_ef_tensor_view_unref(static_cast<GstEfTensorView *>(self->manager_ctx));
  delete self;
}

}  // namespace

GstEfTensorView *gst_ef_tensor_view_new(GstBuffer *buffer, GstCaps *caps, GError **error) {
  if (!GST_IS_BUFFER(buffer))
    return fail(error, GST_EF_TENSOR_VIEW_ERROR_NOT_TENSOR, "no buffer");
  if (caps && !GST_IS_CAPS(caps))
    return fail(error, GST_EF_TENSOR_VIEW_ERROR_NOT_TENSOR, "caps that are not a GstCaps");
  TensorDescription description;
  GstBuffer *tensor = describe(buffer, caps, &description, error);
  if (!tensor)
    return nullptr;
  gsize size = gst_buffer_get_size(tensor);
  if (size < description.bytes())
    return fail(error, GST_EF_TENSOR_VIEW_ERROR_TRUNCATED,
                "the buffer holds " + std::to_string(size) + " bytes, the tensor " +
                    std::to_string(description.bytes()));
  auto *view = g_new0(GstEfTensorView, 1);
  g_atomic_ref_count_init(&view->refs);
  view->buffer = gst_buffer_ref(tensor);
  view->description = description;
  description.strides(view->strides);
  if (!map_tensor(view, error)) {
    gst_buffer_unref(view->buffer);
    g_free(view);
    return nullptr;
  }
  return view;
}

GstEfTensorView *gst_ef_tensor_view_ref(GstEfTensorView *view) {
  g_return_val_if_fail(view, nullptr);
  g_atomic_ref_count_inc(&view->refs);
  return view;
}

void gst_ef_tensor_view_unref(GstEfTensorView *view) {
  g_return_if_fail(view);
  if (!g_atomic_ref_count_dec(&view->refs))
    return;
  unmap_tensor(view);
  gst_buffer_unref(view->buffer);
  g_free(view);
}

GstBuffer *gst_ef_tensor_view_get_buffer(const GstEfTensorView *view) {
  g_return_val_if_fail(view, nullptr);
  return view->buffer;
}

GstEfTensorDevice gst_ef_tensor_view_get_device(const GstEfTensorView *view, gint *device_id) {
  g_return_val_if_fail(view, GST_EF_TENSOR_DEVICE_CPU);
  if (device_id)
    *device_id = view->device_id;
  return view->device;
}

guint64 gst_ef_tensor_view_get_data(const GstEfTensorView *view) {
  g_return_val_if_fail(view, 0);
  return reinterpret_cast<uintptr_t>(view->map.data);
}

const gint64 *gst_ef_tensor_view_get_shape(const GstEfTensorView *view, guint *ndim) {
  g_return_val_if_fail(view && ndim, nullptr);
  *ndim = view->description.ndim;
  return view->description.shape;
}

const gint64 *gst_ef_tensor_view_get_strides(const GstEfTensorView *view, guint *ndim) {
  g_return_val_if_fail(view && ndim, nullptr);
  *ndim = view->description.ndim;
  return view->strides;
}

void gst_ef_tensor_view_get_dtype(const GstEfTensorView *view, guint8 *code, guint8 *bits) {
  g_return_if_fail(view);
  if (code)
    *code = view->description.code;
  if (bits)
    *bits = view->description.bits;
}

guint64 gst_ef_tensor_view_get_cuda_stream(const GstEfTensorView *view) {
  g_return_val_if_fail(view, 0);
  return view->stream;
}

DLManagedTensor *gst_ef_tensor_view_to_dlpack(GstEfTensorView *view) {
  g_return_val_if_fail(view, nullptr);
  auto *managed = new DLManagedTensor{};
  DLTensor &t = managed->dl_tensor;
  t.data = view->map.data;
  t.device = DLDevice{DLDeviceType(view->device), view->device_id};
  t.ndim = int32_t(view->description.ndim);
  t.dtype = DLDataType{view->description.code, view->description.bits, 1};
  t.shape = view->description.shape;
  t.strides = view->strides;
  t.byte_offset = 0;
  managed->manager_ctx = gst_ef_tensor_view_ref(view);
  managed->deleter = delete_dlpack;
  return managed;
}

guint64 gst_ef_tensor_view_to_dlpack_address(GstEfTensorView *view) {
  return reinterpret_cast<uintptr_t>(gst_ef_tensor_view_to_dlpack(view));
}
