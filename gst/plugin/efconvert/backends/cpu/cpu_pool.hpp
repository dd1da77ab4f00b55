// SPDX-License-Identifier: LGPL-2.1-or-later
// What the CPU backend needs to run a frame without allocating once warm:
// helper threads kept between frames (one set for the whole process,
// shared by every element) and scratch memory reused frame after frame
// (the calling thread's).
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

class Workers;

// The bands of a frame run on the calling thread and on helper threads
// that every Pool of the process shares: one set, as many as the online
// CPUs less one, started with the first Pool and kept until the last goes,
// so a frame starts no thread and allocates nothing. N elements of one
// process converting at once then share the cores instead of bringing N
// pools of them each (16 elements x 16 threads on 16 cores): a helper
// joins a frame only while fewer threads than CPUs are running bands, so
// with every core busy each element converts its own bands, no thread is
// woken for nothing and none is preempted inside a band that another frame
// waits for. A std::thread pool rather than a GThreadPool: a GThreadPool
// push allocates a queue node, and its caller would need a barrier of its
// own to wait for the frame's jobs; here one round is a shared job counter,
// the caller claims jobs too, and it waits only for helpers still inside
// the round, so a helper that wakes late costs nothing.
class Pool {
 public:
  // `threads` counts the caller: at most threads - 1 helpers work on one
  // frame of this pool (none for 0 or 1). Frames are cut for `threads`
  // threads (threads()), however many help.
  explicit Pool(unsigned threads);
  ~Pool();
  Pool(const Pool &) = delete;
  Pool &operator=(const Pool &) = delete;

  unsigned threads() const { return threads_; }
  // Runs job(0) .. job(n - 1) on the calling thread and the helpers, and
  // returns when all have run. Jobs start in index order, so the longest
  // should come first. One caller at a time a Pool; any number of Pools at
  // once.
  void run(size_t n, JobRef job);
  // Helpers woken for rounds so far, by every Pool of the process (tests).
  uint64_t helper_wakeups() const;

 private:
  unsigned threads_;
  std::shared_ptr<Workers> workers_;
};

// Where a frame's rows are cut into bands: of `rows` rows, those in
// [top, bottom) are content and the others borders, which cost a memset
// (counted as an eighth of a content row; nothing where the writer leaves
// them as they are), so that each band gets as much work. Each band but the first starts at a row
// of the same parity as `top` (a band inside 4:2:0 content must start on a chroma row, a band of a
// reduction by 1.5 on an output pair).
struct Cut {
  int rows;
  int top = 0;
  int bottom = rows;
  int border_weight = 1;  // eighths of a content row that a border row costs
};

// The first row of band k of `bands` (k == bands: cut.rows). Depends on
// the cut and the band count only, never on which thread runs a band.
int band_edge(const Cut &cut, unsigned bands, unsigned k);

// Runs fn(band, y0, y1) over the rows of `cut`, cut into `bands` bands, on `pool`.
template <typename F>
void for_bands(Pool &pool, unsigned bands, const Cut &cut, F &&fn) {
  auto job = [&](size_t k) {
    const int y0 = band_edge(cut, bands, unsigned(k));
    const int y1 = band_edge(cut, bands, unsigned(k) + 1);
    if (y0 < y1)
      fn(int(k), y0, y1);
  };
  pool.run(bands, job);
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
