// SPDX-License-Identifier: LGPL-2.1-or-later
// gst_ef_analytics_relation_meta_map_to_input(): detections a tensor decoder
// put in the model's frame come back onto efconvert's input frame.
//
// An object at known camera coordinates is carried forward into the model's
// frame here, by the video-direction semantics themselves (not by the
// library's inverse), rounded to whole model pixels as a decoder's boxes
// are, put in a GstAnalyticsRelationMeta and mapped back: each edge must land
// within one model pixel's footprint, in camera pixels, of where it was.
#include <gst/analytics/analytics.h>
#include <gst/check/gstcheck.h>
#include <gst/ef/gstef.h>
#include <gst/ef/gstefanalytics.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "efconvert/plan/convert_params.hpp"

using namespace ef::gst;

namespace {

constexpr guint kModelW = 320, kModelH = 256;

const GstVideoOrientationMethod kDirections[] = {
    GST_VIDEO_ORIENTATION_IDENTITY, GST_VIDEO_ORIENTATION_90R,   GST_VIDEO_ORIENTATION_180,
    GST_VIDEO_ORIENTATION_90L,      GST_VIDEO_ORIENTATION_HORIZ, GST_VIDEO_ORIENTATION_VERT,
    GST_VIDEO_ORIENTATION_UL_LR,    GST_VIDEO_ORIENTATION_UR_LL,
};

struct Geometry {
  const char *name;
  guint in_w, in_h;
  GstVideoRectangle crop;  // {0, 0, 0, 0}: the whole frame
  GstVideoOrientationMethod direction;
};

// A camera point through crop, turn and letterbox into the model's frame:
// what each direction does to a picture, in GStreamer's words (90r turns
// clockwise: the top-left corner goes to the top-right, ...).
void forward(const ConvertParams &p, double x, double y, double &u, double &v) {
  const double cw = p.crop.w, ch = p.crop.h, a = x - p.crop.x, b = y - p.crop.y;
  double s = a, t = b, tw = cw, th = ch;
  switch (p.direction) {
    case GST_VIDEO_ORIENTATION_90R:
      s = ch - b, t = a, tw = ch, th = cw;
      break;
    case GST_VIDEO_ORIENTATION_180:
      s = cw - a, t = ch - b;
      break;
    case GST_VIDEO_ORIENTATION_90L:
      s = b, t = cw - a, tw = ch, th = cw;
      break;
    case GST_VIDEO_ORIENTATION_HORIZ:
      s = cw - a;
      break;
    case GST_VIDEO_ORIENTATION_VERT:
      t = ch - b;
      break;
    case GST_VIDEO_ORIENTATION_UL_LR:
      s = b, t = a, tw = ch, th = cw;
      break;
    case GST_VIDEO_ORIENTATION_UR_LL:
      s = ch - b, t = cw - a, tw = ch, th = cw;
      break;
    default:
      break;
  }
  u = p.content.x + s * p.content.w / tw;
  v = p.content.y + t * p.content.h / th;
}

ConvertParams plan(const Geometry &g) {
  auto p = plan_conversion(g.in_w, g.in_h, g.crop, kModelW, kModelH, true, g.direction);
  fail_unless(p.ok(), "%s: %s", g.name, p.ok() ? "" : p.error().message.c_str());
  return *p;
}

// A buffer out of efconvert: its transform meta and an empty relation meta.
GstBuffer *model_buffer(const ConvertParams &p, GstAnalyticsRelationMeta **rmeta) {
  GstBuffer *buf = gst_buffer_new();
  fail_unless(gst_buffer_add_ef_transform_meta(buf, &p.crop, &p.content, p.direction) != nullptr);
  *rmeta = gst_buffer_add_analytics_relation_meta(buf);
  return buf;
}

// One model pixel in camera pixels.
double footprint(const ConvertParams &p) {
  const bool swap = direction_swaps_axes(p.direction);
  const double tw = swap ? p.crop.h : p.crop.w, th = swap ? p.crop.w : p.crop.h;
  return std::max(tw / p.content.w, th / p.content.h);
}

std::array<gint, 4> od_box(GstAnalyticsRelationMeta *rmeta, guint id) {
  GstAnalyticsODMtd od;
  fail_unless(gst_analytics_relation_meta_get_od_mtd(rmeta, id, &od));
  gint x, y, w, h;
  gfloat conf;
  fail_unless(gst_analytics_od_mtd_get_location(&od, &x, &y, &w, &h, &conf));
  return {x, y, x + w, y + h};
}

// The results of `model` mapped onto a new buffer, returned in `camera`.
GstAnalyticsRelationMeta *map_onto_new(GstBuffer *model, GstBuffer **camera) {
  *camera = gst_buffer_new();
  fail_unless(gst_ef_analytics_relation_meta_map_to_input(model, *camera));
  return gst_buffer_get_analytics_relation_meta(*camera);
}

struct Oriented {
  gint x, y, w, h;
  gfloat r;
};

Oriented oriented_location(GstAnalyticsRelationMeta *rmeta, guint id) {
  GstAnalyticsODMtd od;
  fail_unless(gst_analytics_relation_meta_get_od_mtd(rmeta, id, &od));
  Oriented o;
  gfloat conf;
  fail_unless(gst_analytics_od_mtd_get_oriented_location(&od, &o.x, &o.y, &o.w, &o.h, &o.r, &conf));
  return o;
}

// The truth box through the model and back, quantized with `quantize`.
template <typename Quantize>
void round_trip(const Geometry &g, const double truth[4], Quantize quantize, double slack) {
  const ConvertParams p = plan(g);
  double u0, v0, u1, v1;
  forward(p, truth[0], truth[1], u0, v0);
  forward(p, truth[2], truth[3], u1, v1);
  const gint mx0 = quantize(std::min(u0, u1), false), mx1 = quantize(std::max(u0, u1), true);
  const gint my0 = quantize(std::min(v0, v1), false), my1 = quantize(std::max(v0, v1), true);
  GstAnalyticsRelationMeta *src;
  GstBuffer *model = model_buffer(p, &src);
  GstAnalyticsODMtd od;
  fail_unless(gst_analytics_relation_meta_add_od_mtd(src, g_quark_from_static_string("bright"), mx0,
                                                     my0, mx1 - mx0, my1 - my0, 0.9f, &od));
  GstBuffer *camera;
  GstAnalyticsRelationMeta *dst = map_onto_new(model, &camera);
  fail_unless(dst != nullptr && gst_analytics_relation_get_length(dst) == 1);
  const auto got = od_box(dst, 0);
  const double tolerance = footprint(p) * slack;
  for (int k = 0; k < 4; k++)
    fail_unless(std::fabs(got[k] - truth[k]) <= tolerance,
                "%s: camera box (%g, %g)-(%g, %g) -> model (%d, %d)-(%d, %d) -> camera "
                "(%d, %d)-(%d, %d): edge %d off by %g, more than %g",
                g.name, truth[0], truth[1], truth[2], truth[3], mx0, my0, mx1, my1, got[0], got[1],
                got[2], got[3], k, std::fabs(got[k] - truth[k]), tolerance);
  GstAnalyticsODMtd mapped;
  fail_unless(gst_analytics_relation_meta_get_od_mtd(dst, 0, &mapped));
  fail_unless_equals_string(g_quark_to_string(gst_analytics_od_mtd_get_obj_type(&mapped)),
                            "bright");
  gfloat conf;
  fail_unless(gst_analytics_od_mtd_get_confidence_lvl(&mapped, &conf) && conf == 0.9f);
  gst_buffer_unref(camera);
  gst_buffer_unref(model);
}

std::vector<Geometry> geometries() {
  std::vector<Geometry> out = {
      {"letterbox 1280x720", 1280, 720, {0, 0, 0, 0}, GST_VIDEO_ORIENTATION_IDENTITY},
      // 640x361 into 320x256: a 181-row picture, 75 border rows, odd.
      {"letterbox odd margins", 640, 361, {0, 0, 0, 0}, GST_VIDEO_ORIENTATION_IDENTITY},
      {"crop", 1280, 720, {200, 100, 640, 480}, GST_VIDEO_ORIENTATION_IDENTITY},
  };
  static const char *names[] = {"identity", "90r", "180", "90l", "horiz", "vert", "ul-lr", "ur-ll"};
  for (gsize i = 0; i < G_N_ELEMENTS(kDirections); i++)
    out.push_back({names[i], 1280, 720, {101, 51, 900, 551}, kDirections[i]});
  return out;
}

// The object: well inside every crop above.
const double kObject[4] = {333, 217, 493, 337};

}  // namespace

