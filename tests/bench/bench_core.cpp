// SPDX-License-Identifier: LGPL-2.1-or-later
// Core-library benchmarks: identity derivation, import-cache hits and misses,
// and the slot gate's arm -> wake latency. docs/BENCHMARKS.md states the
// targets and the figures measured; scripts/bench.sh runs this and plots it.
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "ef/identity.hpp"
#include "ef/import_cache.hpp"
#include "ef/slot_release.hpp"
#include "fd_helpers.hpp"

using namespace ef;
using namespace std::chrono_literals;
using ef::test::make_memfd;
using ef::test::ScopedFd;

namespace {

// Stands in for a GPU texture: making one is not what these benchmarks measure.
struct FakeImport {
  uint64_t serial;
};
using Cache = ImportCache<FakeImport>;

// What an element passes once it has memoized the identity derived when the
// memory first arrived: validation compares two values, retaining takes a ref.
class StoredSource : public ImportSource {
 public:
  explicit StoredSource(BufferIdentity identity)
      : identity_(identity), anchor_(std::make_shared<int>(0)) {}
  Result<BufferIdentity> derive_identity(uint32_t) const override { return identity_; }
  Retainer retain() const override { return Retainer::from_anchor(anchor_); }

 private:
  BufferIdentity identity_;
  std::shared_ptr<const int> anchor_;
};

// Validation as the elements do it: every lookup re-derives the identity
// from the fd with one fstat (rederive_fd_identity), and retaining dups it.
class MemfdSource : public ImportSource {
 public:
  explicit MemfdSource(int fd) : fd_(fd) {}
  Result<BufferIdentity> derive_identity(uint32_t) const override {
    return rederive_fd_identity(fd_, IdentityKind::DmaBuf);
  }
  Retainer retain() const override {
    auto retained = Retainer::dup_fd(fd_);
    return retained ? *retained : Retainer{};
  }

 private:
  int fd_;
};

ImportKey key_for(BufferIdentity identity) {
  ImportKey key;
  key.planes[0] = identity;
  key.layout.width = 1920;
  key.layout.height = 1080;
  key.layout.fourcc = 0x34325241;  // 'AR24'
  key.layout.n_planes = 1;
  key.layout.strides[0] = 1920 * 4;
  return key;
}

// Distinct memfds, the keys naming them and the sources an element would pass.
// Both source kinds are built over real memfds so that the keys hash real
// (st_dev, st_ino) identities.
template <typename Source>
class Buffers {
 public:
  explicit Buffers(size_t count) {
    sources_.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      fds_.push_back(make_memfd("ef-bench", 4096));
      auto identity = identity_from_fd(fds_.back().get());
      if (!identity) {
        error_ = identity.error().message;
        return;
      }
      keys_.push_back(key_for(*identity));
      if constexpr (std::is_same_v<Source, StoredSource>)
        sources_.emplace_back(*identity);
      else
        sources_.emplace_back(fds_.back().get());
    }
  }

  const std::string &error() const { return error_; }
  size_t size() const { return keys_.size(); }
  const ImportKey &key(size_t i) const { return keys_[i]; }
  const Source &source(size_t i) const { return sources_[i]; }

 private:
  std::vector<ScopedFd> fds_;
  std::vector<ImportKey> keys_;
  std::vector<Source> sources_;
  std::string error_;
};

