/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_EF_TRANSFORM_META_H__
#define __GST_EF_TRANSFORM_META_H__

#include <gst/ef/gstef-prelude.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/**
 * SECTION:gsteftransformmeta
 * @title: GstEfTransformMeta
 * @short_description: how an output frame of efconvert maps back to its input
 *
 * A detector running on a letterboxed 640x640 frame puts its boxes on the
 * camera frame with it. The mapping of an output point (u, v), in pixel
 * edges:
 *
 * 1. (s, t) = (u * scale_x + offset_x, v * scale_y + offset_y): the point in
 *    the turned crop (undoing the letterbox offset and scale);
 * 2. undo @direction (a flip or quarter turn) within the crop;
 * 3. add the crop's origin.
 *
 * gst_ef_transform_meta_map_to_input() does all three.
 *
 * With letterbox, the content rectangle is the picture scaled to fit and
 * centred; where the margin is odd the extra pixel is on the right or at the
 * bottom: its x is floor((output width - its width) / 2), its y likewise
 * (640x480 into 640x361: 481x361 at (79, 0)), as the letterbox() of YOLOv5
 * and Ultralytics places it. Its top-left and bottom-right corners map to
 * two opposite corners of the crop (top-left and bottom-right when nothing
 * is turned).
 */

#define GST_EF_TRANSFORM_META_API_TYPE (gst_ef_transform_meta_api_get_type())
#define GST_EF_TRANSFORM_META_INFO (gst_ef_transform_meta_get_info())

/**
 * GstEfTransformMeta:
 * @meta: the parent #GstMeta
 * @scale_x: turned-crop pixels per output pixel, horizontally
 * @scale_y: turned-crop pixels per output pixel, vertically
 * @offset_x: turned-crop position of output column 0
 * @offset_y: turned-crop position of output row 0
 * @crop: the source rectangle, in input pixels
 * @content: where the picture lies in the output (centred, an odd pixel of
 *   margin on the right or at the bottom)
 * @direction: the flip or turn applied to the crop
 *
 * Since: 0.1
 */
typedef struct {
  GstMeta meta;
  gdouble scale_x, scale_y;
  gdouble offset_x, offset_y;
  GstVideoRectangle crop;
  GstVideoRectangle content;
  GstVideoOrientationMethod direction;
} GstEfTransformMeta;

/**
 * gst_ef_transform_meta_api_get_type:
 *
 * Returns: the #GType of the meta's API
 *
 * Since: 0.1
 */
GST_EF_API GType gst_ef_transform_meta_api_get_type(void);

/**
 * gst_ef_transform_meta_get_info: (skip)
 *
 * Returns: the registered #GstMetaInfo
 *
 * Since: 0.1
 */
GST_EF_API const GstMetaInfo *gst_ef_transform_meta_get_info(void);

/**
 * gst_buffer_add_ef_transform_meta:
 * @buffer: a writable #GstBuffer
 * @crop: the source rectangle, in input pixels
 * @content: where the converted picture lies in the output
 * @direction: the flip or turn applied to the crop
 *
 * Attaches the mapping of a conversion of @crop, turned by @direction and
 * scaled into @content of the output.
 *
 * Returns: (transfer none): the meta
 *
 * Since: 0.1
 */
GST_EF_API GstEfTransformMeta *gst_buffer_add_ef_transform_meta(
    GstBuffer *buffer, const GstVideoRectangle *crop, const GstVideoRectangle *content,
    GstVideoOrientationMethod direction);

/**
 * gst_buffer_get_ef_transform_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the buffer's #GstEfTransformMeta
 *
 * Since: 0.1
 */
GST_EF_API GstEfTransformMeta *gst_buffer_get_ef_transform_meta(GstBuffer *buffer);

/**
 * gst_ef_transform_meta_map_to_input:
 * @meta: a #GstEfTransformMeta
 * @out_x: an output x, in pixel edges
 * @out_y: an output y, in pixel edges
 * @in_x: (out): the input x of that point
 * @in_y: (out): the input y of that point
 *
 * Maps output point (@out_x, @out_y) to input coordinates.
 *
 * Since: 0.1
 */
GST_EF_API void gst_ef_transform_meta_map_to_input(const GstEfTransformMeta *meta, gdouble out_x,
                                                   gdouble out_y, gdouble *in_x, gdouble *in_y);

/**
 * gst_ef_transform_map_to_input:
 * @crop: the source rectangle, in input pixels
 * @content: where the converted picture lies in the output
 * @direction: the flip or turn applied to the crop
 * @out_x: an output x, in pixel edges
 * @out_y: an output y, in pixel edges
 * @in_x: (out): the input x of that point
 * @in_y: (out): the input y of that point
 *
 * The mapping of gst_ef_transform_meta_map_to_input() without a meta, for
 * code that plans a conversion.
 *
 * Since: 0.1
 */
GST_EF_API void gst_ef_transform_map_to_input(const GstVideoRectangle *crop,
                                              const GstVideoRectangle *content,
                                              GstVideoOrientationMethod direction, gdouble out_x,
                                              gdouble out_y, gdouble *in_x, gdouble *in_y);

G_END_DECLS

#endif
