// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's GL backend at what GL refuses: the largest tensor, whose
// dispatch in rows of 64 work groups asked GL for 65536 of them along y
// (GL_INVALID_VALUE: a tensor of zeros went on as a frame), and a pass GL
// flags an error for, which must be a bad frame on the bus, not a frame.
// Its own binary: the largest tensor takes a minute on llvmpipe, once, not
// once per GL API as the tensor suite runs.
#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include <cmath>
#include <cstring>
#include <string>

#include "check_gl_main.hpp"
#include "frames.hpp"
#include "harness.hpp"

using namespace ef::test;

namespace {

// NV12 white (Y 235, U and V 128: R'G'B' 255) in system memory.
GstBuffer *white_nv12(const GstVideoInfo &info) {
  GstBuffer *buffer = gst_buffer_new_allocate(nullptr, info.size, nullptr);
  GstVideoFrame frame;
  GstVideoInfo copy = info;
  fail_unless(gst_video_frame_map(&frame, &copy, buffer, GST_MAP_WRITE));
  for (guint p = 0; p < 2; ++p)
    std::memset(
        GST_VIDEO_FRAME_PLANE_DATA(&frame, p), p ? 128 : 235,
        gsize(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p)) * GST_VIDEO_FRAME_COMP_HEIGHT(&frame, p));
  gst_video_frame_unmap(&frame);
  return buffer;
}

// Elements of `buffer` (float32) further than a hundredth of a level from
// `value` (float tensors carry the pass's full precision, not a rounded
// byte), and the first.
gsize floats_not(GstBuffer *buffer, float value, gsize &first) {
  GstMapInfo map;
  fail_unless(gst_buffer_map(buffer, &map, GST_MAP_READ));
  const gsize n = map.size / sizeof(float);
  gsize wrong = 0;
  for (gsize i = 0; i < n; ++i) {
    float v;
    std::memcpy(&v, map.data + i * sizeof v, sizeof v);
    if (!(std::fabs(v - value) <= 0.01f) && wrong++ == 0)
      first = i;
  }
  gst_buffer_unmap(buffer, &map);
  return wrong;
}

float value_at(GstBuffer *buffer, gsize i) {
  float v = 0;
  gst_buffer_extract(buffer, i * sizeof v, &v, sizeof v);
  return v;
}

GstVideoInfo nv12_of(guint w, guint h) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, w, h);
  return info;
}

}  // namespace

// The largest float32 tensor (one channel, the cheapest of its size:
// 1 GiB): 2^28 invocations, more than 65535 rows of 64 groups; every value
// 235.0 (within a hundredth) from a white frame (one channel is the luma,
// as a GRAY8 frame of it).
GST_START_TEST(test_largest_tensor_right) {
  const GstVideoInfo in = nv12_of(64, 64);
  GstHarness *h = gst_harness_new_parse("efconvert backend=gl");
  gst_harness_set_caps(h, caps_for(in),
                       gst_caps_from_string("other/tensors,format=static,num_tensors=1,"
                                            "types=float32,dimensions=1:16384:16384:1"));
  GstBus *bus = attach_bus(h);
  fail_unless_equals_int(gst_harness_push(h, white_nv12(in)), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull(h);
  fail_unless(out != nullptr);
  fail_unless_equals_uint64(gst_buffer_get_size(out), guint64(16384) * 16384 * 4);
  gsize first = 0;
  const gsize wrong = floats_not(out, 235.0f, first);
  fail_unless(wrong == 0, "%zu values are not 235.0 (within 0.01), the first at %zu (%g)", wrong,
              first, double(value_at(out, first)));
  fail_unless(pop_error(bus).empty());
  gst_buffer_unref(out);
  release_bus(bus);
  gst_harness_teardown(h);
}
GST_END_TEST;

// A pass GL flagged an error for (EF_GL_FORCE_ERROR=pass: one it cannot
// refuse on its own here) is a bad frame by the max-errors rule, for an
// image and a tensor output: an ERROR naming the GL error, or a WARNING and
// the frame dropped; nothing comes out; the next frame is right.
GST_START_TEST(test_gl_error_is_a_bad_frame) {
  const GstVideoInfo in = nv12_of(64, 48);
  for (const char *out_caps :
       {"video/x-raw,format=RGB,width=32,height=24",
        "other/tensors,format=static,num_tensors=1,types=float32,dimensions=3:32:24:1"}) {
    GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=gl");
    gst_harness_set_caps(h, caps_for(in), gst_caps_from_string(out_caps));
    GstElement *conv = harness_element(h, "conv");
    GstBus *bus = attach_bus(h);
    auto good = [&] {
      fail_unless_equals_int(gst_harness_push(h, white_nv12(in)), GST_FLOW_OK);
      GstBuffer *out = gst_harness_pull(h);
      fail_unless(out != nullptr, "%s: the good frame did not come out", out_caps);
      GstMapInfo map;
      fail_unless(gst_buffer_map(out, &map, GST_MAP_READ));
      const bool tensor = std::strncmp(out_caps, "other/tensors", 13) == 0;
      for (gsize i = 0; i < map.size; i += tensor ? sizeof(float) : 1) {
        float v = map.data[i];
        if (tensor)
          std::memcpy(&v, map.data + i, sizeof v);
        fail_unless(v == 255.0f, "%s: byte %zu of the good frame is %g", out_caps, i, double(v));
      }
      gst_buffer_unmap(out, &map);
      gst_buffer_unref(out);
    };
    good();
    g_setenv("EF_GL_FORCE_ERROR", "pass", TRUE);
    fail_unless_equals_int(gst_harness_push(h, white_nv12(in)), GST_FLOW_ERROR);
    fail_unless(gst_harness_try_pull(h) == nullptr, "%s: a frame came out", out_caps);
    const std::string error = pop_error(bus);
    fail_unless(error.find("GL refused the frame's pass: GL_INVALID_ENUM") != std::string::npos,
                "%s: \"%s\"", out_caps, error.c_str());
    g_unsetenv("EF_GL_FORCE_ERROR");
    good();
    g_setenv("EF_GL_FORCE_ERROR", "pass", TRUE);
    push_bad_frames(
        h, conv, bus, 1, 1, [&] { return white_nv12(in); }, "GL refused the frame's pass");
    g_unsetenv("EF_GL_FORCE_ERROR");
    good();
    release_bus(bus);
    gst_harness_teardown(h);
  }
}
GST_END_TEST;

static Suite *gl_limits_suite() {
  Suite *s = suite_create("efconvert_gl_limits");
  TCase *tc = tcase_create("gl_limits");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_largest_tensor_right);
  tcase_add_test(tc, test_gl_error_is_a_bad_frame);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  return run_gl_suite(argc, argv, gl_limits_suite, Needs::GlCompute);
}
