// SPDX-License-Identifier: LGPL-2.1-or-later
// efupload with any GL: system-memory uploads, pass-through, tee, statistics
// and bad input. Zero-copy imports are in test_efupload_zerocopy.cpp.
#include <gst/allocators/allocators.h>
#include <gst/app/app.h>
#include <gst/ef/gstef.h>
#include <gst/gl/gl.h>
#include <unistd.h>

#include "check_gl_main.hpp"
#include "frames.hpp"
#include "gap_frames.hpp"
#include "harness.hpp"
#include "short_fds.hpp"

using namespace ef::test;

namespace {

constexpr GstVideoFormat kFormats[] = {
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YUY2,
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx,
    GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGB,  GST_VIDEO_FORMAT_GRAY8,
};

GstVideoInfo info_of(GstVideoFormat format, guint w = 64, guint h = 48) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, w, h);
  return info;
}

GstHarness *upload_harness(const GstVideoInfo &info, const char *in_feature = nullptr) {
  // Forced through GL: with system memory on both sides efupload passes through.
  GstHarness *h =
      gst_harness_new_parse("efupload name=up ! video/x-raw(memory:GLMemory) ! gldownload");
  gst_harness_set_caps(h, caps_for(info, in_feature), caps_for(info));
  return h;
}

// Pushes a frame expected to be refused; returns the error posted.
std::string push_bad(const GstVideoInfo &caps_info, GstBuffer *bad) {
  GstHarness *h = upload_harness(caps_info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  GstBus *bus = attach_bus(h);
  GstFlowReturn ret = gst_harness_push(h, bad);
  std::string error = pop_error(bus);
  fail_unless_equals_int(ret, GST_FLOW_ERROR);
  // The element stays usable: a good frame after the bad one comes out right.
  GstBuffer *good = memfd_frame(caps_info, 9);
  fail_unless_equals_int(gst_harness_push(h, good), GST_FLOW_OK);
  GstBuffer *out = gst_harness_try_pull(h);
  fail_unless(out != nullptr);
  std::string bad_pixels = check_buffer(out, caps_info, 9);
  fail_unless(bad_pixels.empty(), "%s", bad_pixels.c_str());
  gst_buffer_unref(out);
  release_bus(bus);
  gst_harness_teardown(h);
  return error;
}

}  // namespace

// System memory: every format uploaded into pooled textures, exact, counted
// as a decline and an upload.
GST_START_TEST(test_round_trip_system_memory) {
  for (GstVideoFormat format : kFormats) {
    GstVideoInfo info = info_of(format);
    GstHarness *h = upload_harness(info);
    GstElement *up = harness_element(h, "up");
    for (uint32_t seed = 1; seed <= 3; ++seed) {
      fail_unless_equals_int(gst_harness_push(h, system_frame(info, seed)), GST_FLOW_OK);
      GstBuffer *out = gst_harness_try_pull(h);
      fail_unless(out != nullptr);
      std::string bad = check_buffer(out, info, seed);
      fail_unless(bad.empty(), "%s: %s", GST_VIDEO_INFO_NAME(&info), bad.c_str());
      gst_buffer_unref(out);
    }
    fail_unless_equals_uint64(stat(up, "uploads"), 3);
    fail_unless_equals_uint64(stat(up, "declines"), 3);
    fail_unless_equals_uint64(stat(up, "bytes-copied"), 3 * info.size);
    fail_unless_equals_uint64(stat(up, "imports"), 0);
    gst_harness_teardown(h);
  }
}
GST_END_TEST;

