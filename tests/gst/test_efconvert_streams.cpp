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

#include <algorithm>
#include <atomic>
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
      const std::vector<std::vector<std::pair<int, int>>> &frames_of,
      const std::string &props = "") {
    std::string description;
    for (int b = 0; b < branches; ++b) {
      const std::string n = std::to_string(b);
      description += "appsrc name=src" + n + " format=time ! efconvert name=conv" + n +
                     " backend=" + c.backend + " readback-depth=" + std::to_string(depth) + " " +
                     props + " ! capsfilter caps=\"" + output_caps(c) + "\" ! appsink name=sink" +
                     n + " sync=false ";
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
GstElement *idle_branches(const char *backend, int branches, const std::string &props = "") {
  std::string description;
  for (int b = 0; b < branches; ++b)
    description += "appsrc name=src" + std::to_string(b) + " ! efconvert name=conv" +
                   std::to_string(b) + " backend=" + backend + " " + props + " ! fakesink ";
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

namespace {

// The GL contexts of `converters` (references; nullptr where none).
std::vector<GstGLContext *> contexts_of(const std::vector<GstElement *> &converters) {
  std::vector<GstGLContext *> contexts;
  for (GstElement *conv : converters)
    contexts.push_back(context_of(conv));
  return contexts;
}

void unref_all(std::vector<GstGLContext *> &contexts) {
  for (GstGLContext *c : contexts)
    if (c)
      gst_object_unref(c);
  contexts.clear();
}

// How many elements each distinct context serves, fewest first ({} where
// an element has none).
std::vector<int> shares(const std::vector<GstGLContext *> &contexts) {
  std::vector<std::pair<GstGLContext *, int>> count;
  for (GstGLContext *c : contexts) {
    if (!c)
      return {};
    auto it = std::find_if(count.begin(), count.end(), [c](auto &p) { return p.first == c; });
    if (it == count.end())
      count.push_back({c, 1});
    else
      ++it->second;
  }
  std::vector<int> n;
  for (auto &p : count)
    n.push_back(p.second);
  std::sort(n.begin(), n.end());
  return n;
}

std::string text_of(const std::vector<int> &n) {
  std::string t = "{";
  for (int k : n)
    t += (t.size() > 1 ? ", " : "") + std::to_string(k);
  return t + "}";
}

std::vector<GstElement *> converters_of(GstElement *pipeline, int branches) {
  std::vector<GstElement *> converters;
  for (int b = 0; b < branches; ++b)
    converters.push_back(child(pipeline, "conv" + std::to_string(b)));
  return converters;
}

void unref_elements(std::vector<GstElement *> &elements) {
  for (GstElement *e : elements)
    gst_object_unref(e);
  elements.clear();
}

}  // namespace

// gl-contexts=K: each efconvert takes its GL context at READY -> PAUSED,
// before any caps, from the display's pool of K, in turn: started one
// after the other, element b gets the context element b % K got, and the
// first K are K contexts of the pipeline's display. 0: none before caps.
GST_START_TEST(test_gl_contexts_taken_in_turn) {
  constexpr int kBranches = 4;
  for (guint k : {0u, 1u, 2u, 4u}) {
    GstElement *pipeline = idle_branches("gl", kBranches, "gl-contexts=" + std::to_string(k));
    fail_unless_equals_int(gst_element_set_state(pipeline, GST_STATE_READY),
                           GST_STATE_CHANGE_SUCCESS);
    std::vector<GstElement *> converters = converters_of(pipeline, kBranches);
    for (GstElement *conv : converters) {
      guint set = 99;
      g_object_get(conv, "gl-contexts", &set, nullptr);
      fail_unless_equals_int(set, k);
      fail_if(gst_element_set_state(conv, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE);
    }
    std::vector<GstGLContext *> contexts = contexts_of(converters);
    GstGLDisplay *display = display_of(converters[0]);
    fail_unless(display != nullptr);
    for (int b = 0; b < kBranches; ++b) {
      GstGLContext *c = contexts[size_t(b)];
      if (k == 0) {
        fail_unless(c == nullptr, "gl-contexts=0: element %d has a GL context before caps", b);
        continue;
      }
      fail_unless(c != nullptr, "gl-contexts=%u: element %d has no GL context", k, b);
      fail_unless(c == contexts[size_t(b) % k],
                  "gl-contexts=%u: element %d is not on the context element %u took", k, b, b % k);
      for (int a = 0; a < b && b < int(k); ++a)
        fail_unless(c != contexts[size_t(a)], "gl-contexts=%u: elements %d and %d share a context",
                    k, a, b);
      GstGLDisplay *of = gst_gl_context_get_display(c);
      fail_unless(of == display, "gl-contexts=%u: a context of another display", k);
      gst_object_unref(of);
    }
    unref_all(contexts);
    gst_object_unref(display);
    unref_elements(converters);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
  }
}
GST_END_TEST;

// A whole pipeline of 4 branches going to PAUSED (the bin starts them in
// its own order): gl-contexts=1 puts all on one context, 2 on two contexts
// of 2 elements each. backend=cpu ignores it, and EF_GL_EARLY, when set,
// decides instead (none: nothing before caps; context:2 over gl-contexts=0).
GST_START_TEST(test_gl_contexts_in_a_pipeline) {
  struct Case {
    const char *backend, *props, *early;
    std::vector<int> want;  // elements per context, fewest first; {}: none before caps
  };
  const Case cases[] = {
      {"gl", "gl-contexts=1", nullptr, {4}},      {"gl", "gl-contexts=2", nullptr, {2, 2}},
      {"auto", "gl-contexts=2", nullptr, {2, 2}}, {"gl", "gl-contexts=0", nullptr, {}},
      {"cpu", "gl-contexts=2", nullptr, {}},      {"gl", "gl-contexts=2", "none", {}},
      {"gl", "gl-contexts=2", "display", {}},     {"gl", "gl-contexts=0", "context:2", {2, 2}},
      {"gl", "gl-contexts=4", "context", {4}},
  };
  for (const Case &c : cases) {
    if (c.early)
      g_setenv("EF_GL_EARLY", c.early, TRUE);
    GstElement *pipeline = idle_branches(c.backend, 4, c.props);
    // No frame comes: the sinks never preroll, the elements are PAUSED.
    fail_if(gst_element_set_state(pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE);
    std::vector<GstElement *> converters = converters_of(pipeline, 4);
    std::vector<GstGLContext *> contexts = contexts_of(converters);
    const std::vector<int> got = shares(contexts);
    const bool none = std::all_of(contexts.begin(), contexts.end(), [](auto *x) { return !x; });
    fail_unless(c.want.empty() ? none : got == c.want,
                "backend=%s %s, EF_GL_EARLY=%s: elements per GL context %s%s, want %s", c.backend,
                c.props, c.early ? c.early : "unset", text_of(got).c_str(),
                none ? " (none has one)" : "", text_of(c.want).c_str());
    unref_all(contexts);
    unref_elements(converters);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    g_unsetenv("EF_GL_EARLY");
  }
}
GST_END_TEST;

// The same frames through 4 branches give the same bytes with gl-contexts
// 1 and 2 as with 0 (read back into plain memory, and in GL memory), and
// the branches run on the contexts the setting says.
GST_START_TEST(test_gl_contexts_same_bytes) {
  constexpr int kBranches = 4;
  std::vector<std::vector<std::pair<int, int>>> per_stream(kBranches);
  for (int s = 0; s < kBranches; ++s)
    for (int f = 0; f < kFrames; ++f)
      per_stream[size_t(s)].push_back({s, f});
  for (const Config &c : {kConfigs[0], kConfigs[5]}) {
    std::vector<std::vector<std::vector<uint8_t>>> want;
    {
      Run ref(c, 1, kBranches, per_stream, "gl-contexts=0");
      fail_unless(ref.error().empty(), "%s: %s", c.what, ref.error().c_str());
      std::vector<GstGLContext *> contexts = contexts_of(ref.converters);
      fail_unless(shares(contexts) == std::vector<int>{kBranches},
                  "%s, gl-contexts=0: elements per GL context %s (one shared, as before)", c.what,
                  text_of(shares(contexts)).c_str());
      unref_all(contexts);
      for (const Delivered &d : ref.got) {
        fail_unless_equals_int(int(d.bytes.size()), kFrames);
        want.push_back(d.bytes);
      }
    }
    for (guint k : {1u, 2u}) {
      Run run(c, 1, kBranches, per_stream, "gl-contexts=" + std::to_string(k));
      fail_unless(run.error().empty(), "%s, gl-contexts=%u: %s", c.what, k, run.error().c_str());
      std::vector<GstGLContext *> contexts = contexts_of(run.converters);
      const std::vector<int> expected = k == 1 ? std::vector<int>{4} : std::vector<int>{2, 2};
      fail_unless(shares(contexts) == expected, "%s, gl-contexts=%u: elements per GL context %s",
                  c.what, k, text_of(shares(contexts)).c_str());
      unref_all(contexts);
      for (int s = 0; s < kBranches; ++s) {
        const Delivered &got = run.got[size_t(s)];
        fail_unless(got.eos, "%s, gl-contexts=%u, stream %d: no EOS", c.what, k, s);
        fail_unless_equals_int(int(got.bytes.size()), kFrames);
        for (int f = 0; f < kFrames; ++f)
          fail_unless(got.bytes[size_t(f)] == want[size_t(s)][size_t(f)],
                      "%s, gl-contexts=%u, stream %d frame %d: bytes differ from gl-contexts=0",
                      c.what, k, s, f);
      }
    }
  }
}
GST_END_TEST;

// gl-contexts applies at READY -> PAUSED: set while PLAYING it is refused
// with a warning naming the state and reads back what runs; set in READY
// it applies at the next start (the context kept from the run before is
// taken anew, from the pool).
GST_START_TEST(test_gl_contexts_mutable_ready) {
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(
      "videotestsrc ! efconvert name=conv backend=gl ! video/x-raw,format=RGB,width=64,height=64 "
      "! fakesink",
      &error);
  fail_unless(pipeline && !error, "%s", error ? error->message : "");
  GstElement *conv = child(pipeline, "conv");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  fail_unless_equals_int(gst_element_get_state(pipeline, nullptr, nullptr, kBound),
                         GST_STATE_CHANGE_SUCCESS);
  GstGLContext *before = context_of(conv);
  fail_unless(before != nullptr, "no GL context while playing");
  const std::string said = warnings_during([&] { g_object_set(conv, "gl-contexts", 2u, nullptr); });
  fail_unless(
      said.find("gl-contexts can only be set in the NULL or READY state") != std::string::npos &&
          said.find("PLAYING") != std::string::npos,
      "\"%s\"", said.c_str());
  guint now = 99;
  g_object_get(conv, "gl-contexts", &now, nullptr);
  fail_unless_equals_int(now, 0);
  fail_unless_equals_int(gst_element_set_state(pipeline, GST_STATE_READY),
                         GST_STATE_CHANGE_SUCCESS);
  const std::string in_ready =
      warnings_during([&] { g_object_set(conv, "gl-contexts", 1u, nullptr); });
  fail_unless(in_ready.empty(), "set in READY: \"%s\"", in_ready.c_str());
  g_object_get(conv, "gl-contexts", &now, nullptr);
  fail_unless_equals_int(now, 1);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  fail_unless_equals_int(gst_element_get_state(pipeline, nullptr, nullptr, kBound),
                         GST_STATE_CHANGE_SUCCESS);
  GstGLContext *after = context_of(conv);
  fail_unless(after != nullptr && after != before,
              "gl-contexts=1 set in READY: still on the context made at caps (%p, %p)",
              (void *)before, (void *)after);
  gst_object_unref(before);
  gst_object_unref(after);
  gst_object_unref(conv);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}
GST_END_TEST;

// The pool holds its contexts weakly, on the display: once the pipeline
// (its efconverts) is gone, so are its contexts and its display; nothing
// is kept for the process.
GST_START_TEST(test_gl_contexts_pool_released) {
  GWeakRef contexts[2], display;
  GstElement *pipeline = idle_branches("gl", 2, "gl-contexts=2");
  fail_if(gst_element_set_state(pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE);
  std::vector<GstElement *> converters = converters_of(pipeline, 2);
  std::vector<GstGLContext *> taken = contexts_of(converters);
  fail_unless(shares(taken) == std::vector<int>({1, 1}), "elements per GL context %s",
              text_of(shares(taken)).c_str());
  GstGLDisplay *d = display_of(converters[0]);
  g_weak_ref_init(&display, d);
  gst_object_unref(d);
  for (int i = 0; i < 2; ++i)
    g_weak_ref_init(&contexts[i], taken[size_t(i)]);
  unref_all(taken);
  unref_elements(converters);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  for (GWeakRef &c : contexts) {
    gpointer left = g_weak_ref_get(&c);
    fail_unless(left == nullptr, "a pool's GL context outlives its pipeline");
    if (left)
      gst_object_unref(left);
    g_weak_ref_clear(&c);
  }
  gpointer left = g_weak_ref_get(&display);
  fail_unless(left == nullptr, "the GL display outlives its pipeline");
  if (left)
    gst_object_unref(left);
  g_weak_ref_clear(&display);
}
GST_END_TEST;

// 8 pipelines given one GstGLDisplay by the application, started from 8
// threads at once: one pool for the display, each of its 2 contexts taken
// by 4 of the efconverts.
GST_START_TEST(test_gl_contexts_at_once) {
  constexpr int kPipelines = 8;
  GstGLDisplay *display = gst_gl_display_new();
  GstContext *shared = gst_context_new(GST_GL_DISPLAY_CONTEXT_TYPE, TRUE);
  gst_context_set_gl_display(shared, display);
  std::vector<GstElement *> pipelines, converters;
  for (int p = 0; p < kPipelines; ++p) {
    pipelines.push_back(idle_branches("gl", 1, "gl-contexts=2"));
    gst_element_set_context(pipelines.back(), shared);
    converters.push_back(child(pipelines.back(), "conv0"));
  }
  gst_context_unref(shared);
  std::vector<std::thread> starts;
  std::atomic<int> failed{0};
  for (GstElement *pipeline : pipelines)
    starts.emplace_back([pipeline, &failed] {
      if (gst_element_set_state(pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE)
        ++failed;
    });
  for (std::thread &t : starts)
    t.join();
  fail_unless_equals_int(failed.load(), 0);
  std::vector<GstGLContext *> contexts = contexts_of(converters);
  fail_unless(shares(contexts) == std::vector<int>({4, 4}), "elements per GL context %s",
              text_of(shares(contexts)).c_str());
  for (GstGLContext *c : contexts) {
    GstGLDisplay *of = gst_gl_context_get_display(c);
    fail_unless(of == display, "a context of another display");
    gst_object_unref(of);
  }
  unref_all(contexts);
  unref_elements(converters);
  for (GstElement *pipeline : pipelines) {
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
  }
  gst_object_unref(display);
}
GST_END_TEST;

// The CUDA backend's GL-memory output: with gl-contexts=0 one GL context
// per element, taken when caps are set (every frame's CUDA-GL interop waits
// on its context's GL thread, so one context for all bounds many streams:
// BENCHMARKS, run18), also where the CUDA driver then refuses (a machine
// without one: the context is taken first); gl-contexts=2 still shares 2.
GST_START_TEST(test_cuda_gl_output_one_context_each) {
  constexpr int kBranches = 4;
  const std::string in = "video/x-raw(memory:CUDAMemory),format=NV12,width=64,height=48";
  {
    GstElement *probe = gst_element_factory_make("efconvert", nullptr);
    GstCaps *templ = gst_pad_template_get_caps(gst_element_get_pad_template(probe, "sink"));
    GstCaps *cuda = gst_caps_from_string(in.c_str());
    const bool reads_cuda = gst_caps_can_intersect(templ, cuda);
    gst_caps_unref(cuda);
    gst_caps_unref(templ);
    gst_object_unref(probe);
    if (!reads_cuda) {
      std::printf("SKIP: test_cuda_gl_output_one_context_each: built without the CUDA backend\n");
      return;
    }
  }
  for (guint k : {0u, 2u}) {
    std::string description;
    for (int b = 0; b < kBranches; ++b)
      description += "appsrc name=src" + std::to_string(b) + " format=time caps=\"" + in +
                     ",framerate=30/1\" ! efconvert name=conv" + std::to_string(b) +
                     " backend=cuda gl-contexts=" + std::to_string(k) +
                     " ! video/x-raw(memory:GLMemory),format=RGBA,width=32,height=32 ! fakesink ";
    GError *error = nullptr;
    GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
    fail_unless(pipeline && !error, "%s", error ? error->message : "");
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    for (int b = 0; b < kBranches; ++b) {
      GstElement *src = child(pipeline, "src" + std::to_string(b));
      gst_app_src_push_buffer(GST_APP_SRC(src),
                              gst_buffer_new_allocate(nullptr, 64 * 48 * 3 / 2, nullptr));
      gst_object_unref(src);
    }
    std::vector<GstElement *> converters = converters_of(pipeline, kBranches);
    std::vector<GstGLContext *> contexts;
    for (gint64 end = g_get_monotonic_time() + 20 * G_TIME_SPAN_SECOND;;) {
      unref_all(contexts);
      contexts = contexts_of(converters);
      if (!shares(contexts).empty() || g_get_monotonic_time() > end)
        break;
      g_usleep(10000);
    }
    const std::vector<int> want = k == 0 ? std::vector<int>(kBranches, 1) : std::vector<int>{2, 2};
    fail_unless(shares(contexts) == want, "gl-contexts=%u: elements per GL context %s, want %s", k,
                text_of(shares(contexts)).c_str(), text_of(want).c_str());
    unref_all(contexts);
    unref_elements(converters);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
  }
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
  // gl-contexts: CK_RUN_CASE=gl-contexts runs these alone.
  TCase *pool = tcase_create("gl-contexts");
  tcase_set_timeout(pool, 120);
  tcase_add_test(pool, test_gl_contexts_taken_in_turn);
  tcase_add_test(pool, test_gl_contexts_in_a_pipeline);
  tcase_add_test(pool, test_gl_contexts_same_bytes);
  tcase_add_test(pool, test_gl_contexts_mutable_ready);
  tcase_add_test(pool, test_gl_contexts_pool_released);
  tcase_add_test(pool, test_gl_contexts_at_once);
  tcase_add_test(pool, test_cuda_gl_output_one_context_each);
  suite_add_tcase(s, pool);
  return s;
}

int main(int argc, char **argv) {
  return run_gl_suite(argc, argv, streams_suite, Needs::EglDmabufImport);
}
