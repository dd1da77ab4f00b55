// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gap_frames.hpp"

#include <gst/check/gstcheck.h>

#include <string>

#include "frames.hpp"
#include "harness.hpp"

namespace ef::test {

namespace {

constexpr GstClockTime kFrame = 40 * GST_MSECOND;

std::string time_text(GstClockTime t) {
  gchar *text = g_strdup_printf("%" GST_TIME_FORMAT, GST_TIME_ARGS(t));
  std::string s = text;
  g_free(text);
  return s;
}

// Buffers and gap events leaving a pad, in order, one a line.
GstPadProbeReturn record(GstPad *, GstPadProbeInfo *info, gpointer data) {
  auto &sent = *static_cast<std::string *>(data);
  if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER) {
    sent += "buffer " + time_text(GST_BUFFER_PTS(GST_PAD_PROBE_INFO_BUFFER(info))) + "\n";
  } else if (GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
             GST_EVENT_TYPE(event) == GST_EVENT_GAP) {
    GstClockTime at, duration;
    gst_event_parse_gap(event, &at, &duration);
    sent += "gap " + time_text(at) + "+" + time_text(duration) + "\n";
  }
  return GST_PAD_PROBE_OK;
}

GstBuffer *timed(GstBuffer *buffer, guint index, bool gap) {
  GST_BUFFER_PTS(buffer) = index * kFrame;
  GST_BUFFER_DURATION(buffer) = kFrame;
  if (gap)
    GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_GAP);
  return buffer;
}

}  // namespace

void expect_gaps_forwarded(GstHarness *h, GstElement *element,
                           const std::function<GstBuffer *(uint32_t seed)> &frame,
                           const std::function<void(GstBuffer *out, uint32_t seed)> &check) {
  GstBus *bus = attach_bus(h);
  std::string sent;
  GstPad *src = gst_element_get_static_pad(element, "src");
  const gulong probe = gst_pad_add_probe(
      src, GstPadProbeType(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM), record,
      &sent, nullptr);
  const guint64 dropped = stat(element, "dropped");
  auto good = [&](guint index) {
    fail_unless_equals_int(gst_harness_push(h, timed(frame(index + 1), index, false)), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull(h);
    fail_unless(out != nullptr, "no output for frame %u", index);
    check(out, index + 1);
    gst_buffer_unref(out);
  };
  good(0);
  for (GstBuffer *gap : {gst_buffer_new(), frame(3)}) {
    const guint index = gst_buffer_get_size(gap) ? 2 : 1;
    fail_unless_equals_int(gst_harness_push(h, timed(gap, index, true)), GST_FLOW_OK);
    fail_unless(gst_harness_try_pull(h) == nullptr, "the GAP buffer at %u came out", index);
  }
  good(3);
  good(4);
  const std::string error = pop_error(bus);
  fail_unless(error.empty(), "an error: %s", error.c_str());
  fail_unless_equals_uint64(stat(element, "dropped"), dropped);
  const std::string expected =
      "buffer 0:00:00.000000000\n"
      "gap 0:00:00.040000000+0:00:00.040000000\n"
      "gap 0:00:00.080000000+0:00:00.040000000\n"
      "buffer 0:00:00.120000000\n"
      "buffer 0:00:00.160000000\n";
  fail_unless(sent == expected, "sent:\n%s", sent.c_str());
  gst_pad_remove_probe(src, probe);
  gst_object_unref(src);
  release_bus(bus);
}

void expect_convert_gaps_forwarded(const std::string &props, const char *out_caps) {
  GstVideoInfo in;
  gst_video_info_set_format(&in, GST_VIDEO_FORMAT_NV12, 64, 48);
  GstHarness *h = convert_harness_to(props, in, out_caps);
  GstHarness *fresh = convert_harness_to(props, in, out_caps);
  expect_gaps_forwarded(
      h, harness_element(h, "conv"), [&](uint32_t seed) { return memfd_frame(in, seed); },
      [&](GstBuffer *out, uint32_t seed) {
        fail_unless(buffer_bytes(out) == converted_bytes(fresh, in, seed),
                    "%s to %s: frame %u differs from a fresh element's", props.c_str(),
                    out_caps ? out_caps : "its input caps", seed);
      });
  gst_harness_teardown(fresh);
  gst_harness_teardown(h);
}

}  // namespace ef::test
