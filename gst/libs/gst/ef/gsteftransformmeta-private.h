/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Inside libgstef-1.0 only (not installed). */
#ifndef __GST_EF_TRANSFORM_META_PRIVATE_H__
#define __GST_EF_TRANSFORM_META_PRIVATE_H__

#include <gst/ef/gsteftransformmeta.h>

G_BEGIN_DECLS

/* One box (x0, y0, x1, y1 in output pixel edges) onto the input frame:
 * corners mapped, ordered and clamped to the crop. What
 * gst_ef_transform_meta_map_boxes_to_input() does for each box. */
G_GNUC_INTERNAL void gst_ef_transform_meta_map_box(const GstEfTransformMeta *meta,
                                                   const gdouble box[4], gdouble mapped[4]);

G_END_DECLS

#endif