// Padded strides and rows (as decoders allocate) from GstVideoMeta.
GST_START_TEST(test_padded_system_memory) {
  GstVideoInfo caps_info = info_of(GST_VIDEO_FORMAT_NV12, 64, 48);
  GstVideoInfo padded = padded_info(GST_VIDEO_FORMAT_NV12, 64, 48, 32, 8);
  GstHarness *h = upload_harness(caps_info);
  fail_unless_equals_int(gst_harness_push(h, system_frame(padded, 4)), GST_FLOW_OK);
  GstBuffer *out = gst_harness_try_pull(h);
  std::string bad = check_buffer(out, caps_info, 4);
  fail_unless(bad.empty(), "%s", bad.c_str());
  gst_buffer_unref(out);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Downstream takes the input memory as it is: the same memory comes out,
// with its identity attached.
GST_START_TEST(test_pass_through_attaches_identity) {
  GstVideoInfo info = info_of(GST_VIDEO_FORMAT_RGBA);
  GstHarness *h = gst_harness_new_parse("efupload");
  gst_harness_set_caps(h, caps_for(info, GST_CAPS_FEATURE_MEMORY_DMABUF),
                       caps_for(info, GST_CAPS_FEATURE_MEMORY_DMABUF));
  GstBuffer *in = memfd_frame(info, 2);
  GstMemory *mem = gst_buffer_peek_memory(in, 0);
  GstEfIdentity expected;
  fail_unless(gst_ef_memory_get_identity(mem, &expected, nullptr));
  fail_unless_equals_int(gst_harness_push(h, in), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull(h);
  fail_unless(gst_buffer_peek_memory(out, 0) == mem);
  GstEfIdentityMeta *meta = gst_buffer_get_ef_identity_meta(out);
  fail_unless(meta != nullptr);
  fail_unless_equals_uint64(meta->identities[0].id, expected.id);
  gst_buffer_unref(out);
  gst_harness_teardown(h);
}
GST_END_TEST;

static guint count_identity_metas(GstBuffer *buffer) {
  guint n = 0;
  gpointer state = nullptr;
  while (GstMeta *meta =
             gst_buffer_iterate_meta_filtered(buffer, &state, GST_EF_IDENTITY_META_API_TYPE))
    n += meta != nullptr;
  return n;
}

// A frame that already carries its identity passes through untouched: one
// meta, the same buffer.
GST_START_TEST(test_pass_through_keeps_one_identity) {
  GstVideoInfo info = info_of(GST_VIDEO_FORMAT_RGBA);
  GstHarness *h = gst_harness_new_parse("efupload");
  gst_harness_set_caps(h, caps_for(info, GST_CAPS_FEATURE_MEMORY_DMABUF),
                       caps_for(info, GST_CAPS_FEATURE_MEMORY_DMABUF));
  GstBuffer *in = memfd_frame(info, 2);
  fail_unless(gst_buffer_add_ef_identity_meta(in, nullptr) != nullptr);
  fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(in)), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull(h);
  fail_unless(out == in);
  fail_unless_equals_int(count_identity_metas(out), 1);
  gst_buffer_unref(out);
  gst_buffer_unref(in);
  gst_harness_teardown(h);
}
GST_END_TEST;

// tee into two branches, each with its own efupload: both exact.
GST_START_TEST(test_tee_two_uploads) {
  GstElement *pipeline = gst_parse_launch(
      "appsrc name=src format=time ! tee name=t "
      "t. ! queue ! efupload ! gldownload ! video/x-raw,format=NV12 ! appsink name=a sync=false "
      "t. ! queue ! efupload ! gldownload ! video/x-raw,format=NV12 ! appsink name=b sync=false",
      nullptr);
  fail_unless(pipeline != nullptr);
  GstVideoInfo info = info_of(GST_VIDEO_FORMAT_NV12);
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstCaps *caps = caps_for(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  g_object_set(src, "caps", caps, nullptr);
  gst_caps_unref(caps);
  fail_unless(gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    GstBuffer *buf = memfd_frame(info, seed);
    GST_BUFFER_PTS(buf) = seed * GST_MSECOND;
    fail_unless_equals_int(gst_app_src_push_buffer(GST_APP_SRC(src), buf), GST_FLOW_OK);
  }
  for (const char *name : {"a", "b"}) {
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), name);
    for (uint32_t seed = 1; seed <= 6; ++seed) {
      GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND);
      fail_unless(sample != nullptr, "branch %s: no frame %u", name, seed);
      std::string bad = check_buffer(gst_sample_get_buffer(sample), info, seed);
      fail_unless(bad.empty(), "branch %s frame %u: %s", name, seed, bad.c_str());
      gst_sample_unref(sample);
    }
    gst_object_unref(sink);
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(pipeline);
}
GST_END_TEST;

