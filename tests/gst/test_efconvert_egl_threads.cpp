// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's GL backend leaves no EGL thread state on the threads it
// borrows. With EGL fences (a software rasterizer) the streaming thread
// waits for its frame's fence itself; an EGL call makes libEGL keep state
// for the calling thread, freed by a thread-specific destructor when the
// thread ends. Streaming threads are GStreamer's pool threads: one that
// ends while the process exits runs that destructor while libEGL is being
// unloaded (a SIGSEGV after every check had passed, seen in
// test_efconvert_streams and the GL soak on llvmpipe). So after each of
// efconvert's frames the streaming thread must have given its EGL state
// back (eglReleaseThread).
//
// How it is seen: this executable interposes eglGetProcAddress (the plugin
// finds eglClientWaitSyncKHR and eglDestroySyncKHR through it) and
// eglReleaseThread (exported: meson's export_dynamic), and keeps, per
// thread, whether an EGL sync call came after the last release. A probe on
// efconvert's source pad runs on the streaming thread after the element has
// finished the frame.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <dlfcn.h>
#include <gst/gst.h>

#include <atomic>
#include <cstring>
#include <string>

#include "check_gl_main.hpp"

using namespace ef::test;

namespace {

thread_local bool t_holds_state = false;  // an EGL sync call since the last release
thread_local int t_sync_calls = 0;

PFNEGLCLIENTWAITSYNCKHRPROC g_wait = nullptr;
PFNEGLDESTROYSYNCKHRPROC g_destroy = nullptr;

EGLint EGLAPIENTRY traced_wait(EGLDisplay display, EGLSyncKHR sync, EGLint flags,
                               EGLTimeKHR timeout) {
  t_holds_state = true;
  ++t_sync_calls;
  return g_wait(display, sync, flags, timeout);
}

EGLBoolean EGLAPIENTRY traced_destroy(EGLDisplay display, EGLSyncKHR sync) {
  t_holds_state = true;
  ++t_sync_calls;
  return g_destroy(display, sync);
}

template <typename F>
F next(const char *name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {

__eglMustCastToProperFunctionPointerType EGLAPIENTRY eglGetProcAddress(const char *name) {
  using GetProc = __eglMustCastToProperFunctionPointerType(EGLAPIENTRY *)(const char *);
  static const GetProc real = next<GetProc>("eglGetProcAddress");
  __eglMustCastToProperFunctionPointerType f = real(name);
  if (f && std::strcmp(name, "eglClientWaitSyncKHR") == 0) {
    g_wait = reinterpret_cast<PFNEGLCLIENTWAITSYNCKHRPROC>(f);
    return reinterpret_cast<__eglMustCastToProperFunctionPointerType>(&traced_wait);
  }
  if (f && std::strcmp(name, "eglDestroySyncKHR") == 0) {
    g_destroy = reinterpret_cast<PFNEGLDESTROYSYNCKHRPROC>(f);
    return reinterpret_cast<__eglMustCastToProperFunctionPointerType>(&traced_destroy);
  }
  return f;
}

EGLBoolean EGLAPIENTRY eglReleaseThread(void) {
  using Release = EGLBoolean(EGLAPIENTRY *)(void);
  static const Release real = next<Release>("eglReleaseThread");
  t_holds_state = false;
  return real();
}

}  // extern "C"

namespace {

struct Seen {
  std::atomic<int> frames{0};
  std::atomic<int> with_sync_calls{0};  // frames whose thread made EGL sync calls
  std::atomic<int> left_holding{0};     // frames after which the thread still held state
};

GstPadProbeReturn after_frame(GstPad *, GstPadProbeInfo *, gpointer data) {
  auto *seen = static_cast<Seen *>(data);
  seen->frames++;
  if (t_sync_calls > 0)
    seen->with_sync_calls++;
  if (t_holds_state)
    seen->left_holding++;
  return GST_PAD_PROBE_OK;
}

// Rows of 480 bytes, rendered in place into efconvert's memfd pool (EGL
// dma-buf import): the streaming thread waits for each frame's fence (a
// read-back is completed on the GL thread, no EGL call on this one).
struct Case {
  const char *what;
  const char *kind;  // EF_GL_RENDERER_KIND
  guint depth;
};
constexpr Case kCases[] = {
    {"rendered in place", "software", 0},
    {"rendered in place, readback-depth 2", "software", 2},
};
constexpr int kSide = 160;
constexpr int kFrames = 12;

GST_START_TEST(test_streaming_thread_keeps_no_egl_state) {
  const Case &c = kCases[__i__];
  // A GPU would use GL sync objects, waited for on the GL thread.
  g_setenv("EF_GL_FENCES", "egl", TRUE);
  g_setenv("EF_GL_RENDERER_KIND", c.kind, TRUE);
  const std::string description =
      "videotestsrc num-buffers=" + std::to_string(kFrames) +
      " pattern=zone-plate ! video/x-raw,format=NV12,width=97,height=61,framerate=30/1"
      " ! efconvert name=conv backend=gl readback-depth=" +
      std::to_string(c.depth) + " ! video/x-raw,format=RGB,width=" + std::to_string(kSide) +
      ",height=" + std::to_string(kSide) + " ! fakesink sync=false";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  fail_unless(pipeline != nullptr, "%s: %s", description.c_str(), error ? error->message : "");
  GstElement *conv = gst_bin_get_by_name(GST_BIN(pipeline), "conv");
  GstPad *src = gst_element_get_static_pad(conv, "src");
  Seen seen;
  gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, after_frame, &seen, nullptr);
  gst_object_unref(src);
  gst_object_unref(conv);

  fail_unless(gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered(bus, 60 * GST_SECOND,
                                               GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless(msg != nullptr, "%s: no EOS within 60 s", c.what);
  if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
    GError *err = nullptr;
    gst_message_parse_error(msg, &err, nullptr);
    const std::string text = err->message;
    g_error_free(err);
    gst_message_unref(msg);
    fail("%s: %s", c.what, text.c_str());
  }
  gst_message_unref(msg);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);

  fail_unless_equals_int(seen.frames.load(), kFrames);
  // The case must make the streaming thread wait for fences, or it shows
  // nothing.
  fail_unless(seen.with_sync_calls.load() > 0,
              "%s: no EGL sync call on the streaming thread (EGL fences not in use?)", c.what);
  fail_unless(seen.left_holding.load() == 0,
              "%s: after %d of %d frames the streaming thread still held EGL thread state "
              "(no eglReleaseThread after its EGL calls)",
              c.what, seen.left_holding.load(), kFrames);
}
GST_END_TEST

Suite *egl_threads_suite() {
  Suite *s = suite_create("efconvert_egl_threads");
  TCase *tc = tcase_create("threads");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_streaming_thread_keeps_no_egl_state, 0, G_N_ELEMENTS(kCases));
  suite_add_tcase(s, tc);
  return s;
}

}  // namespace

int main(int argc, char **argv) {
  return run_gl_suite(argc, argv, egl_threads_suite, Needs::EglDmabufImport);
}
