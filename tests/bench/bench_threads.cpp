// SPDX-License-Identifier: LGPL-2.1-or-later
#include "bench_threads.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace ef::bench {

std::optional<cpu_set_t> process_cpus() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
    return std::nullopt;
  return allowed;
}

std::optional<std::pair<int, int>> two_cpus(const std::optional<cpu_set_t> &allowed) {
  if (!allowed)
    return std::nullopt;
  std::optional<int> first;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &*allowed))
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

std::string pin_to_one_cpu(const std::optional<cpu_set_t> &allowed, const std::string &who) {
  if (!allowed)
    return "unpinned (sched_getaffinity failed)";
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &*allowed))
      continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(0, sizeof one, &one) == 0 ? who + " on CPU " + std::to_string(cpu)
                                                       : "unpinned (sched_setaffinity failed)";
  }
  return "unpinned (no CPU allowed?)";
}

bool take_unpinned(int &argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--unpinned")) {
      std::copy(argv + i + 1, argv + argc + 1, argv + i);  // argv[argc] is NULL
      --argc;
      return true;
    }
  return false;
}

AffinityScope::AffinityScope() {
  pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_);
}

AffinityScope::~AffinityScope() {
  pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
}

void AffinityScope::widen(const std::optional<cpu_set_t> &allowed) {
  if (allowed)
    pthread_setaffinity_np(pthread_self(), sizeof *allowed, &*allowed);
}

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

double percentile(std::vector<double> samples, double p) {
  if (samples.empty())
    return 0;
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(samples.size())));
  const auto nth = samples.begin() + static_cast<std::ptrdiff_t>(std::max<size_t>(rank, 1) - 1);
  std::nth_element(samples.begin(), nth, samples.end());
  return *nth;
}

}  // namespace ef::bench
