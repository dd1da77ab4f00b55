// SPDX-License-Identifier: LGPL-2.1-or-later
// The inputs users meet, as an element, on both backends: the formats of
// 10-bit decoders (and their 12- and 16-bit, 4:2:2 and 4:4:4 kin)
// negotiate from a real upstream and convert; a format efconvert does not
// read is named (a log line for a caps query, a WARNING for refused caps);
// interlaced caps are refused with a message naming them and deinterlace,
// in both field orders; in a mixed stream progressive frames convert and
// frames flagged interlaced go by the max-errors rule. Pixel accuracy of
// deep sources is tested in test_cpu_converter.cpp, test_gl_converter.cpp
// and test_convert_quality.cpp.
#include <gst/app/app.h>
#include <gst/check/gstcheck.h>
#include <gst/ef/gstef.h>

#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "check_gl_main.hpp"
#include "frames.hpp"
#include "harness.hpp"

using namespace ef::test;

namespace {

constexpr const char *kBackends[] = {"cpu", "gl"};

// The deep formats a decoder hands on: NVDEC and VA P010, avdec and libvpx
// I420_10LE, Rockchip's NV12_10LE40; and kin of other depths and chroma.
constexpr GstVideoFormat kDeep[] = {
    GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_NV12_10LE40,
    GST_VIDEO_FORMAT_P012_LE,   GST_VIDEO_FORMAT_P016_LE,   GST_VIDEO_FORMAT_I420_12LE,
    GST_VIDEO_FORMAT_I422_10LE, GST_VIDEO_FORMAT_I422_12LE, GST_VIDEO_FORMAT_Y444_10LE,
    GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_Y444_16LE,
};

GstVideoInfo info_of(GstVideoFormat format, guint w, guint h) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, w, h);
  return info;
}

double psnr(GstBuffer *a, GstBuffer *b, const GstVideoInfo &info) {
  GstVideoFrame fa, fb;
  GstVideoInfo ia = info, ib = info;
  fail_unless(gst_video_frame_map(&fa, &ia, a, GST_MAP_READ));
  fail_unless(gst_video_frame_map(&fb, &ib, b, GST_MAP_READ));
  const double db = frame_psnr(&fa, &fb);
  gst_video_frame_unmap(&fa);
  gst_video_frame_unmap(&fb);
  return std::min(db, 99.0);
}

// Smooth colour (slow waves in R, G and B) converted into `info` by
// GstVideoConverter, in system memory or a memfd.
GstBuffer *smooth_frame(const GstVideoInfo &info, bool memfd) {
  const gint w = GST_VIDEO_INFO_WIDTH(&info), h = GST_VIDEO_INFO_HEIGHT(&info);
  GstVideoInfo rgb_info = info_of(GST_VIDEO_FORMAT_RGB, guint(w), guint(h));
  GstBuffer *rgb = gst_buffer_new_allocate(nullptr, rgb_info.size, nullptr);
  GstVideoFrame in, out;
  fail_unless(gst_video_frame_map(&in, &rgb_info, rgb, GST_MAP_WRITE));
  for (gint y = 0; y < h; ++y)
    for (gint x = 0; x < w; ++x)
      for (gint c = 0; c < 3; ++c)
        static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(
            &in, 0))[y * GST_VIDEO_FRAME_PLANE_STRIDE(&in, 0) + 3 * x + c] =
            guint8(128 + 90 * std::sin(0.05 * x + 0.03 * y + 2.1 * c));
  GstBuffer *buf = memfd ? memfd_frame(info, 0) : system_frame(info, 0);
  GstVideoInfo copy = info;
  fail_unless(gst_video_frame_map(&out, &copy, buf, GST_MAP_WRITE));
  GstVideoConverter *converter = gst_video_converter_new(&rgb_info, &copy, nullptr);
  gst_video_converter_frame(converter, &in, &out);
  gst_video_converter_free(converter);
  gst_video_frame_unmap(&out);
  gst_video_frame_unmap(&in);
  gst_buffer_unref(rgb);
  return buf;
}

// `in` to RGB of its size by GstVideoConverter: the reference.
GstBuffer *reference_rgb(GstBuffer *in, const GstVideoInfo &in_info, const GstVideoInfo &out) {
  GstBuffer *buf = gst_buffer_new_allocate(nullptr, out.size, nullptr);
  GstVideoFrame src, dst;
  GstVideoInfo si = in_info, di = out;
  fail_unless(gst_video_frame_map(&src, &si, in, GST_MAP_READ));
  fail_unless(gst_video_frame_map(&dst, &di, buf, GST_MAP_WRITE));
  GstVideoConverter *converter = gst_video_converter_new(&si, &di, nullptr);
  gst_video_converter_frame(converter, &src, &dst);
  gst_video_converter_free(converter);
  gst_video_frame_unmap(&dst);
  gst_video_frame_unmap(&src);
  return buf;
}

