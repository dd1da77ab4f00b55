// SPDX-License-Identifier: LGPL-2.1-or-later
// The last step of every transform_caps: what the element can make, narrowed
// to what the peer asked for, in the peer's order of preference.
#pragma once

#include <gst/gst.h>

namespace ef::gst {

// Takes `result`; returns it intersected with `filter` (FIRST: the filter's
// order), or unchanged when there is no filter.
inline GstCaps *apply_caps_filter(GstCaps *result, GstCaps *filter) {
  if (!filter)
    return result;
  GstCaps *filtered = gst_caps_intersect_full(filter, result, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref(result);
  return filtered;
}

}  // namespace ef::gst