GST_START_TEST(test_round_trip_nearest) {
  for (const Geometry &g : geometries())
    round_trip(
        g, kObject, [](double v, bool) { return gint(std::lround(v)); }, 1.0);
}
GST_END_TEST;

// A detector that reports the pixels it saw any of the object in (boxes one
// model pixel too big at worst) still lands within a footprint and a half.
GST_START_TEST(test_round_trip_outward) {
  for (const Geometry &g : geometries())
    round_trip(
        g, kObject, [](double v, bool far) { return gint(far ? std::ceil(v) : std::floor(v)); },
        1.5);
}
GST_END_TEST;

// The model's frame is bigger than the picture: boxes reaching into the
// letterbox borders are clamped to the crop, whatever the turn.
GST_START_TEST(test_clamped_to_frame) {
  for (GstVideoOrientationMethod dir : kDirections) {
    const Geometry g{"clamp", 1280, 720, {101, 51, 900, 551}, dir};
    const ConvertParams p = plan(g);
    GstAnalyticsRelationMeta *src;
    GstBuffer *model = model_buffer(p, &src);
    GstAnalyticsODMtd od;
    // The whole model frame, and a box from beyond its corner to its centre
    // (inside the picture whatever the turn).
    fail_unless(gst_analytics_relation_meta_add_od_mtd(src, 0, 0, 0, kModelW, kModelH, 1, &od));
    fail_unless(gst_analytics_relation_meta_add_od_mtd(src, 0, -20, -30, 200, 180, 1, &od));
    GstBuffer *camera;
    GstAnalyticsRelationMeta *dst = map_onto_new(model, &camera);
    const auto whole = od_box(dst, 0);
    fail_unless(whole[0] == 101 && whole[1] == 51 && whole[2] == 1001 && whole[3] == 602,
                "direction %d: the model frame maps to (%d, %d)-(%d, %d), not the crop", dir,
                whole[0], whole[1], whole[2], whole[3]);
    const auto part = od_box(dst, 1);
    for (int k = 0; k < 4; k++)
      fail_unless(part[k] >= (k % 2 ? 51 : 101) && part[k] <= (k % 2 ? 602 : 1001));
    fail_unless(part[2] > part[0] && part[3] > part[1], "the part inside the picture is kept");
    gst_buffer_unref(camera);
    gst_buffer_unref(model);
  }
}
GST_END_TEST;

