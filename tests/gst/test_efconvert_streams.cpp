// SPDX-License-Identifier: LGPL-2.1-or-later
// Many efconvert elements in one pipeline, as with many cameras or files in
// one process: 8 branches, each an appsrc of its own frames through its own
// efconvert, every GL one on the one GL context the pipeline shares (one GL
// thread), each streaming thread converting at once. For every backend and
// readback-depth 0-4, and every way a GL frame leaves the GPU (read back
// into plain memory, rendered in place into fd memory, read back into pack
// memory as on a GPU, GL memory), and either kind of fence, each branch
// delivers each of its frames once, in order, with the bytes the same
// frames get run alone, and each element counts its own frames, read-backs
// and hand-overs.
#include <gst/allocators/allocators.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gl/gl.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "check_gl_main.hpp"
#include "frames.hpp"
#include "harness.hpp"

using namespace ef::test;

namespace {

constexpr int kStreams = 8;
constexpr int kFrames = 12;
constexpr guint kDepths = 5;  // readback-depth 0..4
constexpr GstClockTime kBound = 20 * GST_SECOND;

// How a branch's frames leave the converter.
struct Config {
  const char *what;
  const char *backend;
  const char *kind;    // EF_GL_RENDERER_KIND, or nullptr
  const char *fences;  // EF_GL_FENCES, or nullptr (GL sync objects on hardware, else EGL's)
  bool gl_memory;      // RGBA in GL memory, else RGB in plain memory
  int side;            // square output
  // Frames read back into plain memory (counted), and whether the GL
  // backend runs.
  bool reads_back;
  bool gl;
  // GL sync objects: a frame not done when it is to be pushed is waited
  // for on the GL thread, in slices of a hand-over each; else (EGL sync
  // objects, GL memory) each frame is one hand-over and no wait there.
  bool gl_sync;
};
constexpr Config kConfigs[] = {
    // Rows of 450 bytes (no multiple of 16): rendered apart, read back.
    {"gl, read back", "gl", nullptr, nullptr, false, 150, true, true, false},
    // Rows of 480 bytes: rendered in place into efconvert's memfd pool.
    {"gl, in place", "gl", nullptr, nullptr, false, 160, false, true, false},
    {"gl, in place, GL sync objects", "gl", nullptr, "gl", false, 160, false, true, true},
    // A GPU's path: read back into pack memory, the output itself, behind
    // GL sync objects (a GPU's default), and behind EGL's.
    {"gl as on a GPU, pack memory", "gl", "hardware", nullptr, false, 160, true, true, true},
    {"gl as on a GPU, pack memory, EGL fences", "gl", "hardware", "egl", false, 160, true, true,
     false},
    {"gl, GL memory", "gl", nullptr, nullptr, true, 160, false, true, false},
    {"cpu", "cpu", nullptr, nullptr, false, 150, false, false, false},
};

GstVideoInfo input_info() {
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, 320, 240);
  info.fps_n = 30;
  info.fps_d = 1;
  return info;
}

std::string output_caps(const Config &c) {
  const std::string size = ",width=" + std::to_string(c.side) + ",height=" + std::to_string(c.side);
  return c.gl_memory ? "video/x-raw(memory:GLMemory),format=RGBA" + size
                     : "video/x-raw,format=RGB" + size;
}

// Frame f of stream s: its own bytes.
uint32_t seed_of(int stream, int frame) {
  return uint32_t(stream * 1000 + frame);
}

// The visible bytes of a sample, row by row.
std::vector<uint8_t> visible_bytes(GstSample *sample) {
  GstVideoInfo info;
  fail_unless(gst_video_info_from_caps(&info, gst_sample_get_caps(sample)));
  GstVideoFrame frame;
  fail_unless(gst_video_frame_map(&frame, &info, gst_sample_get_buffer(sample), GST_MAP_READ));
  std::vector<uint8_t> bytes;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p) {
    const gsize row =
        gsize(GST_VIDEO_FRAME_COMP_WIDTH(&frame, p)) * GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, p);
    const auto *data = static_cast<const uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&frame, p); ++y) {
      const uint8_t *start = data + gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
      bytes.insert(bytes.end(), start, start + row);
    }
  }
  gst_video_frame_unmap(&frame);
  return bytes;
}

