// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_pool.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>

namespace ef::gst::cpu {

namespace {

// The CPUs this process may run on (its affinity mask, as GLib's
// g_get_num_processors() counts them).
unsigned online_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return unsigned(std::max(1, CPU_COUNT(&set)));
  return std::max(1u, std::thread::hardware_concurrency());
}

// EF_CPU_POOL_CPUS=N: the pool plans for N CPUs (N - 1 helpers) whatever
// the machine has (tests, and measuring).
unsigned pool_cpus() {
  if (const char *v = std::getenv("EF_CPU_POOL_CPUS")) {
    const long n = std::strtol(v, nullptr, 10);
    if (n >= 1 && n <= 1024)
      return unsigned(n);
  }
  return online_cpus();
}

}  // namespace

// The process's helper threads and the rounds open to them.
class Workers {
 public:
  // The process's set, started by the first caller, shared until the last
  // reference goes.
  static std::shared_ptr<Workers> get() {
    static std::mutex lock;
    static std::weak_ptr<Workers> shared;
    std::lock_guard guard(lock);
    std::shared_ptr<Workers> workers = shared.lock();
    if (!workers) {
      workers = std::make_shared<Workers>(pool_cpus());
      shared = workers;
    }
    return workers;
  }

  explicit Workers(unsigned cpus) : cpus_(cpus) {
    // Where the system refuses a thread (limits, memory) there are fewer:
    // the same bands, the same bytes, run by fewer threads.
    try {
      for (unsigned i = 0; i + 1 < cpus; ++i) {
        threads_.emplace_back([this] { serve(); });
        pthread_setname_np(threads_.back().native_handle(), "efconvert-cpu");
      }
    } catch (const std::system_error &) {
    }
  }

  ~Workers() {
    {
      std::lock_guard guard(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread &t : threads_)
      t.join();
  }

  Workers(const Workers &) = delete;
  Workers &operator=(const Workers &) = delete;

  uint64_t wakeups() const { return wakeups_.load(std::memory_order_relaxed); }

  void run(size_t n, JobRef job, unsigned cap) {
    const size_t helpers = std::min({threads_.size(), size_t(cap > 1 ? cap - 1 : 0), n - 1});
    Caller caller(callers_);
    if (helpers == 0) {
      for (size_t i = 0; i < n; ++i)
        job(i);
      return;
    }
    Round round(&job, n, helpers);
    size_t wake;
    {
      std::lock_guard guard(mutex_);
      ++busy_;
      round.helpers = std::min(helpers, share());
      // Only helpers that may join (room()): none is woken where each would
      // only take the lock, find no room and sleep again (16 elements on 16
      // CPUs: the CPUs 45 % busy, a third of the frames of n-threads=1, on
      // the H200 host).
      wake = std::min(round.helpers, room());
      if (wake > 0)
        open_.push_back(&round);
    }
    if (wake == 0) {
      work(round);
      std::lock_guard guard(mutex_);
      --busy_;
      return;
    }
    wakeups_.fetch_add(wake, std::memory_order_relaxed);
    for (size_t i = 0; i < wake; ++i)
      wake_.notify_one();
    work(round);
    std::unique_lock guard(mutex_);
    open_.erase(std::find(open_.begin(), open_.end(), &round));
    --busy_;
    round.left.wait(guard, [&] { return round.inside == 0; });
  }

 private:
  // One caller's frame step: its jobs, claimed by index by the caller and
  // the helpers that join it. On the caller's stack: it returns only once
  // no helper is inside.
  struct Round {
    Round(const JobRef *j, size_t jobs, size_t most) : job(j), n(jobs), helpers(most) {}
    const JobRef *job;
    size_t n;
    size_t helpers;  // the most that may join
    std::atomic<size_t> next{0};
    size_t joined = 0, inside = 0;  // under mutex_
    std::condition_variable left;
  };

  static void work(Round &round) {
    for (size_t i; (i = round.next.fetch_add(1, std::memory_order_relaxed)) < round.n;)
      (*round.job)(i);
  }

  // A caller in run(), counted for as long as it is there.
  class Caller {
   public:
    explicit Caller(std::atomic<unsigned> &count) : count_(count) { ++count_; }
    ~Caller() { --count_; }
    Caller(const Caller &) = delete;
    Caller &operator=(const Caller &) = delete;

   private:
    std::atomic<unsigned> &count_;
  };

  // How many more threads may run jobs: the CPUs not running any, and none
  // where callers (each converting a frame of its own, helped or not) are
  // in run() on more than half the CPUs. There a helper that joins a round
  // is soon preempted by a caller coming back, and the round's caller waits
  // for it at the end: 16 elements on 16 CPUs ran the CPUs 57 % busy with
  // helpers. Under mutex_.
  size_t room() const {
    if (size_t(callers_.load()) * 2 > cpus_)
      return 0;
    return cpus_ > busy_ ? cpus_ - busy_ : 0;
  }

  // The helpers a round may take: its caller's share of the CPUs no caller
  // runs on. The first round of several callers took every free CPU and
  // the others none, and each caller waited at the end of its round for
  // the last of many helpers: 8 elements on 16 CPUs ran them 48 % busy, at
  // two thirds of the frames of n-threads=1. Under mutex_.
  size_t share() const {
    const size_t callers = std::max(1u, callers_.load());
    return cpus_ > callers ? (cpus_ - callers) / callers : 0;
  }

  // A round with jobs left and room for a helper, oldest first. Under
  // mutex_.
  Round *joinable() {
    if (room() == 0)
      return nullptr;
    for (Round *r : open_)
      if (r->joined < r->helpers && r->next.load(std::memory_order_relaxed) < r->n)
        return r;
    return nullptr;
  }

  void serve() {
    std::unique_lock guard(mutex_);
    for (;;) {
      Round *round = nullptr;
      wake_.wait(guard, [&] { return stop_ || (round = joinable()) != nullptr; });
      if (stop_)
        return;
      ++round->joined;
      ++round->inside;
      ++busy_;
      guard.unlock();
      work(*round);
      guard.lock();
      --busy_;
      if (--round->inside == 0)
        round->left.notify_one();
    }
  }

  const unsigned cpus_;
  std::atomic<uint64_t> wakeups_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Round *> open_;         // oldest first
  unsigned busy_ = 0;                 // threads running jobs: callers with helpers, and helpers
  std::atomic<unsigned> callers_{0};  // callers in run(), helped or not
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

Pool::Pool(unsigned threads) : threads_(std::max(threads, 1u)), workers_(Workers::get()) {}

Pool::~Pool() = default;

uint64_t Pool::helper_wakeups() const {
  return workers_->wakeups();
}

void Pool::run(size_t n, JobRef job) {
  if (n == 0)
    return;
  workers_->run(n, job, threads_);
}

int band_edge(const Cut &cut, unsigned bands, unsigned k) {
  if (k == 0 || k >= bands)
    return k == 0 ? 0 : cut.rows;
  constexpr int64_t kContentWeight = 8;
  const int64_t w = cut.border_weight, top = cut.top;
  const int64_t head = w * top, body = kContentWeight * (cut.bottom - cut.top);
  const int64_t total = head + body + w * (cut.rows - cut.bottom);
  const int64_t t = total * k / bands;
  int64_t e;
  if (t <= head)
    e = w ? t / w : top;
  else if (t <= head + body)
    e = top + (t - head) / kContentWeight;
  else  // w > 0: t <= total
    e = cut.bottom + (t - head - body) / w;
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