namespace {

// The corners of a rotated box: (x, y, w, h) before the turn by r about its
// centre, r turning +x towards +y.
std::array<std::array<double, 2>, 4> corners(double x, double y, double w, double h, double r) {
  const double cx = x + w / 2, cy = y + h / 2, c = std::cos(r), s = std::sin(r);
  std::array<std::array<double, 2>, 4> out;
  const double sx[] = {-1, 1, 1, -1}, sy[] = {-1, -1, 1, 1};
  for (int i = 0; i < 4; i++) {
    const double dx = sx[i] * w / 2, dy = sy[i] * h / 2;
    out[i] = {cx + dx * c - dy * s, cy + dx * s + dy * c};
  }
  return out;
}

}  // namespace

// A rotated box keeps its shape: the corners of the mapped box are the
// camera points of the model box's corners (as a set: the order of corners
// changes with a flip), to a pixel.
GST_START_TEST(test_oriented_boxes) {
  for (GstVideoOrientationMethod dir : kDirections) {
    const Geometry g{"oriented", 1280, 720, {101, 51, 900, 551}, dir};
    const ConvertParams p = plan(g);
    GstAnalyticsRelationMeta *src;
    GstBuffer *model = model_buffer(p, &src);
    GstAnalyticsODMtd od;
    const gint x = 120, y = 100, w = 60, h = 20;
    const gfloat r = 0.4f;
    fail_unless(gst_analytics_relation_meta_add_oriented_od_mtd(src, 0, x, y, w, h, r, 1, &od));
    GstBuffer *camera;
    const Oriented m = oriented_location(map_onto_new(model, &camera), 0);
    fail_unless(m.r > 0 && m.r < G_PI / 2, "angle %f outside [0, pi/2)", m.r);
    const auto got = corners(m.x, m.y, m.w, m.h, m.r);
    for (const auto &c : corners(x, y, w, h, r)) {
      double cx, cy;
      gst_ef_transform_meta_map_to_input(gst_buffer_get_ef_transform_meta(model), c[0], c[1], &cx,
                                         &cy);
      double best = G_MAXDOUBLE;
      for (const auto &q : got)
        best = std::min(best, std::hypot(q[0] - cx, q[1] - cy));
      // Whole-pixel x, y, w, h: a corner moves by up to a pixel and a half.
      fail_unless(best <= 1.5, "direction %d: corner (%g, %g) is %g px from the mapped box", dir,
                  cx, cy, best);
    }
    gst_buffer_unref(camera);
    gst_buffer_unref(model);
  }
}
GST_END_TEST;

