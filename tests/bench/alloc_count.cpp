// SPDX-License-Identifier: LGPL-2.1-or-later
#include "alloc_count.hpp"

#include <execinfo.h>
#include <unistd.h>

#include <algorithm>
#include <array>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *ptr, size_t size);
void *__libc_memalign(size_t alignment, size_t size);
}

namespace {

// Static TLS of the program itself: reading it allocates nothing.
thread_local uint64_t t_allocations = 0;
std::atomic<uint64_t> g_allocations{0};

constexpr int kDepth = 14;
constexpr size_t kStacks = 4096;
struct Stack {
  std::array<void *, kDepth> frames;
  int depth;
};
Stack g_stacks[kStacks];
std::atomic<size_t> g_traced{0};
thread_local bool t_tracing = false, t_in_trace = false;

// backtrace() may allocate the first time it runs (it loads the unwinder):
// never inside a trace, which t_in_trace also guards.
void trace() {
  const size_t at = g_traced.fetch_add(1, std::memory_order_relaxed);
  if (at >= kStacks)
    return;
  t_in_trace = true;
  g_stacks[at].depth = backtrace(g_stacks[at].frames.data(), kDepth);
  t_in_trace = false;
}

void counted() {
  ++t_allocations;
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (t_tracing && !t_in_trace)
    trace();
}

}  // namespace

extern "C" {

void *malloc(size_t size) {
  counted();
  return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
  counted();
  return __libc_calloc(n, size);
}

void *realloc(void *ptr, size_t size) {
  counted();
  return __libc_realloc(ptr, size);
}

void *memalign(size_t alignment, size_t size) {
  counted();
  return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  counted();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
  counted();
  void *p = __libc_memalign(alignment, size);
  if (!p)
    return ENOMEM;
  *out = p;
  return 0;
}

}  // extern "C"

namespace ef::bench {

uint64_t thread_allocations() {
  return t_allocations;
}

uint64_t process_allocations() {
  return g_allocations.load(std::memory_order_relaxed);
}

bool tracing_wanted() {
  static const bool wanted = [] {
    if (!std::getenv("EF_ALLOC_TRACE"))
      return false;
    void *warm[2];
    backtrace(warm, 2);
    return true;
  }();
  return wanted;
}

void trace_thread(bool on) {
  t_tracing = on && tracing_wanted();
}

void print_traces(int fd) {
  const size_t n = std::min(g_traced.load(), kStacks);
  std::array<size_t, kStacks> order{};
  for (size_t i = 0; i < n; ++i)
    order[i] = i;
  auto key = [](size_t i) {
    return std::vector<void *>(g_stacks[i].frames.begin() + 2,
                               g_stacks[i].frames.begin() + std::max(g_stacks[i].depth, 2));
  };
  std::sort(order.begin(), order.begin() + ptrdiff_t(n),
            [&](size_t a, size_t b) { return key(a) < key(b); });
  // Groups of equal stacks (past malloc and counted), largest first.
  std::vector<std::pair<size_t, size_t>> groups;  // count, first
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && key(order[j]) == key(order[i]))
      ++j;
    groups.emplace_back(j - i, order[i]);
    i = j;
  }
  std::sort(groups.begin(), groups.end(), [](auto &a, auto &b) { return a.first > b.first; });
  dprintf(fd, "allocations traced: %zu (of %zu)\n", n, g_traced.load());
  for (size_t g = 0; g < std::min<size_t>(groups.size(), 12); ++g) {
    const Stack &st = g_stacks[groups[g].second];
    dprintf(fd, "---- %zu allocations:\n", groups[g].first);
    backtrace_symbols_fd(st.frames.data() + 2, std::max(st.depth - 2, 0), fd);
  }
}

void ensure_slices_are_counted(char **argv) {
  const char *slice = std::getenv("G_SLICE");
  if (slice && std::strstr(slice, "always-malloc"))
    return;
  setenv("G_SLICE", "always-malloc", 1);
  execv("/proc/self/exe", argv);
  std::fprintf(stderr, "cannot run again with G_SLICE=always-malloc (%s): GSlice not counted\n",
               std::strerror(errno));
}

}  // namespace ef::bench
