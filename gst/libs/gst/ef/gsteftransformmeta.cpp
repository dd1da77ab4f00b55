// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gst/ef/gsteftransformmeta.h"

namespace {

bool swaps_axes(GstVideoOrientationMethod direction) {
  return direction == GST_VIDEO_ORIENTATION_90R || direction == GST_VIDEO_ORIENTATION_90L ||
         direction == GST_VIDEO_ORIENTATION_UL_LR || direction == GST_VIDEO_ORIENTATION_UR_LL;
}

void turned_size(const GstVideoRectangle &crop, GstVideoOrientationMethod direction, double &tw,
                 double &th) {
  tw = swaps_axes(direction) ? crop.h : crop.w;
  th = swaps_axes(direction) ? crop.w : crop.h;
}

// Undoes `direction` for a point (s, t) of the turned crop (tw x th).
void unturn(GstVideoOrientationMethod direction, double tw, double th, double s, double t,
            double &a, double &b) {
  switch (direction) {
    case GST_VIDEO_ORIENTATION_90R:
      a = t, b = tw - s;
      break;
    case GST_VIDEO_ORIENTATION_180:
      a = tw - s, b = th - t;
      break;
    case GST_VIDEO_ORIENTATION_90L:
      a = th - t, b = s;
      break;
    case GST_VIDEO_ORIENTATION_HORIZ:
      a = tw - s, b = t;
      break;
    case GST_VIDEO_ORIENTATION_VERT:
      a = s, b = th - t;
      break;
    case GST_VIDEO_ORIENTATION_UL_LR:
      a = t, b = s;
      break;
    case GST_VIDEO_ORIENTATION_UR_LL:
      a = th - t, b = tw - s;
      break;
    default:
      a = s, b = t;
      break;
  }
}

// Copies survive only as plain copies: a scale or crop of the output
// changes the mapping.
gboolean transform_meta_transform(GstBuffer *dest, GstMeta *meta, GstBuffer *, GQuark type,
                                  gpointer data) {
  if (!GST_META_TRANSFORM_IS_COPY(type) || static_cast<GstMetaTransformCopy *>(data)->region)
    return TRUE;
  auto *m = reinterpret_cast<GstEfTransformMeta *>(meta);
  GstEfTransformMeta *copy =
      gst_buffer_add_ef_transform_meta(dest, &m->crop, &m->content, m->direction);
  return copy != nullptr;
}

gboolean transform_meta_init(GstMeta *meta, gpointer, GstBuffer *) {
  auto *m = reinterpret_cast<GstEfTransformMeta *>(meta);
  m->scale_x = m->scale_y = 1.0;
  m->offset_x = m->offset_y = 0.0;
  m->crop = m->content = GstVideoRectangle{0, 0, 0, 0};
  m->direction = GST_VIDEO_ORIENTATION_IDENTITY;
  return TRUE;
}

}  // namespace

GType gst_ef_transform_meta_api_get_type(void) {
  static GType type = 0;
  static const gchar *tags[] = {GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR,
                                GST_META_TAG_VIDEO_ORIENTATION_STR, nullptr};
  if (g_once_init_enter(&type)) {
    GType t = gst_meta_api_type_register("GstEfTransformMetaAPI", tags);
    g_once_init_leave(&type, t);
  }
  return type;
}

const GstMetaInfo *gst_ef_transform_meta_get_info(void) {
  static const GstMetaInfo *info = nullptr;
  if (g_once_init_enter(&info)) {
    const GstMetaInfo *i = gst_meta_register(GST_EF_TRANSFORM_META_API_TYPE, "GstEfTransformMeta",
                                             sizeof(GstEfTransformMeta), transform_meta_init,
                                             nullptr, transform_meta_transform);
    g_once_init_leave(&info, i);
  }
  return info;
}

GstEfTransformMeta *gst_buffer_add_ef_transform_meta(GstBuffer *buffer,
                                                     const GstVideoRectangle *crop,
                                                     const GstVideoRectangle *content,
                                                     GstVideoOrientationMethod direction) {
  g_return_val_if_fail(GST_IS_BUFFER(buffer), nullptr);
  g_return_val_if_fail(crop && content && content->w > 0 && content->h > 0, nullptr);
  auto *m = reinterpret_cast<GstEfTransformMeta *>(
      gst_buffer_add_meta(buffer, GST_EF_TRANSFORM_META_INFO, nullptr));
  gst_ef_transform_meta_set(m, crop, content, direction);
  return m;
}

void gst_ef_transform_meta_set(GstEfTransformMeta *m, const GstVideoRectangle *crop,
                               const GstVideoRectangle *content,
                               GstVideoOrientationMethod direction) {
  g_return_if_fail(m && crop && content && content->w > 0 && content->h > 0);
  double tw, th;
  turned_size(*crop, direction, tw, th);
  m->crop = *crop;
  m->content = *content;
  m->direction = direction;
  m->scale_x = tw / content->w;
  m->scale_y = th / content->h;
  m->offset_x = -content->x * m->scale_x;
  m->offset_y = -content->y * m->scale_y;
}

GstEfTransformMeta *gst_buffer_get_ef_transform_meta(GstBuffer *buffer) {
  return reinterpret_cast<GstEfTransformMeta *>(
      gst_buffer_get_meta(buffer, GST_EF_TRANSFORM_META_API_TYPE));
}

void gst_ef_transform_map_to_input(const GstVideoRectangle *crop, const GstVideoRectangle *content,
                                   GstVideoOrientationMethod direction, gdouble out_x,
                                   gdouble out_y, gdouble *in_x, gdouble *in_y) {
  double tw, th;
  turned_size(*crop, direction, tw, th);
  const double s = (out_x - content->x) * tw / content->w;
  const double t = (out_y - content->y) * th / content->h;
  double a, b;
  unturn(direction, tw, th, s, t, a, b);
  *in_x = crop->x + a;
  *in_y = crop->y + b;
}

void gst_ef_transform_meta_map_to_input(const GstEfTransformMeta *meta, gdouble out_x,
                                        gdouble out_y, gdouble *in_x, gdouble *in_y) {
  gst_ef_transform_map_to_input(&meta->crop, &meta->content, meta->direction, out_x, out_y, in_x,
                                in_y);
}