struct Delivered {
  std::vector<GstClockTime> pts;
  std::vector<std::vector<uint8_t>> bytes;
  bool eos = false;
};

// Pulls a branch's samples until EOS, each wait bounded.
void pull_all(GstElement *sink, Delivered &got) {
  for (;;) {
    GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), kBound);
    if (!sample) {
      got.eos = gst_app_sink_is_eos(GST_APP_SINK(sink));
      return;
    }
    got.pts.push_back(GST_BUFFER_PTS(gst_sample_get_buffer(sample)));
    got.bytes.push_back(visible_bytes(sample));
    gst_sample_unref(sample);
  }
}

// A pipeline of `branches` branches appsrc ! efconvert ! appsink; branch b
// gets the frames `frames_of(b)` lists (stream, frame) at PTS 0, 1, 2 ...
// frame durations, then EOS. Each branch is pulled on a thread of its own.
struct Run {
  GstElement *pipeline = nullptr;
  std::vector<GstElement *> converters;
  std::vector<Delivered> got;

  Run(const Config &c, guint depth, int branches,
      const std::vector<std::vector<std::pair<int, int>>> &frames_of) {
    std::string description;
    for (int b = 0; b < branches; ++b) {
      const std::string n = std::to_string(b);
      description += "appsrc name=src" + n + " format=time ! efconvert name=conv" + n +
                     " backend=" + c.backend + " readback-depth=" + std::to_string(depth) +
                     " ! capsfilter caps=\"" + output_caps(c) + "\" ! appsink name=sink" + n +
                     " sync=false ";
    }
    GError *error = nullptr;
    pipeline = gst_parse_launch(description.c_str(), &error);
    fail_unless(pipeline && !error, "%s", error ? error->message : "");
    const GstVideoInfo in = input_info();
    GstCaps *caps = caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF);
    for (int b = 0; b < branches; ++b) {
      const std::string n = std::to_string(b);
      GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), ("src" + n).c_str());
      g_object_set(src, "caps", caps, nullptr);
      gst_object_unref(src);
      converters.push_back(gst_bin_get_by_name(GST_BIN(pipeline), ("conv" + n).c_str()));
    }
    gst_caps_unref(caps);
    got.resize(size_t(branches));
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    std::vector<std::thread> pullers;
    for (int b = 0; b < branches; ++b) {
      GstElement *sink =
          gst_bin_get_by_name(GST_BIN(pipeline), ("sink" + std::to_string(b)).c_str());
      pullers.emplace_back([sink, this, b] {
        pull_all(sink, got[size_t(b)]);
        gst_object_unref(sink);
      });
    }
    // Every branch's frames queued in its appsrc at once: the streaming
    // threads convert at the same time.
    for (size_t k = 0;; ++k) {
      bool any = false;
      for (int b = 0; b < branches; ++b) {
        GstElement *src =
            gst_bin_get_by_name(GST_BIN(pipeline), ("src" + std::to_string(b)).c_str());
        const auto &list = frames_of[size_t(b)];
        if (k < list.size()) {
          GstBuffer *frame = memfd_frame(in, seed_of(list[k].first, list[k].second));
          GST_BUFFER_PTS(frame) = gst_util_uint64_scale_int(GST_SECOND, int(k), 30);
          GST_BUFFER_DURATION(frame) = gst_util_uint64_scale_int(GST_SECOND, 1, 30);
          fail_unless_equals_int(gst_app_src_push_buffer(GST_APP_SRC(src), frame), GST_FLOW_OK);
          any = true;
        } else if (k == list.size()) {
          gst_app_src_end_of_stream(GST_APP_SRC(src));
        }
        gst_object_unref(src);
      }
      if (!any && k > 0)
        break;
    }
    for (std::thread &t : pullers)
      t.join();
  }

  ~Run() {
    gst_element_set_state(pipeline, GST_STATE_NULL);
    for (GstElement *conv : converters)
      gst_object_unref(conv);
    gst_object_unref(pipeline);
  }
  Run(const Run &) = delete;
  Run &operator=(const Run &) = delete;

  // The first ERROR on the bus, or "".
  std::string error() {
    GstBus *bus = gst_element_get_bus(pipeline);
    std::string text = pop_error(bus);
    gst_object_unref(bus);
    return text;
  }
};

