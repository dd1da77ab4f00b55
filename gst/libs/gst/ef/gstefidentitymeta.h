/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstEfIdentityMeta: the identities of the memories a frame's bytes live in,
 * one per memory, in memory order (NV12 in two fds carries two). On a GL
 * frame made by importing, they name the imported source memories.
 *
 * Tagged "memory": it describes the memories, not the buffer. It is kept on
 * copies that share the memories (gst_buffer_copy, queue, tee) and dropped
 * when the memories change (gst_buffer_copy_deep, a region copy, a merge). */
#ifndef __GST_EF_IDENTITY_META_H__
#define __GST_EF_IDENTITY_META_H__

#include <gst/ef/gstefidentity.h>

G_BEGIN_DECLS

#define GST_EF_IDENTITY_META_MAX 16 /* gst_buffer_get_max_memory() */

#define GST_EF_IDENTITY_META_API_TYPE (gst_ef_identity_meta_api_get_type())
#define GST_EF_IDENTITY_META_INFO (gst_ef_identity_meta_get_info())

typedef struct {
  GstMeta meta;
  guint n_identities;
  GstEfIdentity identities[GST_EF_IDENTITY_META_MAX];
} GstEfIdentityMeta;

GST_EF_API GType gst_ef_identity_meta_api_get_type(void);
GST_EF_API const GstMetaInfo *gst_ef_identity_meta_get_info(void);

/* Derives the identity of every memory of @buffer (writable) and attaches the
 * meta, replacing an earlier one. NULL with @error when a memory has no
 * identity; the buffer is then left without the meta. */
GST_EF_API GstEfIdentityMeta *gst_buffer_add_ef_identity_meta(GstBuffer *buffer, GError **error);

GST_EF_API GstEfIdentityMeta *gst_buffer_get_ef_identity_meta(GstBuffer *buffer);

G_END_DECLS

#endif
