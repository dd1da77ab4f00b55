// SPDX-License-Identifier: LGPL-2.1-or-later
// Conversion planning (letterbox, crop, turns) and GstEfTransformMeta's
// mapping from output back to input.
#include <gst/check/gstcheck.h>
#include <gst/ef/gstef.h>

#include <cmath>

#include "efconvert/convert_params.hpp"
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

static Suite *transform_suite() {
  Suite *s = suite_create("transform_meta");
  TCase *tc = tcase_create("geometry");
  tcase_add_test(tc, test_letterbox_plans);
  tcase_add_loop_test(tc, test_odd_margins, 0, kOddMarginCount);
  tcase_add_test(tc, test_bad_crops);
  tcase_add_test(tc, test_every_direction_maps_corners);
  tcase_add_test(tc, test_meta_fields_and_copy);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(transform);
