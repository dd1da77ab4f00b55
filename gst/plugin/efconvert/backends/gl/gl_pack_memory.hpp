// SPDX-License-Identifier: LGPL-2.1-or-later
// Plain memory that a GL pixel pack buffer is: a buffer object with
// client storage (GL 4.4 or EXT_buffer_storage), mapped for good, read and
// write, coherent. efconvert's GL backend reads a frame back straight into
// such an output (glReadPixels into the buffer, a fence, done), where any
// other plain memory takes a second copy on the CPU from a pack buffer;
// downstream maps it as any system memory. Each memory holds a reference
// on the context and deletes its buffer on the GL thread when freed, also
// after the element has gone.
#pragma once

#include <gst/gl/gl.h>

#include <cstddef>

namespace ef::gst {

// A pixel pack buffer of client storage mapped for good (read and write,
// coherent): the memory of GL pack memory, and the read-back ring's own.
// {0, nullptr} where the context has no buffer storage (GL 4.4,
// EXT_buffer_storage) or the driver would not map it. GL thread.
struct MappedPack {
  unsigned buffer = 0;
  void *data = nullptr;
};
MappedPack mapped_pack_new(GstGLContext *context, size_t size);
void mapped_pack_delete(GstGLContext *context, MappedPack &pack);

// The allocator, or nullptr where the context has no buffer storage. A new
// reference.
GstAllocator *gl_pack_allocator_new(GstGLContext *context);

// The buffer object behind `memory` when it is pack memory of `context`
// (shared sub-memories included: `offset` is where the memory's bytes
// begin in it), else 0.
unsigned gl_pack_memory_buffer(GstMemory *memory, GstGLContext *context, gsize *offset);

}  // namespace ef::gst