// Acquires `count` buffers round-robin, the order in which a ring pool hands
// them out. With capacity == count every lookup hits, and each one moves the
// least recently used entry to the front; with capacity == count - 1 every
// lookup misses, imports and evicts.
template <typename Source>
void cycle_cache(benchmark::State &state, size_t count, uint32_t capacity) {
  Buffers<Source> buffers(count);
  if (!buffers.error().empty())
    return state.SkipWithError(buffers.error().c_str());
  Cache cache(capacity);
  uint64_t serial = 0;
  // Built once: only a miss calls the importer, so a hit must not pay for making one.
  const Cache::Importer import = [&serial]() -> Result<FakeImport> { return FakeImport{++serial}; };
  for (size_t i = 0; i < count; ++i)
    if (auto warm = cache.acquire(buffers.key(i), buffers.source(i), import); !warm)
      return state.SkipWithError(warm.error().message.c_str());
  const ImportCacheStats before = cache.stats();

  size_t next = 0;
  for (auto _ : state) {
    auto outcome = cache.acquire(buffers.key(next), buffers.source(next), import);
    benchmark::DoNotOptimize(outcome);
    next = next + 1 == count ? 0 : next + 1;
  }

  // A benchmark that silently measured the other path would be worse than none.
  const ImportCacheStats after = cache.stats();
  const bool expect_hits = capacity >= count;
  const uint64_t wanted = expect_hits ? after.hits - before.hits : after.misses - before.misses;
  if (wanted != static_cast<uint64_t>(state.iterations()))
    state.SkipWithError(expect_hits ? "a lookup missed" : "a lookup hit or failed");
  state.counters["entries"] = static_cast<double>(after.entries);
}

void BM_IdentityFromFd(benchmark::State &state) {
  ScopedFd fd = make_memfd("ef-bench", 4096);
  if (auto identity = identity_from_fd(fd.get()); !identity)
    return state.SkipWithError(identity.error().message.c_str());
  for (auto _ : state) {
    auto identity = identity_from_fd(fd.get());
    benchmark::DoNotOptimize(identity);
  }
}

// The per-lookup check: one fstat.
void BM_RederiveFdIdentity(benchmark::State &state) {
  ScopedFd fd = make_memfd("ef-bench", 4096);
  for (auto _ : state) {
    auto identity = rederive_fd_identity(fd.get(), IdentityKind::DmaBuf);
    benchmark::DoNotOptimize(identity);
  }
}

template <typename Source>
void BM_CacheHit(benchmark::State &state) {
  const auto entries = static_cast<uint32_t>(state.range(0));
  cycle_cache<Source>(state, entries, entries);
}

template <typename Source>
void BM_CacheMissImportEvict(benchmark::State &state) {
  constexpr uint32_t kCapacity = 16;
  cycle_cache<Source>(state, kCapacity + 1, kCapacity);
}

// The state letter of /proc/self/task/<tid>/stat: 'S' once the thread sleeps
// in the kernel; '?' when it cannot be read.
char thread_state(pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/stat", static_cast<int>(tid));
  std::ifstream in(path);
  std::string stat;
  std::getline(in, stat);
  // The command name before the state is in parentheses and may hold spaces.
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() ? stat[close + 2] : '?';
}

template <typename Predicate>
void spin_until(Predicate done) {
  while (!done())
    std::this_thread::yield();
}

// Nearest-rank percentile; reorders `samples`.
double percentile(std::vector<double> &samples, double p) {
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(samples.size())));
  const auto nth = samples.begin() + static_cast<std::ptrdiff_t>(std::max<size_t>(rank, 1) - 1);
  std::nth_element(samples.begin(), nth, samples.end());
  return *nth;
}

// The two lowest CPUs this process may run on; nothing when it may use only one.
std::optional<std::pair<int, int>> two_cpus(const cpu_set_t &allowed) {
  std::optional<int> first;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed))
      continue;
    if (first)
      return std::pair{*first, cpu};
    first = cpu;
  }
  return std::nullopt;
}

bool pin_thread(pthread_t thread, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(thread, sizeof set, &set) == 0;
}

