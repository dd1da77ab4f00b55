// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_fence.hpp"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <gst/gl/gstglfuncs.h>

#include <cstring>

namespace ef::gst {

namespace {

bool has_extension(const char *list, const char *name) {
  const size_t n = std::strlen(name);
  for (const char *p = list; p && (p = std::strstr(p, name)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
      return true;
  return false;
}

}  // namespace

GlFences::GlFences(GstGLContext *context, Kind preferred)
    : context_(context), gl_thread_(g_thread_self()) {
  const char *force = g_getenv("EF_GL_FENCES");
  if (force && std::strcmp(force, "gl") == 0)
    preferred = Kind::Gl;
  else if (force && std::strcmp(force, "egl") == 0)
    preferred = Kind::Egl;
  if (preferred == Kind::Gl || !(gst_gl_context_get_gl_platform(context) & GST_GL_PLATFORM_EGL))
    return;
  EGLDisplay display = eglGetCurrentDisplay();
  if (display == EGL_NO_DISPLAY ||
      !has_extension(eglQueryString(display, EGL_EXTENSIONS), "EGL_KHR_fence_sync"))
    return;
  create_ = reinterpret_cast<void *>(eglGetProcAddress("eglCreateSyncKHR"));
  client_wait_ = reinterpret_cast<void *>(eglGetProcAddress("eglClientWaitSyncKHR"));
  destroy_ = reinterpret_cast<void *>(eglGetProcAddress("eglDestroySyncKHR"));
  if (create_ && client_wait_ && destroy_)
    egl_display_ = display;
}

GlFences::Fence GlFences::insert() {
  const GstGLFuncs *gl = context_->gl_vtable;
  Fence fence = nullptr;
  if (egl_display_) {
    EGLSyncKHR sync = reinterpret_cast<PFNEGLCREATESYNCKHRPROC>(create_)(
        egl_display_, EGL_SYNC_FENCE_KHR, nullptr);
    fence = sync == EGL_NO_SYNC_KHR ? nullptr : sync;
  } else if (gl->FenceSync) {
    fence = gl->FenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  }
  // Submitted now: the GPU works on it while the CPU does the rest, and a
  // wait on another thread cannot flush this context.
  gl->Flush();
  return fence;
}

GlFences::Status GlFences::wait(Fence fence, uint64_t timeout_ns) {
  if (egl_display_) {
    const EGLint got = reinterpret_cast<PFNEGLCLIENTWAITSYNCKHRPROC>(client_wait_)(
        egl_display_, EGLSyncKHR(fence), 0, EGLTimeKHR(timeout_ns));
    leave_thread();
    return got == EGL_CONDITION_SATISFIED_KHR ? Status::Signalled
           : got == EGL_TIMEOUT_EXPIRED_KHR   ? Status::Pending
                                              : Status::Failed;
  }
  const GLenum got = context_->gl_vtable->ClientWaitSync(GLsync(fence), 0, timeout_ns);
  return got == GL_ALREADY_SIGNALED || got == GL_CONDITION_SATISFIED ? Status::Signalled
         : got == GL_TIMEOUT_EXPIRED                                 ? Status::Pending
                                                                     : Status::Failed;
}

void GlFences::release(Fence fence) {
  if (!fence)
    return;
  if (egl_display_) {
    reinterpret_cast<PFNEGLDESTROYSYNCKHRPROC>(destroy_)(egl_display_, EGLSyncKHR(fence));
    leave_thread();
  } else
    context_->gl_vtable->DeleteSync(GLsync(fence));
}

// A thread with a context of its own current (an application's, on a
// streaming thread) keeps its state: eglReleaseThread would unbind it.
void GlFences::leave_thread() const {
  if (g_thread_self() != gl_thread_ && eglGetCurrentContext() == EGL_NO_CONTEXT)
    eglReleaseThread();
}

}  // namespace ef::gst
