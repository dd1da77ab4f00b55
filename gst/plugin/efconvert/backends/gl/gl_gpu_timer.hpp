// SPDX-License-Identifier: LGPL-2.1-or-later
// GPU time of GL work from GL_TIME_ELAPSED queries, read without stalling:
// each bracket's result is collected once the GPU has it, frames later.
// Desktop GL 3.3 (or ARB_timer_query) and GLES with EXT_disjoint_timer_query;
// elsewhere supported() is false and nothing is timed.
#pragma once

#include <gst/gl/gl.h>

#include <array>
#include <atomic>
#include <cstdint>

namespace ef::gst {

// GL_TIME_ELAPSED and GL_TIMESTAMP queries work on this context (it reads
// the context's version and extensions only: any thread).
bool has_timer_queries(GstGLContext *context);

class GpuTimer {
 public:
  // All calls but the getters on the GL thread of the context.
  explicit GpuTimer(GstGLContext *context);
  ~GpuTimer();  // deletes its queries: on the GL thread
  GpuTimer(const GpuTimer &) = delete;
  GpuTimer &operator=(const GpuTimer &) = delete;

  bool supported() const { return supported_; }
  // Brackets the GL commands to time. A TIME_ELAPSED query someone else has
  // open on the context (they cannot nest) makes this bracket a no-op.
  void begin();
  void end();
  // Adds the results the GPU has (all of them, waiting, with `wait`).
  void collect(bool wait);

  // Any thread.
  uint64_t total_ns() const { return total_ns_.load(std::memory_order_relaxed); }
  uint64_t timed() const { return timed_.load(std::memory_order_relaxed); }

 private:
  static constexpr size_t kRing = 8;  // brackets in flight; begin() skips beyond, never waits
  struct Slot {
    unsigned id = 0;
    bool pending = false;
    gint64 begun_us = 0;  // g_get_monotonic_time() at BeginQuery
  };
  bool collect_slot(Slot &slot, bool wait);

  GstGLContext *context_;
  bool supported_ = false;
  bool gles_ = false;
  std::array<Slot, kRing> ring_{};
  size_t next_ = 0;
  Slot *open_ = nullptr;
  std::atomic<uint64_t> total_ns_{0}, timed_{0};
};

}  // namespace ef::gst
