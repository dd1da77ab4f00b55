// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's output buffers: a downstream pool when one is offered, else
// its own pool of fd-backed memory (memfd, or a dma-buf heap where one
// exists). Outputs in a device's memory (GL textures) come from that
// device's pools (device.hpp).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "common/dma_drm_caps.hpp"

namespace ef::gst {

// Configures the pool for plain or dma-buf `caps` (parsed) into `query`.
// `held` outputs behind read-backs in flight are buffers downstream's count
// does not know of. `preferred` (may be nullptr): the allocator of our own
// pool, which then also replaces a plain system-memory pool downstream
// offers (any reader maps ours as plain memory). FALSE with an error posted
// on `element`.
gboolean decide_output_pool(GstElement *element, GstQuery *query, GstCaps *caps,
                            const VideoCaps &parsed, guint held, GstAllocator *preferred);

// Tensors: one memory of `size` bytes a buffer, from a pool downstream
// offers where it takes these caps, else our own pool of fd-backed memory,
// or of `preferred` (may be nullptr), which then also replaces a plain
// system-memory pool downstream offers; `held` more buffers than asked for
// (outputs held behind read-backs in flight).
gboolean decide_tensor_pool(GstElement *element, GstQuery *query, GstCaps *caps, gsize size,
                            guint held, GstAllocator *preferred);

// An active pool of our own fd-backed memory for tensors of `size` bytes
// (attach-tensor's), or null with an error posted.
GstBufferPool *make_tensor_pool(GstElement *element, gsize size);

// `pool` answers the query, in place of the pool downstream offered
// (`offered`), else as the only one; takes the reference. TRUE.
gboolean answer_pool(GstQuery *query, bool offered, GstBufferPool *pool, guint size, guint min,
                     guint max);

}  // namespace ef::gst