// The GL context an element answers a local-context query with.
GstGLContext *context_of(GstElement *conv) {
  GstQuery *query = gst_query_new_context("gst.gl.local_context");
  GstGLContext *context = nullptr;
  if (gst_element_query(conv, query)) {
    GstContext *answer = nullptr;
    gst_query_parse_context(query, &answer);
    if (answer)
      gst_structure_get(gst_context_get_structure(answer), "context", GST_TYPE_GL_CONTEXT, &context,
                        nullptr);
  }
  gst_query_unref(query);
  return context;
}

}  // namespace

// 8 streams at once against the same frames alone (one branch converting
// every stream's frames in turn, depth 0), at every readback-depth.
GST_START_TEST(test_streams_at_once) {
  const Config &c = kConfigs[__i__];
  if (c.kind)
    g_setenv("EF_GL_RENDERER_KIND", c.kind, TRUE);
  if (c.fences)
    g_setenv("EF_GL_FENCES", c.fences, TRUE);
  // The reference: every frame of every stream through one element.
  std::vector<std::vector<std::pair<int, int>>> alone(1);
  for (int s = 0; s < kStreams; ++s)
    for (int f = 0; f < kFrames; ++f)
      alone[0].push_back({s, f});
  std::vector<std::vector<uint8_t>> want;
  {
    Run ref(c, 0, 1, alone);
    fail_unless(ref.error().empty(), "%s alone: %s", c.what, ref.error().c_str());
    fail_unless_equals_int(int(ref.got[0].bytes.size()), kStreams * kFrames);
    want = ref.got[0].bytes;
  }
  std::vector<std::vector<std::pair<int, int>>> per_stream(kStreams);
  for (int s = 0; s < kStreams; ++s)
    for (int f = 0; f < kFrames; ++f)
      per_stream[size_t(s)].push_back({s, f});
  for (guint depth = 0; depth < kDepths; ++depth) {
    Run run(c, depth, kStreams, per_stream);
    const std::string where = std::string(c.what) + ", readback-depth " + std::to_string(depth);
    fail_unless(run.error().empty(), "%s: %s", where.c_str(), run.error().c_str());
    GstGLContext *shared = c.gl ? context_of(run.converters[0]) : nullptr;
    fail_unless(!c.gl || shared != nullptr, "%s: no GL context", where.c_str());
    for (int s = 0; s < kStreams; ++s) {
      const Delivered &got = run.got[size_t(s)];
      fail_unless(got.eos, "%s, stream %d: no EOS within 20 s", where.c_str(), s);
      fail_unless_equals_int(int(got.pts.size()), kFrames);
      for (int f = 0; f < kFrames; ++f) {
        fail_unless(got.pts[size_t(f)] == gst_util_uint64_scale_int(GST_SECOND, f, 30),
                    "%s, stream %d: output %d has the PTS %" GST_TIME_FORMAT
                    " (a frame lost, repeated or out of order)",
                    where.c_str(), s, f, GST_TIME_ARGS(got.pts[size_t(f)]));
        fail_unless(got.bytes[size_t(f)] == want[size_t(s * kFrames + f)],
                    "%s, stream %d frame %d: bytes differ from the frame converted alone",
                    where.c_str(), s, f);
      }
      GstElement *conv = run.converters[size_t(s)];
      fail_unless_equals_uint64(stat(conv, "frames"), kFrames);
      fail_unless_equals_uint64(stat(conv, "readbacks"), c.reads_back ? kFrames : 0);
      const guint64 frame_bytes = guint64(c.side) * 3 * guint64(c.side);
      if (c.reads_back)
        fail_unless(stat(conv, "bytes-read") >= kFrames * frame_bytes,
                    "%s: %" G_GUINT64_FORMAT " bytes read", where.c_str(),
                    stat(conv, "bytes-read"));
      else
        fail_unless_equals_uint64(stat(conv, "bytes-read"), 0);
      if (c.gl && c.gl_sync) {
        // A hand-over a frame, and more for the frames waited for there.
        fail_unless(stat(conv, "gl-handovers") >= kFrames, "%s: %" G_GUINT64_FORMAT " hand-overs",
                    where.c_str(), stat(conv, "gl-handovers"));
      } else if (c.gl) {
        // One hand-over to the GL thread a frame (none at EOS: no timer
        // queries without gpu-timing), and no wait there: the frames are
        // completed on the streaming threads (EGL fences).
        fail_unless_equals_uint64(stat(conv, "gl-handovers"), kFrames);
        fail_unless_equals_uint64(stat(conv, "gl-wait-ns"), 0);
      }
      if (c.gl) {
        // The GL thread's time by stage: parts of gl-thread-ns, the pass's
        // always there, the read-back's where a frame is read back.
        const guint64 pass = stat(conv, "gl-pass-ns"), read = stat(conv, "gl-readback-ns");
        const guint64 parts = stat(conv, "gl-source-ns") + pass + read;
        fail_unless(pass > 0 && parts <= stat(conv, "gl-thread-ns"),
                    "%s: stages %" G_GUINT64_FORMAT " ns (pass %" G_GUINT64_FORMAT
                    ") of %" G_GUINT64_FORMAT " ns on the GL thread",
                    where.c_str(), parts, pass, stat(conv, "gl-thread-ns"));
        fail_unless(!c.reads_back || read > 0, "%s: no read-back time", where.c_str());
        GstGLContext *context = context_of(conv);
        fail_unless(context == shared, "%s: stream %d on a GL context of its own", where.c_str(),
                    s);
        gst_object_unref(context);
      }
    }
    if (shared)
      gst_object_unref(shared);
  }
  g_unsetenv("EF_GL_RENDERER_KIND");
  g_unsetenv("EF_GL_FENCES");
}
GST_END_TEST;

