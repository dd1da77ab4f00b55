// SPDX-License-Identifier: LGPL-2.1-or-later
// The metas on efupload's output frames, made GST_META_FLAG_POOLED: a pool
// keeps a pooled meta on a buffer it recycles, and the next frame rewrites
// it in place, so a steady-state frame adds no meta (each add is an
// allocation) and never shows an earlier frame's values:
// - GstVideoMeta (an imported frame's texture layout): rewritten whole.
// - GstParentBufferMeta (the input an imported frame shows, kept alive
//   while downstream samples the textures): the input is dropped when the
//   shell returns to its pool, as an unpooled meta would be, and a
//   placeholder held until the next frame (the meta's free function unrefs
//   whatever it holds).
// - GstEfIdentityMeta (the identities of the bytes shown): rewritten, or
//   removed where the new frame has none.
#pragma once

#include <gst/ef/gstefidentitymeta.h>
#include <gst/ef/gsteftransformmeta.h>
#include <gst/gst.h>
#include <gst/video/video.h>

namespace ef::gst {

// `out`'s GstVideoMeta: `info`'s format, size and planes at `offsets` and
// `strides`.
GstVideoMeta *put_video_meta(GstBuffer *out, const GstVideoInfo &info, const gsize *offsets,
                             const gint *strides);

// Holds `parent` (a ref) on `out` until `out` returns to its pool.
void put_parent_meta(GstBuffer *out, GstBuffer *parent);

// GstEfShellPool's reset: drops the parent a pooled GstParentBufferMeta holds.
void release_pooled_parent(GstBuffer *shell);

// `out`'s GstEfTransformMeta (pooled): the mapping of a conversion of
// `crop`, turned by `direction`, into `content` (efconvert's outputs).
void put_transform_meta(GstBuffer *out, const GstVideoRectangle &crop,
                        const GstVideoRectangle &content, GstVideoOrientationMethod direction);

// The identities of the bytes `in` shows on `out`: `in`'s own meta when
// upstream attached one, else derived from its memories. false, and no
// identity meta on `out`, when a memory has no identity.
bool put_identity_meta(GstBuffer *out, GstBuffer *in);

}  // namespace ef::gst
