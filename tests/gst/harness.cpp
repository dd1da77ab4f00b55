// SPDX-License-Identifier: LGPL-2.1-or-later
#include "harness.hpp"

namespace ef::test {

GstElement *harness_element(GstHarness *h, const char *name) {
  GstElement *e = gst_bin_get_by_name(GST_BIN(h->element), name);
  if (e)
    gst_object_unref(e);  // the bin holds it for the harness's lifetime
  return e;
}

guint64 stat(GstElement *element, const char *counter) {
  guint64 v = 0;
  g_object_get(element, counter, &v, nullptr);
  return v;
}

GstBus *attach_bus(GstHarness *h) {
  GstBus *bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  return bus;
}

std::string pop_error(GstBus *bus) {
  while (GstMessage *msg = gst_bus_pop(bus)) {
    if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
      GError *error = nullptr;
      gchar *debug = nullptr;
      gst_message_parse_error(msg, &error, &debug);
      std::string text = error->message;
      if (debug)
        text += std::string(" | ") + debug;
      g_error_free(error);
      g_free(debug);
      gst_message_unref(msg);
      return text;
    }
    gst_message_unref(msg);
  }
  return "";
}

GstVideoInfo padded_info(GstVideoFormat format, guint width, guint height, guint pad_bytes,
                         guint pad_rows) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, width, height);
  gsize offset = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
    guint rows = 0;
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS(&info); ++c)
      if (GST_VIDEO_FORMAT_INFO_PLANE(info.finfo, c) == p)
        rows = GST_VIDEO_INFO_COMP_HEIGHT(&info, c);
    info.stride[p] += gint(pad_bytes);
    info.offset[p] = offset;
    offset += gsize(info.stride[p]) * (rows + pad_rows);
  }
  info.size = offset;
  return info;
}

}  // namespace ef::test
