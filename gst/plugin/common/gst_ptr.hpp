// SPDX-License-Identifier: LGPL-2.1-or-later
// RAII owners for GLib and GStreamer references, so that no early return can
// leak one.
#pragma once

#include <gst/gst.h>

#include <memory>

namespace ef::gst {

template <typename T>
struct ObjectUnref {
  void operator()(T *p) const { gst_object_unref(p); }
};
template <typename T>
using ObjectPtr = std::unique_ptr<T, ObjectUnref<T>>;

template <typename T>
struct MiniObjectUnref {
  void operator()(T *p) const { gst_mini_object_unref(GST_MINI_OBJECT_CAST(p)); }
};
using BufferPtr = std::unique_ptr<GstBuffer, MiniObjectUnref<GstBuffer>>;
using CapsPtr = std::unique_ptr<GstCaps, MiniObjectUnref<GstCaps>>;

struct ErrorFree {
  void operator()(GError *e) const { g_error_free(e); }
};
using ErrorPtr = std::unique_ptr<GError, ErrorFree>;

}  // namespace ef::gst
