// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's GL backend as an element: sources imported by identity, the
// output pool's memfds imported as render targets, steady state without
// misses, agreement with the CPU backend, GL memory from efupload, the
// read-back path for plain memory, and a driver that refuses imports.
#include <gst/allocators/allocators.h>
#include <gst/ef/gstef.h>
#include <gst/gl/egl/gsteglimage.h>
#include <gst/gl/gl.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "check_gl_main.hpp"
#include "frames.hpp"
#include "harness.hpp"
#include "odd_margins.hpp"
#include "gap_frames.hpp"
#include "short_fds.hpp"

using namespace ef::test;

namespace {

GstVideoInfo info_of(GstVideoFormat format, guint w, guint h) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, w, h);
  return info;
}

// PSNR of two buffers' visible bytes laid out as `info`.
double psnr(GstBuffer *a, GstBuffer *b, const GstVideoInfo &info) {
  GstVideoFrame fa, fb;
  GstVideoInfo ia = info, ib = info;
  fail_unless(gst_video_frame_map(&fa, &ia, a, GST_MAP_READ));
  fail_unless(gst_video_frame_map(&fb, &ib, b, GST_MAP_READ));
  double se = 0;
  gsize n = 0;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&fa); ++p) {
    const guint8 *pa = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&fa, p));
    const guint8 *pb = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&fb, p));
    const gsize row =
        gsize(GST_VIDEO_FRAME_COMP_WIDTH(&fa, 0)) *
        (GST_VIDEO_FRAME_N_PLANES(&fa) > 1 ? 1 : GST_VIDEO_FRAME_COMP_PSTRIDE(&fa, 0));
    for (gint y = 0; y < GST_VIDEO_FRAME_HEIGHT(&fa); ++y)
      for (gsize x = 0; x < row; ++x) {
        double d = double(pa[y * GST_VIDEO_FRAME_PLANE_STRIDE(&fa, p) + x]) -
                   pb[y * GST_VIDEO_FRAME_PLANE_STRIDE(&fb, p) + x];
        se += d * d;
        ++n;
      }
  }
  gst_video_frame_unmap(&fa);
  gst_video_frame_unmap(&fb);
  return se == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 * double(n) / se);
}

// A smooth NV12 frame in a memfd: gradients, so the two backends' bilinear
// filters (libyuv's box-like downscale, GL's two taps) meet the same signal.
GstBuffer *smooth_nv12(const GstVideoInfo &info) {
  GstBuffer *buf = memfd_frame(info, 0);
  GstVideoFrame f;
  GstVideoInfo copy = info;
  fail_unless(gst_video_frame_map(&f, &copy, buf, GST_MAP_WRITE));
  const gint w = GST_VIDEO_INFO_WIDTH(&info), h = GST_VIDEO_INFO_HEIGHT(&info);
  guint8 *y = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0));
  guint8 *uv = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 1));
  for (gint r = 0; r < h; ++r)
    for (gint c = 0; c < w; ++c)
      y[r * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0) + c] = guint8(32 + 180 * (c + r) / (w + h));
  for (gint r = 0; r < h / 2; ++r)
    for (gint c = 0; c < w / 2; ++c) {
      uv[r * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 1) + 2 * c] = guint8(96 + 64 * c / (w / 2));
      uv[r * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 1) + 2 * c + 1] = guint8(160 - 64 * r / (h / 2));
    }
  gst_video_frame_unmap(&f);
  return buf;
}

GstBuffer *convert_one(const char *backend, GstBuffer *in, const GstVideoInfo &in_info,
                       const GstVideoInfo &out_info) {
  std::string launch = std::string("efconvert backend=") + backend;
  GstHarness *h = gst_harness_new_parse(launch.c_str());
  gst_harness_set_caps(h, caps_for(in_info, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(out_info));
  fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(in)), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull(h);
  gst_harness_teardown(h);
  return out;
}

}  // namespace

// A ring of 4 memfd NV12 frames through backend=gl for 40 frames: 4 source
// misses, destinations from the 2-buffer pool imported once each, then only
// hits; nothing uploaded or read back.
GST_START_TEST(test_gl_steady_state) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_NV12, 320, 240);
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGB, 160, 160);
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=gl");
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(out));
  GstBuffer *ring[4];
  for (int i = 0; i < 4; ++i)
    ring[i] = memfd_frame(in, uint32_t(i));
  for (int f = 0; f < 40; ++f) {
    fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(ring[f % 4])), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(h));
  }
  GstElement *conv = harness_element(h, "conv");
  fail_unless_equals_uint64(stat(conv, "src-misses"), 4);
  fail_unless_equals_uint64(stat(conv, "src-hits"), 36);
  fail_unless(stat(conv, "dst-misses") <= 4, "%lu dst misses",
              (unsigned long)stat(conv, "dst-misses"));
  fail_unless_equals_uint64(stat(conv, "dst-hits") + stat(conv, "dst-misses"), 40);
  fail_unless_equals_uint64(stat(conv, "uploads"), 0);
  fail_unless_equals_uint64(stat(conv, "readbacks"), 0);
  gchar *backend = nullptr;
  g_object_get(conv, "backend-in-use", &backend, nullptr);
  fail_unless_equals_string(backend, "gl");
  g_free(backend);
  for (GstBuffer *b : ring)
    gst_buffer_unref(b);
  gst_harness_teardown(h);
}
GST_END_TEST;

// The two backends agree on the same frame (letterbox; RGB, RGBP, GRAY8).
// GRAY8 of a BT.709 source (720p caps default to it) is the BT.601 luma of
// its R'G'B' in both, not its Y.
GST_START_TEST(test_gl_matches_cpu) {
  const GstVideoInfo sd = info_of(GST_VIDEO_FORMAT_NV12, 320, 180);
  const GstVideoInfo hd = info_of(GST_VIDEO_FORMAT_NV12, 1280, 720);
  fail_unless_equals_int(hd.colorimetry.matrix, GST_VIDEO_COLOR_MATRIX_BT709);
  const std::pair<const GstVideoInfo *, GstVideoFormat> cases[] = {{&sd, GST_VIDEO_FORMAT_RGB},
                                                                   {&sd, GST_VIDEO_FORMAT_RGBP},
                                                                   {&sd, GST_VIDEO_FORMAT_GRAY8},
                                                                   {&hd, GST_VIDEO_FORMAT_GRAY8}};
  for (const auto &[in, format] : cases) {
    GstVideoInfo out = info_of(format, 128, 128);
    GstBuffer *src = smooth_nv12(*in);
    GstBuffer *gl = convert_one("gl", src, *in, out);
    GstBuffer *cpu = convert_one("cpu", src, *in, out);
    double db = psnr(gl, cpu, out);
    fail_unless(db >= 40.0, "%s from %dx%d: GL vs CPU PSNR %.1f dB",
                gst_video_format_to_string(format), GST_VIDEO_INFO_WIDTH(in),
                GST_VIDEO_INFO_HEIGHT(in), db);
    gst_buffer_unref(gl);
    gst_buffer_unref(cpu);
    gst_buffer_unref(src);
  }
}
GST_END_TEST;

// Odd margins through the GL backend (odd_margins.hpp): the borders the fill
// to the bit, the picture where the CPU backend puts it (the odd pixel right
// or below); its colour within 1 of the frame's (two-tap filtering of a flat
// frame).
GST_START_TEST(test_odd_margin_placement) {
  check_odd_margin("gl", kOddMargins[__i__], 1);
}
GST_END_TEST;

// efupload's textures feed efconvert directly (GL memory in, no upload).
GST_START_TEST(test_after_efupload) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_NV12, 320, 240);
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGBA, 64, 64);
  GstHarness *h = gst_harness_new_parse("efupload ! efconvert name=conv backend=gl");
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(out));
  for (uint32_t f = 0; f < 4; ++f) {
    fail_unless_equals_int(gst_harness_push(h, memfd_frame(in, f)), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(h));
  }
  GstElement *conv = harness_element(h, "conv");
  fail_unless_equals_uint64(stat(conv, "uploads"), 0);
  fail_unless_equals_uint64(stat(conv, "frames"), 4);
  gst_harness_teardown(h);
}
GST_END_TEST;

