// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert where only the CPU converts: a system-memory pipeline opens no
// GL display (none is made, none announced on the bus: opening one on a
// headless machine prints libwayland's XDG_RUNTIME_DIR error, and
// gst-launch prints the announcement), and settings only other backends
// honour are said, once, as a bus WARNING naming the setting and the
// backend in use.
#include <gst/video/video.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

#include "check_gl_main.hpp"
#include "frames.hpp"
#include "harness.hpp"
#include "tensors.hpp"

using namespace ef::test;

namespace {

const char *kSource = "videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=64,height=48";
const char *kOutputs[] = {"video/x-raw,format=RGB,width=32,height=32",
                          "other/tensors,types=float32,dimensions=32:32:3:1"};

// What one pipeline showed: GstGL's display log lines (any at all: every
// GstGLDisplay made logs "init" at TRACE) and the bus's context messages
// about a GL display, the WARNINGs, the backend that ran.
struct Seen {
  int display_logs = 0;
  int display_messages = 0;
  std::vector<std::string> warnings;
  std::string backend;
};

std::atomic<int> g_display_logs{0};

void count_display_logs(GstDebugCategory *category, GstDebugLevel, const gchar *, const gchar *,
                        gint, GObject *, GstDebugMessage *, gpointer) {
  if (std::string(gst_debug_category_get_name(category)) == "gldisplay")
    g_display_logs++;
}

bool is_gl_display_context(GstMessage *msg) {
  const gchar *type = nullptr;
  if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_NEED_CONTEXT)
    gst_message_parse_context_type(msg, &type);
  if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_HAVE_CONTEXT) {
    GstContext *context;
    gst_message_parse_have_context(msg, &context);
    const bool gl = std::string(gst_context_get_context_type(context)) == "gst.gl.GLDisplay";
    gst_context_unref(context);
    return gl;
  }
  return type && std::string(type) == "gst.gl.GLDisplay";
}

// `efconvert props` between kSource and `output`, run to EOS.
Seen run(const std::string &props, const char *output) {
  const std::string line =
      std::string(kSource) + " ! efconvert name=conv " + props + " ! " + output + " ! fakesink";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(line.c_str(), &error);
  fail_unless(pipeline && !error, "%s: %s", line.c_str(), error ? error->message : "");
  g_display_logs = 0;
  gst_debug_remove_log_function(gst_debug_log_default);
  gst_debug_add_log_function(count_display_logs, nullptr, nullptr);
  gst_debug_set_threshold_for_name("gldisplay", GST_LEVEL_TRACE);
  GstBus *bus = gst_element_get_bus(pipeline);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  Seen seen;
  for (bool done = false; !done;) {
    GstMessage *msg = gst_bus_timed_pop(bus, 20 * GST_SECOND);
    fail_unless(msg != nullptr, "%s: no EOS in 20 s", line.c_str());
    fail_if(GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR, "%s: an ERROR", line.c_str());
    if (is_gl_display_context(msg))
      seen.display_messages++;
    if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_WARNING)
      seen.warnings.push_back(warning_text(msg));
    done = GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS;
    gst_message_unref(msg);
  }
  GstElement *conv = gst_bin_get_by_name(GST_BIN(pipeline), "conv");
  seen.backend = string_property(conv, "backend-in-use");
  gst_object_unref(conv);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_debug_remove_log_function(count_display_logs);
  gst_debug_add_log_function(gst_debug_log_default, nullptr, nullptr);
  seen.display_logs = g_display_logs;
  gst_object_unref(bus);
  gst_object_unref(pipeline);
  return seen;
}

// Where the machine has a GPU device, backend=auto may open GL to look at
// it (gpu_device.hpp): the renderer is then said to be software, which
// stands for a machine without one.
void as_if_no_gpu() {
  if (g_file_test("/dev/dri", G_FILE_TEST_IS_DIR) ||
      g_file_test("/dev/nvidia0", G_FILE_TEST_EXISTS))
    g_setenv("EF_GL_RENDERER_KIND", "software", TRUE);
}

bool has(const std::vector<std::string> &all, const std::string &a, const std::string &b) {
  for (const std::string &s : all)
    if (s.find(a) != std::string::npos && s.find(b) != std::string::npos)
      return true;
  return false;
}

}  // namespace

