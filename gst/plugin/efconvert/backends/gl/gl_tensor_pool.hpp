// SPDX-License-Identifier: LGPL-2.1-or-later
// Tensors that stay on the GPU (caps feature memory:GLBuffer): buffers of
// one GstGLBuffer each, GstGL's buffer-object memory, whose `id` a GL
// consumer binds (as a shader storage or vertex buffer) and a CUDA consumer
// registers (cudaGraphicsGLRegisterBuffer), in the GL context of the
// memory (`GstGLBaseMemory.context`) or one shared with it. GstGL makes no
// pool of them (GstGLBufferPool makes textures, and the GL buffer
// allocator refuses gst_allocator_alloc): this one allocates through
// gst_gl_base_memory_alloc, from gl_tensor_buffer.hpp's allocator (GPU
// memory, where GstGL's own would pin the buffer in system memory).
#pragma once

#include <gst/gl/gl.h>

namespace ef::gst {

// A pool of GL buffers of `context`; GstGLSyncMeta on each buffer when its
// config has GST_BUFFER_POOL_OPTION_GL_SYNC_META. A new reference.
GstBufferPool *gl_tensor_pool_new(GstGLContext *context);

// decide_allocation for tensors of `size` bytes as GL buffers: our pool
// (with the counts downstream gave), fenced per buffer where downstream
// asked for GstGLSyncMeta (a consumer on another context). FALSE with an
// error posted on `element`.
gboolean decide_gl_tensor_pool(GstElement *element, GstGLContext *context, GstQuery *query,
                               GstCaps *caps, gsize size);

}  // namespace ef::gst