std::string message_text(GstMessage *msg) {
  GError *error = nullptr;
  gchar *debug = nullptr;
  if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR)
    gst_message_parse_error(msg, &error, &debug);
  else
    gst_message_parse_warning(msg, &error, &debug);
  std::string text = error ? error->message : "";
  g_clear_error(&error);
  g_free(debug);
  return text;
}

// The texts of every message of `type` on `bus`, the rest dropped.
std::vector<std::string> pop_all(GstBus *bus, GstMessageType type) {
  std::vector<std::string> texts;
  while (GstMessage *msg = gst_bus_pop(bus)) {
    if (GST_MESSAGE_TYPE(msg) == type)
      texts.push_back(message_text(msg));
    gst_message_unref(msg);
  }
  return texts;
}

bool contains_all(const std::string &text, std::initializer_list<const char *> parts) {
  for (const char *part : parts)
    if (text.find(part) == std::string::npos)
      return false;
  return true;
}

}  // namespace

// From videotestsrc (whose caps query found nothing in efconvert before),
// each deep format negotiates and converts, on both backends, within 38 dB
// of GstVideoConverter at the same size.
GST_START_TEST(test_deep_formats_negotiate) {
  for (const char *backend : kBackends)
    for (GstVideoFormat format : kDeep) {
      const std::string name = gst_video_format_to_string(format);
      const std::string launch =
          "videotestsrc num-buffers=1 pattern=colors ! video/x-raw,format=" + name +
          ",width=98,height=66 ! tee name=t t. ! queue ! efconvert backend=" + backend +
          " ! video/x-raw,format=RGB ! appsink name=ours sync=false t. ! queue ! videoconvert ! "
          "video/x-raw,format=RGB ! appsink name=ref sync=false";
      GError *error = nullptr;
      GstElement *pipeline = gst_parse_launch(launch.c_str(), &error);
      fail_unless(pipeline != nullptr, "%s", error ? error->message : "");
      gst_element_set_state(pipeline, GST_STATE_PLAYING);
      GstSample *samples[2] = {};
      const char *sinks[2] = {"ours", "ref"};
      for (int i = 0; i < 2; ++i) {
        GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), sinks[i]);
        samples[i] = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 30 * GST_SECOND);
        gst_object_unref(sink);
      }
      GstBus *bus = gst_element_get_bus(pipeline);
      GstMessage *msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
      const std::string problem = msg ? message_text(msg) : "no error";
      fail_unless(samples[0] && samples[1], "%s on %s: no frame: %s", name.c_str(), backend,
                  problem.c_str());
      GstVideoInfo out;
      fail_unless(gst_video_info_from_caps(&out, gst_sample_get_caps(samples[0])));
      const double db =
          psnr(gst_sample_get_buffer(samples[0]), gst_sample_get_buffer(samples[1]), out);
      std::printf("%s on %s: %.1f dB from videoconvert\n", name.c_str(), backend, db);
      fail_unless(db >= 38.0, "%s on %s: %.1f dB from videoconvert", name.c_str(), backend, db);
      if (msg)
        gst_message_unref(msg);
      gst_object_unref(bus);
      for (GstSample *s : samples)
        gst_sample_unref(s);
      gst_element_set_state(pipeline, GST_STATE_NULL);
      gst_object_unref(pipeline);
    }
}
GST_END_TEST;

// Deep frames in memfds (imported where the driver takes them, else
// uploaded) and in system memory, odd sizes and padded rows, several
// frames: each within 38 dB of GstVideoConverter.
GST_START_TEST(test_deep_frames_in_memory) {
  for (const char *backend : kBackends)
    for (GstVideoFormat format :
         {GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_NV12_10LE40})
      for (const GstVideoInfo &in : {info_of(format, 64, 48), padded_info(format, 37, 21, 3, 1)})
        for (bool memfd : {true, false}) {
          const GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGB, guint(in.width), guint(in.height));
          GstHarness *h = gst_harness_new_parse(
              (std::string("efconvert name=conv letterbox=false backend=") + backend).c_str());
          gst_harness_set_caps(h, caps_for(in), caps_for(out));
          for (int n = 0; n < 3; ++n) {
            GstBuffer *frame = smooth_frame(in, memfd);
            GstBuffer *want = reference_rgb(frame, in, out);
            fail_unless_equals_int(gst_harness_push(h, frame), GST_FLOW_OK);
            GstBuffer *got = gst_harness_pull(h);
            const double db = psnr(got, want, out);
            fail_unless(db >= 38.0, "%s %dx%d (stride %d) in %s on %s: %.1f dB",
                        gst_video_format_to_string(format), in.width, in.height, in.stride[0],
                        memfd ? "a memfd" : "system memory", backend, db);
            gst_buffer_unref(got);
            gst_buffer_unref(want);
          }
          GstElement *conv = harness_element(h, "conv");
          std::printf(
              "%s %dx%d %s on %s: uploads %" G_GUINT64_FORMAT ", src-hits %" G_GUINT64_FORMAT "\n",
              gst_video_format_to_string(format), in.width, in.height, memfd ? "memfd" : "system",
              backend, stat(conv, "uploads"), stat(conv, "src-hits"));
          gst_harness_teardown(h);
        }
}
GST_END_TEST;