// backend=auto and backend=cpu from system memory into system memory (an
// image, a tensor) make no GstGLDisplay and announce none; backend=gl, the
// control, does both (what is counted is seen when it happens).
GST_START_TEST(test_system_memory_opens_no_gl) {
  as_if_no_gpu();
  for (const char *output : kOutputs) {
    for (const char *props : {"", "backend=cpu"}) {
      const Seen seen = run(props, output);
      fail_unless_equals_string(seen.backend.c_str(), "cpu");
      fail_unless(seen.display_logs == 0 && seen.display_messages == 0,
                  "'%s' into %s: %d GL display log lines, %d GL display context messages", props,
                  output, seen.display_logs, seen.display_messages);
      fail_unless(seen.warnings.empty(), "'%s' into %s: %s", props, output,
                  seen.warnings.front().c_str());
    }
    const Seen gl = run("backend=gl", output);
    fail_unless_equals_string(gl.backend.c_str(), "gl");
    fail_unless(gl.display_logs > 0 && gl.display_messages > 0,
                "backend=gl into %s: %d GL display log lines, %d context messages", output,
                gl.display_logs, gl.display_messages);
  }
}
GST_END_TEST;

// Settings the backend in use ignores, each said once, naming it and the
// backend: the GL pass's on the CPU backend (backend=cpu, and auto where GL
// would render in software), n-threads on the GL backend; defaults say
// nothing (test_system_memory_opens_no_gl).
GST_START_TEST(test_ignored_settings_said) {
  as_if_no_gpu();
  const char *gl_only[] = {"gl-shader=compute", "readback-depth=2", "gpu-timing=true",
                           "gl-contexts=2"};
  for (const char *backend : {"backend=cpu", ""}) {
    for (const char *setting : gl_only) {
      const Seen seen = run(std::string(backend) + " " + setting, kOutputs[0]);
      fail_unless_equals_string(seen.backend.c_str(), "cpu");
      fail_unless_equals_int(seen.warnings.size(), 1);
      fail_unless(has(seen.warnings, setting, "the cpu backend"), "'%s %s': %s", backend, setting,
                  seen.warnings.front().c_str());
    }
  }
  const Seen gl = run("backend=gl n-threads=2", kOutputs[0]);
  fail_unless_equals_int(gl.warnings.size(), 1);
  fail_unless(has(gl.warnings, "n-threads=2", "the gl backend"), "%s", gl.warnings.front().c_str());
}
GST_END_TEST;

// Set while playing: said at the next frame, once for each value.
GST_START_TEST(test_ignored_setting_while_playing) {
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=cpu");
  GstBus *bus = attach_bus(h);
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
  gst_harness_set_caps_str(h, caps_text(in).c_str(), kOutputs[0]);
  GstElement *conv = harness_element(h, "conv");
  auto push = [&](int frames) {
    for (int i = 0; i < frames; ++i) {
      fail_unless_equals_int(gst_harness_push(h, system_frame(in, 1)), GST_FLOW_OK);
      gst_buffer_unref(gst_harness_pull(h));
    }
  };
  auto warnings = [&] { return pop_warnings(bus); };
  push(2);
  fail_unless(warnings().empty());
  g_object_set(conv, "readback-depth", 2u, nullptr);
  push(3);
  std::vector<std::string> said = warnings();
  fail_unless(said.size() == 1 && has(said, "readback-depth=2", "cpu"), "%zu warnings",
              said.size());
  g_object_set(conv, "readback-depth", 3u, nullptr);
  push(3);
  said = warnings();
  fail_unless(said.size() == 1 && has(said, "readback-depth=3", "cpu"), "%zu warnings",
              said.size());
  g_object_set(conv, "readback-depth", 0u, nullptr);
  push(2);
  fail_unless(warnings().empty());
  gst_harness_teardown(h);
  release_bus(bus);
}
GST_END_TEST;

static Suite *cpu_only_suite() {
  Suite *s = suite_create("efconvert_cpu_only");
  TCase *tc = tcase_create("cpu_only");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_system_memory_opens_no_gl);
  tcase_add_test(tc, test_ignored_settings_said);
  tcase_add_test(tc, test_ignored_setting_while_playing);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  return run_gl_suite(argc, argv, cpu_only_suite, Needs::Gl);
}
