// SPDX-License-Identifier: LGPL-2.1-or-later
// A hand-over to a GL context's thread that allocates nothing per call: the
// one way ef's elements run work there (efconvert's GL and CUDA backends).
// gst_gl_context_thread_add() makes a GSource, its callback data and a
// message every time (5.5 heap allocations a frame in efconvert's chain,
// found with bench_convert_gl's EF_ALLOC_TRACE); a port attaches one
// GSource to the GL thread's main context once and wakes it for each call.
// Where the context has no GL thread of GstGL's own (a wrapped context) or
// no main context, it hands over through gst_gl_context_thread_add().
#pragma once

#include <gst/gl/gl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <type_traits>

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

  // Runs f(context) on the GL thread as run() does, counted: every
  // hand-over, and the time f took there. The GL thread is shared by every
  // element of the context: its time is what N streams on one context add
  // up (efconvert's gl-handovers, gl-thread-ns).
  template <typename F>
  void run_counted(F &&f) {
    struct Job {
      GlThreadPort *port;
      std::remove_reference_t<F> *f;
    } job{this, &f};
    handovers_++;
    run(
        [](GstGLContext *context, gpointer data) {
          auto *j = static_cast<Job *>(data);
          const auto start = std::chrono::steady_clock::now();
          (*j->f)(context);
          j->port->thread_ns_ += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                              std::chrono::steady_clock::now() - start)
                                              .count());
        },
        &job);
  }
  uint64_t handovers() const { return handovers_.load(); }
  uint64_t thread_ns() const { return thread_ns_.load(); }

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
  std::atomic<uint64_t> handovers_{0}, thread_ns_{0};  // run_counted()'s
};

}  // namespace ef::gst
