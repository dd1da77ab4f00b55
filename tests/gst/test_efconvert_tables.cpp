// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert as an element picks the backend from the backends' tables: a
// conversion only one backend's table has goes to that backend (auto says
// why), and asking for a backend whose table lacks it is an error on the
// bus naming the conversion and the backends that can.
#include <gst/video/video.h>

#include <string>

#include "check_gl_main.hpp"
#include "frames.hpp"
#include "harness.hpp"

using namespace ef::test;

namespace {

GstVideoInfo info_of(GstVideoFormat format, guint w, guint h) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, w, h);
  return info;
}

bool contains(const std::string &s, const char *text) {
  return s.find(text) != std::string::npos;
}

}  // namespace

// Tensors GL makes with a compute shader only: with the fragment stage
// forced, auto takes the CPU for tensor caps and says why.
GST_START_TEST(test_tensor_takes_cpu) {
  GstHarness *h = gst_harness_new_parse("efconvert name=conv gl-shader=fragment");
  gst_harness_set_caps_str(h, "video/x-raw, format=NV12, width=64, height=48",
                           "other/tensors, types=float16, dimensions=32:32:3:1");
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_NV12, 64, 48);
  fail_unless_equals_int(gst_harness_push(h, system_frame(in, 1)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));
  GstElement *conv = harness_element(h, "conv");
  const std::string reason = string_property(conv, "backend-reason");
  fail_unless(string_property(conv, "backend-in-use") == "cpu");
  fail_unless(contains(reason, "only the CPU backend converts NV12") &&
                  contains(reason, "float16 tensors") && contains(reason, "gl-shader=fragment"),
              "%s", reason.c_str());
  gst_harness_teardown(h);
}
GST_END_TEST;

// Y444, YV12 and Y42B only the CPU backend reads: auto takes it, and says so.
GST_START_TEST(test_cpu_only_input_takes_cpu) {
  for (GstVideoFormat f : {GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_Y42B}) {
    const GstVideoInfo in = info_of(f, 64, 48), out = info_of(GST_VIDEO_FORMAT_RGB, 32, 32);
    GstHarness *h = gst_harness_new_parse("efconvert name=conv");
    gst_harness_set_caps(h, caps_for(in), caps_for(out));
    fail_unless_equals_int(gst_harness_push(h, system_frame(in, 1)), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(h));
    GstElement *conv = harness_element(h, "conv");
    const std::string in_use = string_property(conv, "backend-in-use");
    const std::string reason = string_property(conv, "backend-reason");
    fail_unless(in_use == "cpu", "%s: %s", gst_video_format_to_string(f), in_use.c_str());
    fail_unless(contains(reason, "only the CPU backend converts") &&
                    contains(reason, gst_video_format_to_string(f)),
                "%s", reason.c_str());
    gst_harness_teardown(h);
  }
}
GST_END_TEST;

// backend=gl on an input its table lacks, backend=cpu on an output its
// table lacks: an error naming the conversion and who can make it.
GST_START_TEST(test_asked_backend_lacks_the_conversion) {
  GstHarness *gl = gst_harness_new_parse("efconvert backend=gl");
  expect_caps_refused(gl, "video/x-raw, format=Y444, width=64, height=48",
                      "video/x-raw, format=RGB, width=32, height=32",
                      "backend=gl cannot convert Y444 in system memory to RGB frames in system "
                      "memory");
  gst_harness_teardown(gl);
  // Tensors GL makes with a compute shader only.
  GstHarness *gl_tensor = gst_harness_new_parse("efconvert backend=gl gl-shader=fragment");
  expect_caps_refused(gl_tensor, "video/x-raw, format=NV12, width=64, height=48",
                      "other/tensors, types=float32, dimensions=3:32:32:1",
                      "backend=gl cannot convert NV12 in system memory to float32 tensors in "
                      "system memory: gl-shader=fragment");
  gst_harness_teardown(gl_tensor);
  GstHarness *cpu_tensor = gst_harness_new_parse("efconvert backend=cpu");
  expect_caps_refused(cpu_tensor, "video/x-raw, format=NV12, width=64, height=48",
                      "other/tensors(memory:GLBuffer), types=uint8, dimensions=3:32:32:1",
                      "backend=cpu cannot convert NV12 in system memory to uint8 tensors in GL "
                      "buffer memory");
  gst_harness_teardown(cpu_tensor);
  GstHarness *cpu = gst_harness_new_parse("efconvert backend=cpu");
  expect_caps_refused(cpu, "video/x-raw, format=NV12, width=64, height=48",
                      "video/x-raw(memory:GLMemory), format=RGBA, width=32, height=32",
                      "backend=cpu cannot convert NV12 in system memory to RGBA frames in GL "
                      "memory");
  gst_harness_teardown(cpu);
}
GST_END_TEST;

static Suite *tables_suite() {
  Suite *s = suite_create("efconvert_tables");
  TCase *tc = tcase_create("tables");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_cpu_only_input_takes_cpu);
  tcase_add_test(tc, test_tensor_takes_cpu);
  tcase_add_test(tc, test_asked_backend_lacks_the_conversion);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  return run_gl_suite(argc, argv, tables_suite, Needs::Gl);
}