// On EOS the statistics go to the bus as an element message.
GST_START_TEST(test_stats_message_on_eos) {
  GstVideoInfo info = info_of(GST_VIDEO_FORMAT_RGBA);
  GstHarness *h = upload_harness(info);
  GstBus *bus = attach_bus(h);
  for (uint32_t seed = 1; seed <= 2; ++seed) {
    fail_unless_equals_int(gst_harness_push(h, system_frame(info, seed)), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(h));
  }
  fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
  const GstStructure *stats = nullptr;
  GstMessage *msg;
  while ((msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT))) {
    if (gst_message_has_name(msg, "efupload-stats")) {
      stats = gst_message_get_structure(msg);
      guint64 frames = 0, uploads = 0;
      fail_unless(gst_structure_get_uint64(stats, "frames", &frames));
      fail_unless(gst_structure_get_uint64(stats, "uploads", &uploads));
      fail_unless_equals_uint64(frames, 2);
      fail_unless_equals_uint64(uploads, 2);
      for (const char *field : {"hits", "misses", "evictions", "uncached", "refusals", "declines",
                                "imports", "bytes-copied"})
        fail_unless(gst_structure_has_field(stats, field), "no %s", field);
    }
    gst_message_unref(msg);
    if (stats)
      break;
  }
  fail_unless(stats != nullptr, "no efupload-stats message");
  GstStructure *prop = nullptr;
  g_object_get(harness_element(h, "up"), "stats", &prop, nullptr);
  fail_unless(prop != nullptr);
  fail_unless(gst_structure_has_field(prop, "hits"));
  gst_structure_free(prop);
  release_bus(bus);
  gst_harness_teardown(h);
}
GST_END_TEST;

GST_START_TEST(test_truncated_buffer) {
  GstVideoInfo info = info_of(GST_VIDEO_FORMAT_NV12);
  GstVideoInfo small = info_of(GST_VIDEO_FORMAT_NV12, 64, 24);  // half the rows
  GstBuffer *bad = memfd_frame(small, 1);
  gst_buffer_remove_all_memory(bad);  // keep no meta lying about the size
  gst_buffer_unref(bad);
  bad = gst_buffer_new();
  GstAllocator *alloc = gst_fd_allocator_new();
  int fd = make_memfd("short", small.size);
  gst_buffer_append_memory(bad,
                           gst_fd_allocator_alloc(alloc, fd, small.size, GST_FD_MEMORY_FLAG_NONE));
  gst_object_unref(alloc);
  std::string error = push_bad(info, bad);
  fail_unless(error.find("truncated") != std::string::npos, "%s", error.c_str());
}
GST_END_TEST;

GST_START_TEST(test_stride_smaller_than_row) {
  GstVideoInfo info = info_of(GST_VIDEO_FORMAT_RGBA);
  GstBuffer *bad = memfd_frame(info, 1);
  GstVideoMeta *meta = gst_buffer_get_video_meta(bad);
  meta->stride[0] = 100;  // a row of 64 RGBA pixels is 256 bytes
  std::string error = push_bad(info, bad);
  fail_unless(error.find("stride 100 is smaller than a row of 256 bytes") != std::string::npos,
              "%s", error.c_str());
}
GST_END_TEST;

GST_START_TEST(test_plane_offset_past_end) {
  GstVideoInfo info = info_of(GST_VIDEO_FORMAT_NV12);
  GstBuffer *bad = memfd_frame(info, 1);
  gst_buffer_get_video_meta(bad)->offset[1] = info.size + 4096;
  std::string error = push_bad(info, bad);
  fail_unless(error.find("past the end") != std::string::npos, "%s", error.c_str());
}
GST_END_TEST;

