// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gst/ef/gsteftransformmeta.h"

#include "gst/ef/gsteftransformmeta-private.h"

#include <algorithm>
#include <cmath>

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

void gst_ef_transform_meta_map_box(const GstEfTransformMeta *meta, const gdouble box[4],
                                   gdouble mapped[4]) {
  double ax, ay, bx, by;
  gst_ef_transform_meta_map_to_input(meta, box[0], box[1], &ax, &ay);
  gst_ef_transform_meta_map_to_input(meta, box[2], box[3], &bx, &by);
  const GstVideoRectangle &c = meta->crop;
  auto clamp_x = [&c](double v) { return std::clamp(v, double(c.x), double(c.x) + c.w); };
  auto clamp_y = [&c](double v) { return std::clamp(v, double(c.y), double(c.y) + c.h); };
  mapped[0] = clamp_x(std::min(ax, bx));
  mapped[1] = clamp_y(std::min(ay, by));
  mapped[2] = clamp_x(std::max(ax, bx));
  mapped[3] = clamp_y(std::max(ay, by));
}

// G_DEFINE_QUARK stringifies its first argument: clang-format must not space it.
// clang-format off
G_DEFINE_QUARK(gst-ef-transform-error-quark, gst_ef_transform_error)
// clang-format on

namespace {

// The whole set is checked before any box is mapped, so a refused set
// returns nothing half done.
gboolean check_boxes(const gdouble *boxes, gsize n_values, GError **error) {
  if (n_values % 4 != 0) {
    g_set_error(error, GST_EF_TRANSFORM_ERROR, GST_EF_TRANSFORM_ERROR_BAD_LENGTH,
                "%" G_GSIZE_FORMAT
                " values are not a set of boxes: four values a box "
                "(x0, y0, x1, y1), and %" G_GSIZE_FORMAT " left over",
                n_values, n_values % 4);
    return FALSE;
  }
  static const char *const names[] = {"x0", "y0", "x1", "y1"};
  for (gsize i = 0; i < n_values; i++) {
    if (!std::isfinite(boxes[i])) {
      g_set_error(error, GST_EF_TRANSFORM_ERROR, GST_EF_TRANSFORM_ERROR_NOT_FINITE,
                  "box %" G_GSIZE_FORMAT " (values %" G_GSIZE_FORMAT " to %" G_GSIZE_FORMAT
                  ") has %s = %g: a box is four finite values; leave such boxes out "
                  "before mapping",
                  i / 4, i - i % 4, i - i % 4 + 3, names[i % 4], boxes[i]);
      return FALSE;
    }
  }
  return TRUE;
}

}  // namespace

gdouble *gst_ef_transform_meta_map_boxes_to_input_full(const GstEfTransformMeta *meta,
                                                       const gdouble *boxes, gsize n_values,
                                                       gsize *n_out, GError **error) {
  g_return_val_if_fail(n_out != nullptr, nullptr);
  *n_out = 0;
  g_return_val_if_fail(meta != nullptr, nullptr);
  g_return_val_if_fail(boxes != nullptr || n_values == 0, nullptr);
  g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
  if (!check_boxes(boxes, n_values, error))
    return nullptr;
  auto *mapped = g_new(gdouble, n_values ? n_values : 1);
  for (gsize i = 0; i < n_values; i += 4)
    gst_ef_transform_meta_map_box(meta, boxes + i, mapped + i);
  *n_out = n_values;
  return mapped;
}

gdouble *gst_ef_transform_meta_map_boxes_to_input(const GstEfTransformMeta *meta,
                                                  const gdouble *boxes, gsize n_values,
                                                  gsize *n_out) {
  g_return_val_if_fail(n_out != nullptr, nullptr);
  *n_out = 0;
  g_return_val_if_fail(n_values % 4 == 0, nullptr);
  GError *error = nullptr;
  gdouble *mapped =
      gst_ef_transform_meta_map_boxes_to_input_full(meta, boxes, n_values, n_out, &error);
  if (error) {
    g_warning("gst_ef_transform_meta_map_boxes_to_input: %s", error->message);
    g_error_free(error);
  }
  return mapped;
}

#if GST_CHECK_VERSION(1, 28, 0)
// The mapping is affine: its matrix is read off the images of the content's
// origin and of one step along each axis, so it cannot disagree with
// gst_ef_transform_map_to_input().
void gst_ef_transform_meta_get_video_matrix(const GstEfTransformMeta *meta,
                                            const GstVideoInfo *output_info,
                                            const GstVideoInfo *input_info,
                                            GstVideoMetaTransformMatrix *matrix) {
  g_return_if_fail(meta != nullptr && output_info != nullptr && input_info != nullptr);
  g_return_if_fail(matrix != nullptr);
  const GstVideoRectangle &content = meta->content;
  const GstVideoRectangle &crop = meta->crop;
  gst_video_meta_transform_matrix_init(matrix, output_info, &content, input_info, &crop);
  double ox, oy, sx, sy, tx, ty;
  gst_ef_transform_meta_map_to_input(meta, content.x, content.y, &ox, &oy);
  gst_ef_transform_meta_map_to_input(meta, content.x + 1.0, content.y, &sx, &sy);
  gst_ef_transform_meta_map_to_input(meta, content.x, content.y + 1.0, &tx, &ty);
  const double m[3][3] = {
      {sx - ox, tx - ox, ox - crop.x}, {sy - oy, ty - oy, oy - crop.y}, {0, 0, 1}};
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      matrix->matrix[r][c] = gfloat(m[r][c]);
}
#endif
