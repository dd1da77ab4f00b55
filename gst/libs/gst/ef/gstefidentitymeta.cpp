// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gst/ef/gstefidentitymeta.h"

#include <cstring>

#include "memory_copy.hpp"

namespace {

gboolean identity_meta_init(GstMeta *meta, gpointer, GstBuffer *) {
  auto *m = reinterpret_cast<GstEfIdentityMeta *>(meta);
  m->n_identities = 0;
  std::memset(m->identities, 0, sizeof m->identities);
  return TRUE;
}

// Keep the meta only where the copy shares every memory it describes: the
// identities name bytes, and a deep copy holds other bytes.
gboolean identity_meta_transform(GstBuffer *dest, GstMeta *meta, GstBuffer *src, GQuark type,
                                 gpointer data) {
  if (!GST_META_TRANSFORM_IS_COPY(type))
    return FALSE;  // other transforms (e.g. video scaling) change the bytes
  if (!ef::gst::copy_shares_memories(dest, src, data))
    return TRUE;  // not copied, not an error
  auto *m = reinterpret_cast<GstEfIdentityMeta *>(meta);
  auto *to = reinterpret_cast<GstEfIdentityMeta *>(
      gst_buffer_add_meta(dest, GST_EF_IDENTITY_META_INFO, nullptr));
  if (!to)
    return FALSE;
  to->n_identities = m->n_identities;
  std::memcpy(to->identities, m->identities, sizeof m->identities);
  return TRUE;
}

}  // namespace

GType gst_ef_identity_meta_api_get_type(void) {
  static GType type = 0;
  static const gchar *tags[] = {GST_META_TAG_MEMORY_STR, nullptr};
  if (g_once_init_enter(&type)) {
    GType t = gst_meta_api_type_register("GstEfIdentityMetaAPI", tags);
    g_once_init_leave(&type, t);
  }
  return type;
}

const GstMetaInfo *gst_ef_identity_meta_get_info(void) {
  static const GstMetaInfo *info = nullptr;
  if (g_once_init_enter(&info)) {
    const GstMetaInfo *i = gst_meta_register(GST_EF_IDENTITY_META_API_TYPE, "GstEfIdentityMeta",
                                             sizeof(GstEfIdentityMeta), identity_meta_init, nullptr,
                                             identity_meta_transform);
    g_once_init_leave(&info, i);
  }
  return info;
}

GstEfIdentityMeta *gst_buffer_add_ef_identity_meta(GstBuffer *buffer, GError **error) {
  g_return_val_if_fail(GST_IS_BUFFER(buffer), nullptr);
  g_return_val_if_fail(gst_buffer_is_writable(buffer), nullptr);
  guint n = gst_buffer_n_memory(buffer);
  GstEfIdentity identities[GST_EF_IDENTITY_META_MAX];
  if (n == 0 || n > GST_EF_IDENTITY_META_MAX) {
    g_set_error(error, GST_EF_IDENTITY_ERROR, GST_EF_IDENTITY_ERROR_NO_IDENTITY,
                "buffer has %u memories (1 to %d allowed)", n, GST_EF_IDENTITY_META_MAX);
    return nullptr;
  }
  for (guint i = 0; i < n; ++i)
    if (!gst_ef_memory_get_identity(gst_buffer_peek_memory(buffer, i), &identities[i], error))
      return nullptr;
  if (GstEfIdentityMeta *old = gst_buffer_get_ef_identity_meta(buffer))
    gst_buffer_remove_meta(buffer, &old->meta);
  auto *meta = reinterpret_cast<GstEfIdentityMeta *>(
      gst_buffer_add_meta(buffer, GST_EF_IDENTITY_META_INFO, nullptr));
  meta->n_identities = n;
  std::memcpy(meta->identities, identities, n * sizeof identities[0]);
  return meta;
}

GstEfIdentityMeta *gst_buffer_get_ef_identity_meta(GstBuffer *buffer) {
  return reinterpret_cast<GstEfIdentityMeta *>(
      gst_buffer_get_meta(buffer, GST_EF_IDENTITY_META_API_TYPE));
}

gboolean gst_ef_identity_meta_get_identity(const GstEfIdentityMeta *meta, guint index,
                                           GstEfIdentity *identity) {
  g_return_val_if_fail(meta != nullptr, FALSE);
  g_return_val_if_fail(identity != nullptr, FALSE);
  if (index >= meta->n_identities)
    return FALSE;
  *identity = meta->identities[index];
  return TRUE;
}
