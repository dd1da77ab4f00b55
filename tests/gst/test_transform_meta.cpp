// SPDX-License-Identifier: LGPL-2.1-or-later
// Conversion planning (letterbox, crop, turns) and GstEfTransformMeta's
// mapping from output back to input.
#include <gst/check/gstcheck.h>
#include <gst/ef/gstef.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "efconvert/plan/convert_params.hpp"
#include "odd_margins.hpp"

using namespace ef::gst;
using ef::test::kOddMarginCount;
using ef::test::kOddMargins;
using ef::test::OddMargin;

namespace {

void expect_point(const ConvertParams &p, double ox, double oy, double ix, double iy) {
  double x, y;
  map_output_to_input(p, ox, oy, x, y);
  fail_unless(std::fabs(x - ix) < 1e-9 && std::fabs(y - iy) < 1e-9,
              "direction %d: output (%g, %g) -> (%g, %g), want (%g, %g)", p.direction, ox, oy, x, y,
              ix, iy);
}

}  // namespace

GST_START_TEST(test_letterbox_plans) {
  auto p =
      plan_conversion(1920, 1080, {0, 0, 0, 0}, 640, 640, true, GST_VIDEO_ORIENTATION_IDENTITY);
  fail_unless(p.ok());
  fail_unless(p->content.x == 0 && p->content.y == 140 && p->content.w == 640 &&
              p->content.h == 360);
  // Tall input: bars left and right.
  p = plan_conversion(480, 640, {0, 0, 0, 0}, 640, 640, true, GST_VIDEO_ORIENTATION_IDENTITY);
  fail_unless(p->content.x == 80 && p->content.y == 0 && p->content.w == 480 &&
              p->content.h == 640);
  // Odd sizes round to whole pixels and stay inside the output.
  p = plan_conversion(1921, 1081, {0, 0, 0, 0}, 1, 7, true, GST_VIDEO_ORIENTATION_IDENTITY);
  fail_unless(p->content.w == 1 && p->content.h == 1 && p->content.y == 3);
  // A quarter turn letterboxes the turned picture.
  p = plan_conversion(1920, 1080, {0, 0, 0, 0}, 640, 640, true, GST_VIDEO_ORIENTATION_90R);
  fail_unless(p->content.x == 140 && p->content.w == 360 && p->content.h == 640);
  // Stretch covers the output.
  p = plan_conversion(1920, 1080, {0, 0, 0, 0}, 640, 640, false, GST_VIDEO_ORIENTATION_IDENTITY);
  fail_unless(p->content.x == 0 && p->content.y == 0 && p->content.w == 640 && p->content.h == 640);
}
GST_END_TEST;

// An odd margin: the picture centred with the odd pixel right or below
// (odd_margins.hpp), and the meta maps the picture's corners to the input's.
GST_START_TEST(test_odd_margins) {
  const OddMargin &c = kOddMargins[__i__];
  auto p = plan_conversion(c.in_w, c.in_h, {0, 0, 0, 0}, c.out_w, c.out_h, true, c.direction);
  fail_unless(p.ok());
  const GstVideoRectangle &r = p->content;
  fail_unless(r.x == c.content.x && r.y == c.content.y && r.w == c.content.w && r.h == c.content.h,
              "%ux%u direction %d -> %ux%u: content %dx%d at (%d, %d), want %dx%d at (%d, %d)",
              c.in_w, c.in_h, int(c.direction), c.out_w, c.out_h, r.w, r.h, r.x, r.y, c.content.w,
              c.content.h, c.content.x, c.content.y);
  GstBuffer *buf = gst_buffer_new();
  GstEfTransformMeta *m =
      gst_buffer_add_ef_transform_meta(buf, &p->crop, &p->content, p->direction);
  double x, y;
  gst_ef_transform_meta_map_to_input(m, c.content.x, c.content.y, &x, &y);
  fail_unless(std::fabs(x - c.first_x) < 1e-9 && std::fabs(y - c.first_y) < 1e-9,
              "first content pixel's corner maps to (%g, %g), want (%g, %g)", x, y, c.first_x,
              c.first_y);
  gst_ef_transform_meta_map_to_input(m, c.content.x + c.content.w, c.content.y + c.content.h, &x,
                                     &y);
  fail_unless(std::fabs(x - c.last_x) < 1e-9 && std::fabs(y - c.last_y) < 1e-9,
              "last content pixel's corner maps to (%g, %g), want (%g, %g)", x, y, c.last_x,
              c.last_y);
  gst_buffer_unref(buf);
}
GST_END_TEST;

