// SPDX-License-Identifier: LGPL-2.1-or-later
// What the CPU backend needs to run a frame without allocating once warm:
// helper threads kept between frames and scratch memory reused frame after
// frame. Both belong to the calling (streaming) thread, so two elements
// converting at once never wait for each other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ef::gst::cpu {

// A borrowed callable taking a job index. std::function may allocate for a
// lambda with a few captures; this never does.
class JobRef {
 public:
  template <typename F>
  JobRef(F &f)  // NOLINT(google-explicit-constructor): borrowed like a reference
      : object_(&f), call_([](void *o, size_t i) { (*static_cast<F *>(o))(i); }) {}
  void operator()(size_t i) const { call_(object_, i); }

 private:
  void *object_;
  void (*call_)(void *, size_t);
};

// Runs job(0) .. job(n - 1) on the calling thread and at most `threads - 1`
// helpers, and returns when all have run. Jobs are started in index order,
// so the longest should come first.
void run_jobs(unsigned threads, size_t n, JobRef job);

// Runs fn(band, y0, y1) over rows [0, rows) cut into one band per worker.
// Each band but the first starts at a row of the same parity as `origin`
// (a band inside 4:2:0 content must start on a chroma row).
template <typename F>
void for_bands(unsigned workers, int rows, int origin, F &&fn) {
  auto edge = [&](int k) {
    if (k == 0 || k == int(workers))
      return k == 0 ? 0 : rows;
    const int e = int(int64_t(rows) * k / workers);
    return e + ((e - origin) & 1) < rows ? e + ((e - origin) & 1) : rows;
  };
  auto job = [&](size_t k) {
    const int y0 = edge(int(k));
    const int y1 = edge(int(k) + 1);
    if (y0 < y1)
      fn(int(k), y0, y1);
  };
  run_jobs(workers, workers, job);
}

// Memory for one frame's intermediate images. Blocks stay valid until
// reset(); a frame that needed more than the arena held is served from extra
// blocks, and reset() then grows the arena to that frame's total, so the
// next such frame allocates nothing.
class Arena {
 public:
  // n bytes aligned to 64 (the widest SIMD loads libyuv makes).
  uint8_t *take(size_t n);
  void reset();

 private:
  static constexpr size_t kAlign = 64;
  static std::unique_ptr<uint8_t[]> allocate(size_t n, uint8_t *&aligned);

  std::unique_ptr<uint8_t[]> main_;
  uint8_t *main_base_ = nullptr;
  size_t capacity_ = 0;
  size_t used_ = 0;
  size_t overflow_ = 0;  // bytes served outside main_ this frame
  std::vector<std::unique_ptr<uint8_t[]>> extra_;
};

// The calling thread's arena.
Arena &thread_arena();

}  // namespace ef::gst::cpu
