/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_EF_TENSOR_META_H__
#define __GST_EF_TENSOR_META_H__

#include <gst/ef/gstef-prelude.h>
#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * SECTION:gsteftensormeta
 * @title: GstEfTensorMeta
 * @short_description: a model's input tensor carried on the camera frame
 *
 * efconvert with `attach-tensor` set passes each frame through unchanged
 * and attaches the tensor it made of it: an application or a later element
 * has the frame and its tensor in one buffer, and maps what the model
 * found back onto the frame through the GstEfTransformMeta on @tensor
 * (gst_ef_tensor_meta_map_to_input()). GStreamer 1.26 and later also carry
 * the same bytes in a GstTensorMeta.
 */

/**
 * GstEfTensorType:
 * @GST_EF_TENSOR_TYPE_UINT8: unsigned 8-bit integers
 * @GST_EF_TENSOR_TYPE_INT8: signed 8-bit integers
 * @GST_EF_TENSOR_TYPE_FLOAT16: IEEE half precision
 * @GST_EF_TENSOR_TYPE_FLOAT32: IEEE single precision
 *
 * The type of a tensor's elements.
 *
 * Since: 0.1
 */
typedef enum {
  GST_EF_TENSOR_TYPE_UINT8,
  GST_EF_TENSOR_TYPE_INT8,
  GST_EF_TENSOR_TYPE_FLOAT16,
  GST_EF_TENSOR_TYPE_FLOAT32,
} GstEfTensorType;

/**
 * GstEfTensorLayout:
 * @GST_EF_TENSOR_LAYOUT_NHWC: channels interleaved per pixel (row-major dims 1, H, W, C)
 * @GST_EF_TENSOR_LAYOUT_NCHW: one plane per channel (row-major dims 1, C, H, W)
 *
 * Where a tensor's channels lie in memory.
 *
 * Since: 0.1
 */
typedef enum {
  GST_EF_TENSOR_LAYOUT_NHWC,
  GST_EF_TENSOR_LAYOUT_NCHW,
} GstEfTensorLayout;

#define GST_EF_TENSOR_META_API_TYPE (gst_ef_tensor_meta_api_get_type())
#define GST_EF_TENSOR_META_INFO (gst_ef_tensor_meta_get_info())

/**
 * GstEfTensorMeta:
 * @meta: the parent #GstMeta
 * @tensor: the tensor's bytes, in one memory, with a GstEfTransformMeta
 *   mapping tensor pixels to the frame's
 * @type: the element type
 * @layout: where the channels lie
 * @channels: 3 (colour) or 1 (luma)
 * @width: the tensor's width, in pixels
 * @height: the tensor's height, in pixels
 * @id: the tensor's id (efconvert's tensor-id)
 *
 * Since: 0.1
 */
typedef struct {
  GstMeta meta;
  GstBuffer *tensor;
  GstEfTensorType type;
  GstEfTensorLayout layout;
  guint channels;
  guint width;
  guint height;
  GQuark id;
} GstEfTensorMeta;

/**
 * gst_ef_tensor_meta_api_get_type:
 *
 * The API type of #GstEfTensorMeta, for gst_buffer_get_meta().
 *
 * Returns: the #GType of the meta's API
 *
 * Since: 0.1
 */
GST_EF_API GType gst_ef_tensor_meta_api_get_type(void);

/**
 * gst_ef_tensor_meta_get_info: (skip)
 *
 * The registered implementation of #GstEfTensorMeta, for
 * gst_buffer_add_meta().
 *
 * Returns: the registered #GstMetaInfo
 *
 * Since: 0.1
 */
GST_EF_API const GstMetaInfo *gst_ef_tensor_meta_get_info(void);

/**
 * gst_buffer_add_ef_tensor_meta:
 * @buffer: a writable #GstBuffer (the frame)
 * @tensor: (transfer none): the tensor's buffer (a reference is taken)
 * @type: the element type
 * @layout: the layout
 * @channels: 3 or 1
 * @width: the tensor's width
 * @height: the tensor's height
 * @id: the tensor's id
 *
 * Attaches a tensor made of @buffer to it.
 *
 * Returns: (transfer none): the meta
 *
 * Since: 0.1
 */
GST_EF_API GstEfTensorMeta *gst_buffer_add_ef_tensor_meta(GstBuffer *buffer, GstBuffer *tensor,
                                                          GstEfTensorType type,
                                                          GstEfTensorLayout layout, guint channels,
                                                          guint width, guint height, GQuark id);

/**
 * gst_buffer_get_ef_tensor_meta:
 * @buffer: a #GstBuffer
 *
 * The tensor attached to @buffer, if any.
 *
 * Returns: (transfer none) (nullable): the buffer's #GstEfTensorMeta
 *
 * Since: 0.1
 */
GST_EF_API GstEfTensorMeta *gst_buffer_get_ef_tensor_meta(GstBuffer *buffer);

/**
 * gst_ef_tensor_meta_map_to_input:
 * @meta: a #GstEfTensorMeta
 * @x: a tensor x, in pixel edges
 * @y: a tensor y, in pixel edges
 * @in_x: (out): the frame's x of that point
 * @in_y: (out): the frame's y of that point
 *
 * Maps a point of the tensor to the frame it was made of, through the
 * GstEfTransformMeta on the tensor's buffer.
 *
 * Returns: %FALSE where the tensor's buffer carries no transform meta
 *
 * Since: 0.1
 */
GST_EF_API gboolean gst_ef_tensor_meta_map_to_input(const GstEfTensorMeta *meta, gdouble x,
                                                    gdouble y, gdouble *in_x, gdouble *in_y);

G_END_DECLS

#endif
