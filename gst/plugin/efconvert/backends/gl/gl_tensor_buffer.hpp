// SPDX-License-Identifier: LGPL-2.1-or-later
// The GL buffers a tensor that stays on the GPU lives in: GstGLBuffer
// memory (gst_is_gl_buffer() holds, GL and CUDA consumers bind its `id`)
// whose storage the driver may keep in GPU memory. GstGL's own allocator
// makes every buffer immutable storage mapped persistently for reading and
// writing wherever glBufferStorage exists (GL 4.4); NVIDIA's driver keeps
// such a buffer in system memory, so the tensor pass's stores crossed the
// bus: 115.8 µs for a 640x640 float32 tensor on the H200 where the same
// pass into a plain buffer took 12.9. These buffers are mutable storage
// (glBufferData, GL_DYNAMIC_COPY: written and read by GL) that no mapping
// pins; a CPU map copies the GPU's bytes out (and a CPU write back in
// before the next GL map), as GstGL does where glBufferStorage is missing.
#pragma once

#include <gst/gl/gl.h>

namespace ef::gst {

// The allocator (a GstGLBufferAllocator subclass): allocate with
// gst_gl_base_memory_alloc() and GstGLBufferAllocationParams. A new
// reference.
GstAllocator *gl_tensor_buffer_allocator_new();

}  // namespace ef::gst
