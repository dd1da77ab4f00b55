/* Built by tests/install/test_installed_pc.sh from the installed pkg-config
 * files alone: what an application gets from
 * `pkg-config --cflags --libs gstreamer-ef-1.0`. It calls both halves the
 * headers tell users to call: libgstef's identities and the core's C ABI. */
#define _GNU_SOURCE
#include <errno.h>
#include <gst/allocators/allocators.h>
#include <gst/ef/gstef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
/* Installed only where libgstef-1.0 was built with GStreamer's analytics
 * library (1.26+); it needs no analytics header of its own. */
#if __has_include(<gst/ef/gstefanalytics.h>)
#include <gst/ef/gstefanalytics.h>
#define HAVE_EF_ANALYTICS 1
#endif

int main(int argc, char **argv) {
  gst_init(&argc, &argv);

  int fd = memfd_create("installed-pc", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, 4096) != 0) {
    perror("memfd");
    return 1;
  }
  GstAllocator *alloc = gst_fd_allocator_new();
  GstMemory *mem = gst_fd_allocator_alloc(alloc, fd, 4096, GST_FD_MEMORY_FLAG_DONT_CLOSE);
  GstEfIdentity id;
  GError *error = NULL;
  if (!gst_ef_memory_get_identity(mem, &id, &error)) {
    fprintf(stderr, "no identity: %s\n", error->message);
    return 1;
  }
  if (id.kind != GST_EF_IDENTITY_KIND_DMA_BUF || id.id == 0) {
    fprintf(stderr, "unexpected identity kind %u id %llu\n", id.kind, (unsigned long long)id.id);
    return 1;
  }

  EfSlotRing *ring = NULL;
  if (ef_slot_ring_new(2, &ring) != 0) {
    fprintf(stderr, "ef_slot_ring_new: %s\n", ef_last_error());
    return 1;
  }
  ef_slot_ring_free(ring);
  if (ef_slot_ring_new(0, &ring) != EINVAL || ef_last_error()[0] == '\0') {
    fprintf(stderr, "ef_slot_ring_new(0) was not refused with a message\n");
    return 1;
  }

  const char *domain = g_quark_to_string(GST_EF_IDENTITY_ERROR);
  if (strcmp(domain, "gst-ef-identity-error-quark") != 0) {
    fprintf(stderr, "error domain is \"%s\"\n", domain);
    return 1;
  }

#ifdef HAVE_EF_ANALYTICS
  /* A buffer not out of efconvert has nothing to map. */
  GstBuffer *plain = gst_buffer_new();
  if (gst_ef_analytics_relation_meta_copy_to_input(plain, NULL) != NULL) {
    fprintf(stderr, "a buffer without metas was mapped\n");
    return 1;
  }
  gst_buffer_unref(plain);
#endif

  gst_memory_unref(mem);
  gst_object_unref(alloc);
  close(fd);
  printf("identity %016llx, slot ring and last error from the installed libraries\n",
         (unsigned long long)id.id);
  return 0;
}
