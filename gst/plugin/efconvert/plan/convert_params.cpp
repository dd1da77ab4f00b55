// SPDX-License-Identifier: LGPL-2.1-or-later
#include "convert_params.hpp"

#include <gst/ef/gsteftransformmeta.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <string>

namespace ef::gst {

bool direction_swaps_axes(GstVideoOrientationMethod direction) {
  switch (direction) {
    case GST_VIDEO_ORIENTATION_90R:
    case GST_VIDEO_ORIENTATION_90L:
    case GST_VIDEO_ORIENTATION_UL_LR:
    case GST_VIDEO_ORIENTATION_UR_LL:
      return true;
    default:
      return false;
  }
}

Result<ConvertParams> plan_conversion(guint in_w, guint in_h, GstVideoRectangle crop, guint out_w,
                                      guint out_h, bool letterbox,
                                      GstVideoOrientationMethod direction) {
  if (crop.w == 0 && crop.h == 0)
    crop = {0, 0, gint(in_w), gint(in_h)};
  if (crop.w <= 0 || crop.h <= 0)
    return Error{EINVAL, "crop of " + std::to_string(crop.w) + "x" + std::to_string(crop.h) +
                             " has no pixels"};
  if (crop.x < 0 || crop.y < 0 || guint(crop.x + crop.w) > in_w || guint(crop.y + crop.h) > in_h)
    return Error{EINVAL, "crop " + std::to_string(crop.w) + "x" + std::to_string(crop.h) + "+" +
                             std::to_string(crop.x) + "+" + std::to_string(crop.y) +
                             " lies outside the " + std::to_string(in_w) + "x" +
                             std::to_string(in_h) + " frame"};
  if (out_w == 0 || out_h == 0)
    return Error{EINVAL, "output has no pixels"};
  ConvertParams p;
  p.crop = crop;
  p.direction = direction;
  const bool swap = direction_swaps_axes(direction);
  const double turned_w = swap ? crop.h : crop.w;
  const double turned_h = swap ? crop.w : crop.h;
  if (!letterbox) {
    p.content = {0, 0, gint(out_w), gint(out_h)};
    return p;
  }
  const double scale = std::min(out_w / turned_w, out_h / turned_h);
  const gint w = std::clamp(gint(std::lround(turned_w * scale)), 1, gint(out_w));
  const gint h = std::clamp(gint(std::lround(turned_h * scale)), 1, gint(out_h));
  p.content = {gint(out_w - w) / 2, gint(out_h - h) / 2, w, h};
  return p;
}

void map_output_to_input(const ConvertParams &p, double out_x, double out_y, double &in_x,
                         double &in_y) {
  gst_ef_transform_map_to_input(&p.crop, &p.content, p.direction, out_x, out_y, &in_x, &in_y);
}

}  // namespace ef::gst
