// SPDX-License-Identifier: LGPL-2.1-or-later
// The dry run of a fourth backend: efconvert built with this folder's
// "copy" backend (copy_entry.cpp, one line of backend_registry.cpp) has it
// in its `backend` enum, in gst-inspect, in auto's choice and its timed
// trial, and in the caps, and its frames are the CPU backend's.
#include <gst/video/video.h>

#include <cstring>
#include <string>

#include "frames.hpp"
#include "harness.hpp"

// Last: Check's `fail` macro would rename std::ios::fail in headers after it.
#include <gst/check/gstcheck.h>

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

// What `props` make of frame `in` as `out` (the first output), and the
// backend that ran.
GstBuffer *convert(const char *props, const GstVideoInfo &in, const GstVideoInfo &out,
                   std::string *in_use = nullptr, std::string *reason = nullptr) {
  GstHarness *h = gst_harness_new_parse((std::string("efconvert name=conv ") + props).c_str());
  gst_harness_set_caps(h, caps_for(in), caps_for(out));
  fail_unless_equals_int(gst_harness_push(h, system_frame(in, 7)), GST_FLOW_OK);
  GstBuffer *got = gst_harness_pull(h);
  GstElement *conv = harness_element(h, "conv");
  if (in_use)
    *in_use = string_property(conv, "backend-in-use");
  if (reason)
    *reason = string_property(conv, "backend-reason");
  gst_harness_teardown(h);
  return got;
}

bool same_bytes(GstBuffer *a, GstBuffer *b, bool reversed) {
  GstMapInfo ma, mb;
  fail_unless(gst_buffer_map(a, &ma, GST_MAP_READ) && gst_buffer_map(b, &mb, GST_MAP_READ));
  bool same = ma.size == mb.size;
  for (gsize i = 0; same && i < ma.size; ++i)
    same = ma.data[i] == mb.data[reversed ? (i & ~gsize(3)) + 3 - (i & 3) : i];
  gst_buffer_unmap(a, &ma);
  gst_buffer_unmap(b, &mb);
  return same;
}

}  // namespace

// The enum has it at its own number; the others keep theirs.
GST_START_TEST(test_enum_has_copy) {
  GstElement *conv = gst_element_factory_make("efconvert", nullptr);
  fail_unless(conv != nullptr);
  GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(conv), "backend");
  GEnumClass *values = G_PARAM_SPEC_ENUM(spec)->enum_class;
  for (auto [nick, value] :
       {std::pair{"auto", 0}, std::pair{"gl", 1}, std::pair{"cpu", 2}, std::pair{"copy", 4}}) {
    GEnumValue *v = g_enum_get_value_by_nick(values, nick);
    fail_unless(v && v->value == value, "%s", nick);
  }
  fail_unless(contains(g_param_spec_get_blurb(g_object_class_find_property(G_OBJECT_GET_CLASS(conv),
                                                                           "backend-in-use")),
                       "copy"));
  gst_object_unref(conv);
}
GST_END_TEST;

#ifndef EF_SANITIZED
// gst-inspect shows it: the enum's value, and the format only it makes.
GST_START_TEST(test_inspect_shows_copy) {
  gchar *out = nullptr;
  gint status = 0;
  fail_unless(
      g_spawn_command_line_sync("gst-inspect-1.0 efconvert", &out, nullptr, &status, nullptr));
  const std::string text = out ? out : "";
  g_free(out);
  fail_unless(g_spawn_check_wait_status(status, nullptr), "%s", text.c_str());
  fail_unless(contains(text, "(4): copy"), "%s", text.c_str());
  fail_unless(contains(text, "xRGB"), "%s", text.c_str());
}
GST_END_TEST;
#endif

// Whether efconvert, fed `in`, offers xRGB downstream.
bool offers_xrgb(const char *in) {
  GstHarness *h = gst_harness_new("efconvert");
  gst_harness_set_src_caps_str(h, in);
  GstPad *src = gst_element_get_static_pad(h->element, "src");
  GstCaps *made = gst_pad_query_caps(src, nullptr);
  GstCaps *xrgb = gst_caps_from_string("video/x-raw, format=xRGB");
  const bool offered = gst_caps_can_intersect(made, xrgb);
  gst_caps_unref(xrgb);
  gst_caps_unref(made);
  gst_object_unref(src);
  gst_harness_teardown(h);
  return offered;
}

