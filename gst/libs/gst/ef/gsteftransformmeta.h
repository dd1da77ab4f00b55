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
 * The API type of #GstEfTransformMeta, for gst_buffer_get_meta() and
 * allocation queries.
 *
 * Returns: the #GType of the meta's API
 *
 * Since: 0.1
 */
GST_EF_API GType gst_ef_transform_meta_api_get_type(void);

/**
 * gst_ef_transform_meta_get_info: (skip)
 *
 * The registered implementation of #GstEfTransformMeta, for
 * gst_buffer_add_meta().
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
 * gst_ef_transform_meta_set:
 * @meta: a #GstEfTransformMeta
 * @crop: the source rectangle, in input pixels
 * @content: where the converted picture lies in the output
 * @direction: the flip or turn applied to the crop
 *
 * Sets @meta to the mapping of a conversion of @crop, turned by
 * @direction and scaled into @content: what gst_buffer_add_ef_transform_meta()
 * attaches, for a meta kept on a pooled buffer from frame to frame.
 *
 * Since: 0.1
 */
GST_EF_API void gst_ef_transform_meta_set(GstEfTransformMeta *meta, const GstVideoRectangle *crop,
                                          const GstVideoRectangle *content,
                                          GstVideoOrientationMethod direction);

/**
 * gst_buffer_get_ef_transform_meta:
 * @buffer: a #GstBuffer
 *
 * Finds the mapping efconvert attached to @buffer.
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

/**
 * GstEfTransformError:
 * @GST_EF_TRANSFORM_ERROR_BAD_LENGTH: a set of boxes whose number of values
 *   is not four a box
 * @GST_EF_TRANSFORM_ERROR_NOT_FINITE: a box with a value that is NaN or
 *   infinite
 *
 * Errors of the #GST_EF_TRANSFORM_ERROR domain: boxes that cannot be mapped.
 *
 * Since: 0.1
 */
typedef enum {
  GST_EF_TRANSFORM_ERROR_BAD_LENGTH = 1,
  GST_EF_TRANSFORM_ERROR_NOT_FINITE = 2,
} GstEfTransformError;

/**
 * GST_EF_TRANSFORM_ERROR:
 *
 * The error domain of box mapping ("gst-ef-transform-error-quark"), with
 * codes from #GstEfTransformError.
 */
#define GST_EF_TRANSFORM_ERROR (gst_ef_transform_error_quark())

/**
 * gst_ef_transform_error_quark:
 *
 * The quark of the #GST_EF_TRANSFORM_ERROR error domain.
 *
 * Returns: the quark of "gst-ef-transform-error-quark"
 *
 * Since: 0.1
 */
GST_EF_API GQuark gst_ef_transform_error_quark(void);

/* The annotation line must not wrap: the scanner reads one line. */
/* clang-format off */
/**
 * gst_ef_transform_meta_map_boxes_to_input_full: (rename-to gst_ef_transform_meta_map_boxes_to_input)
 * @meta: a #GstEfTransformMeta
 * @boxes: (array length=n_values): boxes in output pixels (pixel edges),
 *   four values a box: x0, y0, x1, y1, every one finite
 * @n_values: the number of values in @boxes, four a box
 * @n_out: (out): the number of values returned: @n_values, or 0 on error
 * @error: (nullable): where to put a #GST_EF_TRANSFORM_ERROR error
 *
 * Maps a whole set of boxes found in efconvert's output (a detector's, in
 * model pixels) onto its input frame at once. Each box's two corners are
 * mapped as by gst_ef_transform_meta_map_to_input(), put in order again
 * (x0 <= x1, y0 <= y1: a turn or a flip swaps corners) and clamped to the
 * crop: the part of the input frame the output shows, the whole frame when
 * efconvert has no crop. A box lying in the letterbox borders collapses
 * onto the crop's edge.
 *
 * The set is refused, not mapped in part, when @n_values is not a multiple
 * of four (%GST_EF_TRANSFORM_ERROR_BAD_LENGTH) or when a value is NaN or
 * infinite (%GST_EF_TRANSFORM_ERROR_NOT_FINITE, naming the box): such a box
 * has no place on the frame to be clamped to, and dropping it would shift
 * every later box against its scores and labels. Leave such boxes out
 * before the call (numpy: `boxes[numpy.isfinite(boxes).all(axis=1)]`).
 *
 * One call for the whole set is what language bindings want: from Python,
 * `transform.map_boxes_to_input([x0, y0, x1, y1, ...])`, which raises
 * `GLib.Error` for a set it refuses.
 *
 * Returns: (array length=n_out) (transfer full) (nullable): the mapped
 *   boxes, four values each, in the order of @boxes (not %NULL for an
 *   empty set); %NULL with @error set for a set it refuses. Free with
 *   g_free().
 *
 * Since: 0.1
 */
