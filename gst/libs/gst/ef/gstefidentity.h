/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_EF_IDENTITY_H__
#define __GST_EF_IDENTITY_H__

#include <gst/ef/gstef-prelude.h>
#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * SECTION:gstefidentity
 * @title: GstEfIdentity
 * @short_description: the BufferIdentity of a GstMemory
 *
 * An identity is derived once per #GstMemory from a system key (the inode
 * of a dma-buf or memfd, the base address of system memory) and kept on the
 * memory. It is never the address of the #GstMemory itself: allocators
 * recycle that at once. Two processes, or two independently built copies of
 * ef, derive the same id for the same buffer.
 */

/**
 * GstEfIdentityKind:
 * @GST_EF_IDENTITY_KIND_DMA_BUF: a dma-buf or a memfd, keyed by its inode
 * @GST_EF_IDENTITY_KIND_SHM: a POSIX shared memory file, keyed by its inode
 * @GST_EF_IDENTITY_KIND_HOST_PTR: system memory, keyed by its base address
 *   (valid in this process only)
 * @GST_EF_IDENTITY_KIND_PBO: a GL buffer name (valid in its GL context only)
 * @GST_EF_IDENTITY_KIND_VK_IMAGE: a VkImage handle (valid in this process only)
 *
 * The kinds of the core library's identities. The values are pinned to the
 * core's `EF_IDENTITY_KIND_*` (ef/ef.h) and never change: they are part of
 * every id.
 *
 * Since: 0.1
 */
typedef enum {
  GST_EF_IDENTITY_KIND_DMA_BUF = 0,
  GST_EF_IDENTITY_KIND_SHM = 1,
  GST_EF_IDENTITY_KIND_HOST_PTR = 6,
  GST_EF_IDENTITY_KIND_PBO = 7,
  GST_EF_IDENTITY_KIND_VK_IMAGE = 8,
} GstEfIdentityKind;

/**
 * GstEfIdentity:
 * @id: `(kind << 56) ^ key`, equal in every process and build for one buffer
 * @kind: a #GstEfIdentityKind value
 *
 * The identity of the bytes a memory holds.
 *
 * Since: 0.1
 */
typedef struct {
  guint64 id;
  guint32 kind;
  /*< private >*/
  guint32 _reserved;
} GstEfIdentity;

#define GST_TYPE_EF_IDENTITY (gst_ef_identity_get_type())
GST_EF_API GType gst_ef_identity_get_type(void);

/**
 * GstEfIdentityError:
 * @GST_EF_IDENTITY_ERROR_NO_IDENTITY: the memory names no buffer that can be
 *   identified: an fd that is not a dma-buf, memfd or shm file, a kernel that
 *   gives every dma-buf one inode, memory that is neither fd nor system
 *   memory (GL memory), or a buffer with no or too many memories
 * @GST_EF_IDENTITY_ERROR_CLOSED: the memory's fd is closed
 * @GST_EF_IDENTITY_ERROR_FAILED: a system call failed while examining the
 *   memory
 *
 * Errors of the #GST_EF_IDENTITY_ERROR domain.
 *
 * Since: 0.1
 */
typedef enum {
  GST_EF_IDENTITY_ERROR_NO_IDENTITY = 1,
  GST_EF_IDENTITY_ERROR_CLOSED = 2,
  GST_EF_IDENTITY_ERROR_FAILED = 3,
} GstEfIdentityError;

/**
 * GST_EF_IDENTITY_ERROR:
 *
 * The error domain of identity derivation ("gst-ef-identity-error-quark"),
 * with codes from #GstEfIdentityError.
 */
#define GST_EF_IDENTITY_ERROR (gst_ef_identity_error_quark())

/**
 * gst_ef_identity_error_quark:
 *
 * The quark of the #GST_EF_IDENTITY_ERROR error domain.
 *
 * Returns: the quark of "gst-ef-identity-error-quark"
 *
 * Since: 0.1
 */
GST_EF_API GQuark gst_ef_identity_error_quark(void);

/**
 * gst_ef_memory_get_identity:
 * @mem: a #GstMemory
 * @identity: (out caller-allocates): the identity of the bytes @mem holds
 * @error: (nullable): where to put a #GST_EF_IDENTITY_ERROR error
 *
 * Derives the identity of @mem once; later calls read it back from the
 * memory. DmaBuf or Shm for fd memory, HostPtr for system memory, Pbo for a
 * GstGLBuffer (a GL buffer object: its name, valid in its GL context). Any
 * other kind of memory (GL textures among them) is never mapped to find out,
 * since a map could download it into a copy: it has no identity.
 *
 * Returns: %TRUE with @identity set, %FALSE with @error for memory that has
 *   no identity
 *
 * Since: 0.1
 */
GST_EF_API gboolean gst_ef_memory_get_identity(GstMemory *mem, GstEfIdentity *identity,
                                               GError **error);

G_END_DECLS

#endif