// GL memory out: the converted frame stays a texture for GL elements
// downstream (here gldownload, to check it), and matches the CPU backend.
GST_START_TEST(test_gl_memory_output) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_NV12, 320, 180);
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGBA, 96, 96);
  GstHarness *h = gst_harness_new_parse(
      "efconvert name=conv ! video/x-raw(memory:GLMemory),format=RGBA ! gldownload");
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(out));
  GstBuffer *src = smooth_nv12(in);
  fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(src)), GST_FLOW_OK);
  GstBuffer *gl = gst_harness_pull(h);
  gchar *backend = nullptr;
  g_object_get(harness_element(h, "conv"), "backend-in-use", &backend, nullptr);
  fail_unless_equals_string(backend, "gl");  // auto: GL memory out needs GL
  g_free(backend);
  GstBuffer *cpu = convert_one("cpu", src, in, out);
  double db = psnr(gl, cpu, out);
  fail_unless(db >= 40.0, "GL memory output vs CPU: %.1f dB", db);
  gst_buffer_unref(cpu);
  gst_buffer_unref(gl);
  gst_buffer_unref(src);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Downstream offers a pool of plain memory: rendered, then read back and
// counted.
GST_START_TEST(test_readback_into_system_memory) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 64, 64);
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGBA, 64, 64);
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=gl");
  offer_downstream_pool(h, nullptr, 2);
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(out));
  GstBuffer *src = memfd_frame(in, 3);
  fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(src)), GST_FLOW_OK);
  GstBuffer *got = gst_harness_pull(h);
  fail_unless(!gst_is_fd_memory(gst_buffer_peek_memory(got, 0)));
  std::string bad = check_buffer(got, out, 3);  // RGBA -> RGBA 1:1 is exact
  fail_unless(bad.empty(), "%s", bad.c_str());
  fail_unless_equals_uint64(stat(harness_element(h, "conv"), "readbacks"), 1);
  gst_buffer_unref(got);
  gst_buffer_unref(src);
  gst_harness_teardown(h);
}
GST_END_TEST;

// A driver that refuses dma-buf imports, as NVIDIA's EGL refuses every
// memfd: this definition of GstGL's import call interposes the library's
// for the whole test program (the plugin's call resolves to the program's
// own definition first) and refuses while g_refuse_imports is set. Every
// attempt is counted.
static std::atomic<bool> g_refuse_imports{false};
static std::atomic<int> g_import_attempts{0};

extern "C" GstEGLImage *gst_egl_image_from_dmabuf(GstGLContext *context, gint dmabuf,
                                                  const GstVideoInfo *in_info, gint plane,
                                                  gsize offset) {
  using Import = GstEGLImage *(*)(GstGLContext *, gint, const GstVideoInfo *, gint, gsize);
  static const auto real = reinterpret_cast<Import>(dlsym(RTLD_NEXT, "gst_egl_image_from_dmabuf"));
  g_import_attempts.fetch_add(1);
  return g_refuse_imports.load() ? nullptr : real(context, dmabuf, in_info, plane, offset);
}

namespace {

// Counts the WARNING lines of efconvert's log category that contain `text`.
class WarningCounter {
 public:
  explicit WarningCounter(const char *text) : text_(text) {
    gst_debug_set_active(TRUE);
    gst_debug_set_threshold_for_name("efconvert", GST_LEVEL_WARNING);
    gst_debug_add_log_function(on_log, this, nullptr);
  }
  ~WarningCounter() { gst_debug_remove_log_function_by_data(this); }
  WarningCounter(const WarningCounter &) = delete;
  WarningCounter &operator=(const WarningCounter &) = delete;

  int count() const { return count_.load(); }

 private:
  static void on_log(GstDebugCategory *category, GstDebugLevel level, const gchar *, const gchar *,
                     gint, GObject *, GstDebugMessage *message, gpointer self) {
    auto *counter = static_cast<WarningCounter *>(self);
    if (level == GST_LEVEL_WARNING &&
        std::strcmp(gst_debug_category_get_name(category), "efconvert") == 0 &&
        std::strstr(gst_debug_message_get(message), counter->text_))
      counter->count_.fetch_add(1);
  }

  const char *text_;
  std::atomic<int> count_{0};
};

// Pushes ring[0..n) round the ring, checks every output against its
// source's pattern (RGBA -> RGBA 1:1 is exact) and returns the change of
// `counters` over the run.
std::vector<guint64> run_frames(GstHarness *h, GstBuffer *const (&ring)[4], const GstVideoInfo &out,
                                uint32_t n, const std::vector<const char *> &counters) {
  GstElement *conv = harness_element(h, "conv");
  std::vector<guint64> change;
  for (const char *c : counters)
    change.push_back(stat(conv, c));
  for (uint32_t f = 0; f < n; ++f) {
    fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(ring[f % 4])), GST_FLOW_OK);
    GstBuffer *got = gst_harness_pull(h);
    const std::string bad = check_buffer(got, out, f % 4);
    fail_unless(bad.empty(), "frame %u: %s", f, bad.c_str());
    gst_buffer_unref(got);
  }
  for (size_t i = 0; i < counters.size(); ++i)
    change[i] = stat(conv, counters[i]) - change[i];
  return change;
}

}  // namespace

// A driver that refuses the imports is asked once for the source and once
// for the destination, with one warning each; every frame of these caps is
// then uploaded and read back, even once the driver would accept again. New
// caps make a new backend, which asks again.
GST_START_TEST(test_refused_imports) {
  const WarningCounter warnings("not imported, copying from now on");
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=gl");
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 64, 48);
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(in));
  GstBuffer *ring[4];
  for (uint32_t i = 0; i < 4; ++i)
    ring[i] = memfd_frame(in, i);
  const std::vector<const char *> counters{"uploads", "readbacks", "src-hits", "dst-hits"};

  g_refuse_imports = true;
  g_import_attempts = 0;
  auto change = run_frames(h, ring, in, 12, counters);
  fail_unless_equals_int(g_import_attempts.load(), 2);
  fail_unless_equals_int(warnings.count(), 2);
  fail_unless(change == std::vector<guint64>({12, 12, 0, 0}), "uploads %lu readbacks %lu",
              (unsigned long)change[0], (unsigned long)change[1]);

  g_refuse_imports = false;  // the same caps: still not asked
  change = run_frames(h, ring, in, 8, counters);
  fail_unless_equals_int(g_import_attempts.load(), 2);
  fail_unless(change == std::vector<guint64>({8, 8, 0, 0}));

  GstVideoInfo other = in;
  other.colorimetry.range = GST_VIDEO_COLOR_RANGE_16_235;  // other caps, the same frames
  gst_harness_set_src_caps(h, caps_for(other, GST_CAPS_FEATURE_MEMORY_DMABUF));
  change = run_frames(h, ring, in, 8, counters);
  fail_unless(g_import_attempts.load() > 2);
  // Each ring slot imported once, then hit; each buffer of the output pool
  // (at most 4) likewise.
  fail_unless(change[0] == 0 && change[1] == 0 && change[2] == 4 && change[3] >= 4,
              "uploads %lu readbacks %lu src-hits %lu dst-hits %lu", (unsigned long)change[0],
              (unsigned long)change[1], (unsigned long)change[2], (unsigned long)change[3]);
  fail_unless_equals_int(warnings.count(), 2);
  for (GstBuffer *b : ring)
    gst_buffer_unref(b);
  gst_harness_teardown(h);
}
GST_END_TEST;