// A box turned by a quarter turn in the model's frame lies on the axes: it
// comes back as a plain box, clamped like the others.
GST_START_TEST(test_quarter_turned_box_is_plain) {
  const Geometry g{"quarter", 1280, 720, {0, 0, 0, 0}, GST_VIDEO_ORIENTATION_IDENTITY};
  const ConvertParams p = plan(g);
  GstAnalyticsRelationMeta *src;
  GstBuffer *model = model_buffer(p, &src);
  GstAnalyticsODMtd od;
  // 60x20 turned upright about its centre (150, 110): 20 wide, 60 tall.
  fail_unless(
      gst_analytics_relation_meta_add_oriented_od_mtd(src, 0, 120, 100, 60, 20, G_PI / 2, 1, &od));
  GstBuffer *camera;
  const Oriented m = oriented_location(map_onto_new(model, &camera), 0);
  // Scale 4, picture from model row 38: x 140..160 -> 560..640, y 80..140 -> 168..408.
  fail_unless(m.r == 0 && m.x == 560 && m.y == 168 && m.w == 80 && m.h == 240,
              "(%d, %d) %dx%d r %f, want (560, 168) 80x240 r 0", m.x, m.y, m.w, m.h, m.r);
  gst_buffer_unref(camera);
  gst_buffer_unref(model);
}
GST_END_TEST;

// Classifications and trackings come along, with the relations between
// results under their new ids; kinds the library cannot map are left out
// (FALSE) while the rest is carried.
GST_START_TEST(test_relations_carried) {
  const Geometry g{"relations", 1280, 720, {0, 0, 0, 0}, GST_VIDEO_ORIENTATION_90L};
  const ConvertParams p = plan(g);
  GstAnalyticsRelationMeta *src;
  GstBuffer *model = model_buffer(p, &src);
  GstAnalyticsODMtd od;
  GstAnalyticsClsMtd cls;
  GstAnalyticsTrackingMtd trk;
  GstAnalyticsSegmentationMtd seg;
  fail_unless(gst_analytics_relation_meta_add_od_mtd(src, 0, 100, 100, 40, 40, 0.5f, &od));
  GQuark classes[] = {g_quark_from_static_string("cat"), g_quark_from_static_string("dog")};
  gfloat levels[] = {0.25f, 0.75f};
  fail_unless(gst_analytics_relation_meta_add_cls_mtd(src, 2, levels, classes, &cls));
  fail_unless(gst_analytics_relation_meta_add_tracking_mtd(src, 42, 1000, &trk));
  gst_analytics_tracking_mtd_update_last_seen(&trk, 5000);
  gst_analytics_tracking_mtd_set_lost(&trk);
  GstBuffer *mask = gst_buffer_new_allocate(nullptr, 16, nullptr);
  gst_buffer_add_video_meta(mask, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, 4, 4);
  guint region_ids[] = {0, 1};
  fail_unless(gst_analytics_relation_meta_add_segmentation_mtd(
      src, mask, GST_SEGMENTATION_TYPE_SEMANTIC, 2, region_ids, 0, 0, 4, 4, &seg));  // takes mask
  fail_unless(
      gst_analytics_relation_meta_set_relation(src, GST_ANALYTICS_REL_TYPE_CONTAIN, od.id, cls.id));
  fail_unless(gst_analytics_relation_meta_set_relation(src, GST_ANALYTICS_REL_TYPE_RELATE_TO,
                                                       trk.id, od.id));
  fail_unless(
      gst_analytics_relation_meta_set_relation(src, GST_ANALYTICS_REL_TYPE_CONTAIN, od.id, seg.id));

  // The camera buffer already carries a result of its own: ours are added.
  GstBuffer *camera = gst_buffer_new();
  GstAnalyticsRelationMeta *dst = gst_buffer_add_analytics_relation_meta(camera);
  GstAnalyticsClsMtd own;
  fail_unless(gst_analytics_relation_meta_add_one_cls_mtd(dst, 1.0f, 0, &own));
  fail_if(gst_ef_analytics_relation_meta_map_to_input(model, camera),
          "a segmentation mask was left out: the answer is FALSE");
  fail_unless_equals_int(gst_analytics_relation_get_length(dst), 4);

  gpointer state = nullptr;
  GstAnalyticsODMtd new_od;
  fail_unless(gst_analytics_relation_meta_iterate(dst, &state, gst_analytics_od_mtd_get_mtd_type(),
                                                  &new_od));
  state = nullptr;
  GstAnalyticsClsMtd new_cls;
  fail_unless(gst_analytics_relation_meta_get_direct_related(
      dst, new_od.id, GST_ANALYTICS_REL_TYPE_CONTAIN, gst_analytics_cls_mtd_get_mtd_type(), &state,
      &new_cls));
  fail_unless(new_cls.id != own.id);
  fail_unless_equals_int(gst_analytics_cls_mtd_get_length(&new_cls), 2);
  fail_unless(gst_analytics_cls_mtd_get_level(&new_cls, 1) == 0.75f);
  fail_unless(gst_analytics_cls_mtd_get_quark(&new_cls, 1) == classes[1]);
  state = nullptr;
  GstAnalyticsTrackingMtd new_trk;
  fail_unless(gst_analytics_relation_meta_iterate(
      dst, &state, gst_analytics_tracking_mtd_get_mtd_type(), &new_trk));
  fail_unless_equals_int(gst_analytics_relation_meta_get_relation(dst, new_trk.id, new_od.id),
                         GST_ANALYTICS_REL_TYPE_RELATE_TO);
  guint64 tracking_id;
  GstClockTime first, last;
  gboolean lost;
  fail_unless(gst_analytics_tracking_mtd_get_info(&new_trk, &tracking_id, &first, &last, &lost));
  fail_unless(tracking_id == 42 && first == 1000 && last == 5000 && lost);
  state = nullptr;
  GstAnalyticsSegmentationMtd none;
  fail_if(gst_analytics_relation_meta_iterate(
      dst, &state, gst_analytics_segmentation_mtd_get_mtd_type(), &none));
  // The model buffer is left as it was.
  fail_unless_equals_int(gst_analytics_relation_get_length(src), 4);
  gst_buffer_unref(camera);
  gst_buffer_unref(model);
}
GST_END_TEST;