namespace {

// Log lines of the efconvert category at WARNING, while installed.
struct WarningLog {
  std::mutex lock;
  std::vector<std::string> lines;

  static void collect(GstDebugCategory *category, GstDebugLevel level, const gchar *, const gchar *,
                      gint, GObject *, GstDebugMessage *message, gpointer data) {
    if (level != GST_LEVEL_WARNING ||
        std::strcmp(gst_debug_category_get_name(category), "efconvert"))
      return;
    auto *self = static_cast<WarningLog *>(data);
    std::lock_guard guard(self->lock);
    self->lines.emplace_back(gst_debug_message_get(message));
  }
  WarningLog() {
    gst_debug_set_threshold_for_name("efconvert", GST_LEVEL_WARNING);
    gst_debug_add_log_function(collect, this, nullptr);
  }
  ~WarningLog() { gst_debug_remove_log_function_by_data(this); }
  bool has(std::initializer_list<const char *> parts) {
    std::lock_guard guard(lock);
    for (const std::string &line : lines)
      if (contains_all(line, parts))
        return true;
    return false;
  }
};

}  // namespace

// A format no backend reads: a caps query that finds nothing logs the
// format and what efconvert reads; caps pushed anyway are refused with a
// WARNING saying the same, once.
GST_START_TEST(test_unread_format_named) {
  WarningLog log;
  GstHarness *h = gst_harness_new_parse("efconvert");
  GstBus *bus = attach_bus(h);
  GstCaps *filter = gst_caps_from_string("video/x-raw,format=P010_10BE,width=64,height=48");
  GstCaps *answer = gst_pad_peer_query_caps(h->srcpad, filter);
  fail_unless(gst_caps_is_empty(answer));
  gst_caps_unref(answer);
  fail_unless(log.has({"P010_10BE", "it reads", "NV12", "P010_10LE", "I420_10LE"}),
              "the caps query left no log line naming the format and what is read");
  gst_harness_set_src_caps(h, gst_caps_ref(filter));
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_P010_10BE, 64, 48);
  fail_unless_equals_int(gst_harness_push(h, system_frame(in, 1)), GST_FLOW_NOT_NEGOTIATED);
  const auto warnings = pop_all(bus, GST_MESSAGE_WARNING);
  int naming = 0;
  for (const std::string &w : warnings)
    naming += contains_all(w, {"cannot convert P010_10BE frames", "it reads", "P010_10LE"});
  fail_unless_equals_int(naming, 1);
  gst_caps_unref(filter);
  release_bus(bus);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Interlaced caps, both field orders, on both backends: refused at
// negotiation with an ERROR naming the interlace mode, the field order and
// deinterlace, never converted as one picture. Fields one a buffer
// (alternate, whose caps carry format:Interlaced and meet no pad template)
// are refused as caps with a WARNING saying the same.
GST_START_TEST(test_interlaced_caps_refused) {
  struct Interlaced {
    const char *caps, *mode, *order;
    bool at_accept;
  };
  const Interlaced cases[] = {
      {"video/x-raw,interlace-mode=interleaved,field-order=top-field-first",
       "interlace-mode=interleaved", "field-order=top-field-first", false},
      {"video/x-raw,interlace-mode=interleaved,field-order=bottom-field-first",
       "interlace-mode=interleaved", "field-order=bottom-field-first", false},
      {"video/x-raw(format:Interlaced),interlace-mode=alternate,field-order=top-field-first",
       "interlace-mode=alternate", "field-order=top-field-first", true},
  };
  for (const char *backend : kBackends)
    for (const Interlaced &c : cases) {
      GstHarness *h = gst_harness_new_parse((std::string("efconvert backend=") + backend).c_str());
      const std::string in = std::string(c.caps) + ",format=NV12,width=64,height=48,framerate=30/1";
      GstBus *bus = attach_bus(h);
      gst_harness_set_caps_str(h, in.c_str(), "video/x-raw,format=RGB,width=64,height=48");
      GstVideoInfo info = info_of(GST_VIDEO_FORMAT_NV12, 64, 48);
      fail_if(gst_harness_push(h, system_frame(info, 1)) == GST_FLOW_OK, "%s on %s converted",
              c.caps, backend);
      const auto texts = pop_all(bus, c.at_accept ? GST_MESSAGE_WARNING : GST_MESSAGE_ERROR);
      const std::string text = texts.empty() ? "nothing" : texts[0];
      fail_unless(contains_all(text, {c.mode, c.order, "progressive", "deinterlace"}),
                  "%s on %s: \"%s\"", c.caps, backend, text.c_str());
      release_bus(bus);
      gst_harness_teardown(h);
    }
}
GST_END_TEST;

