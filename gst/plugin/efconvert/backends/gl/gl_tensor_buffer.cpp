// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_tensor_buffer.hpp"

#include <gst/gl/gstglfuncs.h>

#include <cstring>

#ifndef GL_MAP_READ_BIT
#define GL_MAP_READ_BIT 0x0001
#endif

namespace ef::gst {

namespace {

struct GstEfGlTensorBufferAllocator {
  GstGLBufferAllocator parent;
};

struct GstEfGlTensorBufferAllocatorClass {
  GstGLBufferAllocatorClass parent_class;
};

GType tensor_buffer_allocator_get_type();
G_DEFINE_TYPE(GstEfGlTensorBufferAllocator, tensor_buffer_allocator, GST_TYPE_GL_BUFFER_ALLOCATOR)

const GstGLFuncs *gl_of(GstGLBuffer *mem) {
  return mem->mem.context->gl_vtable;
}

// GL thread, as every function below (GstGLBaseMemory calls them there).
gboolean create(GstGLBuffer *mem, GError **error) {
  const GstGLFuncs *gl = gl_of(mem);
  gl->GenBuffers(1, &mem->id);
  if (!mem->id) {
    g_set_error(error, GST_GL_CONTEXT_ERROR, GST_GL_CONTEXT_ERROR_FAILED,
                "glGenBuffers gave no buffer");
    return FALSE;
  }
  gl->BindBuffer(mem->target, mem->id);
  gl->BufferData(mem->target, GLsizeiptr(mem->mem.mem.maxsize), nullptr, mem->usage_hints);
  gl->BindBuffer(mem->target, 0);
  return TRUE;
}

// The GPU's bytes into the memory's system copy.
bool download(GstGLBuffer *mem, gsize size) {
  const GstGLFuncs *gl = gl_of(mem);
  bool done = false;
  gl->BindBuffer(mem->target, mem->id);
  if (gl->MapBufferRange) {
    if (const void *data = gl->MapBufferRange(mem->target, 0, GLsizeiptr(size), GL_MAP_READ_BIT)) {
      std::memcpy(mem->mem.data, data, size);
      done = true;
    }
    gl->UnmapBuffer(mem->target);
  } else if (gl->GetBufferSubData) {
    gl->GetBufferSubData(mem->target, 0, GLsizeiptr(size), mem->mem.data);
    done = true;
  }
  gl->BindBuffer(mem->target, 0);
  return done;
}

// The map's flags as bits: GST_MAP_GL lies past GstMapFlags' enumerators,
// so reading the field as that enum type is undefined in C++ (UBSan's
// enum check catches it).
static_assert(sizeof(GstMapFlags) == sizeof(guint));
guint flags_of(const GstMapInfo *info) {
  guint flags;
  std::memcpy(&flags, &info->flags, sizeof flags);
  return flags;
}

// GstGLBaseMemory updates the transfer flags after this returns: they
// still say whether the other side wrote last.
gpointer map(GstGLBuffer *mem, GstMapInfo *info, gsize size) {
  const GstGLFuncs *gl = gl_of(mem);
  const guint flags = flags_of(info);
  if (flags & GST_MAP_GL) {
    if (GST_MEMORY_FLAG_IS_SET(mem, GST_GL_BASE_MEMORY_TRANSFER_NEED_UPLOAD) && mem->mem.data) {
      gl->BindBuffer(mem->target, mem->id);
      gl->BufferSubData(mem->target, 0, GLsizeiptr(size), mem->mem.data);
      gl->BindBuffer(mem->target, 0);
    }
    gl->BindBuffer(mem->target, mem->id);
    return &mem->id;
  }
  if (!gst_gl_base_memory_alloc_data(GST_GL_BASE_MEMORY_CAST(mem)))
    return nullptr;
  if (GST_MEMORY_FLAG_IS_SET(mem, GST_GL_BASE_MEMORY_TRANSFER_NEED_DOWNLOAD) &&
      (flags & GST_MAP_READ) && !download(mem, size))
    return nullptr;
  return mem->mem.data;
}

void unmap(GstGLBuffer *mem, GstMapInfo *info) {
  if (flags_of(info) & GST_MAP_GL)
    gl_of(mem)->BindBuffer(mem->target, 0);
}

void tensor_buffer_allocator_class_init(GstEfGlTensorBufferAllocatorClass *klass) {
  auto *base = reinterpret_cast<GstGLBaseMemoryAllocatorClass *>(klass);
  base->create = reinterpret_cast<GstGLBaseMemoryAllocatorCreateFunction>(create);
  base->map = reinterpret_cast<GstGLBaseMemoryAllocatorMapFunction>(map);
  base->unmap = reinterpret_cast<GstGLBaseMemoryAllocatorUnmapFunction>(unmap);
}

void tensor_buffer_allocator_init(GstEfGlTensorBufferAllocator *) {}

}  // namespace

GstAllocator *gl_tensor_buffer_allocator_new() {
  gst_gl_buffer_init_once();
  auto *allocator = g_object_new(tensor_buffer_allocator_get_type(), nullptr);
  gst_object_ref_sink(allocator);
  return GST_ALLOCATOR(allocator);
}

}  // namespace ef::gst
