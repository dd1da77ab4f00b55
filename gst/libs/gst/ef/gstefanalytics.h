/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_EF_ANALYTICS_H__
#define __GST_EF_ANALYTICS_H__

#include <gst/ef/gstef-prelude.h>

G_BEGIN_DECLS

/**
 * SECTION:gstefanalytics
 * @title: Detections in camera pixels
 * @short_description: GStreamer's analytics metas mapped back through efconvert
 *
 * A tensor decoder after efconvert and an inference element (onnxinference
 * ! ssdobjectdetector, ssdtensordec, yolov8tensordec, …) puts its results
 * in a #GstAnalyticsRelationMeta in the model's frame: 640x640 letterboxed,
 * cropped, turned. gst_ef_analytics_relation_meta_map_to_input() puts them
 * on efconvert's input frame (the camera's), through the buffer's
 * #GstEfTransformMeta; gst_ef_analytics_relation_meta_copy_to_input() does
 * it onto a new buffer (for language bindings).
 *
 * Built where GStreamer's analytics library (gstreamer-analytics-1.0,
 * GStreamer 1.26 or newer) is; this header is installed only then.
 */

/**
 * gst_ef_analytics_relation_meta_map_to_input:
 * @model_buffer: a buffer out of efconvert, carrying its #GstEfTransformMeta
 *   and, from a tensor decoder downstream, a #GstAnalyticsRelationMeta
 * @dest: a writable buffer to carry the mapped meta: efconvert's input
 *   frame (the camera buffer the application holds), or any other
 *   (gst_buffer_new() for the numbers alone)
 *
 * Copies the analytics results of @model_buffer onto @dest in the
 * coordinates of efconvert's input frame: letterbox, crop, rotation and
 * flip undone. @model_buffer is not changed. The results are added to the
 * #GstAnalyticsRelationMeta of @dest (one is added if it has none) with new
 * ids; the relations between them are kept.
 *
 * - Object detections (#GstAnalyticsODMtd): each box is mapped as by
 *   gst_ef_transform_meta_map_boxes_to_input(): clamped to the crop (the
 *   part of the frame the model saw) and rounded to whole pixels; a box in
 *   the letterbox borders collapses onto the crop's edge. Oriented boxes
 *   (GStreamer 1.26's gst_analytics_relation_meta_add_oriented_od_mtd())
 *   keep their orientation: the centre is mapped, the sides are scaled, the
 *   angle (radians, positive turning +x towards +y, the y axis pointing
 *   down) follows the turn or flip and is given in [0, pi/2) with the sides
 *   swapped where needed; a box still rotated after the mapping is not
 *   clamped (its corners may leave the frame, as they may in the model's).
 * - Classifications and trackings carry no geometry: copied as they are.
 * - Other kinds (segmentation masks, whose pixels would have to turn, and
 *   kinds this library does not know) are left out, with a warning.
 *
 * Returns: %TRUE when every result of @model_buffer is now on @dest;
 *   %FALSE when @model_buffer has no #GstEfTransformMeta or no
 *   #GstAnalyticsRelationMeta (nothing is added) or when some results were
 *   left out (the others are added). The debug log says which.
 *
 * Since: 0.1
 */
GST_EF_API gboolean gst_ef_analytics_relation_meta_map_to_input(GstBuffer *model_buffer,
                                                                GstBuffer *dest);

/**
 * gst_ef_analytics_relation_meta_copy_to_input:
 * @model_buffer: a buffer out of efconvert, carrying its #GstEfTransformMeta
 *   and, from a tensor decoder downstream, a #GstAnalyticsRelationMeta
 * @camera: (nullable): efconvert's input frame (the camera buffer), or %NULL
 *
 * gst_ef_analytics_relation_meta_map_to_input() onto a new buffer: a copy
 * of @camera (gst_buffer_copy(): the same memory, its own metas), or an
 * empty buffer when @camera is %NULL. The form for language bindings, where
 * a buffer the application holds is seldom writable: from Python,
 * `drawn = GstEf.analytics_relation_meta_copy_to_input(model_buf, camera_buf)`,
 * then push `drawn` to objectdetectionoverlay.
 *
 * Results that cannot be mapped are left out, with a warning in the log.
 *
 * Returns: (transfer full) (nullable): the new buffer; %NULL when
 *   @model_buffer has no #GstEfTransformMeta or no
 *   #GstAnalyticsRelationMeta.
 *
 * Since: 0.1
 */
GST_EF_API GstBuffer *gst_ef_analytics_relation_meta_copy_to_input(GstBuffer *model_buffer,
                                                                   GstBuffer *camera);

G_END_DECLS

#endif
