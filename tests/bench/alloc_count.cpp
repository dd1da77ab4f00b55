// SPDX-License-Identifier: LGPL-2.1-or-later
#include "alloc_count.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

void counted() {
  ++t_allocations;
  g_allocations.fetch_add(1, std::memory_order_relaxed);
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
