// SPDX-License-Identifier: LGPL-2.1-or-later
#include "box_reference.hpp"

#include <algorithm>
#include <cmath>

namespace ef::test {

namespace {

// One sample's share of an interval: sample `index` weighs `weight`.
struct Share {
  int index;
  double weight;
};

// The samples of an axis of n under [lo, hi) in the axis's own sample
// coordinates (sample k covers [k, k + 1)). Parts of the interval before
// the first or past the last sample count for that edge sample, as a
// clamped fetch reads it.
std::vector<Share> shares(double lo, double hi, int n) {
  std::vector<Share> out;
  const int first = int(std::floor(lo)), last = int(std::ceil(hi)) - 1;
  for (int k = first; k <= last; ++k) {
    const double w = std::min(hi, k + 1.0) - std::max(lo, double(k));
    if (w > 0)
      out.push_back({std::clamp(k, 0, n - 1), w});
  }
  return out;
}

// Component c of `src`: where its samples lie, and how a luma (frame)
// coordinate maps to its sample coordinates: x * scale + offset.
struct Plane {
  const guint8 *data;
  int stride, pstride, w, h;
  int depth, shift;  // bits of a sample, and where in its word (16-bit little-endian words past 8)
  double scale_x, scale_y, offset_x, offset_y;

  Plane(const GstVideoFrame &src, guint c) {
    const GstVideoInfo &info = src.info;
    data = static_cast<const guint8 *>(GST_VIDEO_FRAME_COMP_DATA(&src, c));
    // GStreamer 1.22 gives the V of P010 and its kin (U, V pairs of words)
    // an offset of 1, a byte into U's word: it is the next word.
    if (GST_VIDEO_FORMAT_INFO_DEPTH(info.finfo, c) > 8 && c == 2 &&
        GST_VIDEO_FORMAT_INFO_PLANE(info.finfo, 1) == GST_VIDEO_FORMAT_INFO_PLANE(info.finfo, 2))
      data = static_cast<const guint8 *>(GST_VIDEO_FRAME_COMP_DATA(&src, 1)) + 2;
    stride = GST_VIDEO_FRAME_COMP_STRIDE(&src, c);
    pstride = GST_VIDEO_FRAME_COMP_PSTRIDE(&src, c);
    w = GST_VIDEO_FRAME_COMP_WIDTH(&src, c);
    h = GST_VIDEO_FRAME_COMP_HEIGHT(&src, c);
    depth = int(GST_VIDEO_FORMAT_INFO_DEPTH(info.finfo, c));
    shift = int(GST_VIDEO_FORMAT_INFO_SHIFT(info.finfo, c));
    const guint ws = GST_VIDEO_FORMAT_INFO_W_SUB(info.finfo, c);
    const guint hs = GST_VIDEO_FORMAT_INFO_H_SUB(info.finfo, c);
    scale_x = 1.0 / double(1u << ws);
    scale_y = 1.0 / double(1u << hs);
    // A cosited sample sits on its first luma pixel's centre, a centred
    // one between its pixels: its area starts half a luma pixel earlier.
    const bool h_cosited = ws && (info.chroma_site & GST_VIDEO_CHROMA_SITE_H_COSITED);
    const bool v_cosited = hs && (info.chroma_site & GST_VIDEO_CHROMA_SITE_V_COSITED);
    offset_x = h_cosited ? 0.5 * scale_x : 0.0;
    offset_y = v_cosited ? 0.5 * scale_y : 0.0;
  }

  // The sample's code value.
  double at(int x, int y) const {
    const guint8 *p = data + size_t(y) * stride + size_t(x) * pstride;
    if (depth <= 8)
      return *p;
    return double(guint(p[0] | p[1] << 8) >> shift & ((1u << depth) - 1));
  }

