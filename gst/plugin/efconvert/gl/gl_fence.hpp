// SPDX-License-Identifier: LGPL-2.1-or-later
// Points in a GL context's command stream that the CPU waits for, and on
// which thread it may wait. Many elements share one GL context, and so one
// GL thread: a wait there for one element's frame stalls the submissions of
// every other (their streaming threads queue behind it, and the GPU runs
// dry meanwhile). Where the context is EGL's with EGL_KHR_fence_sync a
// fence is an EGL sync object: made on the GL thread, then waited for,
// polled and destroyed on any thread, without the context, so the thread
// that needs the frame waits for it; elsewhere a GL sync object, for the GL
// thread alone.
#pragma once

#include <gst/gl/gl.h>

#include <cstdint>

namespace ef::gst {

class GlFences {
 public:
  // On the GL thread of `context`. EF_GL_FENCES=gl forces GL sync objects
  // (the path of a context without EGL fences).
  explicit GlFences(GstGLContext *context);

  // Fences may be waited for, polled and released on any thread.
  bool any_thread() const { return egl_display_ != nullptr; }

  using Fence = void *;  // an EGLSyncKHR or a GLsync; nullptr: none
  // GL thread: a fence behind the commands so far, flushed so that it
  // signals without another call. nullptr when it could not be made.
  Fence insert();

  enum class Status { Signalled, Pending, Failed };
  // Waits up to `timeout_ns` (0: polls). GL thread, or any with any_thread().
  Status wait(Fence fence, uint64_t timeout_ns);
  // GL thread, or any with any_thread().
  void release(Fence fence);

 private:
  GstGLContext *context_;
  void *egl_display_ = nullptr;  // EGLDisplay; nullptr: GL sync objects
  void *create_ = nullptr, *client_wait_ = nullptr, *destroy_ = nullptr;
};

}  // namespace ef::gst
