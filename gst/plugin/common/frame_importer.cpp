// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_importer.hpp"

#include <gst/allocators/allocators.h>

namespace ef::gst {

bool planes_in_fd_memory(GstBuffer *buffer, const FrameLayout &layout) {
  for (guint p = 0; p < layout.n_planes; ++p)
    if (!gst_is_fd_memory(gst_buffer_peek_memory(buffer, layout.planes[p].memory)))
      return false;
  return layout.n_planes > 0;
}

}  // namespace ef::gst