// The caps: xRGB, which only it makes, in the source template and in what
// the formats it reads turn into, and only in those.
GST_START_TEST(test_caps_have_copy) {
  GstElement *conv = gst_element_factory_make("efconvert", nullptr);
  GstPad *src = gst_element_get_static_pad(conv, "src");
  GstCaps *templ = gst_pad_get_pad_template_caps(src);
  GstCaps *xrgb = gst_caps_from_string("video/x-raw, format=xRGB");
  fail_unless(gst_caps_can_intersect(templ, xrgb));
  for (GstCaps *c : {templ, xrgb})
    gst_caps_unref(c);
  gst_object_unref(src);
  gst_object_unref(conv);
  fail_unless(offers_xrgb("video/x-raw, format=NV12, width=64, height=48, framerate=30/1"));
  fail_unless(offers_xrgb("video/x-raw, format=I420, width=64, height=48, framerate=30/1"));
  fail_if(offers_xrgb("video/x-raw, format=Y444, width=64, height=48, framerate=30/1"));
}
GST_END_TEST;

// backend=copy runs it, and its frames are the CPU backend's (reversed per
// pixel for xRGB).
GST_START_TEST(test_copy_is_the_cpu_pass) {
  const GstVideoInfo in = info_of(GST_VIDEO_FORMAT_NV12, 96, 64);
  const GstVideoInfo bgrx = info_of(GST_VIDEO_FORMAT_BGRx, 40, 40);
  const GstVideoInfo xrgb = info_of(GST_VIDEO_FORMAT_xRGB, 40, 40);
  std::string in_use;
  GstBuffer *cpu = convert("backend=cpu", in, bgrx);
  GstBuffer *copied = convert("backend=copy", in, bgrx, &in_use);
  fail_unless(in_use == "copy", "%s", in_use.c_str());
  fail_unless(same_bytes(cpu, copied, false));
  GstBuffer *reversed = convert("backend=copy", in, xrgb, &in_use);
  fail_unless(same_bytes(cpu, reversed, true));
  for (GstBuffer *b : {cpu, copied, reversed})
    gst_buffer_unref(b);
  // What it does not make is refused naming who can.
  GstHarness *h = gst_harness_new_parse("efconvert backend=copy");
  expect_caps_refused(h, "video/x-raw, format=Y444, width=64, height=48",
                      "video/x-raw, format=BGRx, width=32, height=32",
                      "backend=copy cannot convert Y444 in system memory to BGRx frames");
  gst_harness_teardown(h);
}
GST_END_TEST;

// auto: xRGB only it makes, so it runs; for BGRx its model and the CPU's
// are of a class, so both are timed on the first frame and the faster
// kept (the reason gives both times).
GST_START_TEST(test_auto_weighs_copy) {
  const GstVideoInfo in = info_of(GST_VIDEO_FORMAT_NV12, 96, 64);
  std::string in_use, reason;
  GstBuffer *out = convert("", in, info_of(GST_VIDEO_FORMAT_xRGB, 40, 40), &in_use, &reason);
  gst_buffer_unref(out);
  fail_unless(in_use == "copy" && contains(reason, "only the copy backend converts NV12"), "%s: %s",
              in_use.c_str(), reason.c_str());
  // A software rasterizer's GL is no contender (EF_GL_RENDERER_KIND keeps
  // it one on a GPU too).
  g_setenv("EF_GL_RENDERER_KIND", "software", TRUE);
  out = convert("", in, info_of(GST_VIDEO_FORMAT_BGRx, 40, 40), &in_use, &reason);
  g_unsetenv("EF_GL_RENDERER_KIND");
  gst_buffer_unref(out);
  fail_unless(contains(reason, "timed the first frame") && contains(reason, "copy "), "%s",
              reason.c_str());
  double cpu_us = 0, copy_us = 0;
  fail_unless(sscanf(reason.c_str() + reason.find("cpu "), "cpu %lf us, copy %lf us", &cpu_us,
                     &copy_us) == 2,
              "%s", reason.c_str());
  fail_unless(in_use == (copy_us < cpu_us ? "copy" : "cpu"), "%s: %s", in_use.c_str(),
              reason.c_str());
}
GST_END_TEST;

static Suite *copy_suite() {
  Suite *s = suite_create("copy_backend");
  TCase *tc = tcase_create("dry_run");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_enum_has_copy);
#ifdef EF_SANITIZED
  // gst-inspect-1.0 is not instrumented and cannot load a sanitized plugin.
  g_print(
      "SKIP: test_inspect_shows_copy: gst-inspect-1.0 cannot load a plugin built with "
      "-Db_sanitize=" EF_SANITIZED "; the -Werror legs run it\n");
#else
  tcase_add_test(tc, test_inspect_shows_copy);
#endif
  tcase_add_test(tc, test_caps_have_copy);
  tcase_add_test(tc, test_copy_is_the_cpu_pass);
  tcase_add_test(tc, test_auto_weighs_copy);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(copy);
