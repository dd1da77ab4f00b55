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

void release_bus(GstBus *bus) {
  // Queued messages (state changes above all) hold their source elements, and
  // the element holds this bus: without the flush neither is ever freed.
  gst_bus_set_flushing(bus, TRUE);
  gst_object_unref(bus);
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

namespace {

struct PoolOffer {
  GstAllocator *allocator;
  guint buffers;
};

GstPadProbeReturn answer_allocation(GstPad *, GstPadProbeInfo *info, gpointer data) {
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
  if (GST_QUERY_TYPE(query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  auto *offer = static_cast<PoolOffer *>(data);
  GstCaps *caps;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstVideoInfo vinfo;
  gst_video_info_from_caps(&vinfo, caps);
  GstBufferPool *pool = gst_video_buffer_pool_new();
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, guint(vinfo.size), offer->buffers,
                                    offer->buffers);
  if (offer->allocator)
    gst_buffer_pool_config_set_allocator(config, offer->allocator, nullptr);
  gst_buffer_pool_set_config(pool, config);
  gst_query_add_allocation_pool(query, pool, guint(vinfo.size), offer->buffers, offer->buffers);
  gst_object_unref(pool);
  return GST_PAD_PROBE_HANDLED;
}

}  // namespace

void offer_downstream_pool(GstHarness *h, GstAllocator *allocator, guint buffers) {
  auto *offer =
      new PoolOffer{allocator ? GST_ALLOCATOR(gst_object_ref(allocator)) : nullptr, buffers};
  gst_pad_add_probe(h->sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, answer_allocation, offer,
                    [](gpointer data) {
                      auto *o = static_cast<PoolOffer *>(data);
                      if (o->allocator)
                        gst_object_unref(o->allocator);
                      delete o;
                    });
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