// One iteration is one wake: a producer thread recycling a one-slot ring is
// blocked in SlotRing::acquire; this thread arms the release the producer
// handed out. Timed from just before arm() to just after acquire() returns in
// the producer, both on steady_clock.
//
// The two threads are pinned to different CPUs. Left to the scheduler they
// sometimes share one, and then the wake costs a context switch instead of a
// cross-CPU wake-up: runs differ by 10x depending on where the threads landed.
// Apart is what a pipeline sees: its producer and consumer threads both stay busy.
void BM_GateArmToWake(benchmark::State &state) {
  constexpr auto kTimeout = 5s;
  using Clock = std::chrono::steady_clock;
  const auto rounds = static_cast<uint64_t>(state.max_iterations);

  SlotRing ring(1);
  // Written by the producer before it publishes `waiting`, read by this thread
  // before arm(); the producer rewrites it only after that arm woke it.
  std::optional<SlotRelease> handed;
  std::atomic<uint64_t> waiting{0};  // the round the producer is about to block in
  std::atomic<uint64_t> woken{0};    // the last round whose acquire() returned
  std::atomic<Clock::rep> woke_at{0};
  std::atomic<bool> failed{false};
  std::atomic<pid_t> producer_tid{0};

  std::thread producer([&] {
    producer_tid.store(gettid(), std::memory_order_release);
    auto use = ring.acquire(0, kTimeout);  // a fresh slot is free
    for (uint64_t round = 1; round <= rounds && use; ++round) {
      handed = *use;
      waiting.store(round, std::memory_order_release);
      use = ring.acquire(0, kTimeout);
      woke_at.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
      // Set before `woken` so that a timeout is never read as a latency.
      if (!use)
        failed.store(true);
      woken.store(round, std::memory_order_release);
    }
    if (!use)
      failed.store(true);
  });

  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sched_getaffinity(0, sizeof allowed, &allowed);
  const auto cpus = two_cpus(allowed);
  if (cpus && pin_thread(producer.native_handle(), cpus->first) &&
      pin_thread(pthread_self(), cpus->second))
    state.SetLabel("producer on CPU " + std::to_string(cpus->first) + ", consumer on CPU " +
                   std::to_string(cpus->second));
  else
    state.SetLabel("threads not pinned apart");

  std::vector<double> latencies_us;
  latencies_us.reserve(rounds);
  uint64_t round = 0;
  for (auto _ : state) {
    ++round;
    spin_until([&] { return waiting.load(std::memory_order_acquire) >= round || failed.load(); });
    if (failed.load()) {
      state.SkipWithError("the producer's acquire() failed");
      break;
    }
    // Arming before the producer sleeps would time the path that never blocks.
    const pid_t tid = producer_tid.load(std::memory_order_acquire);
    spin_until([&] {
      const char s = thread_state(tid);
      return s == 'S' || s == '?';
    });
    const SlotRelease release = *handed;
    const Clock::time_point armed_at = Clock::now();
    release.arm();
    spin_until([&] { return woken.load(std::memory_order_acquire) >= round; });
    if (failed.load()) {
      state.SkipWithError("the producer's acquire() failed");
      break;
    }
    const std::chrono::duration<double> latency =
        Clock::time_point(Clock::duration(woke_at.load(std::memory_order_relaxed))) - armed_at;
    state.SetIterationTime(latency.count());
    latencies_us.push_back(latency.count() * 1e6);
  }
  producer.join();
  // The benchmarks that run after this one must not inherit the pin.
  pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed);

  if (!latencies_us.empty()) {
    state.counters["p50_us"] = percentile(latencies_us, 0.50);
    state.counters["p99_us"] = percentile(latencies_us, 0.99);
  }
}

BENCHMARK(BM_IdentityFromFd);
BENCHMARK(BM_RederiveFdIdentity);
BENCHMARK_TEMPLATE(BM_CacheHit, StoredSource)->ArgName("entries")->Arg(16)->Arg(256);
BENCHMARK_TEMPLATE(BM_CacheHit, MemfdSource)->ArgName("entries")->Arg(16)->Arg(256);
BENCHMARK_TEMPLATE(BM_CacheMissImportEvict, StoredSource);
BENCHMARK_TEMPLATE(BM_CacheMissImportEvict, MemfdSource);
// A fixed count: each iteration is one wake, and the percentiles need many.
BENCHMARK(BM_GateArmToWake)->Iterations(2000)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
