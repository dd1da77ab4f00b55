/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstEfTransformMeta: how an output frame of efconvert maps back to the input
 * frame it was made from, so a detector running on a letterboxed 640x640
 * frame can put its boxes on the camera frame.
 *
 * The mapping of an output point (u, v), in pixel edges:
 *   1. (s, t) = (u * scale_x + offset_x, v * scale_y + offset_y): the point
 *      in the turned crop (undoing letterbox offset and scale);
 *   2. undo @direction (a flip or quarter turn) within the crop;
 *   3. add the crop's origin.
 * gst_ef_transform_meta_map_to_input() does all three. */
#ifndef __GST_EF_TRANSFORM_META_H__
#define __GST_EF_TRANSFORM_META_H__

#include <gst/ef/gstefidentity.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_EF_TRANSFORM_META_API_TYPE (gst_ef_transform_meta_api_get_type())
#define GST_EF_TRANSFORM_META_INFO (gst_ef_transform_meta_get_info())

typedef struct {
  GstMeta meta;
  gdouble scale_x, scale_y;   /* turned-crop pixels per output pixel */
  gdouble offset_x, offset_y; /* turned-crop position of output (0, 0) */
  GstVideoRectangle crop;     /* the source rectangle, in input pixels */
  GstVideoRectangle content;  /* where the picture lies in the output */
  GstVideoOrientationMethod direction;
} GstEfTransformMeta;

GST_EF_API GType gst_ef_transform_meta_api_get_type(void);
GST_EF_API const GstMetaInfo *gst_ef_transform_meta_get_info(void);

/* Attaches the mapping of a conversion of @crop, turned by @direction and
 * scaled into @content of the output. */
GST_EF_API GstEfTransformMeta *gst_buffer_add_ef_transform_meta(
    GstBuffer *buffer, const GstVideoRectangle *crop, const GstVideoRectangle *content,
    GstVideoOrientationMethod direction);
GST_EF_API GstEfTransformMeta *gst_buffer_get_ef_transform_meta(GstBuffer *buffer);

/* Maps output point (@out_x, @out_y) to input coordinates. */
GST_EF_API void gst_ef_transform_meta_map_to_input(const GstEfTransformMeta *meta, gdouble out_x,
                                                   gdouble out_y, gdouble *in_x, gdouble *in_y);

/* The same mapping without a meta, for code that plans a conversion. */
GST_EF_API void gst_ef_transform_map_to_input(const GstVideoRectangle *crop,
                                              const GstVideoRectangle *content,
                                              GstVideoOrientationMethod direction, gdouble out_x,
                                              gdouble out_y, gdouble *in_x, gdouble *in_y);

G_END_DECLS

#endif
