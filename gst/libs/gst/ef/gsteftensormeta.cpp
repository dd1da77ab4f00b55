// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gst/ef/gsteftensormeta.h"

#include <gst/video/video.h>

#include "gst/ef/gsteftransformmeta.h"

namespace {

// The tensor describes the frame's pixels: kept on plain copies of the
// frame (a queue, a tee, a writable copy), dropped by anything that
// changes its geometry.
gboolean tensor_meta_transform(GstBuffer *dest, GstMeta *meta, GstBuffer *, GQuark type,
                               gpointer data) {
  if (!GST_META_TRANSFORM_IS_COPY(type) || static_cast<GstMetaTransformCopy *>(data)->region)
    return TRUE;
  auto *m = reinterpret_cast<GstEfTensorMeta *>(meta);
  return gst_buffer_add_ef_tensor_meta(dest, m->tensor, m->type, m->layout, m->channels, m->width,
                                       m->height, m->id) != nullptr;
}

gboolean tensor_meta_init(GstMeta *meta, gpointer, GstBuffer *) {
  auto *m = reinterpret_cast<GstEfTensorMeta *>(meta);
  m->tensor = nullptr;
  m->type = GST_EF_TENSOR_TYPE_FLOAT32;
  m->layout = GST_EF_TENSOR_LAYOUT_NHWC;
  m->channels = m->width = m->height = 0;
  m->id = 0;
  return TRUE;
}

void tensor_meta_free(GstMeta *meta, GstBuffer *) {
  auto *m = reinterpret_cast<GstEfTensorMeta *>(meta);
  gst_clear_buffer(&m->tensor);
}

}  // namespace

GType gst_ef_tensor_meta_api_get_type(void) {
  static GType type = 0;
  static const gchar *tags[] = {GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR,
                                GST_META_TAG_VIDEO_ORIENTATION_STR, nullptr};
  if (g_once_init_enter(&type)) {
    GType t = gst_meta_api_type_register("GstEfTensorMetaAPI", tags);
    g_once_init_leave(&type, t);
  }
  return type;
}

const GstMetaInfo *gst_ef_tensor_meta_get_info(void) {
  static const GstMetaInfo *info = nullptr;
  if (g_once_init_enter(&info)) {
    const GstMetaInfo *i =
        gst_meta_register(GST_EF_TENSOR_META_API_TYPE, "GstEfTensorMeta", sizeof(GstEfTensorMeta),
                          tensor_meta_init, tensor_meta_free, tensor_meta_transform);
    g_once_init_leave(&info, i);
  }
  return info;
}

GstEfTensorMeta *gst_buffer_add_ef_tensor_meta(GstBuffer *buffer, GstBuffer *tensor,
                                               GstEfTensorType type, GstEfTensorLayout layout,
                                               guint channels, guint width, guint height,
                                               GQuark id) {
  g_return_val_if_fail(GST_IS_BUFFER(buffer), nullptr);
  g_return_val_if_fail(GST_IS_BUFFER(tensor), nullptr);
  auto *m = reinterpret_cast<GstEfTensorMeta *>(
      gst_buffer_add_meta(buffer, GST_EF_TENSOR_META_INFO, nullptr));
  m->tensor = gst_buffer_ref(tensor);
  m->type = type;
  m->layout = layout;
  m->channels = channels;
  m->width = width;
  m->height = height;
  m->id = id;
  return m;
}

GstEfTensorMeta *gst_buffer_get_ef_tensor_meta(GstBuffer *buffer) {
  return reinterpret_cast<GstEfTensorMeta *>(
      gst_buffer_get_meta(buffer, GST_EF_TENSOR_META_API_TYPE));
}

gboolean gst_ef_tensor_meta_map_to_input(const GstEfTensorMeta *meta, gdouble x, gdouble y,
                                         gdouble *in_x, gdouble *in_y) {
  g_return_val_if_fail(meta && meta->tensor, FALSE);
  const GstEfTransformMeta *t = gst_buffer_get_ef_transform_meta(meta->tensor);
  if (!t)
    return FALSE;
  gst_ef_transform_meta_map_to_input(t, x, y, in_x, in_y);
  return TRUE;
}