GST_START_TEST(test_bad_crops) {
  auto zero = plan_conversion(64, 64, {0, 0, 0, 8}, 32, 32, true, GST_VIDEO_ORIENTATION_IDENTITY);
  fail_unless(!zero.ok());
  fail_unless_equals_int(zero.error().code, EINVAL);
  auto outside =
      plan_conversion(64, 64, {60, 0, 8, 8}, 32, 32, true, GST_VIDEO_ORIENTATION_IDENTITY);
  fail_unless(!outside.ok());
  auto negative =
      plan_conversion(64, 64, {-1, 0, 8, 8}, 32, 32, true, GST_VIDEO_ORIENTATION_IDENTITY);
  fail_unless(!negative.ok());
  auto no_output =
      plan_conversion(64, 64, {0, 0, 0, 0}, 0, 32, true, GST_VIDEO_ORIENTATION_IDENTITY);
  fail_unless(!no_output.ok());
}
GST_END_TEST;

// The input's top-left corner and the point right of it, through every
// direction, end where the turn puts them.
GST_START_TEST(test_every_direction_maps_corners) {
  // Crop 40x20 at (10, 5) of a 100x100 input, no scaling (output = turned size).
  struct Case {
    GstVideoOrientationMethod dir;
    double tl_x, tl_y;  // output position of the input crop's top-left corner
  };
  const Case cases[] = {
      {GST_VIDEO_ORIENTATION_IDENTITY, 0, 0}, {GST_VIDEO_ORIENTATION_90R, 20, 0},
      {GST_VIDEO_ORIENTATION_180, 40, 20},    {GST_VIDEO_ORIENTATION_90L, 0, 40},
      {GST_VIDEO_ORIENTATION_HORIZ, 40, 0},   {GST_VIDEO_ORIENTATION_VERT, 0, 20},
      {GST_VIDEO_ORIENTATION_UL_LR, 0, 0},    {GST_VIDEO_ORIENTATION_UR_LL, 20, 40},
  };
  for (const Case &c : cases) {
    const bool swap = direction_swaps_axes(c.dir);
    auto p =
        plan_conversion(100, 100, {10, 5, 40, 20}, swap ? 20 : 40, swap ? 40 : 20, true, c.dir);
    fail_unless(p.ok());
    expect_point(*p, c.tl_x, c.tl_y, 10, 5);
  }
  // And one interior point for the quarter turns: input (10 + 1, 5 + 0).
  auto r = plan_conversion(100, 100, {10, 5, 40, 20}, 20, 40, true, GST_VIDEO_ORIENTATION_90R);
  expect_point(*r, 20, 1, 11, 5);
  auto l = plan_conversion(100, 100, {10, 5, 40, 20}, 20, 40, true, GST_VIDEO_ORIENTATION_90L);
  expect_point(*l, 0, 39, 11, 5);
}
GST_END_TEST;

