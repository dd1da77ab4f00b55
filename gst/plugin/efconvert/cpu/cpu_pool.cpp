// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_pool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace ef::gst::cpu {
namespace {

// Helper threads of one calling thread. A frame opens a round: helpers that
// wake while it is open claim jobs from a shared counter; the caller claims
// too, then closes the round and waits only for helpers still inside it, so
// a helper that wakes late costs the caller nothing.
class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread &t : threads_)
      t.join();
  }

  void run(size_t helpers, size_t n, JobRef job) {
    while (threads_.size() < helpers)
      threads_.emplace_back([this, index = threads_.size()] { serve(index); });
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      n_ = n;
      next_.store(0, std::memory_order_relaxed);
      helpers_ = helpers;
      open_ = true;
      ++round_;
    }
    wake_.notify_all();
    work();
    std::unique_lock lock(mutex_);
    open_ = false;
    left_.wait(lock, [this] { return inside_ == 0; });
  }

 private:
  void work() {
    for (size_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < n_;)
      (*job_)(i);
  }

  void serve(size_t index) {
    uint64_t seen = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || (open_ && round_ != seen && index < helpers_); });
      if (stop_)
        return;
      seen = round_;
      ++inside_;
      lock.unlock();
      work();
      lock.lock();
      if (--inside_ == 0)
        left_.notify_one();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable left_;
  std::vector<std::thread> threads_;
  const JobRef *job_ = nullptr;
  size_t n_ = 0;
  std::atomic<size_t> next_{0};
  size_t helpers_ = 0;
  size_t inside_ = 0;
  uint64_t round_ = 0;
  bool open_ = false;
  bool stop_ = false;
};

}  // namespace

void run_jobs(unsigned threads, size_t n, JobRef job) {
  const size_t helpers = std::min<size_t>(threads > 0 ? threads - 1 : 0, n > 0 ? n - 1 : 0);
  if (helpers == 0) {
    for (size_t i = 0; i < n; ++i)
      job(i);
    return;
  }
  thread_local Pool pool;
  pool.run(helpers, n, job);
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
