// SPDX-License-Identifier: LGPL-2.1-or-later
// The names of a GstState and a GstStateChangeReturn on every GStreamer ef
// builds with.
#pragma once

#include <gst/gst.h>

namespace ef::gst {

// GStreamer 1.28 deprecates gst_element_state_get_name() for
// gst_state_get_name(), and the builds hide deprecated API.
inline const char *state_name(GstState state) {
#if GST_CHECK_VERSION(1, 28, 0)
  return gst_state_get_name(state);
#else
  return gst_element_state_get_name(state);
#endif
}

// 1.28 deprecates gst_element_state_change_return_get_name() likewise.
inline const char *state_change_name(GstStateChangeReturn ret) {
#if GST_CHECK_VERSION(1, 28, 0)
  return gst_state_change_return_get_name(ret);
#else
  return gst_element_state_change_return_get_name(ret);
#endif
}

}  // namespace ef::gst
