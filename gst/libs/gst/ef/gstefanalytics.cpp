// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gst/ef/gstefanalytics.h"

#include <gst/analytics/analytics.h>

#include "gst/ef/gsteftransformmeta-private.h"
#include "gst/ef/gsteftransformmeta.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

GST_DEBUG_CATEGORY_STATIC(gst_ef_analytics_debug);
#define GST_CAT_DEFAULT gst_ef_analytics_debug

namespace {

constexpr guint kNotCarried = G_MAXUINT;
constexpr double kQuarterTurn = G_PI / 2;
// Angles closer than this to a quarter turn are axis-aligned boxes.
constexpr double kAngleEpsilon = 1e-6;

void init_debug() {
  static gsize done = 0;
  if (g_once_init_enter(&done)) {
    GST_DEBUG_CATEGORY_INIT(gst_ef_analytics_debug, "efanalytics", 0,
                            "ef: analytics metas mapped to efconvert's input");
    g_once_init_leave(&done, 1);
  }
}

// To the nearest pixel, saturating: a rotated box is not clamped to the
// frame, and its sides scaled up may leave gint's range.
gint round_px(double v) {
  return gint(std::clamp(std::lround(v), long(G_MININT), long(G_MAXINT)));
}

// An axis-aligned box (pixel edges) onto the input: mapped, clamped, rounded.
bool add_box(GstAnalyticsRelationMeta *dst, const GstEfTransformMeta *tm, GQuark type,
             const double box[4], gfloat confidence, guint *id) {
  double mapped[4];
  gst_ef_transform_meta_map_box(tm, box, mapped);
  const gint x0 = round_px(mapped[0]), y0 = round_px(mapped[1]);
  const gint x1 = round_px(mapped[2]), y1 = round_px(mapped[3]);
  GstAnalyticsODMtd mtd;
  if (!gst_analytics_relation_meta_add_od_mtd(dst, type, x0, y0, x1 - x0, y1 - y0, confidence,
                                              &mtd))
    return false;
  *id = mtd.id;
  return true;
}

// A rotated box: centre mapped, the sides mapped as vectors (the mapping is
// affine), the angle read from the mapped width side and brought into
// [0, pi/2) by the rectangle's symmetries: (w, h, r) is (h, w, r + pi/2).
bool add_oriented(GstAnalyticsRelationMeta *dst, const GstEfTransformMeta *tm, GQuark type,
                  double cx, double cy, double w, double h, double r, gfloat confidence,
                  guint *id) {
  double mx, my, ux, uy, vx, vy;
  gst_ef_transform_meta_map_to_input(tm, cx, cy, &mx, &my);
  gst_ef_transform_meta_map_to_input(tm, cx + w * std::cos(r), cy + w * std::sin(r), &ux, &uy);
  gst_ef_transform_meta_map_to_input(tm, cx - h * std::sin(r), cy + h * std::cos(r), &vx, &vy);
  double mw = std::hypot(ux - mx, uy - my), mh = std::hypot(vx - mx, vy - my);
  double angle = std::atan2(uy - my, ux - mx);
  double quarters = std::floor(angle / kQuarterTurn);
  angle -= quarters * kQuarterTurn;
  if (angle >= kQuarterTurn - kAngleEpsilon)
    angle -= kQuarterTurn, quarters += 1;
  if (std::fmod(std::fabs(quarters), 2.0) == 1.0)
    std::swap(mw, mh);
  GstAnalyticsODMtd mtd;
  if (!gst_analytics_relation_meta_add_oriented_od_mtd(
          dst, type, round_px(mx - mw / 2), round_px(my - mh / 2), round_px(mw), round_px(mh),
          gfloat(std::max(angle, 0.0)), confidence, &mtd))
    return false;
  *id = mtd.id;
  return true;
}

bool carry_od(GstAnalyticsRelationMeta *dst, const GstEfTransformMeta *tm, GstAnalyticsMtd *src,
              guint *id) {
  auto *od = reinterpret_cast<GstAnalyticsODMtd *>(src);
  gint x, y, w, h;
  gfloat r, confidence;
  if (!gst_analytics_od_mtd_get_oriented_location(od, &x, &y, &w, &h, &r, &confidence))
    return false;
  const GQuark type = gst_analytics_od_mtd_get_obj_type(od);
  const double cx = x + w / 2.0, cy = y + h / 2.0;
  // A box on the axes in the output (r a multiple of a quarter turn) stays
  // on them through turns and flips: mapped and clamped as a plain box.
  const double quarters = std::round(r / kQuarterTurn);
  if (std::fabs(r / kQuarterTurn - quarters) < kAngleEpsilon) {
    double half_w = w / 2.0, half_h = h / 2.0;
    if (std::fmod(std::fabs(quarters), 2.0) == 1.0)
      std::swap(half_w, half_h);
    const double box[4] = {cx - half_w, cy - half_h, cx + half_w, cy + half_h};
    return add_box(dst, tm, type, box, confidence, id);
  }
  return add_oriented(dst, tm, type, cx, cy, w, h, r, confidence, id);
}

bool carry_cls(GstAnalyticsRelationMeta *dst, GstAnalyticsMtd *src, guint *id) {
  auto *cls = reinterpret_cast<GstAnalyticsClsMtd *>(src);
  const gsize n = gst_analytics_cls_mtd_get_length(cls);
  std::vector<gfloat> levels(n);
  std::vector<GQuark> quarks(n);
  for (gsize i = 0; i < n; i++) {
    levels[i] = gst_analytics_cls_mtd_get_level(cls, i);
    quarks[i] = gst_analytics_cls_mtd_get_quark(cls, i);
  }
  GstAnalyticsClsMtd mtd;
  if (!gst_analytics_relation_meta_add_cls_mtd(dst, n, levels.data(), quarks.data(), &mtd))
    return false;
  *id = mtd.id;
  return true;
}

bool carry_tracking(GstAnalyticsRelationMeta *dst, GstAnalyticsMtd *src, guint *id) {
  auto *trk = reinterpret_cast<GstAnalyticsTrackingMtd *>(src);
  guint64 tracking_id;
  GstClockTime first_seen, last_seen;
  gboolean lost;
  if (!gst_analytics_tracking_mtd_get_info(trk, &tracking_id, &first_seen, &last_seen, &lost))
    return false;
  GstAnalyticsTrackingMtd mtd;
  if (!gst_analytics_relation_meta_add_tracking_mtd(dst, tracking_id, first_seen, &mtd))
    return false;
  gst_analytics_tracking_mtd_update_last_seen(&mtd, last_seen);
  if (lost)
    gst_analytics_tracking_mtd_set_lost(&mtd);
  *id = mtd.id;
  return true;
}

// One result onto `dst`; false when its kind is not carried.
bool carry(GstAnalyticsRelationMeta *dst, const GstEfTransformMeta *tm, GstAnalyticsMtd *src,
           guint *id) {
  const GstAnalyticsMtdType type = gst_analytics_mtd_get_mtd_type(src);
  if (type == gst_analytics_od_mtd_get_mtd_type())
    return carry_od(dst, tm, src, id);
  if (type == gst_analytics_cls_mtd_get_mtd_type())
    return carry_cls(dst, src, id);
  if (type == gst_analytics_tracking_mtd_get_mtd_type())
    return carry_tracking(dst, src, id);
  return false;
}

// The relations between carried results, under their new ids.
void carry_relations(GstAnalyticsRelationMeta *src, GstAnalyticsRelationMeta *dst,
                     const std::vector<guint> &new_id) {
  for (guint a = 0; a < new_id.size(); a++) {
    for (guint b = 0; b < new_id.size(); b++) {
      if (new_id[a] == kNotCarried || new_id[b] == kNotCarried)
        continue;
      const GstAnalyticsRelTypes rel = gst_analytics_relation_meta_get_relation(src, a, b);
      if (rel != GST_ANALYTICS_REL_TYPE_NONE)
        gst_analytics_relation_meta_set_relation(dst, rel, new_id[a], new_id[b]);
    }
  }
}

}  // namespace

