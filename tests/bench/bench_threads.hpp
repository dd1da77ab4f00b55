// SPDX-License-Identifier: LGPL-2.1-or-later
// Thread placement and cross-thread timing shared by the benchmark programs
// (bench_core, bench_upload, bench_vkbridge): where one pins threads, it picks
// its CPUs and reads its latencies the same way as the others, so that their
// figures compare.
#pragma once

#include <pthread.h>
#include <sched.h>
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ef::bench {

// The CPUs this process may run on; nothing when sched_getaffinity fails.
// A program that pins itself reads this first: the cases that pin threads
// apart choose from the whole set, not from the one CPU left after the pin.
std::optional<cpu_set_t> process_cpus();

// The two lowest CPUs of `allowed`; nothing when it has fewer.
std::optional<std::pair<int, int>> two_cpus(const std::optional<cpu_set_t> &allowed);

bool pin_thread(pthread_t thread, int cpu);

// Restricts the process, and so every thread it starts later, to the lowest
// CPU of `allowed`. Returns the placement to report: "<who> on CPU n", or why
// the process is not pinned.
std::string pin_to_one_cpu(const std::optional<cpu_set_t> &allowed, const std::string &who);

// Takes `--unpinned` out of the command line, so that Google Benchmark does
// not refuse it as unknown; true when it was there.
bool take_unpinned(int &argc, char **argv);

// Restores the calling thread's affinity when it goes: the benchmarks that run
// after one that pins its thread must not inherit the pin.
class AffinityScope {
 public:
  AffinityScope();
  ~AffinityScope();
  AffinityScope(const AffinityScope &) = delete;
  AffinityScope &operator=(const AffinityScope &) = delete;

  // Lets the calling thread, and the threads it starts, run anywhere in
  // `allowed` until the scope ends.
  void widen(const std::optional<cpu_set_t> &allowed);

 private:
  cpu_set_t saved_;
};

// The state letter of /proc/self/task/<tid>/stat: 'S' once the thread sleeps
// in the kernel; '?' when it cannot be read.
char thread_state(pid_t tid);

// Yields until `done()`; false when `limit` passed first. The limit turns a
// thread that never answers into an error instead of a hung benchmark.
template <typename Predicate>
bool spin_until(Predicate done, std::chrono::seconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::yield();
  }
  return true;
}

// Nearest-rank percentile, `p` in [0, 1]; 0 for no samples.
double percentile(std::vector<double> samples, double p);

}  // namespace ef::bench
