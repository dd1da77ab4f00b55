// SPDX-License-Identifier: LGPL-2.1-or-later
#include "interlace.hpp"

namespace ef::gst {

namespace {

constexpr const char *kRemedy =
    "efconvert converts progressive frames only: put deinterlace before it "
    "(... ! deinterlace ! efconvert ! ...)";

std::string field_order_text(GstVideoFieldOrder order) {
  if (order == GST_VIDEO_FIELD_ORDER_UNKNOWN)
    return "";
  return std::string(", field-order=") + gst_video_field_order_to_string(order);
}

}  // namespace

std::string interlace_problem(const GstVideoInfo &info) {
  const GstVideoInterlaceMode mode = GST_VIDEO_INFO_INTERLACE_MODE(&info);
  if (mode == GST_VIDEO_INTERLACE_MODE_PROGRESSIVE || mode == GST_VIDEO_INTERLACE_MODE_MIXED)
    return "";
  return std::string("Interlaced input (interlace-mode=") +
         gst_video_interlace_mode_to_string(mode) +
         field_order_text(GST_VIDEO_INFO_FIELD_ORDER(&info)) + "): " + kRemedy;
}

std::string frame_interlace_problem(const GstVideoInfo &info, GstBuffer *buffer) {
  if (GST_VIDEO_INFO_INTERLACE_MODE(&info) != GST_VIDEO_INTERLACE_MODE_MIXED ||
      !GST_BUFFER_FLAG_IS_SET(buffer, GST_VIDEO_BUFFER_FLAG_INTERLACED))
    return "";
  const char *order = GST_BUFFER_FLAG_IS_SET(buffer, GST_VIDEO_BUFFER_FLAG_TFF)
                          ? "top field first"
                          : "bottom field first";
  return std::string("An interlaced frame (") + order +
         ") in an interlace-mode=mixed stream: " + kRemedy +
         ", which deinterlaces the flagged frames and passes the others";
}

}  // namespace ef::gst