GST_START_TEST(test_closed_fd) {
  GstVideoInfo info = info_of(GST_VIDEO_FORMAT_RGBA);
  int fd = make_memfd("closed", info.size);
  GstBuffer *bad = fd_frame(fd, info, 1);  // the memory does not own the fd
  close(fd);
  std::string error = push_bad(info, bad);
  fail_unless(error.find("Cannot read the input frame") != std::string::npos, "%s", error.c_str());
}
GST_END_TEST;

// Frames whose fd is no buffer (/dev/null, a disk file holding a real frame,
// a pipe) are refused by name, never imported or copied; the next memfd
// frame comes out exact. NV12 of rows that are no multiple of 16.
GST_START_TEST(test_not_a_buffer_refused) {
  GstVideoInfo info = info_of(GST_VIDEO_FORMAT_NV12, 62, 46);
  GstHarness *h = upload_harness(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  expect_not_a_buffer_refused(h, info, [&](uint32_t seed) {
    fail_unless_equals_int(gst_harness_push(h, memfd_frame(info, seed)), GST_FLOW_OK);
    GstBuffer *out = gst_harness_try_pull(h);
    fail_unless(out != nullptr, "no output for the good frame %u", seed);
    std::string bad = check_buffer(out, info, seed);
    fail_unless(bad.empty(), "good frame %u: %s", seed, bad.c_str());
    gst_buffer_unref(out);
  });
  gst_harness_teardown(h);
}
GST_END_TEST;

// The copy path (RGB has no import on llvmpipe; a 0-byte memfd has no
// identity): a memfd shorter than its memory claims is refused by name
// before the copy (which was a SIGBUS), by the max-errors rule; later frames
// come out exact.
GST_START_TEST(test_short_fds_refused) {
  for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_NV12}) {
    GstVideoInfo info = info_of(format);
    GstHarness *h = upload_harness(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
    expect_short_fds_refused(h, harness_element(h, "up"), info, [&](uint32_t seed) {
      fail_unless_equals_int(gst_harness_push(h, memfd_frame(info, seed)), GST_FLOW_OK);
      GstBuffer *out = gst_harness_try_pull(h);
      fail_unless(out != nullptr, "no output for the good frame %u", seed);
      std::string bad = check_buffer(out, info, seed);
      fail_unless(bad.empty(), "%s, good frame %u: %s", GST_VIDEO_INFO_NAME(&info), seed,
                  bad.c_str());
      gst_buffer_unref(out);
    });
    gst_harness_teardown(h);
  }
}
GST_END_TEST;