namespace {

// The check macros keep a pointer to their argument past the statement: a
// temporary string's would dangle.
void expect_backend(const std::string &in_use, const char *expected) {
  fail_unless(in_use == expected, "backend-in-use is %s, expected %s", in_use.c_str(), expected);
}

bool contains(const std::string &s, const char *text) {
  return s.find(text) != std::string::npos;
}

// Pushes ring[f % 4] for f in [from, to) and checks each output against the
// CPU backend's conversion of the same frame: every frame of a trial is
// converted once and right, whichever backend converted it.
void expect_converted(GstHarness *h, GstBuffer *const (&ring)[4], const GstVideoInfo &in,
                      const GstVideoInfo &out, uint32_t from, uint32_t to) {
  for (uint32_t f = from; f < to; ++f) {
    fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(ring[f % 4])), GST_FLOW_OK);
    GstBuffer *got = gst_harness_pull(h);
    GstBuffer *cpu = convert_one("cpu", ring[f % 4], in, out);
    const double db = psnr(got, cpu, out);
    fail_unless(db >= 35.0, "frame %u: %.1f dB from the CPU backend's", f, db);
    gst_buffer_unref(cpu);
    gst_buffer_unref(got);
  }
}

// efconvert backend=auto on hardware GL (the renderer's kind forced) and a
// ring of 4 smooth NV12 memfd frames.
struct AutoOnHardware {
  AutoOnHardware(const GstVideoInfo &in_info, const GstVideoInfo &out_info, const char *in_feature)
      : in(in_info), out(out_info) {
    g_setenv("EF_GL_RENDERER_KIND", "hardware", TRUE);
    for (GstBuffer *&b : ring)
      b = smooth_nv12(in);
    h = gst_harness_new_parse("efconvert name=conv");
    gst_harness_set_caps(h, caps_for(in, in_feature), caps_for(out));
    conv = harness_element(h, "conv");
  }
  ~AutoOnHardware() {
    for (GstBuffer *b : ring)
      gst_buffer_unref(b);
    gst_harness_teardown(h);
  }
  AutoOnHardware(const AutoOnHardware &) = delete;
  AutoOnHardware &operator=(const AutoOnHardware &) = delete;

  void push(uint32_t from, uint32_t to) { expect_converted(h, ring, in, out, from, to); }
  std::string property(const char *name) const { return string_property(conv, name); }

  const GstVideoInfo in, out;
  GstBuffer *ring[4];
  GstHarness *h;
  GstElement *conv;
};

}  // namespace

// auto on this machine's own renderer: a software rasterizer (llvmpipe) is
// slower than the CPU backend, so auto runs the CPU and says why; on a
// hardware renderer it does not claim software.
GST_START_TEST(test_auto_software_renderer_takes_cpu) {
  g_unsetenv("EF_GL_RENDERER_KIND");
  const std::string renderer = gl_renderer();
  fail_if(renderer.empty(), "no GL renderer");
  const bool software = contains(renderer, "llvmpipe") || contains(renderer, "softpipe");
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_NV12, 320, 240);
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGB, 160, 160);
  GstHarness *h = gst_harness_new_parse("efconvert name=conv");
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(out));
  GstBuffer *src = smooth_nv12(in);
  fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(src)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));
  GstElement *conv = harness_element(h, "conv");
  const std::string reason = string_property(conv, "backend-reason");
  fail_unless(contains(reason, renderer.c_str()), "renderer %s, reason: %s", renderer.c_str(),
              reason.c_str());
  fail_unless_equals_int(contains(reason, "software"), software);
  if (software)
    expect_backend(string_property(conv, "backend-in-use"), "cpu");
  gst_buffer_unref(src);
  gst_harness_teardown(h);
}
GST_END_TEST;

// GL memory in (efupload's textures) and out: GL, even on llvmpipe.
GST_START_TEST(test_auto_gl_memory_takes_gl) {
  g_unsetenv("EF_GL_RENDERER_KIND");
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_NV12, 320, 240);
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGBA, 64, 64);
  GstHarness *h = gst_harness_new_parse("efupload ! efconvert name=conv");
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF),
                       caps_for(out, GST_CAPS_FEATURE_MEMORY_GL_MEMORY));
  fail_unless_equals_int(gst_harness_push(h, memfd_frame(in, 1)), GST_FLOW_OK);
  GstBuffer *got = gst_harness_pull(h);
  fail_unless(gst_is_gl_memory(gst_buffer_peek_memory(got, 0)));
  gst_buffer_unref(got);
  GstElement *conv = harness_element(h, "conv");
  expect_backend(string_property(conv, "backend-in-use"), "gl");
  const std::string reason = string_property(conv, "backend-reason");
  fail_unless(contains(reason, "GL memory"), "%s", reason.c_str());
  fail_unless_equals_uint64(stat(conv, "uploads"), 0);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Hardware GL (the renderer's kind forced) that refuses the imports, frames
// in system memory both ways: the first frame, on GL, is uploaded and read
// back, which settles it: every later frame runs on the CPU. No frame is
// lost or wrong, the GL frame counted with the rest.
GST_START_TEST(test_auto_refused_imports_take_cpu) {
  AutoOnHardware run(info_of(GST_VIDEO_FORMAT_NV12, 320, 240),
                     info_of(GST_VIDEO_FORMAT_RGB, 160, 160), nullptr);
  fail_unless(contains(run.property("backend-reason"), "trial:"));
  g_refuse_imports = true;
  run.push(0, 12);
  g_refuse_imports = false;
  expect_backend(run.property("backend-in-use"), "cpu");
  const std::string reason = run.property("backend-reason");
  fail_unless(contains(reason, "upload and a readback"), "%s", reason.c_str());
  fail_unless_equals_uint64(stat(run.conv, "frames"), 12);
  fail_unless_equals_uint64(stat(run.conv, "uploads"), 1);
  fail_unless_equals_uint64(stat(run.conv, "readbacks"), 1);
}
GST_END_TEST;

// Hardware GL (forced) that imports the source but must read RGB 300x300
// back (rows of 900 bytes): not clear-cut, so both are timed on the first
// frame and the faster kept, before that frame leaves; the reason gives the
// times.
GST_START_TEST(test_auto_times_both) {
  AutoOnHardware run(info_of(GST_VIDEO_FORMAT_NV12, 640, 480),
                     info_of(GST_VIDEO_FORMAT_RGB, 300, 300), GST_CAPS_FEATURE_MEMORY_DMABUF);
  fail_unless(contains(run.property("backend-reason"), "trial:"));
  run.push(0, 1);
  const std::string settled = run.property("backend-in-use");
  run.push(1, 20);
  expect_backend(run.property("backend-in-use"), settled.c_str());
  const std::string reason = run.property("backend-reason");
  fail_unless(contains(reason, "timed the first frame 4 times each") &&
                  contains(reason, "destination read back"),
              "%s", reason.c_str());
  // The reason's times name the faster: "cpu X us, gl Y us".
  double cpu_us = 0, gl_us = 0;
  fail_unless(
      sscanf(reason.c_str() + reason.find("cpu "), "cpu %lf us, gl %lf us", &cpu_us, &gl_us) == 2,
      "%s", reason.c_str());
  expect_backend(run.property("backend-in-use"), gl_us < cpu_us ? "gl" : "cpu");
  fail_unless_equals_uint64(stat(run.conv, "frames"), 20);
  // The first frame imported (GL) and mapped (CPU) once, each of the 3
  // other slots of the ring by the one kept.
  fail_unless_equals_uint64(stat(run.conv, "src-misses"), 5);
  // The first frame read back once to learn, then in each of 8 rounds.
  fail_unless(stat(run.conv, "readbacks") >= 9, "%lu readbacks",
              (unsigned long)stat(run.conv, "readbacks"));
}
GST_END_TEST;

namespace {

// NV12 colour bars in a memfd: 7 bars of saturated colour whose edges
// `seed` moves, over luma steps every 17 rows, so that each frame of a ring
// averages to other colours.
GstBuffer *bars_nv12(const GstVideoInfo &info, uint32_t seed) {
  static constexpr guint8 kBars[7][3] = {{180, 128, 128}, {168, 44, 136}, {145, 147, 44},
                                         {133, 63, 52},   {63, 193, 204}, {51, 109, 212},
                                         {28, 212, 120}};  // Y, U, V
  GstBuffer *buf = memfd_frame(info, seed);
  GstVideoFrame f;
  GstVideoInfo copy = info;
  fail_unless(gst_video_frame_map(&f, &copy, buf, GST_MAP_WRITE));
  const gint w = GST_VIDEO_INFO_WIDTH(&info), h = GST_VIDEO_INFO_HEIGHT(&info);
  auto bar = [&](gint x) { return ((x + gint(seed) * 29) * 7 / w) % 7; };
  guint8 *y = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0));
  guint8 *uv = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 1));
  for (gint r = 0; r < h; ++r)
    for (gint c = 0; c < w; ++c)
      y[r * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0) + c] = guint8(kBars[bar(c)][0] - (r / 17) % 3 * 9);
  for (gint r = 0; r < h / 2; ++r)
    for (gint c = 0; c < w / 2; ++c)
      for (gint k = 0; k < 2; ++k)
        uv[r * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 1) + 2 * c + k] = kBars[bar(2 * c)][1 + k];
  gst_video_frame_unmap(&f);
  return buf;
}

