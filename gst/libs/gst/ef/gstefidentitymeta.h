/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_EF_IDENTITY_META_H__
#define __GST_EF_IDENTITY_META_H__

#include <gst/ef/gstefidentity.h>

G_BEGIN_DECLS

/**
 * SECTION:gstefidentitymeta
 * @title: GstEfIdentityMeta
 * @short_description: the identities of the memories a frame lives in
 *
 * One identity per memory, in memory order (NV12 in two fds carries two). On
 * a GL frame made by importing, they name the imported source memories.
 *
 * Tagged "memory": it describes the memories, not the buffer. It is kept on
 * copies that share the memories (gst_buffer_copy(), queue, tee) and dropped
 * when the memories change (gst_buffer_copy_deep(), a region copy, a merge).
 */

/**
 * GST_EF_IDENTITY_META_MAX:
 *
 * The most memories a buffer can have (gst_buffer_get_max_memory()).
 */
#define GST_EF_IDENTITY_META_MAX 16

#define GST_EF_IDENTITY_META_API_TYPE (gst_ef_identity_meta_api_get_type())
#define GST_EF_IDENTITY_META_INFO (gst_ef_identity_meta_get_info())

/**
 * GstEfIdentityMeta:
 * @meta: the parent #GstMeta
 * @n_identities: how many of @identities are set, one per memory
 * @identities: the identity of each memory, in memory order
 *
 * Since: 0.1
 */
typedef struct {
  GstMeta meta;
  guint n_identities;
  GstEfIdentity identities[GST_EF_IDENTITY_META_MAX];
} GstEfIdentityMeta;

/**
 * gst_ef_identity_meta_api_get_type:
 *
 * The API type of #GstEfIdentityMeta, for gst_buffer_get_meta() and
 * allocation queries.
 *
 * Returns: the #GType of the meta's API
 *
 * Since: 0.1
 */
GST_EF_API GType gst_ef_identity_meta_api_get_type(void);

/**
 * gst_ef_identity_meta_get_info: (skip)
 *
 * The registered implementation of #GstEfIdentityMeta, for
 * gst_buffer_add_meta().
 *
 * Returns: the registered #GstMetaInfo
 *
 * Since: 0.1
 */
GST_EF_API const GstMetaInfo *gst_ef_identity_meta_get_info(void);

/**
 * gst_buffer_add_ef_identity_meta:
 * @buffer: a writable #GstBuffer
 * @error: (nullable): where to put a #GST_EF_IDENTITY_ERROR error
 *
 * Derives the identity of every memory of @buffer and attaches the meta,
 * replacing an earlier one.
 *
 * Returns: (transfer none) (nullable): the meta, or %NULL with @error when a
 *   memory has no identity; the buffer is then left without the meta
 *
 * Since: 0.1
 */
GST_EF_API GstEfIdentityMeta *gst_buffer_add_ef_identity_meta(GstBuffer *buffer, GError **error);

/**
 * gst_buffer_get_ef_identity_meta:
 * @buffer: a #GstBuffer
 *
 * Finds the identity meta on @buffer, as ef's elements attach it.
 *
 * Returns: (transfer none) (nullable): the buffer's #GstEfIdentityMeta
 *
 * Since: 0.1
 */
GST_EF_API GstEfIdentityMeta *gst_buffer_get_ef_identity_meta(GstBuffer *buffer);

/**
 * gst_ef_identity_meta_get_identity:
 * @meta: a #GstEfIdentityMeta
 * @index: a memory index, below @meta's n_identities
 * @identity: (out caller-allocates): the identity of memory @index
 *
 * For bindings, which cannot index the fixed-size array.
 *
 * Returns: %FALSE when @index is out of range
 *
 * Since: 0.1
 */
GST_EF_API gboolean gst_ef_identity_meta_get_identity(const GstEfIdentityMeta *meta, guint index,
                                                      GstEfIdentity *identity);

G_END_DECLS

#endif