// Nothing to map: no transform meta (not efconvert's output), or no results.
GST_START_TEST(test_nothing_to_map) {
  GstBuffer *plain = gst_buffer_new();
  gst_buffer_add_analytics_relation_meta(plain);
  GstBuffer *camera = gst_buffer_new();
  fail_if(gst_ef_analytics_relation_meta_map_to_input(plain, camera));
  fail_unless(gst_buffer_get_analytics_relation_meta(camera) == nullptr);
  const ConvertParams p = plan({"none", 64, 64, {0, 0, 0, 0}, GST_VIDEO_ORIENTATION_IDENTITY});
  GstBuffer *bare = gst_buffer_new();
  gst_buffer_add_ef_transform_meta(bare, &p.crop, &p.content, p.direction);
  fail_if(gst_ef_analytics_relation_meta_map_to_input(bare, camera));
  fail_unless(gst_buffer_get_analytics_relation_meta(camera) == nullptr);
  // A destination someone else holds is not written.
  GstAnalyticsRelationMeta *rmeta;
  GstBuffer *model = model_buffer(p, &rmeta);
  gst_buffer_ref(camera);
  ASSERT_CRITICAL(gst_ef_analytics_relation_meta_map_to_input(model, camera));
  gst_buffer_unref(camera);
  ASSERT_CRITICAL(gst_ef_analytics_relation_meta_map_to_input(model, model));
  gst_buffer_unref(model);
  gst_buffer_unref(bare);
  gst_buffer_unref(camera);
  gst_buffer_unref(plain);
}
GST_END_TEST;

