// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda_memory.hpp"

#include <dlfcn.h>

namespace ef::gst::cuda_memory {

int device_id(GstMemory *mem) {
  GObject *context = reinterpret_cast<Head *>(mem)->context;
  if (!G_IS_OBJECT(context))
    return -1;
  GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(context), "cuda-device-id");
  if (!spec || spec->value_type != G_TYPE_UINT)
    return -1;
  guint id = 0;
  g_object_get(context, "cuda-device-id", &id, nullptr);
  return int(id);
}

bool pending_stream(GstMemory *mem, uint64_t *stream) {
  *stream = 0;
  if (!GST_MEMORY_FLAG_IS_SET(mem, kNeedSync))
    return true;
  // Looked up in the process (GstCuda made the memory, so it is loaded):
  // linking GstCuda would tie libgstef to GStreamer's CUDA library.
  using GetStream = gpointer (*)(GstMemory *);
  using GetHandle = gpointer (*)(gpointer);
  auto get_stream = reinterpret_cast<GetStream>(dlsym(RTLD_DEFAULT, "gst_cuda_memory_get_stream"));
  auto get_handle = reinterpret_cast<GetHandle>(dlsym(RTLD_DEFAULT, "gst_cuda_stream_get_handle"));
  if (!get_stream || !get_handle)
    return false;
  gpointer s = get_stream(mem);
  *stream = s ? reinterpret_cast<uintptr_t>(get_handle(s)) : 0;
  return s != nullptr;
}

}  // namespace ef::gst::cuda_memory
