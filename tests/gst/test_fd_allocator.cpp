// SPDX-License-Identifier: LGPL-2.1-or-later
// GstEfFdAllocator's memories keep a writer's tag until the next map for
// writing, and are mapped read-write once and kept so: a
// writer and a reader taking turns on a pooled buffer (efconvert writes,
// a sink reads) change nothing in the page tables. GstFdMemory would
// otherwise mprotect the whole buffer at each change of access, and each
// mprotect that takes write access away interrupts every CPU the process
// runs on. mprotect is interposed here (the program exports it) and counted.
#include <dlfcn.h>
#include <gst/allocators/allocators.h>
#include <gst/check/gstcheck.h>
#include <gst/ef/gsteffdallocator.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>

namespace {

std::atomic<int> g_mprotects{0};

constexpr gsize kBytes = 640 * 640 * 3;  // an RGB 640x640 frame

GstMemory *new_memory() {
  GstAllocator *allocator = gst_ef_fd_allocator_new();
  GstMemory *mem = gst_allocator_alloc(allocator, kBytes, nullptr);
  gst_object_unref(allocator);
  fail_unless(mem && gst_is_fd_memory(mem), "no fd memory from GstEfFdAllocator");
  return mem;
}

// One frame: the writer's map, every page written, then the reader's.
void write_then_read(GstMemory *mem, guint8 value) {
  GstMapInfo map;
  fail_unless(gst_memory_map(mem, &map, GST_MAP_WRITE), "write map refused");
  for (gsize k = 0; k < map.size; k += 4096)
    map.data[k] = value;
  gst_memory_unmap(mem, &map);
  fail_unless(gst_memory_map(mem, &map, GST_MAP_READ), "read map refused");
  for (gsize k = 0; k < map.size; k += 4096)
    fail_unless_equals_int(map.data[k], value);
  gst_memory_unmap(mem, &map);
}

}  // namespace

extern "C" int mprotect(void *addr, size_t len, int prot) {
  using Mprotect = int (*)(void *, size_t, int);
  static const auto real = reinterpret_cast<Mprotect>(dlsym(RTLD_NEXT, "mprotect"));
  g_mprotects.fetch_add(1);
  return real(addr, len, prot);
}

GST_START_TEST(test_turns_change_no_protection) {
  GstMemory *mem = new_memory();
  write_then_read(mem, 1);  // the first map makes the mapping
  const int before = g_mprotects.load();
  for (int frame = 0; frame < 100; ++frame)
    write_then_read(mem, guint8(frame));
  const int calls = g_mprotects.load() - before;
  fail_unless(calls == 0, "100 frames written then read made %d mprotect calls", calls);
  gst_memory_unref(mem);
}
GST_END_TEST;

// The interposition sees GstFdMemory's calls: a plain GstFdAllocator's
// memory, without the read-write mapping, changes protection every turn.
GST_START_TEST(test_interposition_sees_protection_changes) {
  GstAllocator *plain = gst_fd_allocator_new();
  const int fd = memfd_create("plain", MFD_CLOEXEC);
  fail_unless(fd >= 0 && ftruncate(fd, off_t(kBytes)) == 0);
  GstMemory *mem = gst_fd_allocator_alloc(plain, fd, kBytes, GST_FD_MEMORY_FLAG_KEEP_MAPPED);
  gst_object_unref(plain);
  write_then_read(mem, 1);
  const int before = g_mprotects.load();
  for (int frame = 0; frame < 10; ++frame)
    write_then_read(mem, guint8(frame));
  fail_unless(g_mprotects.load() - before >= 10, "mprotect calls not seen: %d",
              g_mprotects.load() - before);
  gst_memory_unref(mem);
}
GST_END_TEST;

// A read-only memory still refuses a write map: the lock decides, not the
// mapping's protection.
GST_START_TEST(test_read_only_still_refuses_writes) {
  GstMemory *mem = new_memory();
  write_then_read(mem, 7);
  GST_MINI_OBJECT_FLAG_SET(mem, GST_MEMORY_FLAG_READONLY);
  GstMapInfo map;
  fail_if(gst_memory_map(mem, &map, GST_MAP_WRITE), "a read-only memory was mapped for writing");
  fail_unless(gst_memory_map(mem, &map, GST_MAP_READ));
  fail_unless_equals_int(map.data[0], 7);
  gst_memory_unmap(mem, &map);
  gst_memory_unref(mem);
}
GST_END_TEST;

// A tag set after writing stays while the memory is only read, and any map
// for writing clears it; a share reads its root's. Memory of another
// allocator keeps none.
GST_START_TEST(test_tag_cleared_by_write_maps) {
  GstMemory *mem = new_memory();
  fail_unless_equals_uint64(gst_ef_fd_memory_get_tag(mem), 0);
  fail_unless(gst_ef_fd_memory_set_tag(mem, 42));
  GstMapInfo map;
  fail_unless(gst_memory_map(mem, &map, GST_MAP_READ));
  gst_memory_unmap(mem, &map);
  fail_unless_equals_uint64(gst_ef_fd_memory_get_tag(mem), 42);
  fail_unless(gst_memory_map(mem, &map, GST_MAP_WRITE));
  fail_unless_equals_uint64(gst_ef_fd_memory_get_tag(mem), 0);
  gst_memory_unmap(mem, &map);
  fail_unless_equals_uint64(gst_ef_fd_memory_get_tag(mem), 0);

  // A share reads its root's tag (shares are read-only: GstFdMemory's).
  fail_unless(gst_ef_fd_memory_set_tag(mem, 7));
  GstMemory *share = gst_memory_share(mem, 4096, 4096);
  fail_unless_equals_uint64(gst_ef_fd_memory_get_tag(share), 7);
  gst_memory_unref(share);
  gst_memory_unref(mem);

  GstMemory *plain = gst_allocator_alloc(nullptr, 64, nullptr);
  fail_if(gst_ef_fd_memory_set_tag(plain, 9));
  fail_unless_equals_uint64(gst_ef_fd_memory_get_tag(plain), 0);
  gst_memory_unref(plain);
}
GST_END_TEST;

static Suite *fd_allocator_suite() {
  Suite *s = suite_create("fd_allocator");
  TCase *tc = tcase_create("general");
  tcase_add_test(tc, test_turns_change_no_protection);
  tcase_add_test(tc, test_interposition_sees_protection_changes);
  tcase_add_test(tc, test_read_only_still_refuses_writes);
  tcase_add_test(tc, test_tag_cleared_by_write_maps);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(fd_allocator);