// The form for bindings: a copy of the camera buffer (its memory, not its
// metas, shared) or a new one, carrying the mapped results.
GST_START_TEST(test_copy_to_input) {
  const ConvertParams p = plan({"copy", 1280, 720, {0, 0, 0, 0}, GST_VIDEO_ORIENTATION_180});
  GstAnalyticsRelationMeta *src;
  GstBuffer *model = model_buffer(p, &src);
  GstAnalyticsODMtd od;
  fail_unless(gst_analytics_relation_meta_add_od_mtd(src, 0, 100, 100, 40, 40, 1, &od));
  GstBuffer *camera = gst_buffer_new_allocate(nullptr, 1280 * 720 * 3 / 2, nullptr);
  gst_buffer_ref(camera);  // held elsewhere too: not writable
  GstBuffer *drawn = gst_ef_analytics_relation_meta_copy_to_input(model, camera);
  fail_unless(drawn != nullptr && drawn != camera);
  fail_unless(gst_buffer_peek_memory(drawn, 0) == gst_buffer_peek_memory(camera, 0));
  fail_unless(gst_buffer_get_analytics_relation_meta(camera) == nullptr);
  // 180: model (100, 100)-(140, 140), the picture from row 38 at scale 4:
  // (400, 248)-(560, 408) in the turned frame, (720, 312)-(880, 472) upright.
  const auto box = od_box(gst_buffer_get_analytics_relation_meta(drawn), 0);
  fail_unless(box[0] == 720 && box[1] == 312 && box[2] == 880 && box[3] == 472, "(%d, %d)-(%d, %d)",
              box[0], box[1], box[2], box[3]);
  gst_buffer_unref(drawn);
  drawn = gst_ef_analytics_relation_meta_copy_to_input(model, nullptr);
  fail_unless(drawn != nullptr && gst_buffer_n_memory(drawn) == 0);
  fail_unless(gst_analytics_relation_get_length(gst_buffer_get_analytics_relation_meta(drawn)) ==
              1);
  gst_buffer_unref(drawn);
  GstBuffer *plain = gst_buffer_new();
  fail_unless(gst_ef_analytics_relation_meta_copy_to_input(plain, camera) == nullptr);
  gst_buffer_unref(plain);
  gst_buffer_unref(camera);
  gst_buffer_unref(camera);
  gst_buffer_unref(model);
}
GST_END_TEST;

#if GST_CHECK_VERSION(1, 28, 0)
// GStreamer 1.28's own machinery, fed the meta's matrix, carries the same
// detections to within its whole-pixel rounding: the two agree on what the
// mapping is.
GST_START_TEST(test_gstreamer_matrix_transform_agrees) {
  GstVideoInfo out_info, in_info;
  gst_video_info_set_format(&out_info, GST_VIDEO_FORMAT_RGB, kModelW, kModelH);
  gst_video_info_set_format(&in_info, GST_VIDEO_FORMAT_NV12, 1280, 720);
  for (GstVideoOrientationMethod dir : kDirections) {
    const ConvertParams p = plan({"matrix", 1280, 720, {101, 51, 900, 551}, dir});
    GstAnalyticsRelationMeta *src;
    GstBuffer *model = model_buffer(p, &src);
    GstAnalyticsODMtd od;
    fail_unless(gst_analytics_relation_meta_add_od_mtd(src, 0, 150, 100, 30, 50, 1, &od));
    GstBuffer *ours = gst_buffer_new();
    fail_unless(gst_ef_analytics_relation_meta_map_to_input(model, ours));
    GstVideoMetaTransformMatrix matrix;
    gst_ef_transform_meta_get_video_matrix(gst_buffer_get_ef_transform_meta(model), &out_info,
                                           &in_info, &matrix);
    GstBuffer *theirs = gst_buffer_new();
    const GstMetaInfo *info = reinterpret_cast<GstMeta *>(src)->info;
    fail_unless(info->transform_func(theirs, reinterpret_cast<GstMeta *>(src), model,
                                     gst_video_meta_transform_matrix_get_quark(), &matrix));
    const auto a = od_box(gst_buffer_get_analytics_relation_meta(ours), 0);
    const auto b = od_box(gst_buffer_get_analytics_relation_meta(theirs), 0);
    for (int k = 0; k < 4; k++)
      fail_unless(std::abs(a[k] - b[k]) <= 1, "direction %d edge %d: ef %d, GStreamer %d", dir, k,
                  a[k], b[k]);
    gst_buffer_unref(theirs);
    gst_buffer_unref(ours);
    gst_buffer_unref(model);
  }
}
GST_END_TEST;
#endif

static Suite *analytics_map_suite() {
  Suite *s = suite_create("analytics_map");
  TCase *tc = tcase_create("map");
  tcase_add_test(tc, test_round_trip_nearest);
  tcase_add_test(tc, test_round_trip_outward);
  tcase_add_test(tc, test_clamped_to_frame);
  tcase_add_test(tc, test_oriented_boxes);
  tcase_add_test(tc, test_quarter_turned_box_is_plain);
  tcase_add_test(tc, test_relations_carried);
  tcase_add_test(tc, test_nothing_to_map);
  tcase_add_test(tc, test_copy_to_input);
#if GST_CHECK_VERSION(1, 28, 0)
  tcase_add_test(tc, test_gstreamer_matrix_transform_agrees);
#endif
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(analytics_map);
