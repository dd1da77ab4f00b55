// SPDX-License-Identifier: LGPL-2.1-or-later
// The GL probes of the test support, built only where GstGL is: the tests
// without GL link none of it.
#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frames.hpp"

namespace ef::test {

static GstGLContext *make_context(GstGLDisplay **display, std::string &why) {
  *display = gst_gl_display_new();
  GstGLContext *context = gst_gl_context_new(*display);
  GError *error = nullptr;
  if (!gst_gl_context_create(context, nullptr, &error)) {
    why = std::string("no GL context: ") + (error ? error->message : "unknown error") +
          " (headless GstGL needs GST_GL_WINDOW=egl-device)";
    g_clear_error(&error);
    gst_object_unref(context);
    return nullptr;
  }
  return context;
}

bool gl_available(std::string &why) {
  GstGLDisplay *display;
  GstGLContext *context = make_context(&display, why);
  gst_object_unref(display);
  if (!context)
    return false;
  gst_object_unref(context);
  return true;
}

namespace {

std::string renderer_here() {
  std::string why, name;
  GstGLDisplay *display;
  GstGLContext *context = make_context(&display, why);
  gst_object_unref(display);
  if (!context)
    return name;
  gst_gl_context_thread_add(
      context,
      [](GstGLContext *ctx, gpointer out) {
        const auto *r = ctx->gl_vtable->GetString(GL_RENDERER);
        *static_cast<std::string *>(out) = r ? reinterpret_cast<const char *>(r) : "";
      },
      &name);
  gst_object_unref(context);
  return name;
}

}  // namespace

// Asked in a child process: the display made here would be the test's first,
// and its end unloads Mesa's driver (libgallium), which the element under
// test then loads again; LeakSanitizer cannot name the module of what the
// unloaded driver kept (tests/sanitizers/lsan.supp names Mesa's modules), and
// reported it as a leak of an unknown module.
std::string gl_renderer() {
  int fds[2];
  if (pipe(fds) != 0)
    return "";
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string name = renderer_here();
    const bool sent = write(fds[1], name.data(), name.size()) == ssize_t(name.size());
    _exit(sent ? 0 : 1);
  }
  close(fds[1]);
  std::string name;
  char buf[256];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0)
    name.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? name : "";
}

bool gl_compute_available(std::string &why) {
  GstGLDisplay *display;
  GstGLContext *context = make_context(&display, why);
  gst_object_unref(display);
  if (!context)
    return false;
  // Compute shaders: GL 4.3 or GLES 3.1, and the entry point.
  const bool ok = (gst_gl_context_check_gl_version(
                       context, GstGLAPI(GST_GL_API_OPENGL | GST_GL_API_OPENGL3), 4, 3) ||
                   gst_gl_context_check_gl_version(context, GST_GL_API_GLES2, 3, 1)) &&
                  gst_gl_context_get_proc_address(context, "glDispatchCompute");
  if (!ok) {
    gint major = 0, minor = 0;
    gst_gl_context_get_gl_version(context, &major, &minor);
    why = "the GL context (" + std::to_string(major) + "." + std::to_string(minor) +
          ") has no compute shaders (GL 4.3, GLES 3.1), which GL tensors need";
  }
  gst_object_unref(context);
  return ok;
}

bool egl_dmabuf_import_available(std::string &why) {
  GstGLDisplay *display;
  GstGLContext *context = make_context(&display, why);
  gst_object_unref(display);
  if (!context)
    return false;
  bool ok = gst_gl_context_get_gl_platform(context) == GST_GL_PLATFORM_EGL &&
            gst_gl_context_check_feature(context, "EGL_EXT_image_dma_buf_import");
  if (!ok)
    why =
        "the EGL display has no EGL_EXT_image_dma_buf_import (Mesa 22.3's llvmpipe lacks it: "
        "install Mesa from bookworm-backports, scripts/install-deps.sh does)";
  gst_object_unref(context);
  return ok;
}

}  // namespace ef::test
