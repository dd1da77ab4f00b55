// SPDX-License-Identifier: LGPL-2.1-or-later
#include "odd_margins.hpp"

#include <gst/check/gstcheck.h>
#include <gst/ef/gstef.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "frames.hpp"
#include "harness.hpp"

namespace ef::test {

namespace {

constexpr guint32 kFrameRgba = 0xc08040ff;
constexpr guint8 kFill[3] = {0x10, 0x20, 0x30};  // fill-color=0xff102030

std::string describe(const OddMargin &c) {
  return std::to_string(c.in_w) + "x" + std::to_string(c.in_h) + " direction " +
         std::to_string(int(c.direction)) + " -> " + std::to_string(c.out_w) + "x" +
         std::to_string(c.out_h);
}

bool inside(const GstVideoRectangle &r, gint x, gint y) {
  return x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
}

// The first pixel of `f` on the wrong side of c.content, "" if none.
std::string misplaced_pixel(GstVideoFrame *f, const OddMargin &c, int tolerance) {
  const guint8 frame[3] = {guint8(kFrameRgba >> 24), guint8(kFrameRgba >> 16),
                           guint8(kFrameRgba >> 8)};
  for (gint y = 0; y < gint(c.out_h); ++y)
    for (gint x = 0; x < gint(c.out_w); ++x) {
      const guint8 *p = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(f, 0)) +
                        y * GST_VIDEO_FRAME_PLANE_STRIDE(f, 0) + x * 3;
      const bool is_fill = p[0] == kFill[0] && p[1] == kFill[1] && p[2] == kFill[2];
      bool is_frame = true;
      for (int i = 0; i < 3; ++i)
        is_frame = is_frame && std::abs(int(p[i]) - int(frame[i])) <= tolerance;
      const bool want_frame = inside(c.content, x, y);
      if (want_frame ? !is_frame : !is_fill)
        return "pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") is " +
               std::to_string(p[0]) + "," + std::to_string(p[1]) + "," + std::to_string(p[2]) +
               (want_frame ? ", not the picture" : ", not the fill");
    }
  return "";
}

void expect_maps(const GstEfTransformMeta *meta, const OddMargin &c, double u, double v,
                 double want_x, double want_y) {
  gdouble x, y;
  gst_ef_transform_meta_map_to_input(meta, u, v, &x, &y);
  fail_unless(std::fabs(x - want_x) < 1e-6 && std::fabs(y - want_y) < 1e-6,
              "%s: output (%g, %g) maps to input (%g, %g), want (%g, %g)", describe(c).c_str(), u,
              v, x, y, want_x, want_y);
}

}  // namespace

void check_odd_margin(const char *backend, const OddMargin &c, int tolerance) {
  GstVideoInfo in, out;
  gst_video_info_set_format(&in, GST_VIDEO_FORMAT_RGBA, c.in_w, c.in_h);
  gst_video_info_set_format(&out, GST_VIDEO_FORMAT_RGB, c.out_w, c.out_h);
  const std::string launch =
      std::string("efconvert name=conv fill-color=0xff102030 backend=") + backend +
      " video-direction=" + (c.direction == GST_VIDEO_ORIENTATION_90R ? "90r" : "identity");
  GstHarness *h = gst_harness_new_parse(launch.c_str());
  gst_harness_set_caps(h, caps_for(in), caps_for(out));
  fail_unless_equals_int(gst_harness_push(h, flat_rgba(in, kFrameRgba)), GST_FLOW_OK);
  GstBuffer *buf = gst_harness_pull(h);
  fail_unless(buf != nullptr, "%s: no output", describe(c).c_str());

  GstVideoFrame f;
  fail_unless(gst_video_frame_map(&f, &out, buf, GST_MAP_READ));
  const std::string bad = misplaced_pixel(&f, c, tolerance);
  gst_video_frame_unmap(&f);
  fail_unless(bad.empty(), "%s, backend %s, content %dx%d at (%d, %d): %s", describe(c).c_str(),
              backend, c.content.w, c.content.h, c.content.x, c.content.y, bad.c_str());

  const GstEfTransformMeta *meta = gst_buffer_get_ef_transform_meta(buf);
  fail_unless(meta != nullptr);
  const GstVideoRectangle &m = meta->content;
  fail_unless(m.x == c.content.x && m.y == c.content.y && m.w == c.content.w && m.h == c.content.h,
              "%s: meta content %dx%d at (%d, %d), want %dx%d at (%d, %d)", describe(c).c_str(),
              m.w, m.h, m.x, m.y, c.content.w, c.content.h, c.content.x, c.content.y);
  expect_maps(meta, c, c.content.x, c.content.y, c.first_x, c.first_y);
  expect_maps(meta, c, c.content.x + c.content.w, c.content.y + c.content.h, c.last_x, c.last_y);

  gint lx = -1, ly = -1;
  g_object_get(harness_element(h, "conv"), "letterbox-x", &lx, "letterbox-y", &ly, nullptr);
  fail_unless(lx == c.content.x && ly == c.content.y, "%s: letterbox-x/y %d, %d, want %d, %d",
              describe(c).c_str(), lx, ly, c.content.x, c.content.y);
  gst_buffer_unref(buf);
  gst_harness_teardown(h);
}

}  // namespace ef::test
