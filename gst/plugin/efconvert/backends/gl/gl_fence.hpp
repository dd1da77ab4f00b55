// SPDX-License-Identifier: LGPL-2.1-or-later
// Points in a GL context's command stream that the CPU waits for, and on
// which thread it may wait. Many elements share one GL context, and so one
// GL thread: a wait there for one element's frame stalls the submissions of
// every other (their streaming threads queue behind it, and the GPU runs
// dry meanwhile). Two kinds:
// - EGL sync objects (EGL_KHR_fence_sync, where the context is EGL's):
//   made on the GL thread, then waited for, polled and destroyed on any
//   thread, without the context, so the thread that needs the frame waits
//   for it. On a software rasterizer a frame takes milliseconds and this
//   keeps them off the GL thread. A thread not the GL thread gives its EGL
//   thread state back after each call (eglReleaseThread): the streaming
//   threads are GStreamer's, and one that ends while the process exits
//   would run libEGL's thread-state destructor while libEGL is being
//   unloaded (a SIGSEGV at exit, seen in the tests on llvmpipe).
// - GL sync objects: for the GL thread alone. Cheaper to make: on an
//   NVIDIA H200, 16 streams on one context, 88 us of GL-thread time a frame
//   against 157 with EGL sync objects (docs/BENCHMARKS.md, "Many streams").
//   On a GPU a frame is done long before its read-back is needed; where it
//   is not, the caller waits in short slices (ReadbackRing::finish_oldest),
//   never for a whole frame, on the shared thread.
#pragma once

#include <gst/gl/gl.h>

#include <cstdint>

namespace ef::gst {

class GlFences {
 public:
  enum class Kind { Egl, Gl };
  // On the GL thread of `context`. `preferred` where the context has both
  // (EGL sync objects need EGL_KHR_fence_sync); EF_GL_FENCES=gl or egl
  // overrides it (diagnostics).
  GlFences(GstGLContext *context, Kind preferred);

  // Fences may be waited for, polled and released on any thread.
  bool any_thread() const { return egl_display_ != nullptr; }

  using Fence = void *;  // an EGLSyncKHR or a GLsync; nullptr: none
  // GL thread: a fence behind the commands so far, flushed so that it
  // signals without another call (a waiter on another thread cannot flush
  // this context, and GL sync objects are polled without the flush bit).
  // nullptr when it could not be made.
  Fence insert();

  enum class Status { Signalled, Pending, Failed };
  // Waits up to `timeout_ns` (0: polls). GL thread, or any with any_thread().
  Status wait(Fence fence, uint64_t timeout_ns);
  // GL thread, or any with any_thread().
  void release(Fence fence);

 private:
  // Off the GL thread: the thread's EGL state given back (see above).
  void leave_thread() const;

  GstGLContext *context_;
  GThread *gl_thread_;           // where the fences are made (the constructor's)
  void *egl_display_ = nullptr;  // EGLDisplay; nullptr: GL sync objects
  void *create_ = nullptr, *client_wait_ = nullptr, *destroy_ = nullptr;
};

}  // namespace ef::gst