// How far apart two buffers' visible bytes (one plane, laid out as `info`)
// are: at most and on average.
struct Difference {
  int most = 0;
  double mean = 0;
};

Difference difference(GstBuffer *a, GstBuffer *b, const GstVideoInfo &info) {
  GstVideoFrame fa, fb;
  GstVideoInfo ia = info, ib = info;
  fail_unless(gst_video_frame_map(&fa, &ia, a, GST_MAP_READ));
  fail_unless(gst_video_frame_map(&fb, &ib, b, GST_MAP_READ));
  Difference d;
  const gsize row = gsize(GST_VIDEO_INFO_WIDTH(&info)) * GST_VIDEO_INFO_COMP_PSTRIDE(&info, 0);
  for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT(&info); ++y) {
    const auto *ra = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&fa, 0)) +
                     y * GST_VIDEO_FRAME_PLANE_STRIDE(&fa, 0);
    const auto *rb = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&fb, 0)) +
                     y * GST_VIDEO_FRAME_PLANE_STRIDE(&fb, 0);
    for (gsize x = 0; x < row; ++x) {
      const int e = std::abs(int(ra[x]) - int(rb[x]));
      d.most = std::max(d.most, e);
      d.mean += e;
    }
  }
  d.mean /= double(row * GST_VIDEO_INFO_HEIGHT(&info));
  gst_video_frame_unmap(&fa);
  gst_video_frame_unmap(&fb);
  return d;
}

}  // namespace

// A model's input does not depend on which backend happened to convert it:
// auto's timed trial converts the first frame with both backends and lets
// it go as the kept backend's, so every frame of the stream, the first
// included, is that backend's own (byte for byte what it makes alone), at
// the strong reductions where GL's filter once was far from the CPU's box
// (RGB 1x1: 7-8 dB apart). The two backends themselves agree within about
// a level on average there (the CPU's 8-bit averages and integer colour
// conversion against GL's float: a few levels at most).
GST_START_TEST(test_auto_trial_frames_agree) {
  g_setenv("EF_GL_RENDERER_KIND", "hardware", TRUE);
  const GstVideoInfo in = info_of(GST_VIDEO_FORMAT_NV12, 320, 240);
  GstBuffer *ring[4];
  for (uint32_t i = 0; i < 4; ++i)
    ring[i] = bars_nv12(in, i);
  for (const auto &[w, h] : {std::pair{1u, 1u}, std::pair{16u, 12u}}) {
    const GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGB, w, h);
    GstHarness *harness = gst_harness_new_parse("efconvert name=conv letterbox=false");
    gst_harness_set_caps(harness, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(out));
    GstElement *conv = harness_element(harness, "conv");
    constexpr int kFrames = 12;
    std::vector<GstBuffer *> outputs;
    for (int f = 0; f < kFrames; ++f) {
      fail_unless_equals_int(gst_harness_push(harness, gst_buffer_ref(ring[f % 4])), GST_FLOW_OK);
      outputs.push_back(gst_harness_pull(harness));
    }
    const std::string reason = string_property(conv, "backend-reason");
    fail_unless(contains(reason, "timed the first frame 4 times each"), "%ux%u: %s", w, h,
                reason.c_str());
    const std::string kept = string_property(conv, "backend-in-use");
    double mean = 0;
    int most = 0;
    for (int f = 0; f < kFrames; ++f) {
      GstBuffer *alone = convert_one(kept.c_str(), ring[f % 4], in, out);
      const int d = difference(outputs[f], alone, out).most;
      fail_unless(d == 0, "RGB %ux%u: frame %d differs by %d from the kept backend's (%s)", w, h, f,
                  d, kept.c_str());
      gst_buffer_unref(alone);
      if (f < 4) {
        GstBuffer *gl = convert_one("gl", ring[f], in, out);
        GstBuffer *cpu = convert_one("cpu", ring[f], in, out);
        const Difference between = difference(gl, cpu, out);
        mean += between.mean / 4;
        most = std::max(most, between.most);
        gst_buffer_unref(gl);
        gst_buffer_unref(cpu);
      }
    }
    std::printf(
        "RGB %ux%u: every frame the kept backend's (%s); gl against cpu: %.2f on "
        "average, %d at most\n",
        w, h, kept.c_str(), mean, most);
    fail_unless(mean <= 1.5, "RGB %ux%u: gl and cpu %.2f apart on average", w, h, mean);
    for (GstBuffer *b : outputs)
      gst_buffer_unref(b);
    gst_harness_teardown(harness);
  }
  for (GstBuffer *b : ring)
    gst_buffer_unref(b);
  g_unsetenv("EF_GL_RENDERER_KIND");
}
GST_END_TEST;

namespace {

// An output of efconvert's own memfd pool, and whether the GL backend can
// render into it in place.
struct OutputSize {
  GstVideoFormat format;
  guint width, height;
  bool in_place;  // rows on 16 bytes, whole blocks of 4 rows in the memory
};

// Sizes of every kind: rows that are no multiple of 16 bytes (RGB 300 wide
// is 900), 1-pixel sides, planes whose last block of 4 rows reaches into
// the next (RGBP 16x15), rows of 16 bytes whose last block lies past the
// memory (RGBA 1024x1: one page), and two that render in place.
constexpr OutputSize kOutputSizes[] = {
    {GST_VIDEO_FORMAT_RGB, 300, 300, false}, {GST_VIDEO_FORMAT_RGB, 299, 299, false},
    {GST_VIDEO_FORMAT_RGB, 100, 100, false}, {GST_VIDEO_FORMAT_RGB, 8, 8, false},
    {GST_VIDEO_FORMAT_RGB, 4, 4, false},     {GST_VIDEO_FORMAT_RGB, 33, 33, false},
    {GST_VIDEO_FORMAT_RGB, 8, 64, false},    {GST_VIDEO_FORMAT_RGB, 1, 1, false},
    {GST_VIDEO_FORMAT_RGB, 7, 5, false},     {GST_VIDEO_FORMAT_RGB, 17, 9, false},
    {GST_VIDEO_FORMAT_RGB, 4095, 1, false},  {GST_VIDEO_FORMAT_RGB, 1, 4095, false},
    {GST_VIDEO_FORMAT_RGBA, 6, 6, false},    {GST_VIDEO_FORMAT_RGBA, 10, 10, false},
    {GST_VIDEO_FORMAT_RGBA, 1024, 1, false}, {GST_VIDEO_FORMAT_RGBA, 1024, 3, false},
    {GST_VIDEO_FORMAT_GRAY8, 8, 8, false},   {GST_VIDEO_FORMAT_GRAY8, 20, 20, false},
    {GST_VIDEO_FORMAT_RGBP, 8, 8, false},    {GST_VIDEO_FORMAT_RGBP, 16, 15, false},
    {GST_VIDEO_FORMAT_RGB, 16, 16, true},    {GST_VIDEO_FORMAT_RGBP, 16, 16, true},
};

}  // namespace

// Frames whose fd is no buffer (/dev/null, a disk file holding a real frame,
// a pipe) are refused by name by the GL backend's element, never imported or
// uploaded; the next memfd frame converts exactly.
GST_START_TEST(test_not_a_buffer_refused) {
  expect_convert_not_a_buffer_refused("backend=gl");
}
GST_END_TEST;

