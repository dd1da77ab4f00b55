// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames gst-launch-1.0 cannot make, pushed through appsrc into a pipeline
// given as gst-launch-1.0 text, to check bad-frame handling from outside the
// test harness:
//
//   push_frames NV12 64x48 good,short:0,short:4096,gap,gapfull,good
//       'efconvert backend=gl ! video/x-raw,format=RGB ! appsink name=sink'
//
// good: a memfd frame of the pattern of its index; short:N: the same in a
// GstFdMemory of the whole frame over a memfd of only N bytes (a file
// truncated under its memory); gap: an empty buffer flagged GAP; gapfull: a
// whole frame flagged GAP. Each frame has pts = index * 40 ms, duration
// 40 ms. Prints each WARNING and ERROR on the bus and, where the pipeline
// has an appsink named "sink", each buffer it gets (pts, duration, GAP, size,
// a checksum of its bytes) and each gap event: the good frames' checksums
// match a run of good frames only. Exit status 0 at EOS, 1 at an ERROR, 2 for bad arguments.
#include <gst/allocators/allocators.h>
#include <gst/app/app.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const GstClockTime kFrame = 40 * GST_MSECOND;

// One memfd of `file_bytes`, the first of them the pattern of `seed`, as a
// GstFdMemory of `claimed` bytes (owning the fd).
static GstBuffer *memfd_buffer(gsize claimed, gsize file_bytes, guint seed) {
  const int fd = memfd_create("push-frames", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, (off_t)file_bytes) != 0)
    return NULL;
  guint8 *bytes = g_malloc(file_bytes ? file_bytes : 1);
  for (gsize i = 0; i < file_bytes; ++i)
    bytes[i] = (guint8)(seed * 131u + i * 7u + (i >> 8));
  const gboolean written = pwrite(fd, bytes, file_bytes, 0) == (ssize_t)file_bytes;
  g_free(bytes);
  if (!written)
    return NULL;
  GstAllocator *alloc = gst_fd_allocator_new();
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_append_memory(buffer,
                           gst_fd_allocator_alloc(alloc, fd, claimed, GST_FD_MEMORY_FLAG_NONE));
  gst_object_unref(alloc);
  return buffer;
}

static GstBuffer *make_frame(const char *what, const GstVideoInfo *info, guint index) {
  GstBuffer *buffer = NULL;
  if (strcmp(what, "good") == 0)
    buffer = memfd_buffer(info->size, info->size, index);
  else if (strncmp(what, "short:", 6) == 0)
    buffer = memfd_buffer(info->size, (gsize)g_ascii_strtoull(what + 6, NULL, 10), index);
  else if (strcmp(what, "gap") == 0)
    buffer = gst_buffer_new();
  else if (strcmp(what, "gapfull") == 0)
    buffer = memfd_buffer(info->size, info->size, index);
  if (!buffer)
    return NULL;
  if (strncmp(what, "gap", 3) == 0)
    GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_GAP);
  GST_BUFFER_PTS(buffer) = index * kFrame;
  GST_BUFFER_DURATION(buffer) = kFrame;
  return buffer;
}

static GstFlowReturn print_sample(GstAppSink *sink, gpointer data) {
  (void)data;
  GstSample *sample = gst_app_sink_pull_sample(sink);
  GstBuffer *buffer = gst_sample_get_buffer(sample);
  guint64 sum = 1469598103934665603ull;  // FNV-1a over the bytes
  GstMapInfo map;
  if (gst_buffer_get_size(buffer) && gst_buffer_map(buffer, &map, GST_MAP_READ)) {
    for (gsize i = 0; i < map.size; ++i)
      sum = (sum ^ map.data[i]) * 1099511628211ull;
    gst_buffer_unmap(buffer, &map);
  }
  g_print("buffer pts=%" GST_TIME_FORMAT " duration=%" GST_TIME_FORMAT
          " gap=%d size=%zu sum=%016" G_GINT64_MODIFIER "x\n",
          GST_TIME_ARGS(GST_BUFFER_PTS(buffer)), GST_TIME_ARGS(GST_BUFFER_DURATION(buffer)),
          GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_GAP), gst_buffer_get_size(buffer), sum);
  gst_sample_unref(sample);
  return GST_FLOW_OK;
}

static GstPadProbeReturn print_gap(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
  (void)pad;
  (void)data;
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
  if (GST_EVENT_TYPE(event) == GST_EVENT_GAP) {
    GstClockTime at, duration;
    gst_event_parse_gap(event, &at, &duration);
    g_print("gap pts=%" GST_TIME_FORMAT " duration=%" GST_TIME_FORMAT "\n", GST_TIME_ARGS(at),
            GST_TIME_ARGS(duration));
  }
  return GST_PAD_PROBE_OK;
}

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  guint width = 0, height = 0;
  if (argc != 5 || sscanf(argv[2], "%ux%u", &width, &height) != 2) {
    g_printerr("usage: %s FORMAT WxH FRAME[,FRAME...] 'PIPELINE AFTER APPSRC'\n", argv[0]);
    return 2;
  }
  GstVideoInfo info;
  if (!gst_video_info_set_format(&info, gst_video_format_from_string(argv[1]), width, height)) {
    g_printerr("cannot describe %s %ux%u\n", argv[1], width, height);
    return 2;
  }
  gchar *description = g_strdup_printf("appsrc name=src format=time ! %s", argv[4]);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch(description, &error);
  g_free(description);
  if (!pipeline) {
    g_printerr("%s\n", error->message);
    return 2;
  }
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstCaps *caps = gst_video_info_to_caps(&info);
  g_object_set(src, "caps", caps, NULL);
  gst_caps_unref(caps);
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  if (sink && GST_IS_APP_SINK(sink)) {
    GstAppSinkCallbacks callbacks = {0};
    callbacks.new_sample = print_sample;
    gst_app_sink_set_callbacks(GST_APP_SINK(sink), &callbacks, NULL, NULL);
    GstPad *pad = gst_element_get_static_pad(sink, "sink");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, print_gap, NULL, NULL);
    gst_object_unref(pad);
  }
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  gchar **frames = g_strsplit(argv[3], ",", -1);
  for (guint i = 0; frames[i]; ++i) {
    GstBuffer *buffer = make_frame(frames[i], &info, i);
    if (!buffer) {
      g_printerr("cannot make frame \"%s\"\n", frames[i]);
      return 2;
    }
    if (gst_app_src_push_buffer(GST_APP_SRC(src), buffer) != GST_FLOW_OK)
      break;
  }
  g_strfreev(frames);
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  GstBus *bus = gst_element_get_bus(pipeline);
  int status = 0;
  for (;;) {
    GstMessage *m = gst_bus_timed_pop_filtered(
        bus, 20 * GST_SECOND,
        (GstMessageType)(GST_MESSAGE_ERROR | GST_MESSAGE_WARNING | GST_MESSAGE_EOS));
    if (!m) {
      g_print("timeout\n");
      status = 1;
      break;
    }
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS) {
      g_print("EOS\n");
      gst_message_unref(m);
      break;
    }
    const gboolean is_error = GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR;
    GError *e = NULL;
    (is_error ? gst_message_parse_error : gst_message_parse_warning)(m, &e, NULL);
    g_print("%s from %s: %s\n", is_error ? "ERROR" : "WARNING", GST_OBJECT_NAME(m->src),
            e->message);
    g_clear_error(&e);
    gst_message_unref(m);
    if (is_error) {
      status = 1;
      break;
    }
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(bus);
  if (sink)
    gst_object_unref(sink);
  gst_object_unref(src);
  gst_object_unref(pipeline);
  return status;
}
