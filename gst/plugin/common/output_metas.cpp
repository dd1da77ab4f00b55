// SPDX-License-Identifier: LGPL-2.1-or-later
#include "common/output_metas.hpp"

#include <gst/ef/gstefidentity.h>

#include <algorithm>
#include <utility>

namespace ef::gst {

namespace {

GstMeta *find_pooled(GstBuffer *buffer, GType api) {
  gpointer state = nullptr;
  while (GstMeta *meta = gst_buffer_iterate_meta_filtered(buffer, &state, api))
    if (GST_META_FLAG_IS_SET(meta, GST_META_FLAG_POOLED))
      return meta;
  return nullptr;
}

GstMeta *make_pooled(GstMeta *meta) {
  if (meta)
    meta->flags = GstMetaFlags(meta->flags | GST_META_FLAG_POOLED);
  return meta;
}

// The pooled meta of `api` on `buffer`, else a new one made pooled.
GstMeta *pooled_meta(GstBuffer *buffer, GType api, const GstMetaInfo *info) {
  if (GstMeta *meta = find_pooled(buffer, api))
    return meta;
  return make_pooled(gst_buffer_add_meta(buffer, info, nullptr));
}

// What a pooled parent meta holds between frames: one empty buffer for all.
GstBuffer *placeholder() {
  static GstBuffer *const empty = gst_buffer_new();
  return empty;
}

}  // namespace

GstVideoMeta *put_video_meta(GstBuffer *out, const GstVideoInfo &info, const gsize *offsets,
                             const gint *strides) {
  const guint n_planes = GST_VIDEO_INFO_N_PLANES(&info);
  auto *meta = reinterpret_cast<GstVideoMeta *>(find_pooled(out, GST_VIDEO_META_API_TYPE));
  if (!meta) {  // made once per shell: the add sets the map functions too
    meta = gst_buffer_add_video_meta_full(
        out, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info), GST_VIDEO_INFO_WIDTH(&info),
        GST_VIDEO_INFO_HEIGHT(&info), n_planes, const_cast<gsize *>(offsets),
        const_cast<gint *>(strides));
    if (meta)
      make_pooled(&meta->meta);
    return meta;
  }
  meta->flags = GST_VIDEO_FRAME_FLAG_NONE;
  meta->format = GST_VIDEO_INFO_FORMAT(&info);
  meta->id = 0;
  meta->width = GST_VIDEO_INFO_WIDTH(&info);
  meta->height = GST_VIDEO_INFO_HEIGHT(&info);
  meta->n_planes = n_planes;
  for (guint p = 0; p < GST_VIDEO_MAX_PLANES; ++p) {
    meta->offset[p] = p < n_planes ? offsets[p] : 0;
    meta->stride[p] = p < n_planes ? strides[p] : 0;
  }
  gst_video_alignment_reset(&meta->alignment);
  return meta;
}

void put_parent_meta(GstBuffer *out, GstBuffer *parent) {
  auto *meta = reinterpret_cast<GstParentBufferMeta *>(
      pooled_meta(out, GST_PARENT_BUFFER_META_API_TYPE, GST_PARENT_BUFFER_META_INFO));
  if (!meta)
    return;
  GstBuffer *held = meta->buffer;
  meta->buffer = gst_buffer_ref(parent);
  if (held)
    gst_buffer_unref(held);
}

void release_pooled_parent(GstBuffer *shell) {
  gpointer state = nullptr;
  while (GstMeta *meta =
             gst_buffer_iterate_meta_filtered(shell, &state, GST_PARENT_BUFFER_META_API_TYPE)) {
    auto *parent = reinterpret_cast<GstParentBufferMeta *>(meta);
    if (!GST_META_FLAG_IS_SET(meta, GST_META_FLAG_POOLED) || parent->buffer == placeholder())
      continue;
    GstBuffer *held = std::exchange(parent->buffer, gst_buffer_ref(placeholder()));
    if (held)
      gst_buffer_unref(held);
  }
}

void put_transform_meta(GstBuffer *out, const GstVideoRectangle &crop,
                        const GstVideoRectangle &content, GstVideoOrientationMethod direction) {
  if (auto *m = reinterpret_cast<GstEfTransformMeta *>(
          pooled_meta(out, GST_EF_TRANSFORM_META_API_TYPE, GST_EF_TRANSFORM_META_INFO)))
    gst_ef_transform_meta_set(m, &crop, &content, direction);
}

bool put_identity_meta(GstBuffer *out, GstBuffer *in) {
  GstEfIdentity ids[GST_EF_IDENTITY_META_MAX];
  guint n = 0;
  bool known = true;
  if (GstEfIdentityMeta *upstream = gst_buffer_get_ef_identity_meta(in)) {
    n = upstream->n_identities;
    std::copy_n(upstream->identities, n, ids);
  } else {
    n = std::min(gst_buffer_n_memory(in), guint(GST_EF_IDENTITY_META_MAX));
    for (guint i = 0; i < n && known; ++i)
      known = gst_ef_memory_get_identity(gst_buffer_peek_memory(in, i), &ids[i], nullptr);
  }
  if (!known) {
    // An earlier frame's identities must not stay on this one.
    if (GstEfIdentityMeta *stale = gst_buffer_get_ef_identity_meta(out))
      gst_buffer_remove_meta(out, &stale->meta);
    return false;
  }
  auto *m = reinterpret_cast<GstEfIdentityMeta *>(
      pooled_meta(out, GST_EF_IDENTITY_META_API_TYPE, GST_EF_IDENTITY_META_INFO));
  if (!m)
    return false;
  m->n_identities = n;
  std::copy_n(ids, n, m->identities);
  std::fill(m->identities + n, m->identities + GST_EF_IDENTITY_META_MAX, GstEfIdentity{});
  return true;
}

}  // namespace ef::gst