// A memfd shorter than its memory claims (0 bytes, or 4096 of NV12 64x48's
// 4608) is refused by name before any import or upload (it was a SIGBUS in
// the upload's copy, or a picture of other bytes), by the max-errors rule;
// the good frames after it convert as a fresh element's.
GST_START_TEST(test_short_fds_refused) {
  expect_convert_short_fds_refused("backend=gl", "video/x-raw,format=RGB,width=64,height=48");
}
GST_END_TEST;

// GAP buffers go on as gap events in order with the frames (and the
// pipelined read-backs before them), never a bad frame.
GST_START_TEST(test_gap_buffers) {
  expect_convert_gaps_forwarded("backend=gl", "video/x-raw,format=RGB,width=32,height=24");
}
GST_END_TEST;

// Into efconvert's own memfd pool (the harness offers none), at sizes
// whose rows are no multiple of 16 bytes or whose last block of rows lies
// outside the plane's memory: the driver must not render into such a memfd
// in place (llvmpipe faulted or hung there); the frame is rendered apart
// and read back, counted, and every byte is right. One forked run a size,
// so a crash names it.
GST_START_TEST(test_fd_output_sizes) {
  const OutputSize &k = kOutputSizes[__i__];
  const GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, k.width, k.height);
  const GstVideoInfo out = info_of(k.format, k.width, k.height);
  const std::string name = std::string(gst_video_format_to_string(k.format)) + " " +
                           std::to_string(k.width) + "x" + std::to_string(k.height);
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=gl");
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(out));
  const guint frames = 3;
  for (uint32_t f = 0; f < frames; ++f) {
    fail_unless_equals_int(gst_harness_push(h, memfd_frame(in, f)), GST_FLOW_OK);
    GstBuffer *got = gst_harness_pull(h);
    fail_unless(gst_is_fd_memory(gst_buffer_peek_memory(got, 0)), "%s: not the memfd pool",
                name.c_str());
    const std::string bad = check_from_rgba(got, out, f);
    fail_unless(bad.empty(), "%s frame %u: %s", name.c_str(), f, bad.c_str());
    gst_buffer_unref(got);
  }
  GstElement *conv = harness_element(h, "conv");
  const guint64 in_place = stat(conv, "dst-hits") + stat(conv, "dst-misses");
  const guint64 readbacks = stat(conv, "readbacks");
  fail_unless_equals_uint64(in_place + readbacks, frames);
  fail_unless(k.in_place ? in_place == frames : readbacks == frames,
              "%s: %lu in place, %lu read back", name.c_str(), (unsigned long)in_place,
              (unsigned long)readbacks);
  gst_harness_teardown(h);
}
GST_END_TEST;

namespace {

// Read back, never in place: rows of 900 and 897 bytes (no multiple of 16),
// 1-pixel sides, planes whose last block of rows reaches the next, GRAY8.
constexpr OutputSize kPipelinedSizes[] = {
    {GST_VIDEO_FORMAT_RGB, 300, 300, false}, {GST_VIDEO_FORMAT_RGB, 299, 299, false},
    {GST_VIDEO_FORMAT_RGB, 1, 1, false},     {GST_VIDEO_FORMAT_RGB, 7, 5, false},
    {GST_VIDEO_FORMAT_RGBP, 16, 15, false},  {GST_VIDEO_FORMAT_GRAY8, 20, 20, false},
};

// A harness converting RGBA of the size to `size` with readback-depth `depth`.
// `timing`: gpu-timing (GL timer queries) on.
GstHarness *pipelined(const OutputSize &size, guint depth, GstVideoInfo &in, GstVideoInfo &out,
                      bool timing = true) {
  in = info_of(GST_VIDEO_FORMAT_RGBA, size.width, size.height);
  out = info_of(size.format, size.width, size.height);
  in.fps_n = out.fps_n = 30;
  in.fps_d = out.fps_d = 1;
  const std::string launch =
      "efconvert name=conv backend=gl readback-depth=" + std::to_string(depth) +
      (timing ? " gpu-timing=true" : "");
  GstHarness *h = gst_harness_new_parse(launch.c_str());
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(out));
  return h;
}

void push_frame(GstHarness *h, const GstVideoInfo &in, uint32_t seed) {
  GstBuffer *frame = memfd_frame(in, seed);
  GST_BUFFER_PTS(frame) = seed * GST_MSECOND;
  fail_unless_equals_int(gst_harness_push(h, frame), GST_FLOW_OK);
}

// The output of frame `seed`: its timestamp, and every visible byte.
void check_output(GstBuffer *got, const GstVideoInfo &out, uint32_t seed, const char *what) {
  fail_unless(got != nullptr, "%s: no output for frame %u", what, seed);
  fail_unless_equals_uint64(GST_BUFFER_PTS(got), seed * GST_MSECOND);
  const std::string bad = check_from_rgba(got, out, seed);
  fail_unless(bad.empty(), "%s frame %u: %s", what, seed, bad.c_str());
  gst_buffer_unref(got);
}

}  // namespace

