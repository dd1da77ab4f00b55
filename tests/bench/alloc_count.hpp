// SPDX-License-Identifier: LGPL-2.1-or-later
// Heap allocations counted in a benchmark program: linked into it, this
// defines malloc, calloc, realloc and the aligned allocators, which count
// each call and go on to glibc's own (__libc_*). Every library of the
// process resolves to them, GLib's g_malloc included; GSlice (GLib before
// 2.76 keeps its own slabs, where GstBuffer and GstMeta come from) is
// routed to malloc by G_SLICE=always-malloc, which
// ensure_slices_are_counted() sets by running the program again. free is
// not counted: the figures are allocations made.
#pragma once

#include <cstdint>

namespace ef::bench {

// Allocations made so far by the calling thread, and by every thread.
uint64_t thread_allocations();
uint64_t process_allocations();

// Where the allocations come from: while the calling thread traces (and
// the program was started with EF_ALLOC_TRACE set), each counted
// allocation's call stack is kept (up to a bound); print_traces() writes
// them grouped, the most frequent first, with backtrace_symbols_fd (a
// stripped library shows as its file and offset).
bool tracing_wanted();
void trace_thread(bool on);
void print_traces(int fd);

// Runs the program again (execv of /proc/self/exe, the same argv) with
// G_SLICE=always-malloc where it is not set; returns where it is.
void ensure_slices_are_counted(char **argv);

}  // namespace ef::bench
