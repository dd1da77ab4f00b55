// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gap_buffers.hpp"

namespace ef::gst {

bool forward_gap_buffer(GstBaseTransform *trans, GstBuffer *input) {
  if (!GST_BUFFER_FLAG_IS_SET(input, GST_BUFFER_FLAG_GAP))
    return false;
  const GstClockTime at =
      GST_BUFFER_PTS_IS_VALID(input) ? GST_BUFFER_PTS(input) : GST_BUFFER_DTS(input);
  if (GST_CLOCK_TIME_IS_VALID(at)) {
    GST_LOG_OBJECT(trans, "GAP buffer at %" GST_TIME_FORMAT " forwarded as a gap event",
                   GST_TIME_ARGS(at));
    // A gap downstream does not take (flushing, unlinked) is no frame's
    // failure: the next frame's push says so.
    GST_BASE_TRANSFORM_GET_CLASS(trans)->sink_event(
        trans, gst_event_new_gap(at, GST_BUFFER_DURATION(input)));
  } else {
    GST_DEBUG_OBJECT(trans, "GAP buffer without a timestamp dropped");
  }
  gst_buffer_unref(input);
  return true;
}

}  // namespace ef::gst
