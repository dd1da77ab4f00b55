// SPDX-License-Identifier: LGPL-2.1-or-later
// Inside libgstef-1.0 only (not installed): GstCudaMemory read without
// GstCuda, whose headers Debian 12 does not ship and which libgstef does
// not link (a process with CUDA memory in it has GstCuda loaded already).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>

namespace ef::gst::cuda_memory {

// GstCuda's (gstcudamemory.h): GST_CUDA_MEMORY_TYPE_NAME, and the map flag
// that gives the device address.
inline constexpr const char *kType = "gst.cuda.memory";
inline constexpr GstMapFlags kMapCuda = GstMapFlags(GST_MAP_FLAG_LAST << 1);
// GstCuda 1.24+'s GST_CUDA_MEMORY_TRANSFER_NEED_SYNC: the bytes may still be
// on their way on the memory's stream.
inline constexpr guint kNeedSync = GST_MEMORY_FLAG_LAST << 2;

// GstCudaMemory's public head (1.22 on).
struct Head {
  GstMemory mem;
  GObject *context;  // GstCudaContext
  GstVideoInfo info;
};

// The memory's context's "cuda-device-id", or -1 where it has none.
int device_id(GstMemory *mem);

// The CUstream a consumer must wait on (0: nothing pending). False where
// the memory needs a wait and GstCuda's stream API (1.24+) is not in the
// process, which cannot happen for memory GstCuda itself flagged.
bool pending_stream(GstMemory *mem, uint64_t *stream);

}  // namespace ef::gst::cuda_memory