namespace {

// The GL display an element answers a display query with (a reference), or
// nullptr.
GstGLDisplay *display_of(GstElement *element) {
  GstQuery *query = gst_query_new_context(GST_GL_DISPLAY_CONTEXT_TYPE);
  GstGLDisplay *display = nullptr;
  if (gst_element_query(element, query)) {
    GstContext *answer = nullptr;
    gst_query_parse_context(query, &answer);
    if (answer)
      gst_context_get_gl_display(answer, &display);
  }
  gst_query_unref(query);
  return display;
}

// Branches of appsrc ! efconvert ! fakesink, none of them fed.
GstElement *idle_branches(const char *backend, int branches) {
  std::string description;
  for (int b = 0; b < branches; ++b)
    description += "appsrc name=src" + std::to_string(b) + " ! efconvert name=conv" +
                   std::to_string(b) + " backend=" + backend + " ! fakesink ";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  fail_unless(pipeline && !error, "%s", error ? error->message : "");
  return pipeline;
}

GstElement *child(GstElement *pipeline, const std::string &name) {
  GstElement *element = gst_bin_get_by_name(GST_BIN(pipeline), name.c_str());
  fail_unless(element != nullptr);
  return element;
}

}  // namespace

// A GL element that looks for its display later, on its streaming thread
// (a decoder), finds the pipeline's: efconvert finds or makes one at
// NULL -> READY, as GstGL's filters do, and announces it to the pipeline.
// EF_GL_EARLY=none (the behaviour before) and backend=cpu make none then.
GST_START_TEST(test_display_shared_at_ready) {
  struct Case {
    const char *backend, *early;
    bool display;
  };
  for (const Case c : {Case{"auto", nullptr, true}, Case{"gl", nullptr, true},
                       Case{"cpu", nullptr, false}, Case{"auto", "none", false}}) {
    if (c.early)
      g_setenv("EF_GL_EARLY", c.early, TRUE);
    GstElement *pipeline = idle_branches(c.backend, 2);
    fail_unless_equals_int(gst_element_set_state(pipeline, GST_STATE_READY),
                           GST_STATE_CHANGE_SUCCESS);
    GstElement *conv0 = child(pipeline, "conv0"), *conv1 = child(pipeline, "conv1");
    GstGLDisplay *d0 = display_of(conv0), *d1 = display_of(conv1);
    GstContext *announced = gst_element_get_context(pipeline, GST_GL_DISPLAY_CONTEXT_TYPE);
    const std::string what =
        std::string("backend=") + c.backend + ", EF_GL_EARLY=" + (c.early ? c.early : "unset");
    if (c.display) {
      fail_unless(d0 && d0 == d1, "%s: the branches have displays %p and %p", what.c_str(),
                  (void *)d0, (void *)d1);
      GstGLDisplay *pipeline_display = nullptr;
      fail_unless(announced && gst_context_get_gl_display(announced, &pipeline_display),
                  "%s: no display announced to the pipeline", what.c_str());
      fail_unless(pipeline_display == d0, "%s: the pipeline has another display", what.c_str());
      gst_object_unref(pipeline_display);
    } else {
      fail_unless(!d0 && !d1 && !announced, "%s: a display at READY", what.c_str());
    }
    for (GstGLDisplay *d : {d0, d1})
      if (d)
        gst_object_unref(d);
    if (announced)
      gst_context_unref(announced);
    gst_object_unref(conv0);
    gst_object_unref(conv1);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    g_unsetenv("EF_GL_EARLY");
  }
}
GST_END_TEST;

