// SPDX-License-Identifier: LGPL-2.1-or-later
// A hand-over to a GL context's thread that allocates nothing per call.
// gst_gl_context_thread_add() makes a GSource, its callback data and a
// message every time (5.5 heap allocations a frame in efconvert's chain,
// found with bench_convert_gl's EF_ALLOC_TRACE); a port attaches one
// GSource to the GL thread's main context once and wakes it for each call.
// Where the context has no GL thread of GstGL's own (a wrapped context) or
// no main context, it hands over through gst_gl_context_thread_add().
#pragma once

#include <gst/gl/gl.h>

#include <condition_variable>
#include <mutex>

namespace ef::gst {

class GlThreadPort {
 public:
  explicit GlThreadPort(GstGLContext *context);  // any thread
  ~GlThreadPort();                               // any thread, no run() under way
  GlThreadPort(const GlThreadPort &) = delete;
  GlThreadPort &operator=(const GlThreadPort &) = delete;

  // Runs func(context, data) on the GL thread (at once where called there)
  // and returns when it has run. One caller at a time runs; others wait.
  void run(GstGLContextThreadFunc func, gpointer data);

 private:
  struct Source;
  static gboolean dispatch(GSource *source, GSourceFunc, gpointer);
  void run_pending();

  GstGLContext *context_;
  GSource *source_ = nullptr;  // null: hand over through gst_gl_context_thread_add
  std::mutex callers_;         // one run() at a time
  std::mutex lock_;
  std::condition_variable done_;
  GstGLContextThreadFunc func_ = nullptr;  // the pending call, under lock_
  gpointer data_ = nullptr;
  bool pending_ = false;
};

}  // namespace ef::gst
