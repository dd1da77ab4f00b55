/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_EF_FD_ALLOCATOR_H__
#define __GST_EF_FD_ALLOCATOR_H__

#include <gst/allocators/allocators.h>
#include <gst/ef/gstef-prelude.h>

G_BEGIN_DECLS

/**
 * SECTION:gsteffdallocator
 * @title: GstEfFdAllocator
 * @short_description: fd-backed memory for buffer pools
 *
 * Memory from a dma-buf heap (/dev/dma_heap/system) where the machine has
 * one, else from memfds. Both are typed "dmabuf" (a #GstDmaBufAllocator): a
 * memfd is a DmaBuf identity, and EGL and Vulkan drivers with dma-buf import
 * (Mesa's llvmpipe and lavapipe among them) import it as one, so stock
 * elements downstream (glupload) import these buffers without a copy too.
 * Applications use it for appsrc rings:
 * `gst_buffer_pool_config_set_allocator (config, allocator, NULL)`.
 */

#define GST_TYPE_EF_FD_ALLOCATOR (gst_ef_fd_allocator_get_type())

/**
 * GstEfFdAllocator:
 *
 * An opaque #GstDmaBufAllocator that makes its own fds.
 *
 * Since: 0.1
 */
GST_EF_API
G_DECLARE_FINAL_TYPE(GstEfFdAllocator, gst_ef_fd_allocator, GST, EF_FD_ALLOCATOR,
                     GstDmaBufAllocator)

/**
 * gst_ef_fd_allocator_new:
 *
 * Makes an allocator whose memories are fds of its own: a dma-buf heap's
 * where the system has one the process may use, else memfds.
 *
 * Returns: (transfer full): a new #GstEfFdAllocator
 *
 * Since: 0.1
 */
GST_EF_API GstAllocator *gst_ef_fd_allocator_new(void);

/**
 * gst_ef_fd_allocator_get_source:
 * @allocator: a #GstEfFdAllocator
 *
 * Says which kind of fd @allocator makes, decided when it was made.
 *
 * Returns: (transfer none): where the fds come from: "dma-heap" or "memfd"
 *
 * Since: 0.1
 */
GST_EF_API const char *gst_ef_fd_allocator_get_source(GstEfFdAllocator *allocator);

/**
 * gst_ef_fd_memory_set_tag:
 * @mem: a #GstMemory from a #GstEfFdAllocator (or a share of one)
 * @tag: what @mem now holds, in the writer's own terms; 0 for nothing
 *
 * Records, after writing @mem, a word that says what it holds, so that
 * the writer can tell, when the memory comes back to it, whether bytes it
 * wrote then are still there (efconvert leaves a pooled output's letterbox
 * borders as they are). Any later map of @mem (or of a share of it) for
 * writing clears the tag to 0, whoever maps it: a tag read before one's
 * own map for writing is the one set after the last writer's. Writes that
 * do not map the memory (through its fd, in another process or a device)
 * are not seen; a writer that relies on the tag documents that.
 *
 * Returns: %TRUE where @mem keeps tags (a #GstEfFdAllocator's memory)
 *
 * Since: 0.1
 */
GST_EF_API gboolean gst_ef_fd_memory_set_tag(GstMemory *mem, guint64 tag);

/**
 * gst_ef_fd_memory_get_tag:
 * @mem: a #GstMemory
 *
 * The tag gst_ef_fd_memory_set_tag() last set on @mem, while no map for
 * writing came after it.
 *
 * Returns: the tag, or 0: none set, @mem mapped for writing since, or not
 *   a #GstEfFdAllocator's memory
 *
 * Since: 0.1
 */
GST_EF_API guint64 gst_ef_fd_memory_get_tag(GstMemory *mem);

G_END_DECLS

#endif