// EF_GL_EARLY=context: the GL context too, at READY -> PAUSED, before any
// caps: a decoder asking downstream for one before it makes its own gets
// it, and every branch has the same.
GST_START_TEST(test_context_shared_at_paused) {
  g_setenv("EF_GL_EARLY", "context", TRUE);
  GstElement *pipeline = idle_branches("gl", 2);
  // No frame comes: the sinks never preroll, the elements are PAUSED.
  fail_if(gst_element_set_state(pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE);
  GstElement *conv0 = child(pipeline, "conv0"), *conv1 = child(pipeline, "conv1");
  GstGLContext *c0 = context_of(conv0), *c1 = context_of(conv1);
  fail_unless(c0 && c0 == c1, "the branches have GL contexts %p and %p", (void *)c0, (void *)c1);
  for (GstGLContext *c : {c0, c1})
    if (c)
      gst_object_unref(c);
  gst_object_unref(conv0);
  gst_object_unref(conv1);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  g_unsetenv("EF_GL_EARLY");
}
GST_END_TEST;

static Suite *streams_suite() {
  Suite *s = suite_create("efconvert_streams");
  TCase *tc = tcase_create("streams");
  // Every wait is bounded at 20 s; a case takes a few seconds.
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_streams_at_once, 0, G_N_ELEMENTS(kConfigs));
  tcase_add_test(tc, test_display_shared_at_ready);
  tcase_add_test(tc, test_context_shared_at_paused);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  return run_gl_suite(argc, argv, streams_suite, Needs::EglDmabufImport);
}