// With readback-depth N an output is pushed once N later frames have been
// rendered, not in its own chain (the streaming thread did not wait for its
// read-back), every byte right at sizes whose rows are no multiple of 16;
// EOS delivers the last N, in order, before the EOS event; readbacks and
// bytes-read count each frame delivered once.
GST_START_TEST(test_pipelined_readback) {
  const OutputSize &k = kPipelinedSizes[__i__ / 2];
  const guint depth = 1 + guint(__i__ % 2);
  const std::string what = std::string(gst_video_format_to_string(k.format)) + " " +
                           std::to_string(k.width) + "x" + std::to_string(k.height) + " depth " +
                           std::to_string(depth);
  GstVideoInfo in, out;
  const gint64 start_us = g_get_monotonic_time();
  GstHarness *h = pipelined(k, depth, in, out);
  const uint32_t frames = 5;
  for (uint32_t f = 0; f < frames; ++f) {
    push_frame(h, in, f);
    if (f >= depth)
      check_output(gst_harness_try_pull(h), out, f - depth, what.c_str());
    fail_unless(gst_harness_try_pull(h) == nullptr, "%s: frame %u out before %u later ones",
                what.c_str(), f, depth);
  }
  GstElement *conv = harness_element(h, "conv");
  fail_unless_equals_uint64(stat(conv, "readbacks"), frames - depth);
  fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
  for (uint32_t f = frames - depth; f < frames; ++f)
    check_output(gst_harness_try_pull(h), out, f, what.c_str());
  GstEvent *event;
  bool eos = false;
  while ((event = gst_harness_try_pull_event(h))) {
    eos = eos || GST_EVENT_TYPE(event) == GST_EVENT_EOS;
    gst_event_unref(event);
  }
  fail_unless(eos, "%s: no EOS after the drained frames", what.c_str());
  fail_unless_equals_uint64(stat(conv, "frames"), frames);
  fail_unless_equals_uint64(stat(conv, "readbacks"), frames);
  fail_unless_equals_uint64(stat(conv, "bytes-read"), frames * guint64(out.size));
  // Timer queries around each pass (llvmpipe's desktop GL has them). A
  // result longer than the test itself is dropped (llvmpipe answers a
  // context's first bracket with a timestamp of hours): never summed.
  const guint64 timed = stat(conv, "gpu-frames"), gpu_ns = stat(conv, "gpu-time-ns");
  fail_unless(timed >= frames - 1 && timed <= frames, "%s: %" G_GUINT64_FORMAT " frames timed",
              what.c_str(), timed);
  fail_unless(gpu_ns > 0);
  const guint64 wall_ns = guint64(g_get_monotonic_time() - start_us) * 1000;
  fail_unless(gpu_ns <= wall_ns,
              "%s: GPU time %" G_GUINT64_FORMAT " ns, longer than the %" G_GUINT64_FORMAT
              " ns the test took",
              what.c_str(), gpu_ns, wall_ns);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Timer queries are asked for (gpu-timing): by default no frame is timed,
// and EOS, which brings the timers' last results in, hands nothing over
// to the GL thread.
GST_START_TEST(test_gpu_timing_off_by_default) {
  GstVideoInfo in, out;
  GstHarness *h = pipelined(kPipelinedSizes[0], 0, in, out, false);
  GstElement *conv = harness_element(h, "conv");
  gboolean timing = TRUE;
  g_object_get(conv, "gpu-timing", &timing, nullptr);
  fail_if(timing, "gpu-timing is on by default");
  const uint32_t frames = 3;
  for (uint32_t f = 0; f < frames; ++f) {
    push_frame(h, in, f);
    check_output(gst_harness_try_pull(h), out, f, "default");
  }
  fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
  fail_unless_equals_uint64(stat(conv, "frames"), frames);
  fail_unless_equals_uint64(stat(conv, "gpu-frames"), 0);
  fail_unless_equals_uint64(stat(conv, "gpu-time-ns"), 0);
  fail_unless_equals_uint64(stat(conv, "readback-gpu-time-ns"), 0);
  fail_unless_equals_uint64(stat(conv, "gl-handovers"), frames);
  gst_harness_teardown(h);
}
GST_END_TEST;

// A flush forgets the outputs in flight: none is pushed or counted, each
// goes back to its pool (all of the pool's buffers can be taken again), and
// the next frame comes out right.
GST_START_TEST(test_pipelined_flush) {
  GstVideoInfo in, out;
  const guint depth = 2, pool_buffers = 2;
  const OutputSize size{GST_VIDEO_FORMAT_RGB, 299, 299, false};
  in = info_of(GST_VIDEO_FORMAT_RGBA, size.width, size.height);
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=gl readback-depth=2");
  offer_downstream_pool(h, nullptr, pool_buffers);
  out = info_of(size.format, size.width, size.height);
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(out));
  push_frame(h, in, 0);
  push_frame(h, in, 1);
  GstElement *conv = harness_element(h, "conv");
  fail_unless(gst_harness_try_pull(h) == nullptr);
  fail_unless(gst_harness_push_event(h, gst_event_new_flush_start()));
  fail_unless(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
  fail_unless(gst_harness_try_pull(h) == nullptr, "a flushed frame was pushed");
  fail_unless_equals_uint64(stat(conv, "readbacks"), 0);
  fail_unless_equals_uint64(stat(conv, "bytes-read"), 0);
  // The pool was asked for depth more buffers than downstream's; all free.
  GstBufferPool *pool = gst_base_transform_get_buffer_pool(GST_BASE_TRANSFORM(conv));
  fail_unless(pool != nullptr);
  GstBufferPoolAcquireParams dontwait{};
  dontwait.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
  std::vector<GstBuffer *> taken;
  for (guint i = 0; i < pool_buffers + depth; ++i) {
    GstBuffer *b = nullptr;
    fail_unless_equals_int(gst_buffer_pool_acquire_buffer(pool, &b, &dontwait), GST_FLOW_OK);
    taken.push_back(b);
  }
  for (GstBuffer *b : taken)
    gst_buffer_unref(b);
  gst_object_unref(pool);
  // A new segment after the flush, then a frame and EOS.
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  fail_unless(gst_harness_push_event(h, gst_event_new_segment(&segment)));
  push_frame(h, in, 7);
  fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
  check_output(gst_harness_try_pull(h), out, 7, "after the flush");
  fail_unless(gst_harness_try_pull(h) == nullptr);
  fail_unless_equals_uint64(stat(conv, "readbacks"), 1);
  fail_unless_equals_uint64(stat(conv, "bytes-read"), guint64(out.size));
  gst_harness_teardown(h);
}
GST_END_TEST;

// The pass samples the input after the chain returned (the read-back is
// still in flight): the input is held until its frame is read back, so a
// producer cannot rewrite it under the GPU; a flush lets go of it too.
GST_START_TEST(test_pipelined_holds_input) {
  GstVideoInfo in, out;
  GstHarness *h = pipelined(kPipelinedSizes[0], 1, in, out);
  GstBuffer *older = memfd_frame(in, 0);
  GstBuffer *newer = memfd_frame(in, 1);
  fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(older)), GST_FLOW_OK);
  fail_unless(GST_MINI_OBJECT_REFCOUNT_VALUE(older) > 1, "input let go while in flight");
  fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(newer)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));
  fail_unless_equals_int(GST_MINI_OBJECT_REFCOUNT_VALUE(older), 1);
  fail_unless(GST_MINI_OBJECT_REFCOUNT_VALUE(newer) > 1, "input let go while in flight");
  fail_unless(gst_harness_push_event(h, gst_event_new_flush_start()));
  fail_unless(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
  fail_unless_equals_int(GST_MINI_OBJECT_REFCOUNT_VALUE(newer), 1);
  gst_buffer_unref(older);
  gst_buffer_unref(newer);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Upstream is asked for readback-depth buffers of its own beyond what it
// needs: each frame in flight holds its input.
GST_START_TEST(test_pipelined_asks_upstream) {
  GstVideoInfo in, out;
  GstHarness *h = pipelined(kPipelinedSizes[0], 2, in, out);
  GstCaps *caps = caps_for(in);
  GstQuery *query = gst_query_new_allocation(caps, TRUE);
  fail_unless(gst_pad_peer_query(h->srcpad, query));
  fail_unless(gst_query_get_n_allocation_pools(query) > 0, "no pool size proposed");
  guint size = 0, min = 0, max = 0;
  gst_query_parse_nth_allocation_pool(query, 0, nullptr, &size, &min, &max);
  fail_unless(min >= 2, "min %u buffers proposed", min);
  gst_query_unref(query);
  gst_caps_unref(caps);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Frames held are latency: readback-depth frame durations added to
// upstream's; none where nothing is held (depth 0, the CPU backend).
GST_START_TEST(test_pipelined_latency) {
  for (const char *backend : {"gl", "cpu"})
    for (guint depth : {0u, 2u}) {
      GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 300, 300);
      GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGB, 300, 300);
      in.fps_n = out.fps_n = 30;
      in.fps_d = out.fps_d = 1;
      const std::string launch =
          std::string("efconvert backend=") + backend + " readback-depth=" + std::to_string(depth);
      GstHarness *h = gst_harness_new_parse(launch.c_str());
      gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(out));
      GstQuery *query = gst_query_new_latency();
      fail_unless(gst_pad_peer_query(h->sinkpad, query));
      gboolean live;
      GstClockTime min, max;
      gst_query_parse_latency(query, &live, &min, &max);
      // The CPU backend writes in place: nothing is held.
      const guint held = std::string(backend) == "gl" ? depth : 0;
      fail_unless_equals_uint64(min, gst_util_uint64_scale_int(GST_SECOND, held, 30));
      gst_query_unref(query);
      gst_harness_teardown(h);
    }
}
GST_END_TEST;

namespace {

// A YUY2 or UYVY frame whose pairs alternate between two strong colours
// (by column and by row), luma a ramp: the V of each pair, the last one of
// an odd width included, shows in its pixels.
void fill_packed_422(GstBuffer *buffer, const GstVideoInfo &info) {
  GstVideoFrame f;
  GstVideoInfo copy = info;
  fail_unless(gst_video_frame_map(&f, &copy, buffer, GST_MAP_WRITE));
  const bool yuy2 = GST_VIDEO_INFO_FORMAT(&info) == GST_VIDEO_FORMAT_YUY2;
  const guint pairs = (guint(GST_VIDEO_INFO_WIDTH(&info)) + 1) / 2;
  for (guint y = 0; y < guint(GST_VIDEO_INFO_HEIGHT(&info)); ++y) {
    guint8 *row = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)) +
                  gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0);
    for (guint k = 0; k < pairs; ++k) {
      const bool odd = (k + y) % 2;
      const guint8 luma[2] = {guint8(60 + (7 * k + 3 * y) % 120), guint8(90 + (5 * k + y) % 120)};
      const guint8 u = odd ? 200 : 60, v = odd ? 40 : 220;
      guint8 *pair = row + 4 * k;
      pair[yuy2 ? 0 : 1] = luma[0];
      pair[yuy2 ? 2 : 3] = luma[1];
      pair[yuy2 ? 1 : 0] = u;
      pair[yuy2 ? 3 : 2] = v;
    }
  }
  gst_video_frame_unmap(&f);
}