// The meta holds scale and offset per axis and maps like the plan.
GST_START_TEST(test_meta_fields_and_copy) {
  auto p =
      plan_conversion(1920, 1080, {0, 0, 0, 0}, 640, 640, true, GST_VIDEO_ORIENTATION_IDENTITY);
  GstBuffer *buf = gst_buffer_new();
  GstEfTransformMeta *m =
      gst_buffer_add_ef_transform_meta(buf, &p->crop, &p->content, p->direction);
  fail_unless(std::fabs(m->scale_x - 3.0) < 1e-9 && std::fabs(m->scale_y - 3.0) < 1e-9);
  fail_unless(std::fabs(m->offset_x) < 1e-9 && std::fabs(m->offset_y + 420.0) < 1e-9);
  double x, y;
  gst_ef_transform_meta_map_to_input(m, 100, 200, &x, &y);
  fail_unless(std::fabs(x - 300) < 1e-9 && std::fabs(y - 180) < 1e-9);
  GstBuffer *copy = gst_buffer_copy(buf);
  fail_unless(gst_buffer_get_ef_transform_meta(copy) != nullptr);
  gst_buffer_unref(copy);
  gst_buffer_unref(buf);
}
GST_END_TEST;

namespace {

// A meta for a conversion of `crop` (input pixels) turned by `dir` into a
// letterboxed out_w x out_h output, as efconvert plans it.
GstEfTransformMeta *add_planned_meta(GstBuffer *buf, guint in_w, guint in_h, GstVideoRectangle crop,
                                     guint out_w, guint out_h, GstVideoOrientationMethod dir) {
  auto p = plan_conversion(in_w, in_h, crop, out_w, out_h, true, dir);
  fail_unless(p.ok());
  return gst_buffer_add_ef_transform_meta(buf, &p->crop, &p->content, p->direction);
}

const GstVideoOrientationMethod kDirections[] = {
    GST_VIDEO_ORIENTATION_IDENTITY, GST_VIDEO_ORIENTATION_90R,   GST_VIDEO_ORIENTATION_180,
    GST_VIDEO_ORIENTATION_90L,      GST_VIDEO_ORIENTATION_HORIZ, GST_VIDEO_ORIENTATION_VERT,
    GST_VIDEO_ORIENTATION_UL_LR,    GST_VIDEO_ORIENTATION_UR_LL,
};

}  // namespace

// The batch call maps each box as its two corners would be, point by point,
// puts the corners in order (turns and flips swap them) and clamps to the crop.
GST_START_TEST(test_map_boxes_matches_points) {
  // Boxes inside the picture, across its edges, and one in the border only.
  const double boxes[] = {40, 70, 90, 150, 0, 0, 320, 256, 300, 10, 330, 40, 1, 1, 2, 2};
  const gsize n = G_N_ELEMENTS(boxes);
  for (GstVideoOrientationMethod dir : kDirections) {
    GstBuffer *buf = gst_buffer_new();
    GstEfTransformMeta *m = add_planned_meta(buf, 1280, 720, {100, 50, 900, 600}, 320, 256, dir);
    gsize n_out = 99;
    gdouble *mapped = gst_ef_transform_meta_map_boxes_to_input(m, boxes, n, &n_out);
    fail_unless_equals_uint64(n_out, n);
    for (gsize i = 0; i < n; i += 4) {
      double ax, ay, bx, by;
      gst_ef_transform_meta_map_to_input(m, boxes[i], boxes[i + 1], &ax, &ay);
      gst_ef_transform_meta_map_to_input(m, boxes[i + 2], boxes[i + 3], &bx, &by);
      const double want[4] = {
          std::clamp(std::min(ax, bx), 100.0, 1000.0), std::clamp(std::min(ay, by), 50.0, 650.0),
          std::clamp(std::max(ax, bx), 100.0, 1000.0), std::clamp(std::max(ay, by), 50.0, 650.0)};
      for (int k = 0; k < 4; k++)
        fail_unless(std::fabs(mapped[i + k] - want[k]) < 1e-9,
                    "direction %d box %zu value %d: %g, want %g", dir, i / 4, k, mapped[i + k],
                    want[k]);
      fail_unless(mapped[i] <= mapped[i + 2] && mapped[i + 1] <= mapped[i + 3]);
    }
    // The whole output covers exactly the crop: its borders clamp onto it.
    fail_unless(mapped[4] == 100 && mapped[5] == 50 && mapped[6] == 1000 && mapped[7] == 650);
    g_free(mapped);
    gst_buffer_unref(buf);
  }
}
GST_END_TEST;

