// SPDX-License-Identifier: LGPL-2.1-or-later
// What every GL texture pool ef makes or configures shares.
#pragma once

#include <gst/gl/gl.h>

namespace ef::gst {

// One buffer stays in the free queue before it is handed out again (the
// min-free-queue option of GStreamer 1.24, which glupload sets too): a
// texture just released may still be sampled by commands the GPU has not
// run yet. A pool offered by downstream keeps the value it was given.
inline void keep_one_texture_free(GstStructure *config, bool own_pool) {
#if GST_CHECK_VERSION(1, 24, 0)
  if (own_pool)
    gst_buffer_pool_config_set_gl_min_free_queue_size(config, 1);
#else
  (void)config;
  (void)own_pool;
#endif
}

}  // namespace ef::gst