// GstVideoConverter's RGB of `in`, off its fast paths (which replicate
// chroma) so that chroma is interpolated as the GL backend does.
GstBuffer *reference_rgb(GstBuffer *in, const GstVideoInfo &in_info, const GstVideoInfo &out_info) {
  GstBuffer *out = gst_buffer_new_allocate(nullptr, out_info.size, nullptr);
  GstVideoFrame src, dst;
  GstVideoInfo a = in_info, b = out_info;
  fail_unless(gst_video_frame_map(&src, &a, in, GST_MAP_READ));
  fail_unless(gst_video_frame_map(&dst, &b, out, GST_MAP_WRITE));
  GstStructure *options = gst_structure_new(
      "options", GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD,
      GST_VIDEO_DITHER_NONE, GST_VIDEO_CONVERTER_OPT_DITHER_QUANTIZATION, G_TYPE_UINT, 2u, nullptr);
  GstVideoConverter *converter = gst_video_converter_new(&a, &b, options);
  fail_unless(converter != nullptr);
  gst_video_converter_frame(converter, &src, &dst);
  gst_video_converter_free(converter);
  gst_video_frame_unmap(&dst);
  gst_video_frame_unmap(&src);
  return out;
}

// The largest difference of two frames' visible bytes, every plane, and
// where.
int max_difference(GstBuffer *a, GstBuffer *b, const GstVideoInfo &info, std::string &where) {
  GstVideoFrame fa, fb;
  GstVideoInfo ia = info, ib = info;
  fail_unless(gst_video_frame_map(&fa, &ia, a, GST_MAP_READ));
  fail_unless(gst_video_frame_map(&fb, &ib, b, GST_MAP_READ));
  int worst = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
    gint comps[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component(info.finfo, p, comps);
    const guint bpp = guint(GST_VIDEO_INFO_COMP_PSTRIDE(&info, comps[0]));
    for (guint y = 0; y < guint(GST_VIDEO_INFO_COMP_HEIGHT(&info, comps[0])); ++y)
      for (guint x = 0; x < guint(GST_VIDEO_INFO_COMP_WIDTH(&info, comps[0])) * bpp; ++x) {
        auto at = [&](GstVideoFrame &f) {
          return int(static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(
              &f, p))[gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&f, p) + x]);
        };
        const int d = std::abs(at(fa) - at(fb));
        if (d > worst) {
          worst = d;
          where = "plane " + std::to_string(p) + " pixel " + std::to_string(x / bpp) + "," +
                  std::to_string(y) + " byte " + std::to_string(x % bpp) + ": " +
                  std::to_string(at(fa)) + " vs " + std::to_string(at(fb));
        }
      }
  }
  gst_video_frame_unmap(&fa);
  gst_video_frame_unmap(&fb);
  return worst;
}

}  // namespace

// YUY2 and UYVY of odd widths (1, 3, 5; 1x4095) into RGB at 1:1, imported
// from a memfd and uploaded from system memory: the last pair's V lies in
// its padding pixel, past the frame's width, and must still be used.
GST_START_TEST(test_packed_422_odd_widths) {
  const std::pair<guint, guint> sizes[] = {{1, 1}, {1, 2}, {1, 4095}, {3, 1},
                                           {3, 2}, {5, 1}, {5, 3},    {2, 2}};
  for (GstVideoFormat format : {GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY})
    for (const auto &[w, h] : sizes)
      for (bool memfd : {true, false}) {
        const GstVideoInfo in = info_of(format, w, h);
        const GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGB, w, h);
        GstBuffer *src = memfd ? memfd_frame(in, 0) : system_frame(in, 0);
        fill_packed_422(src, in);
        GstHarness *hn = gst_harness_new_parse("efconvert name=conv backend=gl");
        offer_downstream_pool(hn, nullptr, 2);
        gst_harness_set_caps(hn, caps_for(in, memfd ? GST_CAPS_FEATURE_MEMORY_DMABUF : nullptr),
                             caps_for(out));
        fail_unless_equals_int(gst_harness_push(hn, gst_buffer_ref(src)), GST_FLOW_OK);
        GstBuffer *got = gst_harness_pull(hn);
        fail_unless_equals_uint64(stat(harness_element(hn, "conv"), "uploads"), memfd ? 0 : 1);
        GstBuffer *want = reference_rgb(src, in, out);
        std::string where;
        const int worst = max_difference(got, want, out, where);
        // GstVideoConverter rounds its 8-bit matrix: G is up to 5 off.
        fail_unless(worst <= 6, "%s %ux%u from %s: differs by %d at %s",
                    gst_video_format_to_string(format), w, h, memfd ? "a memfd" : "system memory",
                    worst, where.c_str());
        gst_buffer_unref(want);
        gst_buffer_unref(got);
        gst_buffer_unref(src);
        gst_harness_teardown(hn);
      }
}
GST_END_TEST;

namespace {

// One frame through efconvert backend=gl gl-shader=`shader` (system-memory
// output read back, or GL memory downloaded after), the element's
// gl-shader-in-use in `in_use`.
GstBuffer *convert_with_shader(const char *shader, GstBuffer *src, const GstVideoInfo &in,
                               const GstVideoInfo &out, bool gl_memory, std::string &in_use) {
  const std::string launch =
      std::string("efconvert name=conv backend=gl fill-color=0xff1ec85a gl-shader=") + shader +
      (gl_memory ? " ! video/x-raw(memory:GLMemory),format=RGBA ! gldownload" : "");
  GstHarness *h = gst_harness_new_parse(launch.c_str());
  if (!gl_memory)
    offer_downstream_pool(h, nullptr, 2);
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(out));
  fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(src)), GST_FLOW_OK);
  GstBuffer *got = gst_harness_pull(h);
  in_use = string_property(harness_element(h, "conv"), "gl-shader-in-use");
  GstBuffer *copy = gst_buffer_copy_deep(got);
  gst_buffer_unref(got);
  gst_harness_teardown(h);
  return copy;
}

}  // namespace

// gl-shader=compute writes the bytes gl-shader=fragment writes: into GL
// memory, and read back into system memory with a letterbox whose edges
// fall inside texels (RGB content 169 pixels wide at x 65) and a fill that
// is not one repeated byte. auto draws on a software rasterizer and
// computes on hardware GL (the renderer's kind forced).
GST_START_TEST(test_gl_shader_stages) {
  struct Output {
    GstVideoInfo in, out;
    bool gl_memory;
  };
  const Output outputs[] = {
      {info_of(GST_VIDEO_FORMAT_NV12, 320, 180), info_of(GST_VIDEO_FORMAT_RGBA, 96, 96), true},
      {info_of(GST_VIDEO_FORMAT_NV12, 180, 320), info_of(GST_VIDEO_FORMAT_RGB, 300, 300), false},
      {info_of(GST_VIDEO_FORMAT_I420, 318, 200), info_of(GST_VIDEO_FORMAT_RGBP, 128, 100), false},
  };
  for (const Output &o : outputs) {
    GstBuffer *src = memfd_frame(o.in, 9);
    std::string drawn_by, computed_by;
    GstBuffer *drawn = convert_with_shader("fragment", src, o.in, o.out, o.gl_memory, drawn_by);
    GstBuffer *computed =
        convert_with_shader("compute", src, o.in, o.out, o.gl_memory, computed_by);
    fail_unless(drawn_by == "fragment", "gl-shader=fragment runs %s", drawn_by.c_str());
    fail_unless(computed_by == "compute", "gl-shader=compute runs %s", computed_by.c_str());
    std::string where;
    const int diff = max_difference(drawn, computed, o.out, where);
    fail_unless(diff == 0, "%s: computed differs from drawn by %d at %s",
                GST_VIDEO_INFO_NAME(&o.out), diff, where.c_str());
    gst_buffer_unref(drawn);
    gst_buffer_unref(computed);
    gst_buffer_unref(src);
  }
  const Output &o = outputs[1];
  GstBuffer *src = memfd_frame(o.in, 2);
  for (const char *kind : {"software", "hardware"}) {
    g_setenv("EF_GL_RENDERER_KIND", kind, TRUE);
    std::string in_use;
    gst_buffer_unref(convert_with_shader("auto", src, o.in, o.out, false, in_use));
    const char *expected = std::strcmp(kind, "hardware") == 0 ? "compute" : "fragment";
    fail_unless(in_use == expected, "auto on %s GL runs %s", kind, in_use.c_str());
  }
  g_unsetenv("EF_GL_RENDERER_KIND");
  gst_buffer_unref(src);
}
GST_END_TEST;

