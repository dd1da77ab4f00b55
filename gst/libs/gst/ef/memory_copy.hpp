// SPDX-License-Identifier: LGPL-2.1-or-later
// Private to libgstef: when a "memory"-tagged meta may follow a buffer copy.
#pragma once

#include <gst/gst.h>

namespace ef::gst {

// True when `dest` (a copy being made of `src`) holds the very same memory
// objects: a shallow copy. A deep copy, a region copy or a merge holds other
// bytes, which the meta does not describe.
inline bool copy_shares_memories(GstBuffer *dest, GstBuffer *src, gpointer copy_data) {
  if (static_cast<GstMetaTransformCopy *>(copy_data)->region)
    return false;
  const guint n = gst_buffer_n_memory(dest);
  if (n != gst_buffer_n_memory(src))
    return false;
  for (guint i = 0; i < n; ++i)
    if (gst_buffer_peek_memory(dest, i) != gst_buffer_peek_memory(src, i))
      return false;
  return true;
}

}  // namespace ef::gst
