// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gate_latency.hpp"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "bench_threads.hpp"
#include "ef/slot_release.hpp"

namespace ef::bench {

void gate_arm_to_wake_ring(benchmark::State &state, const std::optional<cpu_set_t> &allowed) {
  using namespace std::chrono_literals;
  using Clock = std::chrono::steady_clock;
  constexpr auto kTimeout = 5s;
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

  AffinityScope scope;
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
    // The producer's acquire() gives up after kTimeout, well within the spin's
    // limit: a spin that runs out means the producer is stuck, not slow.
    if (!spin_until(
            [&] { return waiting.load(std::memory_order_acquire) >= round || failed.load(); }) ||
        failed.load()) {
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
    if (!spin_until([&] { return woken.load(std::memory_order_acquire) >= round; }) ||
        failed.load()) {
      state.SkipWithError("the producer's acquire() failed");
      break;
    }
    const std::chrono::duration<double> latency =
        Clock::time_point(Clock::duration(woke_at.load(std::memory_order_relaxed))) - armed_at;
    state.SetIterationTime(latency.count());
    latencies_us.push_back(latency.count() * 1e6);
  }
  producer.join();

  if (!latencies_us.empty()) {
    state.counters["p50_us"] = percentile(latencies_us, 0.50);
    state.counters["p99_us"] = percentile(latencies_us, 0.99);
  }
}

}  // namespace ef::bench
