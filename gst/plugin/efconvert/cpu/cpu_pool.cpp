// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_pool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>

namespace ef::gst::cpu {
struct Pool::Sync {
  std::mutex mutex;
  std::condition_variable wake;
  std::condition_variable left;
  const JobRef *job = nullptr;
  size_t n = 0;
  std::atomic<size_t> next{0};
  size_t helpers = 0;  // how many of the helpers this round wakes
  size_t inside = 0;
  uint64_t round = 0;
  bool open = false;
  bool stop = false;
};

Pool::Pool(unsigned threads) : sync_(std::make_unique<Sync>()) {
  const size_t helpers = threads > 1 ? threads - 1 : 0;
  helpers_.reserve(helpers);
  // Where the system refuses a thread (limits, memory), the pool is smaller:
  // fewer bands, the same bytes.
  try {
    for (size_t i = 0; i < helpers; ++i)
      helpers_.emplace_back([this, i] { serve(i); });
  } catch (const std::system_error &) {
  }
}

Pool::~Pool() {
  {
    std::lock_guard lock(sync_->mutex);
    sync_->stop = true;
  }
  sync_->wake.notify_all();
  for (std::thread &t : helpers_)
    t.join();
}

void Pool::run(size_t n, JobRef job) {
  Sync &s = *sync_;
  const size_t helpers = std::min(helpers_.size(), n > 0 ? n - 1 : 0);
  if (helpers == 0) {
    for (size_t i = 0; i < n; ++i)
      job(i);
    return;
  }
  {
    std::lock_guard lock(s.mutex);
    s.job = &job;
    s.n = n;
    s.next.store(0, std::memory_order_relaxed);
    s.helpers = helpers;
    s.open = true;
    ++s.round;
  }
  s.wake.notify_all();
  work();
  std::unique_lock lock(s.mutex);
  s.open = false;
  s.left.wait(lock, [&] { return s.inside == 0; });
}

void Pool::work() {
  Sync &s = *sync_;
  for (size_t i; (i = s.next.fetch_add(1, std::memory_order_relaxed)) < s.n;)
    (*s.job)(i);
}

void Pool::serve(size_t index) {
  Sync &s = *sync_;
  uint64_t seen = 0;
  std::unique_lock lock(s.mutex);
  for (;;) {
    s.wake.wait(lock, [&] { return s.stop || (s.open && s.round != seen && index < s.helpers); });
    if (s.stop)
      return;
    seen = s.round;
    ++s.inside;
    lock.unlock();
    work();
    lock.lock();
    if (--s.inside == 0)
      s.left.notify_one();
  }
}

int band_edge(const Cut &cut, unsigned bands, unsigned k) {
  if (k == 0 || k >= bands)
    return k == 0 ? 0 : cut.rows;
  constexpr int64_t kContentWeight = 8;
  const int64_t top = cut.top, content = cut.bottom - cut.top;
  const int64_t total = cut.rows - content + kContentWeight * content;
  const int64_t t = total * k / bands;
  int64_t e;
  if (t <= top)
    e = t;
  else if (t <= top + kContentWeight * content)
    e = top + (t - top) / kContentWeight;
  else
    e = cut.bottom + (t - top - kContentWeight * content);
  e += (e - top) & 1;
  return int(std::min<int64_t>(e, cut.rows));
}

std::unique_ptr<uint8_t[]> Arena::allocate(size_t n, uint8_t *&aligned) {
  auto block = std::make_unique_for_overwrite<uint8_t[]>(n + kAlign);
  const auto address = reinterpret_cast<uintptr_t>(block.get());
  aligned = block.get() + ((kAlign - address % kAlign) % kAlign);
  return block;
}

uint8_t *Arena::take(size_t n) {
  n = (n + kAlign - 1) / kAlign * kAlign;
  if (used_ + n <= capacity_) {
    uint8_t *p = main_base_ + used_;
    used_ += n;
    return p;
  }
  uint8_t *p = nullptr;
  extra_.push_back(allocate(n, p));
  overflow_ += n;
  return p;
}

void Arena::reset() {
  if (!extra_.empty()) {
    capacity_ = used_ + overflow_;
    main_ = allocate(capacity_, main_base_);
    extra_.clear();
  }
  used_ = 0;
  overflow_ = 0;
}

Arena &thread_arena() {
  thread_local Arena arena;
  return arena;
}

}  // namespace ef::gst::cpu
