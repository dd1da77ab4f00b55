// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_pack_memory.hpp"

#include <gst/gl/gstglfuncs.h>

#include <initializer_list>

namespace ef::gst {

namespace {

constexpr const char *kMemType = "EfGlPackMemory";

using BufferStorage = void(GSTGLAPI *)(GLenum, GLsizeiptr, const void *, GLbitfield);

struct PackMemory {
  GstMemory mem;
  GstGLContext *context;  // a reference, root memories only
  GLuint buffer;          // root memories only
  guint8 *data;           // the mapping (a share's is its root's)
};

struct GstEfGlPackAllocator {
  GstAllocator parent;
  GstGLContext *context;
};

struct GstEfGlPackAllocatorClass {
  GstAllocatorClass parent_class;
};

GType pack_allocator_get_type();
G_DEFINE_TYPE(GstEfGlPackAllocator, pack_allocator, GST_TYPE_ALLOCATOR)

BufferStorage buffer_storage(GstGLContext *context) {
  BufferStorage storage = nullptr;
  for (const char *name : {"glBufferStorage", "glBufferStorageEXT"})
    if (!storage)
      storage = reinterpret_cast<BufferStorage>(gst_gl_context_get_proc_address(context, name));
  return context->gl_vtable->MapBufferRange ? storage : nullptr;
}

struct Made {
  gsize size;
  MappedPack pack;
};

void make_buffer(GstGLContext *context, gpointer data) {
  auto *m = static_cast<Made *>(data);
  m->pack = mapped_pack_new(context, m->size);
}

void delete_buffer(GstGLContext *context, gpointer data) {
  auto *mem = static_cast<PackMemory *>(data);
  MappedPack pack{mem->buffer, mem->data};
  mapped_pack_delete(context, pack);
}

GstMemory *pack_alloc(GstAllocator *allocator, gsize size, GstAllocationParams *params) {
  auto *self = reinterpret_cast<GstEfGlPackAllocator *>(allocator);
  const gsize prefix = params ? params->prefix : 0, padding = params ? params->padding : 0;
  Made made{prefix + size + padding, {}};
  gst_gl_context_thread_add(self->context, make_buffer, &made);
  if (!made.pack.buffer)
    return nullptr;
  auto *mem = g_new0(PackMemory, 1);
  // The mapping is page-aligned: any alignment up to a page holds.
  gst_memory_init(GST_MEMORY_CAST(mem), params ? params->flags : GstMemoryFlags(0), allocator,
                  nullptr, made.size, params ? params->align : 0, prefix, size);
  mem->context = GST_GL_CONTEXT(gst_object_ref(self->context));
  mem->buffer = made.pack.buffer;
  mem->data = static_cast<guint8 *>(made.pack.data);
  return GST_MEMORY_CAST(mem);
}

void pack_free(GstAllocator *, GstMemory *memory) {
  auto *mem = reinterpret_cast<PackMemory *>(memory);
  if (!memory->parent) {
    gst_gl_context_thread_add(mem->context, delete_buffer, mem);
    gst_object_unref(mem->context);
  }
  g_free(mem);
}

gpointer pack_map(GstMemory *memory, gsize, GstMapFlags) {
  return reinterpret_cast<PackMemory *>(memory)->data;
}

void pack_unmap(GstMemory *) {}

GstMemory *pack_share(GstMemory *memory, gssize offset, gssize size) {
  GstMemory *root = memory->parent ? memory->parent : memory;
  if (size == -1)
    size = gssize(memory->size) - offset;
  auto *share = g_new0(PackMemory, 1);
  gst_memory_init(GST_MEMORY_CAST(share),
                  GstMemoryFlags(GST_MINI_OBJECT_FLAGS(root) | GST_MINI_OBJECT_FLAG_LOCK_READONLY),
                  memory->allocator, root, memory->maxsize, memory->align,
                  memory->offset + gsize(offset), gsize(size));
  share->data = reinterpret_cast<PackMemory *>(root)->data;
  return GST_MEMORY_CAST(share);
}

void pack_allocator_finalize(GObject *object) {
  gst_object_unref(reinterpret_cast<GstEfGlPackAllocator *>(object)->context);
  G_OBJECT_CLASS(pack_allocator_parent_class)->finalize(object);
}

void pack_allocator_class_init(GstEfGlPackAllocatorClass *klass) {
  GST_ALLOCATOR_CLASS(klass)->alloc = pack_alloc;
  GST_ALLOCATOR_CLASS(klass)->free = pack_free;
  G_OBJECT_CLASS(klass)->finalize = pack_allocator_finalize;
}

void pack_allocator_init(GstEfGlPackAllocator *self) {
  GstAllocator *allocator = GST_ALLOCATOR_CAST(self);
  allocator->mem_type = kMemType;
  allocator->mem_map = pack_map;
  allocator->mem_unmap = pack_unmap;
  allocator->mem_share = pack_share;
}

}  // namespace

MappedPack mapped_pack_new(GstGLContext *context, size_t size) {
  const BufferStorage storage = buffer_storage(context);
  if (!storage)
    return {};
  const GstGLFuncs *gl = context->gl_vtable;
  constexpr GLbitfield kMap =
      GL_MAP_READ_BIT | GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
  MappedPack pack;
  gl->GenBuffers(1, &pack.buffer);
  gl->BindBuffer(GL_PIXEL_PACK_BUFFER, pack.buffer);
  storage(GL_PIXEL_PACK_BUFFER, GLsizeiptr(size), nullptr, kMap | GL_CLIENT_STORAGE_BIT);
  pack.data = gl->MapBufferRange(GL_PIXEL_PACK_BUFFER, 0, GLsizeiptr(size), kMap);
  gl->BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  if (!pack.data) {
    gl->DeleteBuffers(1, &pack.buffer);
    return {};
  }
  return pack;
}

void mapped_pack_delete(GstGLContext *context, MappedPack &pack) {
  const GstGLFuncs *gl = context->gl_vtable;
  gl->BindBuffer(GL_PIXEL_PACK_BUFFER, pack.buffer);
  gl->UnmapBuffer(GL_PIXEL_PACK_BUFFER);
  gl->BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  gl->DeleteBuffers(1, &pack.buffer);
  pack = {};
}

GstAllocator *gl_pack_allocator_new(GstGLContext *context) {
  if (!buffer_storage(context))
    return nullptr;
  auto *self =
      static_cast<GstEfGlPackAllocator *>(g_object_new(pack_allocator_get_type(), nullptr));
  gst_object_ref_sink(self);
  self->context = GST_GL_CONTEXT(gst_object_ref(context));
  return GST_ALLOCATOR_CAST(self);
}

unsigned gl_pack_memory_buffer(GstMemory *memory, GstGLContext *context, gsize *offset) {
  if (!memory || !gst_memory_is_type(memory, kMemType))
    return 0;
  GstMemory *root = memory->parent ? memory->parent : memory;
  auto *mem = reinterpret_cast<PackMemory *>(root);
  if (mem->context != context)
    return 0;
  if (offset)
    *offset = memory->offset;
  return mem->buffer;
}

}  // namespace ef::gst
