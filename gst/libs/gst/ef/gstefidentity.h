/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The BufferIdentity of a GstMemory, for applications and elements.
 *
 * An identity is derived once per GstMemory from a system key (the inode of
 * a dma-buf or memfd, the base address of system memory) and kept on the
 * memory as qdata. It is never the address of the GstMemory itself: that is
 * recycled by allocators at once. */
#ifndef __GST_EF_IDENTITY_H__
#define __GST_EF_IDENTITY_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#ifndef GST_EF_API
#define GST_EF_API extern __attribute__((visibility("default")))
#endif

/* The pinned IdentityKind values of the core library (ef/ef.h). */
typedef enum {
  GST_EF_IDENTITY_KIND_DMA_BUF = 0,
  GST_EF_IDENTITY_KIND_SHM = 1,
  GST_EF_IDENTITY_KIND_HOST_PTR = 6,
  GST_EF_IDENTITY_KIND_PBO = 7,
  GST_EF_IDENTITY_KIND_VK_IMAGE = 8,
} GstEfIdentityKind;

/**
 * GstEfIdentity:
 * @id: (kind << 56) ^ key, equal in every process and build for one buffer
 * @kind: a #GstEfIdentityKind value
 */
typedef struct {
  guint64 id;
  guint32 kind;
  guint32 _reserved;
} GstEfIdentity;

#define GST_EF_IDENTITY_ERROR (gst_ef_identity_error_quark())
GST_EF_API GQuark gst_ef_identity_error_quark(void);

/* Derives (once; later calls read the qdata) the identity of @mem: DmaBuf or
 * Shm for fd memory, HostPtr for system memory. FALSE with @error for memory
 * that has none (an fd that is not a buffer, a closed fd, and any other kind
 * of memory such as GL memory, which is never mapped to find out: a map could
 * download it into a copy). */
GST_EF_API gboolean gst_ef_memory_get_identity(GstMemory *mem, GstEfIdentity *identity,
                                               GError **error);

G_END_DECLS

#endif