  // The mean over the luma rectangle [x0, x1) x [y0, y1).
  double mean(double x0, double x1, double y0, double y1) const {
    const auto xs = shares(x0 * scale_x + offset_x, x1 * scale_x + offset_x, w);
    const auto ys = shares(y0 * scale_y + offset_y, y1 * scale_y + offset_y, h);
    double sum = 0, total = 0;
    for (const Share &sy : ys)
      for (const Share &sx : xs) {
        sum += sx.weight * sy.weight * at(sx.index, sy.index);
        total += sx.weight * sy.weight;
      }
    return sum / total;
  }
};

// Y'CbCr code values at the source's depth -> R'G'B' on the 8-bit scale,
// from Kr, Kb and the range's offsets and scales at that depth
// (GStreamer's colorimetry).
BoxRgba yuv_to_rgb(const GstVideoInfo &info, double y, double u, double v, double a) {
  gint off[GST_VIDEO_MAX_COMPONENTS], scale[GST_VIDEO_MAX_COMPONENTS];
  gst_video_color_range_offsets(info.colorimetry.range, info.finfo, off, scale);
  const double luma = (y - off[0]) / scale[0];
  if (!GST_VIDEO_INFO_IS_YUV(&info))  // GRAY8
    return {255 * luma, 255 * luma, 255 * luma, a};
  double kr, kb;
  if (!gst_video_color_matrix_get_Kr_Kb(info.colorimetry.matrix, &kr, &kb))
    gst_video_color_matrix_get_Kr_Kb(GST_VIDEO_COLOR_MATRIX_BT601, &kr, &kb);
  const double pb = (u - off[1]) / scale[1], pr = (v - off[2]) / scale[2];
  const double r = luma + 2 * (1 - kr) * pr, b = luma + 2 * (1 - kb) * pb;
  const double g = (luma - kr * r - kb * b) / (1 - kr - kb);
  return {255 * r, 255 * g, 255 * b, a};
}

}  // namespace

BoxImage box_reference(const GstVideoFrame &src, const GstVideoRectangle &crop, int w, int h) {
  const GstVideoInfo &info = src.info;
  const guint n = GST_VIDEO_INFO_N_COMPONENTS(&info);
  std::vector<Plane> planes;
  for (guint c = 0; c < n; ++c)
    planes.emplace_back(src, c);
  BoxImage image{w, h, std::vector<BoxRgba>(size_t(w) * size_t(h))};
  const double sx = double(crop.w) / w, sy = double(crop.h) / h;
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) {
      const double x0 = crop.x + i * sx, x1 = crop.x + (i + 1) * sx;
      const double y0 = crop.y + j * sy, y1 = crop.y + (j + 1) * sy;
      double v[4] = {0, 0, 0, 255};
      for (guint c = 0; c < n; ++c)
        v[c] = planes[c].mean(x0, x1, y0, y1);
      BoxRgba &out = image.px[size_t(j) * size_t(w) + size_t(i)];
      if (GST_VIDEO_INFO_IS_RGB(&info))
        out = {v[0], v[1], v[2], v[3]};
      else
        out = yuv_to_rgb(info, v[0], v[1], v[2], v[3]);
    }
  return image;
}

void unturn(GstVideoOrientationMethod d, int x, int y, int cw, int ch, int &ux, int &uy) {
  switch (d) {
    case GST_VIDEO_ORIENTATION_90R:
      ux = y, uy = cw - 1 - x;
      break;
    case GST_VIDEO_ORIENTATION_180:
      ux = cw - 1 - x, uy = ch - 1 - y;
      break;
    case GST_VIDEO_ORIENTATION_90L:
      ux = ch - 1 - y, uy = x;
      break;
    case GST_VIDEO_ORIENTATION_HORIZ:
      ux = cw - 1 - x, uy = y;
      break;
    case GST_VIDEO_ORIENTATION_VERT:
      ux = x, uy = ch - 1 - y;
      break;
    case GST_VIDEO_ORIENTATION_UL_LR:
      ux = y, uy = x;
      break;
    case GST_VIDEO_ORIENTATION_UR_LL:
      ux = ch - 1 - y, uy = cw - 1 - x;
      break;
    default:
      ux = x, uy = y;
      break;
  }
}

}  // namespace ef::test