GST_EF_API gdouble *gst_ef_transform_meta_map_boxes_to_input_full(const GstEfTransformMeta *meta,
                                                                  const gdouble *boxes,
                                                                  gsize n_values, gsize *n_out,
                                                                  GError **error);
/* clang-format on */

/**
 * gst_ef_transform_meta_map_boxes_to_input:
 * @meta: a #GstEfTransformMeta
 * @boxes: (array length=n_values): boxes in output pixels (pixel edges),
 *   four values a box: x0, y0, x1, y1, every one finite
 * @n_values: the number of values in @boxes, four a box
 * @n_out: (out): the number of values returned: @n_values, or 0 for a set
 *   it refuses
 *
 * gst_ef_transform_meta_map_boxes_to_input_full() without a #GError, for C
 * code that checks its boxes itself: a count that is not a multiple of four
 * is a programming error (a critical), a NaN or infinite value a warning
 * naming the box; both return %NULL. Bindings call the _full function under
 * this name, and raise its error.
 *
 * Returns: (array length=n_out) (transfer full) (nullable): the mapped
 *   boxes, four values each, in the order of @boxes (not %NULL for an
 *   empty set); %NULL for a set it refuses. Free with g_free().
 *
 * Since: 0.1
 */
GST_EF_API gdouble *gst_ef_transform_meta_map_boxes_to_input(const GstEfTransformMeta *meta,
                                                             const gdouble *boxes, gsize n_values,
                                                             gsize *n_out);

#if GST_CHECK_VERSION(1, 28, 0)
/**
 * gst_ef_transform_meta_get_video_matrix:
 * @meta: a #GstEfTransformMeta
 * @output_info: efconvert's output (the model's frame)
 * @input_info: efconvert's input (the camera's frame)
 * @matrix: (out caller-allocates): the mapping as GStreamer's
 *   #GstVideoMetaTransformMatrix
 *
 * Fills @matrix with the mapping of efconvert's output back onto its input,
 * in the form GStreamer 1.28's meta transforms take ("gst-video-matrix",
 * GST_VIDEO_META_TRANSFORM_IS_MATRIX): its in_rectangle is where the
 * picture lies in the output, its out_rectangle the crop, its matrix the
 * scale and the undoing of the turn or flip. Any meta whose transform
 * function implements the matrix transform can so be carried from the
 * model's frame onto the camera's frame by GStreamer itself, the way
 * videoconvertscale carries metas forward. @output_info and @input_info are
 * referenced by @matrix, not copied: they must outlive it.
 *
 * GStreamer's matrix is single precision and its points round to whole
 * pixels; gst_ef_transform_meta_map_to_input() is the exact mapping.
 * Only in a library built against GStreamer 1.28 or later.
 *
 * Since: 0.1
 */
GST_EF_API void gst_ef_transform_meta_get_video_matrix(const GstEfTransformMeta *meta,
                                                       const GstVideoInfo *output_info,
                                                       const GstVideoInfo *input_info,
                                                       GstVideoMetaTransformMatrix *matrix);
#endif

G_END_DECLS

#endif