// On a GPU (the renderer's kind forced) plain-memory outputs are pack
// memory: the GPU reads the frame back into the output itself, also in
// place of a plain system-memory pool downstream offers; the frames are
// those read back into that pool's memory, byte for byte, pipelined or not.
GST_START_TEST(test_readback_into_pack_memory) {
  struct Output {
    GstVideoInfo in, out;
  };
  const Output outputs[] = {
      {info_of(GST_VIDEO_FORMAT_NV12, 180, 320), info_of(GST_VIDEO_FORMAT_RGB, 300, 300)},
      {info_of(GST_VIDEO_FORMAT_I420, 318, 200), info_of(GST_VIDEO_FORMAT_RGBP, 128, 100)},
  };
  for (const Output &o : outputs)
    for (guint depth : {0u, 2u}) {
      GstBuffer *frames[3];
      for (uint32_t i = 0; i < 3; ++i)
        frames[i] = memfd_frame(o.in, 20 + i);
      auto run = [&](const char *kind, std::vector<GstBuffer *> &got, bool &pack) {
        g_setenv("EF_GL_RENDERER_KIND", kind, TRUE);
        const std::string launch =
            "efconvert name=conv backend=gl gl-shader=fragment readback-depth=" +
            std::to_string(depth);
        GstHarness *h = gst_harness_new_parse(launch.c_str());
        // Room for the three frames the harness keeps until pulled.
        offer_downstream_pool(h, nullptr, 6);
        gst_harness_set_caps(h, caps_for(o.in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(o.out));
        for (GstBuffer *f : frames)
          fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(f)), GST_FLOW_OK);
        gst_harness_push_event(h, gst_event_new_eos());
        pack = true;
        for (int i = 0; i < 3; ++i) {
          GstBuffer *out = gst_harness_pull(h);
          pack = pack && gst_memory_is_type(gst_buffer_peek_memory(out, 0), "EfGlPackMemory");
          got.push_back(gst_buffer_copy_deep(out));
          gst_buffer_unref(out);
        }
        fail_unless_equals_uint64(stat(harness_element(h, "conv"), "readbacks"), 3);
        gst_harness_teardown(h);
      };
      std::vector<GstBuffer *> software, hardware;
      bool software_pack = false, hardware_pack = false;
      run("software", software, software_pack);
      run("hardware", hardware, hardware_pack);
      g_unsetenv("EF_GL_RENDERER_KIND");
      fail_unless(!software_pack, "a software rasterizer's output in pack memory");
      fail_unless(hardware_pack, "%s depth %u: a GPU's output not in pack memory",
                  GST_VIDEO_INFO_NAME(&o.out), depth);
      for (int i = 0; i < 3; ++i) {
        std::string where;
        const int diff = max_difference(software[i], hardware[i], o.out, where);
        fail_unless(diff == 0, "%s depth %u frame %d: pack memory differs by %d at %s",
                    GST_VIDEO_INFO_NAME(&o.out), depth, i, diff, where.c_str());
        gst_buffer_unref(software[i]);
        gst_buffer_unref(hardware[i]);
      }
      for (GstBuffer *f : frames)
        gst_buffer_unref(f);
    }
}
GST_END_TEST;

// backend and gl-shader set while playing apply from the next frame (the
// element renegotiates: backend-in-use and gl-shader-in-use say what runs),
// and each frame is what that setting makes: the same bytes for both GL
// passes, the CPU's within 40 dB of GL's (test_gl_matches_cpu).
GST_START_TEST(test_settings_apply_while_playing) {
  const GstVideoInfo in = info_of(GST_VIDEO_FORMAT_NV12, 320, 180);
  const GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGB, 96, 96);
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=gl gl-shader=fragment");
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(out));
  GstElement *conv = harness_element(h, "conv");
  GstBuffer *src = smooth_nv12(in);
  auto run = [&](const char *backend, const char *shader) {
    GstBuffer *got = gst_harness_push_and_pull(h, gst_buffer_ref(src));
    fail_unless(got != nullptr);
    // Kept: the check macro keeps the pointer past the statement.
    const std::string in_use = string_property(conv, "backend-in-use");
    const std::string shader_in_use = string_property(conv, "gl-shader-in-use");
    fail_unless_equals_string(in_use.c_str(), backend);
    fail_unless_equals_string(shader_in_use.c_str(), shader);
    GstBuffer *copy = gst_buffer_copy_deep(got);
    gst_buffer_unref(got);
    return copy;
  };
  GstBuffer *drawn = run("gl", "fragment");
  gst_util_set_object_arg(G_OBJECT(conv), "gl-shader", "compute");
  GstBuffer *computed = run("gl", "compute");
  gst_util_set_object_arg(G_OBJECT(conv), "backend", "cpu");
  GstBuffer *cpu = run("cpu", "none");
  gst_util_set_object_arg(G_OBJECT(conv), "backend", "gl");
  GstBuffer *again = run("gl", "compute");
  std::string where;
  fail_unless_equals_int(max_difference(drawn, computed, out, where), 0);
  fail_unless_equals_int(max_difference(computed, again, out, where), 0);
  const double db = psnr(drawn, cpu, out);
  fail_unless(db >= 40.0, "GL vs CPU after the switch: %.1f dB", db);
  for (GstBuffer *b : {drawn, computed, cpu, again, src})
    gst_buffer_unref(b);
  gst_harness_teardown(h);
}
GST_END_TEST;

static Suite *gl_suite() {
  Suite *s = suite_create("efconvert_gl");
  TCase *tc = tcase_create("gl");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_gl_steady_state);
  tcase_add_test(tc, test_gl_matches_cpu);
  tcase_add_loop_test(tc, test_odd_margin_placement, 0, kOddMarginCount);
  tcase_add_test(tc, test_after_efupload);
  tcase_add_test(tc, test_readback_into_system_memory);
  tcase_add_test(tc, test_gl_memory_output);
  tcase_add_test(tc, test_refused_imports);
  tcase_add_test(tc, test_auto_software_renderer_takes_cpu);
  tcase_add_test(tc, test_auto_gl_memory_takes_gl);
  tcase_add_test(tc, test_auto_refused_imports_take_cpu);
  tcase_add_test(tc, test_auto_times_both);
  tcase_add_test(tc, test_auto_trial_frames_agree);
  tcase_add_test(tc, test_packed_422_odd_widths);
  tcase_add_test(tc, test_gl_shader_stages);
  tcase_add_test(tc, test_readback_into_pack_memory);
  tcase_add_test(tc, test_not_a_buffer_refused);
  tcase_add_test(tc, test_short_fds_refused);
  tcase_add_test(tc, test_gap_buffers);
  tcase_add_test(tc, test_settings_apply_while_playing);
  suite_add_tcase(s, tc);
  // A hang before the fix must fail in seconds, not at the default limit.
  TCase *sizes = tcase_create("fd_output_sizes");
  tcase_set_timeout(sizes, 30);
  tcase_add_loop_test(sizes, test_fd_output_sizes, 0, G_N_ELEMENTS(kOutputSizes));
  suite_add_tcase(s, sizes);
  TCase *pipelined = tcase_create("pipelined_readback");
  tcase_set_timeout(pipelined, 60);
  tcase_add_loop_test(pipelined, test_pipelined_readback, 0, 2 * G_N_ELEMENTS(kPipelinedSizes));
  tcase_add_test(pipelined, test_pipelined_flush);
  tcase_add_test(pipelined, test_gpu_timing_off_by_default);
  tcase_add_test(pipelined, test_pipelined_holds_input);
  tcase_add_test(pipelined, test_pipelined_asks_upstream);
  tcase_add_test(pipelined, test_pipelined_latency);
  suite_add_tcase(s, pipelined);
  return s;
}

int main(int argc, char **argv) {
  return run_gl_suite(argc, argv, gl_suite, Needs::EglDmabufImport);
}