// GAP buffers into GL go on as gap events in order with the frames, never a
// bad frame; pass-through hands them on as they came.
GST_START_TEST(test_gap_buffers) {
  const GstVideoInfo info = info_of(GST_VIDEO_FORMAT_NV12);
  GstHarness *h = upload_harness(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  expect_gaps_forwarded(
      h, harness_element(h, "up"), [&](uint32_t seed) { return memfd_frame(info, seed); },
      [&](GstBuffer *out, uint32_t seed) {
        const std::string bad = check_buffer(out, info, seed);
        fail_unless(bad.empty(), "frame %u: %s", seed, bad.c_str());
      });
  gst_harness_teardown(h);
  GstHarness *pass = gst_harness_new("efupload");
  gst_harness_set_caps(pass, caps_for(info), caps_for(info));
  GstBuffer *gap = gst_buffer_new();
  GST_BUFFER_FLAG_SET(gap, GST_BUFFER_FLAG_GAP);
  GST_BUFFER_PTS(gap) = 0;
  fail_unless_equals_int(gst_harness_push(pass, gap), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull(pass);
  fail_unless(out != nullptr && GST_BUFFER_FLAG_IS_SET(out, GST_BUFFER_FLAG_GAP));
  gst_buffer_unref(out);
  gst_harness_teardown(pass);
}
GST_END_TEST;

// A format efupload does not take: negotiation fails with an error on the
// bus naming it, not a crash.
GST_START_TEST(test_unsupported_format) {
  GstElement *pipeline =
      gst_parse_launch("appsrc name=src format=time ! efupload ! fakesink", nullptr);
  fail_unless(pipeline != nullptr);
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstVideoInfo info = info_of(GST_VIDEO_FORMAT_AYUV64);
  GstCaps *caps = caps_for(info);
  g_object_set(src, "caps", caps, nullptr);
  gst_caps_unref(caps);
  GstBus *bus = gst_element_get_bus(pipeline);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  gst_app_src_push_buffer(GST_APP_SRC(src), system_frame(info, 1));
  GstMessage *msg = gst_bus_timed_pop_filtered(bus, 10 * GST_SECOND,
                                               GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  fail_unless(msg != nullptr);
  fail_unless_equals_int(GST_MESSAGE_TYPE(msg), GST_MESSAGE_ERROR);
  GError *error = nullptr;
  gchar *debug = nullptr;
  gst_message_parse_error(msg, &error, &debug);
  std::string text = std::string(error->message) + " " + (debug ? debug : "");
  fail_unless(text.find("not-negotiated") != std::string::npos, "%s", text.c_str());
  g_error_free(error);
  g_free(debug);
  gst_message_unref(msg);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
}
GST_END_TEST;

namespace {

// A memfd half the size the caps need, without a GstVideoMeta to blame.
GstBuffer *truncated_frame(const GstVideoInfo &info) {
  GstBuffer *bad = gst_buffer_new();
  GstAllocator *alloc = gst_fd_allocator_new();
  int fd = make_memfd("short", info.size / 2);
  gst_buffer_append_memory(
      bad, gst_fd_allocator_alloc(alloc, fd, info.size / 2, GST_FD_MEMORY_FLAG_NONE));
  gst_object_unref(alloc);
  return bad;
}

// `n_bad` truncated frames under max-errors, then a good frame that must
// come out right.
void upload_max_errors(gint max_errors, int n_bad) {
  GstVideoInfo info = info_of(GST_VIDEO_FORMAT_NV12);
  GstHarness *h = upload_harness(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  GstBus *bus = attach_bus(h);
  push_bad_frames(
      h, harness_element(h, "up"), bus, max_errors, n_bad, [&] { return truncated_frame(info); },
      "Invalid input frame: buffer is truncated");
  fail_unless_equals_int(gst_harness_push(h, memfd_frame(info, 9)), GST_FLOW_OK);
  GstBuffer *out = gst_harness_try_pull(h);
  fail_unless(out != nullptr, "the good frame after the bad ones did not come out");
  std::string bad_pixels = check_buffer(out, info, 9);
  fail_unless(bad_pixels.empty(), "%s", bad_pixels.c_str());
  gst_buffer_unref(out);
  gst_object_unref(bus);
  gst_harness_teardown(h);
}

// What efupload says in its log at INFO, while a test runs.
struct InfoLog {
  std::string text;
  static void collect(GstDebugCategory *category, GstDebugLevel level, const gchar *, const gchar *,
                      gint, GObject *, GstDebugMessage *message, gpointer data) {
    if (level == GST_LEVEL_INFO && std::string(gst_debug_category_get_name(category)) == "efupload")
      static_cast<InfoLog *>(data)->text += std::string(gst_debug_message_get(message)) + "\n";
  }
  InfoLog() {
    gst_debug_set_threshold_for_name("efupload", GST_LEVEL_INFO);
    gst_debug_add_log_function(collect, this, nullptr);
  }
  ~InfoLog() { gst_debug_remove_log_function_by_data(this); }
};

// System memory in and out: pass-through, counted per frame and explained.
void expect_pass_through(const char *launch, const char *why) {
  InfoLog log;
  GstVideoInfo info = info_of(GST_VIDEO_FORMAT_RGBA);
  GstHarness *h = gst_harness_new_parse(launch);
  gst_harness_set_caps(h, caps_for(info), caps_for(info));
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    fail_unless_equals_int(gst_harness_push(h, system_frame(info, seed)), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(h));
  }
  GstElement *up = harness_element(h, "up");
  fail_unless_equals_uint64(stat(up, "passthrough"), 3);
  fail_unless_equals_uint64(stat(up, "uploads"), 0);
  fail_unless_equals_uint64(stat(up, "imports"), 0);
  GstStructure *stats = nullptr;
  g_object_get(up, "stats", &stats, nullptr);
  guint64 in_structure = 0;
  fail_unless(gst_structure_get_uint64(stats, "passthrough", &in_structure));
  fail_unless_equals_uint64(in_structure, 3);
  gst_structure_free(stats);
  fail_unless(log.text.find("pass-through") != std::string::npos, "log: %s", log.text.c_str());
  fail_unless(log.text.find(why) != std::string::npos, "log: %s", log.text.c_str());
  gst_harness_teardown(h);
}

// Caps of a size no element can describe (GstVideoInfo cannot), through
// `launch`: refused at negotiation with the limit named.
void expect_size_refused(const char *launch, const char *memory, const char *says) {
  GstHarness *h = gst_harness_new_parse(launch);
  const std::string out = std::string("video/x-raw") + memory +
                          ", format=RGBA, width=100000, height=100000, framerate=30/1";
  expect_caps_refused(h, "video/x-raw, format=RGBA, width=100000, height=100000, framerate=30/1",
                      out.c_str(), says);
  gst_harness_teardown(h);
}

}  // namespace

// Default max-errors 0: the bad frame is an error; the next good one converts.
GST_START_TEST(test_max_errors_default) {
  upload_max_errors(0, 1);
}
GST_END_TEST;

// max-errors 2: two warnings and drops, the third bad frame in a row an error.
GST_START_TEST(test_max_errors_two) {
  upload_max_errors(2, 3);
}
GST_END_TEST;

// max-errors -1: never an error.
GST_START_TEST(test_max_errors_never) {
  upload_max_errors(-1, 6);
}
GST_END_TEST;

GST_START_TEST(test_pass_through_without_gl_downstream) {
  expect_pass_through("efupload name=up", "downstream does not accept GL memory");
}
GST_END_TEST;

// gldownload takes GL memory but prefers system memory as it is.
GST_START_TEST(test_pass_through_before_gldownload) {
  expect_pass_through("efupload name=up ! gldownload", "pass-through, no upload or import");
}
GST_END_TEST;

GST_START_TEST(test_size_beyond_gl_limit) {
  expect_size_refused("efupload name=up ! video/x-raw(memory:GLMemory) ! gldownload",
                      "(memory:GLMemory)",
                      "width 100000 exceeds this GL context's maximum texture size");
}
GST_END_TEST;

GST_START_TEST(test_size_beyond_pass_through_limit) {
  expect_size_refused("efupload name=up", "",
                      "width 100000 exceeds the CPU path's maximum frame side 16384");
}
GST_END_TEST;

// Caps beyond the limit in gst-launch-1.0: the line links and the first
// error names the limit, from efupload.
GST_START_TEST(test_size_limit_in_gst_launch) {
  for (const char *size : {"width=17000,height=16", "width=100000,height=100000"}) {
    const std::string line = std::string("videotestsrc num-buffers=1 ! video/x-raw,") + size +
                             " ! efupload name=u ! fakesink";
    const std::string error = launch_error(line.c_str());
    fail_unless(
        error.rfind("u: u cannot take these frames: width ", 0) == 0 &&
            error.find("exceeds the CPU path's maximum frame side 16384") != std::string::npos,
        "%s: %s", size, error.c_str());
  }
}
GST_END_TEST;

// A refusal at set_caps is one ERROR on the bus, though the pad sends the
// refused caps again before every frame (each a set_caps); a new run says
// it again. YUY2 of odd width cannot become a GL texture.
GST_START_TEST(test_refusal_posted_once) {
  const GstVideoInfo odd = info_of(GST_VIDEO_FORMAT_YUY2, 33, 16);
  GstHarness *h =
      gst_harness_new_parse("efupload name=up ! video/x-raw(memory:GLMemory) ! gldownload");
  GstBus *bus = attach_bus(h);  // before the caps: their first refusal counts
  for (int run = 0; run < 2; ++run) {
    gst_harness_set_caps(h, caps_for(odd), caps_for(odd));
    for (int frame = 0; frame < 3; ++frame)
      fail_unless_equals_int(
          gst_harness_push(h, gst_buffer_new_allocate(nullptr, odd.size, nullptr)),
          GST_FLOW_NOT_NEGOTIATED);
    int errors = 0;
    for (std::string e; !(e = pop_error(bus)).empty(); ++errors)
      fail_unless(e.find("YUY2 of odd width 33") != std::string::npos, "%s", e.c_str());
    fail_unless_equals_int(errors, 1);
    gst_element_set_state(h->element, GST_STATE_NULL);  // a new run: said again
    gst_element_set_state(h->element, GST_STATE_PLAYING);
  }
  release_bus(bus);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Once efupload has its GL context, what it answers upstream for GL output
// carries the context's texture limit.
GST_START_TEST(test_caps_carry_gl_limit) {
  GstVideoInfo info = info_of(GST_VIDEO_FORMAT_RGBA);
  // No GL element and no caps on the harness's sink: downstream takes GL
  // memory of any size, and only efupload knows the limit.
  GstHarness *h =
      gst_harness_new_parse("efupload name=up ! capsfilter caps=\"video/x-raw(memory:GLMemory)\"");
  gst_harness_set_src_caps(h, caps_for(info));
  fail_unless_equals_int(gst_harness_push(h, system_frame(info, 1)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));
  GstPad *sink = gst_element_get_static_pad(harness_element(h, "up"), "sink");
  expect_bounded_sides(sink, "video/x-raw, format=RGBA");
  gst_object_unref(sink);
  gst_harness_teardown(h);
}
GST_END_TEST;

static Suite *upload_suite() {
  Suite *s = suite_create("efupload");
  TCase *tc = tcase_create("gl");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_round_trip_system_memory);
  tcase_add_test(tc, test_padded_system_memory);
  tcase_add_test(tc, test_pass_through_attaches_identity);
  tcase_add_test(tc, test_pass_through_keeps_one_identity);
  tcase_add_test(tc, test_tee_two_uploads);
  tcase_add_test(tc, test_stats_message_on_eos);
  tcase_add_test(tc, test_truncated_buffer);
  tcase_add_test(tc, test_stride_smaller_than_row);
  tcase_add_test(tc, test_plane_offset_past_end);
  tcase_add_test(tc, test_closed_fd);
  tcase_add_test(tc, test_not_a_buffer_refused);
  tcase_add_test(tc, test_unsupported_format);
  tcase_add_test(tc, test_short_fds_refused);
  tcase_add_test(tc, test_gap_buffers);
  tcase_add_test(tc, test_refusal_posted_once);
  tcase_add_test(tc, test_max_errors_default);
  tcase_add_test(tc, test_max_errors_two);
  tcase_add_test(tc, test_max_errors_never);
  tcase_add_test(tc, test_pass_through_without_gl_downstream);
  tcase_add_test(tc, test_pass_through_before_gldownload);
  tcase_add_test(tc, test_size_beyond_gl_limit);
  tcase_add_test(tc, test_size_beyond_pass_through_limit);
  tcase_add_test(tc, test_size_limit_in_gst_launch);
  tcase_add_test(tc, test_caps_carry_gl_limit);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  return run_gl_suite(argc, argv, upload_suite, Needs::Gl);
}