namespace {

GstBuffer *flagged(GstBuffer *buf, GstBufferFlags flags) {
  GST_BUFFER_FLAG_SET(buf, flags);
  return buf;
}

}  // namespace

// interlace-mode=mixed: the output caps are progressive; progressive
// frames convert as they would in a progressive stream; a frame flagged
// interlaced (top or bottom field first) is a bad frame: an ERROR naming
// it and deinterlace by default, dropped with a WARNING under
// max-errors=-1, after which progressive frames still convert.
GST_START_TEST(test_mixed_stream) {
  const GstVideoInfo in = info_of(GST_VIDEO_FORMAT_NV12, 64, 48);
  const GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGB, 64, 48);
  const char *mixed =
      "video/x-raw,format=NV12,width=64,height=48,framerate=30/1,"
      "interlace-mode=mixed";
  const auto tff = GstBufferFlags(GST_VIDEO_BUFFER_FLAG_INTERLACED | GST_VIDEO_BUFFER_FLAG_TFF);
  const auto bff = GstBufferFlags(GST_VIDEO_BUFFER_FLAG_INTERLACED);
  for (const char *backend : kBackends) {
    GstHarness *h = gst_harness_new_parse(
        (std::string("efconvert name=conv letterbox=false backend=") + backend).c_str());
    GstBus *bus = attach_bus(h);
    gst_harness_set_caps_str(h, mixed, "video/x-raw,format=RGB,width=64,height=48");
    GstBuffer *frame = smooth_frame(in, false);
    GstBuffer *want = reference_rgb(frame, in, out);
    fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(frame)), GST_FLOW_OK);
    GstBuffer *got = gst_harness_pull(h);
    fail_unless(psnr(got, want, out) >= 38.0, "a progressive frame of a mixed stream on %s",
                backend);
    gst_buffer_unref(got);
    GstCaps *src_caps = gst_pad_get_current_caps(h->sinkpad);
    const GstStructure *s = gst_caps_get_structure(src_caps, 0);
    const char *mode = gst_structure_get_string(s, "interlace-mode");
    fail_unless(!mode || std::string(mode) == "progressive", "output caps say %s", mode);
    gst_caps_unref(src_caps);
    // Flagged: an error by default.
    fail_unless_equals_int(gst_harness_push(h, flagged(gst_buffer_copy(frame), tff)),
                           GST_FLOW_ERROR);
    const std::string error = pop_error(bus);
    fail_unless(
        contains_all(error, {"interlaced frame", "top field first", "mixed", "deinterlace"}),
        "%s: \"%s\"", backend, error.c_str());
    // Never failing: dropped with a warning, and the stream goes on.
    g_object_set(harness_element(h, "conv"), "max-errors", -1, nullptr);
    fail_unless_equals_int(gst_harness_push(h, flagged(gst_buffer_copy(frame), bff)), GST_FLOW_OK);
    fail_unless(gst_harness_try_pull(h) == nullptr, "a flagged frame came out on %s", backend);
    const auto warnings = pop_all(bus, GST_MESSAGE_WARNING);
    fail_unless(warnings.size() == 1 && contains_all(warnings[0], {"bottom field first"}),
                "%s: %zu warnings", backend, warnings.size());
    fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(frame)), GST_FLOW_OK);
    got = gst_harness_pull(h);
    fail_unless(psnr(got, want, out) >= 38.0, "progressive after a dropped one on %s", backend);
    gst_buffer_unref(got);
    gst_buffer_unref(want);
    gst_buffer_unref(frame);
    release_bus(bus);
    gst_harness_teardown(h);
  }
}
GST_END_TEST;

static Suite *inputs_suite() {
  Suite *s = suite_create("efconvert_inputs");
  TCase *tc = tcase_create("inputs");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_deep_formats_negotiate);
  tcase_add_test(tc, test_deep_frames_in_memory);
  tcase_add_test(tc, test_unread_format_named);
  tcase_add_test(tc, test_interlaced_caps_refused);
  tcase_add_test(tc, test_mixed_stream);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  return run_gl_suite(argc, argv, inputs_suite, Needs::Gl);
}