// A box in the letterbox border alone collapses onto the crop's edge; an
// empty set maps to an empty set; a count not a multiple of four is refused:
// a critical without a GError, else an error the caller can tell from an
// empty set, with nothing logged (the _full call is what bindings raise).
GST_START_TEST(test_map_boxes_edges) {
  GstBuffer *buf = gst_buffer_new();
  // 1280x720 into 320x256: the picture is rows 38..218, bars above and below.
  GstEfTransformMeta *m =
      add_planned_meta(buf, 1280, 720, {0, 0, 0, 0}, 320, 256, GST_VIDEO_ORIENTATION_IDENTITY);
  fail_unless(m->content.y == 38 && m->content.h == 180);
  const double in_bar[] = {10, 2, 50, 30};
  gsize n_out = 0;
  gdouble *mapped = gst_ef_transform_meta_map_boxes_to_input(m, in_bar, 4, &n_out);
  fail_unless(n_out == 4 && mapped[1] == 0 && mapped[3] == 0);
  fail_unless(std::fabs(mapped[0] - 40) < 1e-9 && std::fabs(mapped[2] - 200) < 1e-9);
  g_free(mapped);
  mapped = gst_ef_transform_meta_map_boxes_to_input(m, nullptr, 0, &n_out);
  fail_unless(mapped != nullptr && n_out == 0);
  g_free(mapped);
  n_out = 7;
  ASSERT_CRITICAL(mapped = gst_ef_transform_meta_map_boxes_to_input(m, in_bar, 3, &n_out));
  fail_unless(mapped == nullptr && n_out == 0);
  GError *error = nullptr;
  n_out = 7;
  mapped = gst_ef_transform_meta_map_boxes_to_input_full(m, in_bar, 3, &n_out, &error);
  fail_unless(mapped == nullptr && n_out == 0);
  fail_unless(g_error_matches(error, GST_EF_TRANSFORM_ERROR, GST_EF_TRANSFORM_ERROR_BAD_LENGTH));
  fail_unless(strstr(error->message, "3 values") && strstr(error->message, "four values a box"),
              "%s", error->message);
  g_clear_error(&error);
  mapped = gst_ef_transform_meta_map_boxes_to_input_full(m, nullptr, 0, &n_out, &error);
  fail_unless(mapped != nullptr && n_out == 0 && error == nullptr);
  g_free(mapped);
  gst_buffer_unref(buf);
}
GST_END_TEST;

// A NaN or infinite value refuses the whole set, naming the box: it has no
// place on the frame, and dropping it would shift later boxes against their
// labels. (Before, [nan, 10, 20, 30] under a crop and 90r came back as
// [175, nan, 205, nan], neither clamped nor refused.)
GST_START_TEST(test_map_boxes_refuses_non_finite) {
  GstBuffer *buf = gst_buffer_new();
  GstEfTransformMeta *m =
      add_planned_meta(buf, 1280, 720, {100, 50, 900, 600}, 320, 256, GST_VIDEO_ORIENTATION_90R);
  const double bad[] = {NAN, INFINITY, -INFINITY};
  for (gsize value = 0; value < 4; value++) {
    for (double v : bad) {
      double boxes[] = {40, 70, 90, 150, 10, 10, 20, 30};
      boxes[4 + value] = v;
      GError *error = nullptr;
      gsize n_out = 99;
      gdouble *mapped = gst_ef_transform_meta_map_boxes_to_input_full(m, boxes, 8, &n_out, &error);
      fail_unless(mapped == nullptr && n_out == 0, "value %zu = %g was mapped", value, v);
      fail_unless(
          g_error_matches(error, GST_EF_TRANSFORM_ERROR, GST_EF_TRANSFORM_ERROR_NOT_FINITE));
      fail_unless(strstr(error->message, "box 1 (values 4 to 7)"), "%s", error->message);
      g_clear_error(&error);
      // Without a GError: a warning naming the box, and NULL.
      n_out = 99;
      ASSERT_WARNING(mapped = gst_ef_transform_meta_map_boxes_to_input(m, boxes, 8, &n_out));
      fail_unless(mapped == nullptr && n_out == 0);
    }
  }
  // Finite boxes, the among them, come back clamped to the crop.
  const double fine[] = {0, 10, 20, 30};
  gsize n_out = 0;
  gdouble *mapped = gst_ef_transform_meta_map_boxes_to_input_full(m, fine, 4, &n_out, nullptr);
  fail_unless(mapped != nullptr && n_out == 4);
  for (int k = 0; k < 4; k++)
    fail_unless(std::isfinite(mapped[k]) && mapped[k] >= (k % 2 ? 50 : 100) &&
                mapped[k] <= (k % 2 ? 650 : 1000));
  g_free(mapped);
  gst_buffer_unref(buf);
}
GST_END_TEST;

