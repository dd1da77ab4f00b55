// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gst/ef/gsteffdallocator.h"

#include <fcntl.h>
#include <linux/dma-heap.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

GST_DEBUG_CATEGORY_STATIC(gst_ef_fd_allocator_debug);
#define GST_CAT_DEFAULT gst_ef_fd_allocator_debug

struct _GstEfFdAllocator {
  GstDmaBufAllocator parent;
  int heap_fd;  // -1: memfds
};

G_DEFINE_TYPE_WITH_CODE(GstEfFdAllocator, gst_ef_fd_allocator, GST_TYPE_DMABUF_ALLOCATOR,
                        GST_DEBUG_CATEGORY_INIT(gst_ef_fd_allocator_debug, "effdallocator", 0,
                                                "ef memfd / dma-heap allocator"))

static int allocate_fd(GstEfFdAllocator *self, gsize size) {
  if (self->heap_fd >= 0) {
    struct dma_heap_allocation_data data = {};
    data.len = size;
    data.fd_flags = O_RDWR | O_CLOEXEC;
    if (ioctl(self->heap_fd, DMA_HEAP_IOCTL_ALLOC, &data) == 0)
      return int(data.fd);
    GST_WARNING_OBJECT(self, "dma-heap allocation of %zu bytes failed: %s", size,
                       g_strerror(errno));
    return -1;
  }
  int fd = memfd_create("ef-frame", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd >= 0 && ftruncate(fd, off_t(size)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// A memory's tag (gst_ef_fd_memory_set_tag), on the root memory as qdata
// made with it, so that a map only reads it.
struct MemoryTag {
  std::atomic<guint64> value{0};
};

static GQuark tag_quark() {
  static const GQuark quark = g_quark_from_static_string("GstEfFdMemoryTag");
  return quark;
}

static MemoryTag *tag_of(GstMemory *mem) {
  while (mem->parent)
    mem = mem->parent;
  if (!mem->allocator || !GST_IS_EF_FD_ALLOCATOR(mem->allocator))
    return nullptr;
  return static_cast<MemoryTag *>(gst_mini_object_get_qdata(GST_MINI_OBJECT(mem), tag_quark()));
}

static GstMemory *fd_allocator_alloc(GstAllocator *allocator, gsize size,
                                     GstAllocationParams *params) {
  auto *self = GST_EF_FD_ALLOCATOR(allocator);
  gsize padded = size + (params ? params->prefix + params->padding : 0);
  int fd = allocate_fd(self, padded);
  if (fd < 0)
    return nullptr;
  // Kept mapped: a pool recycles these buffers every frame, and an mmap and
  // munmap per CPU access would cost more than the conversion writing them.
  GstMemory *mem = gst_fd_allocator_alloc(allocator, fd, padded, GST_FD_MEMORY_FLAG_KEEP_MAPPED);
  if (!mem)
    return nullptr;
  gst_mini_object_set_qdata(GST_MINI_OBJECT(mem), tag_quark(), new MemoryTag,
                            [](gpointer tag) { delete static_cast<MemoryTag *>(tag); });
  if (params && params->prefix)
    gst_memory_resize(mem, gssize(params->prefix), size);
  return mem;
}

// GstFdMemory keeps a KEEP_MAPPED memory's mapping but changes its
// protection (mprotect) whenever a map asks for access the mapping lacks:
// a writer (efconvert maps WRITE) and a reader (a sink maps READ) taking
// turns on a pooled buffer paid two mprotects of the whole buffer a frame,
// and each one that takes write access away shoots down the TLB of every
// CPU the process runs on (IPIs): with 16 streams on 16 CPUs those
// interrupts held efconvert at half the frames the CPUs could convert.
// Our fds are opened read-write, so the mapping is made read-write once
// and every later map is a subset of it; the memory's own lock still
// refuses a write map of a read-only memory. Where a read-write mapping
// is refused (a memfd sealed against writing), the map asks for what the
// caller asked.
static GstMemoryMapFunction parent_mem_map = nullptr;

static gpointer fd_allocator_mem_map(GstMemory *mem, gsize maxsize, GstMapFlags flags) {
  // Whoever maps for writing may change what the tag says.
  if (flags & GST_MAP_WRITE)
    if (MemoryTag *tag = tag_of(mem))
      tag->value.store(0, std::memory_order_release);
  if (gpointer data = parent_mem_map(mem, maxsize, GstMapFlags(flags | GST_MAP_READWRITE)))
    return data;
  return parent_mem_map(mem, maxsize, flags);
}

static void fd_allocator_finalize(GObject *object) {
  auto *self = GST_EF_FD_ALLOCATOR(object);
  if (self->heap_fd >= 0)
    close(self->heap_fd);
  G_OBJECT_CLASS(gst_ef_fd_allocator_parent_class)->finalize(object);
}

static void gst_ef_fd_allocator_class_init(GstEfFdAllocatorClass *klass) {
  GST_ALLOCATOR_CLASS(klass)->alloc = fd_allocator_alloc;
  G_OBJECT_CLASS(klass)->finalize = fd_allocator_finalize;
}

static void gst_ef_fd_allocator_init(GstEfFdAllocator *self) {
  GstAllocator *allocator = GST_ALLOCATOR(self);
  parent_mem_map = allocator->mem_map;  // GstFdAllocator's, set by its init
  allocator->mem_map = fd_allocator_mem_map;
  self->heap_fd = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
}

GstAllocator *gst_ef_fd_allocator_new(void) {
  GstAllocator *allocator = GST_ALLOCATOR(g_object_new(GST_TYPE_EF_FD_ALLOCATOR, nullptr));
  gst_object_ref_sink(allocator);
  return allocator;
}

const char *gst_ef_fd_allocator_get_source(GstEfFdAllocator *allocator) {
  return allocator->heap_fd >= 0 ? "dma-heap" : "memfd";
}

gboolean gst_ef_fd_memory_set_tag(GstMemory *mem, guint64 tag) {
  g_return_val_if_fail(mem != nullptr, FALSE);
  MemoryTag *kept = tag_of(mem);
  if (!kept)
    return FALSE;
  kept->value.store(tag, std::memory_order_release);
  return TRUE;
}

guint64 gst_ef_fd_memory_get_tag(GstMemory *mem) {
  g_return_val_if_fail(mem != nullptr, 0);
  const MemoryTag *kept = tag_of(mem);
  return kept ? kept->value.load(std::memory_order_acquire) : 0;
}
