// SPDX-License-Identifier: LGPL-2.1-or-later
// Letterboxes whose margin is odd, and where the picture must lie in them.
// The rule (docs/ARCHITECTURE.md, efconvert): centred, the odd pixel of the
// margin on the right or at the bottom, so the first content column or row
// is floor(margin / 2); the letterbox() of YOLOv5 and Ultralytics puts it
// there too (top = round(dh - 0.1), bottom = round(dh + 0.1)). Each
// rectangle below is worked out by hand in its comment, not taken from
// plan_conversion(), so a rounding the other way fails.
#pragma once

#include <gst/video/video.h>

namespace ef::test {

struct OddMargin {
  guint in_w, in_h;
  GstVideoOrientationMethod direction;
  guint out_w, out_h;
  GstVideoRectangle content;  // where the picture must lie
  // The input points (pixel edges) that the content's top-left and
  // bottom-right corners map back to.
  double first_x, first_y, last_x, last_y;
};

inline constexpr OddMargin kOddMargins[] = {
    // scale min(640/640, 361/480) = 361/480; width 640 * 361/480 = 481.33 ->
    // 481; margin 640 - 481 = 159: 79 left, 80 right.
    {640, 480, GST_VIDEO_ORIENTATION_IDENTITY, 640, 361, {79, 0, 481, 361}, 0, 0, 640, 480},
    // The same turned on its side: margin 159 rows, 79 above, 80 below.
    {480, 640, GST_VIDEO_ORIENTATION_IDENTITY, 361, 640, {0, 79, 361, 481}, 0, 0, 480, 640},
    // scale min(640/1920, 641/1080) = 1/3; 640x360; margin 281: 140 above,
    // 141 below.
    {1920, 1080, GST_VIDEO_ORIENTATION_IDENTITY, 640, 641, {0, 140, 640, 360}, 0, 0, 1920, 1080},
    // scale min(4/3, 4/1) = 4/3; 4x1 (1.33 rounds to 1); margin 3: 1 above,
    // 2 below.
    {3, 1, GST_VIDEO_ORIENTATION_IDENTITY, 4, 4, {0, 1, 4, 1}, 0, 0, 3, 1},
    // A quarter turn clockwise: the 480x640 input is 640x480 turned, so as
    // the first case; the output's top-left is the input's bottom-left.
    {480, 640, GST_VIDEO_ORIENTATION_90R, 640, 361, {79, 0, 481, 361}, 0, 640, 480, 0},
};

inline constexpr guint kOddMarginCount = G_N_ELEMENTS(kOddMargins);

// Converts a flat RGBA frame of case `c` to RGB through `efconvert
// backend=<backend>` with a fill colour far from the frame's: every output
// pixel outside c.content must be the fill exactly, every one inside the
// frame's colour (within `tolerance`); the transform meta and the
// letterbox-x/-y properties must say c.content, and the meta must map its
// corners to the input's.
void check_odd_margin(const char *backend, const OddMargin &c, int tolerance);

}  // namespace ef::test