#if GST_CHECK_VERSION(1, 28, 0)
// GStreamer's own matrix transform, fed the meta's matrix, maps points
// where map_to_input() does (to GStreamer's whole-pixel rounding).
GST_START_TEST(test_video_matrix_matches_mapping) {
  GstVideoInfo out_info, in_info;
  gst_video_info_set_format(&out_info, GST_VIDEO_FORMAT_RGB, 320, 256);
  gst_video_info_set_format(&in_info, GST_VIDEO_FORMAT_NV12, 1280, 720);
  // Points of the picture (GStreamer rounds by truncation, which is not to
  // the nearest for the negative coordinates of the borders).
  const double fractions[][2] = {{0, 0}, {1, 1}, {0.13, 0.3}, {0.5, 0.5}, {0.62, 0.09}};
  for (GstVideoOrientationMethod dir : kDirections) {
    GstBuffer *buf = gst_buffer_new();
    GstEfTransformMeta *m = add_planned_meta(buf, 1280, 720, {101, 51, 901, 601}, 320, 256, dir);
    GstVideoMetaTransformMatrix matrix;
    gst_ef_transform_meta_get_video_matrix(m, &out_info, &in_info, &matrix);
    fail_unless(matrix.in_info == &out_info && matrix.out_info == &in_info);
    for (const auto &f : fractions) {
      const gint p[2] = {gint(m->content.x + f[0] * m->content.w),
                         gint(m->content.y + f[1] * m->content.h)};
      gint x = p[0], y = p[1];
      fail_unless(gst_video_meta_transform_matrix_point(&matrix, &x, &y));
      double ex, ey;
      gst_ef_transform_meta_map_to_input(m, p[0], p[1], &ex, &ey);
      fail_unless(std::fabs(x - ex) <= 0.5 + 1e-3 && std::fabs(y - ey) <= 0.5 + 1e-3,
                  "direction %d: (%d, %d) -> (%d, %d) by GStreamer, (%g, %g) by ef", dir, p[0],
                  p[1], x, y, ex, ey);
    }
    gst_buffer_unref(buf);
  }
}
GST_END_TEST;
#endif

static Suite *transform_suite() {
  Suite *s = suite_create("transform_meta");
  TCase *tc = tcase_create("geometry");
  tcase_add_test(tc, test_letterbox_plans);
  tcase_add_loop_test(tc, test_odd_margins, 0, kOddMarginCount);
  tcase_add_test(tc, test_bad_crops);
  tcase_add_test(tc, test_every_direction_maps_corners);
  tcase_add_test(tc, test_meta_fields_and_copy);
  tcase_add_test(tc, test_map_boxes_matches_points);
  tcase_add_test(tc, test_map_boxes_edges);
  tcase_add_test(tc, test_map_boxes_refuses_non_finite);
#if GST_CHECK_VERSION(1, 28, 0)
  tcase_add_test(tc, test_video_matrix_matches_mapping);
#endif
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(transform);