gboolean gst_ef_analytics_relation_meta_map_to_input(GstBuffer *model_buffer, GstBuffer *dest) {
  g_return_val_if_fail(GST_IS_BUFFER(model_buffer) && GST_IS_BUFFER(dest), FALSE);
  g_return_val_if_fail(model_buffer != dest, FALSE);
  g_return_val_if_fail(gst_buffer_is_writable(dest), FALSE);
  init_debug();
  const GstEfTransformMeta *tm = gst_buffer_get_ef_transform_meta(model_buffer);
  GstAnalyticsRelationMeta *src = gst_buffer_get_analytics_relation_meta(model_buffer);
  if (!tm || !src) {
    GST_DEBUG("buffer %p has no %s: nothing to map", model_buffer,
              tm ? "GstAnalyticsRelationMeta" : "GstEfTransformMeta");
    return FALSE;
  }
  GstAnalyticsRelationMeta *dst = gst_buffer_get_analytics_relation_meta(dest);
  if (!dst)
    dst = gst_buffer_add_analytics_relation_meta(dest);
  std::vector<guint> new_id(gst_analytics_relation_get_length(src), kNotCarried);
  gboolean all = TRUE;
  gpointer state = nullptr;
  GstAnalyticsMtd mtd;
  while (gst_analytics_relation_meta_iterate(src, &state, GST_ANALYTICS_MTD_TYPE_ANY, &mtd)) {
    guint id = kNotCarried;
    if (mtd.id < new_id.size() && carry(dst, tm, &mtd, &id)) {
      new_id[mtd.id] = id;
      continue;
    }
    GST_WARNING("result %u (%s) of buffer %p is not mapped: left out", mtd.id,
                gst_analytics_mtd_type_get_name(gst_analytics_mtd_get_mtd_type(&mtd)),
                model_buffer);
    all = FALSE;
  }
  carry_relations(src, dst, new_id);
  return all;
}

GstBuffer *gst_ef_analytics_relation_meta_copy_to_input(GstBuffer *model_buffer,
                                                        GstBuffer *camera) {
  g_return_val_if_fail(GST_IS_BUFFER(model_buffer), nullptr);
  g_return_val_if_fail(camera == nullptr || GST_IS_BUFFER(camera), nullptr);
  if (!gst_buffer_get_ef_transform_meta(model_buffer) ||
      !gst_buffer_get_analytics_relation_meta(model_buffer))
    return nullptr;
  GstBuffer *dest = camera ? gst_buffer_copy(camera) : gst_buffer_new();
  gst_ef_analytics_relation_meta_map_to_input(model_buffer, dest);
  return dest;
}
