/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstEfFdAllocator: fd-backed memory for buffer pools. From a dma-buf heap
 * (/dev/dma_heap/system) where the machine has one, else from memfds. Both
 * are typed "dmabuf" (a GstDmaBufAllocator): a memfd is a DmaBuf identity,
 * and EGL and Vulkan drivers with dma-buf import (Mesa's llvmpipe and
 * lavapipe among them) import it as one, so stock elements downstream
 * (glupload) import these buffers without a copy too. Applications use it
 * for appsrc rings: gst_buffer_pool_config_set_allocator(config, alloc, NULL). */
#ifndef __GST_EF_FD_ALLOCATOR_H__
#define __GST_EF_FD_ALLOCATOR_H__

#include <gst/allocators/allocators.h>
#include <gst/ef/gstefidentity.h>

G_BEGIN_DECLS

#define GST_TYPE_EF_FD_ALLOCATOR (gst_ef_fd_allocator_get_type())
GST_EF_API GType gst_ef_fd_allocator_get_type(void);
typedef struct _GstEfFdAllocator GstEfFdAllocator;
#define GST_EF_FD_ALLOCATOR(obj) \
  (G_TYPE_CHECK_INSTANCE_CAST((obj), GST_TYPE_EF_FD_ALLOCATOR, GstEfFdAllocator))

GST_EF_API GstAllocator *gst_ef_fd_allocator_new(void);
/* "dma-heap" or "memfd". */
GST_EF_API const char *gst_ef_fd_allocator_get_source(GstEfFdAllocator *allocator);

G_END_DECLS

#endif
