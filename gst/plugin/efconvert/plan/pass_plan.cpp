// SPDX-License-Identifier: LGPL-2.1-or-later
#include "pass_plan.hpp"

#include <cmath>

namespace ef::gst::plan {

namespace {

SourceLayout rgb_source(std::array<int, 3> rgb_channel, bool alpha) {
  SourceLayout s;
  s.rgb_channel = rgb_channel;
  s.alpha = alpha;
  return s;
}

SourceLayout yuv_source(SourceKind kind, guint n_textures, bool luma_first = true) {
  SourceLayout s;
  s.kind = kind;
  s.n_textures = n_textures;
  s.yuv = true;
  s.luma_first = luma_first;
  return s;
}

// 16-bit textures of `bits`-bit samples, in the high bits (P010's) or not.
SourceLayout deep_source(SourceKind kind, int bits, bool high_bits,
                         GstVideoFormat texture_format = GST_VIDEO_FORMAT_UNKNOWN) {
  SourceLayout s = yuv_source(kind, kind == SourceKind::Planar ? 3 : 2);
  s.deep = true;
  s.bits = bits;
  s.code_scale = 65535.0 / (high_bits ? double(1 << (16 - bits)) : 1.0);
  s.texture_format = texture_format;
  return s;
}

OutputLayout packed_output(guint bytes_per_pixel, std::array<int, 4> byte_channel) {
  OutputLayout o;
  o.planes[0] = {bytes_per_pixel, byte_channel};
  o.pixels = bytes_per_pixel == 4;
  return o;
}

OutputLayout planar_output(std::array<int, 3> plane_channel) {
  OutputLayout o;
  o.n_planes = 3;
  for (guint p = 0; p < 3; ++p)
    o.planes[p] = {1, {plane_channel[p], -1, -1, -1}};
  return o;
}

constexpr std::array<int, 3> kRgb{0, 1, 2};
constexpr std::array<int, 3> kBgr{2, 1, 0};

// Kr and Kb of a YUV matrix; BT.601's where it names none.
void luma_coefficients(GstVideoColorMatrix matrix, double &kr, double &kb) {
  if (!gst_video_color_matrix_get_Kr_Kb(matrix, &kr, &kb))
    gst_video_color_matrix_get_Kr_Kb(GST_VIDEO_COLOR_MATRIX_BT601, &kr, &kb);
}

// GRAY8's colorimetry (GStreamer's default for it, 1:4:0:0): full-range
// BT.601 luma, whatever the source's matrix.
constexpr double kGrayWeights[3] = {0.299, 0.587, 0.114};

ColourTransform from_rows(const double (&rows)[3][3], const double (&offset)[3]) {
  ColourTransform t;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c)
      t.rows[r][c] = float(rows[r][c]);
    t.offset[r] = float(offset[r]);
  }
  return t;
}

// Every row the GRAY8 luma of `rgb`'s R'G'B', composed without clamping
// between, as GstVideoConverter composes its matrices.
ColourTransform luma_of(const ColourTransform &rgb) {
  ColourTransform t;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 3; ++k)
        t.rows[r][c] += float(kGrayWeights[k]) * rgb.rows[k][c];
    for (int k = 0; k < 3; ++k)
      t.offset[r] += float(kGrayWeights[k]) * rgb.offset[k];
  }
  return t;
}

// Y'CbCr (texture values in [0, 1]) -> R'G'B', the matrix GstVideoConverter
// builds from Kr, Kb and the range's offsets and scales (at the source's
// depth); for GRAY8 outputs every row is the luma.
ColourTransform yuv_transform(const SourceLayout &source, const GstVideoInfo &in,
                              const ConvertParams &params, bool gray_out) {
  gint off[GST_VIDEO_MAX_COMPONENTS], scale[GST_VIDEO_MAX_COMPONENTS];
  gst_video_color_range_offsets(params.range, in.finfo, off, scale);
  double kr, kb;
  luma_coefficients(params.matrix, kr, kb);
  const double kg = 1.0 - kr - kb;
  // Texture value t is code / code_scale (a byte / 255, P010's word /
  // 65535): Y' = (code_scale t - off) / scale, unrounded whatever the depth.
  const double full = source.code_scale;
  const double ys = full / scale[0], cs = full / scale[1];
  const double yo = -off[0] / double(scale[0]), co = -off[1] / double(scale[1]);
  const double rv = 2 * (1 - kr), bu = 2 * (1 - kb);
  const double gu = -2 * kb * (1 - kb) / kg, gv = -2 * kr * (1 - kr) / kg;
  if (!GST_VIDEO_FORMAT_INFO_IS_YUV(in.finfo)) {
    // GRAY8 sources carry luma only.
    const double rows[3][3] = {{ys, 0, 0}, {ys, 0, 0}, {ys, 0, 0}};
    const double offset[3] = {yo, yo, yo};
    return from_rows(rows, offset);
  }
  if (gray_out && params.matrix == GST_VIDEO_COLOR_MATRIX_BT601) {
    // GRAY8's own matrix: GstVideoConverter, and so the CPU backend, copy
    // Y' as stored (its range included; a deep sample's top 8 bits and
    // what lies below them); so do we, to match.
    const double y = full / (double(1 << (source.bits - 8)) * 255.0);
    const double rows[3][3] = {{y, 0, 0}, {y, 0, 0}, {y, 0, 0}};
    const double offset[3] = {0, 0, 0};
    return from_rows(rows, offset);
  }
  const double rows[3][3] = {{ys, 0, rv * cs}, {ys, gu * cs, gv * cs}, {ys, bu * cs, 0}};
  const double offset[3] = {yo + rv * co, yo + (gu + gv) * co, yo + bu * co};
  const ColourTransform rgb = from_rows(rows, offset);
  return gray_out ? luma_of(rgb) : rgb;
}

ColourTransform rgb_transform(const SourceLayout &source, bool gray_out) {
  double rows[3][3] = {};
  const double offset[3] = {0, 0, 0};
  for (int c = 0; c < 3; ++c)
    rows[c][source.rgb_channel[c]] = 1.0;
  const ColourTransform rgb = from_rows(rows, offset);
  return gray_out ? luma_of(rgb) : rgb;
}

}  // namespace

std::optional<SourceLayout> source_layout(GstVideoFormat format) {
  switch (format) {
    case GST_VIDEO_FORMAT_NV12:
      return yuv_source(SourceKind::SemiPlanar, 2);
    case GST_VIDEO_FORMAT_I420:
      return yuv_source(SourceKind::Planar, 3);
    case GST_VIDEO_FORMAT_YUY2:
      return yuv_source(SourceKind::Packed422, 1, true);
    case GST_VIDEO_FORMAT_UYVY:
      return yuv_source(SourceKind::Packed422, 1, false);
    case GST_VIDEO_FORMAT_RGBA:
      return rgb_source(kRgb, true);
    case GST_VIDEO_FORMAT_BGRA:
      return rgb_source(kBgr, true);
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_RGB:
      return rgb_source(kRgb, false);
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_BGR:
      return rgb_source(kBgr, false);
    case GST_VIDEO_FORMAT_GRAY8:
      return yuv_source(SourceKind::Direct, 1);  // Y alone, in the red channel
    // Deep sources: R16 luma, RG16 or R16 chroma.
    case GST_VIDEO_FORMAT_P010_10LE:
      return deep_source(SourceKind::SemiPlanar, 10, true);
    case GST_VIDEO_FORMAT_P012_LE:
      return deep_source(SourceKind::SemiPlanar, 12, true);
    case GST_VIDEO_FORMAT_P016_LE:
      return deep_source(SourceKind::SemiPlanar, 16, true);
    case GST_VIDEO_FORMAT_NV12_10LE40:
      return deep_source(SourceKind::SemiPlanar, 10, true, GST_VIDEO_FORMAT_P010_10LE);
    case GST_VIDEO_FORMAT_I420_10LE:
    case GST_VIDEO_FORMAT_I422_10LE:
    case GST_VIDEO_FORMAT_Y444_10LE:
      return deep_source(SourceKind::Planar, 10, false);
    case GST_VIDEO_FORMAT_I420_12LE:
    case GST_VIDEO_FORMAT_I422_12LE:
    case GST_VIDEO_FORMAT_Y444_12LE:
      return deep_source(SourceKind::Planar, 12, false);
    case GST_VIDEO_FORMAT_Y444_16LE:
      return deep_source(SourceKind::Planar, 16, false);
    default:
      return std::nullopt;
  }
}

std::optional<OutputLayout> output_layout(GstVideoFormat format) {
  switch (format) {
    case GST_VIDEO_FORMAT_RGB:
      return packed_output(3, {0, 1, 2, -1});
    case GST_VIDEO_FORMAT_BGR:
      return packed_output(3, {2, 1, 0, -1});
    case GST_VIDEO_FORMAT_RGBA:
      return packed_output(4, {0, 1, 2, 3});
    case GST_VIDEO_FORMAT_BGRA:
      return packed_output(4, {2, 1, 0, 3});
    case GST_VIDEO_FORMAT_RGBx:
      return packed_output(4, {0, 1, 2, -1});
    case GST_VIDEO_FORMAT_BGRx:
      return packed_output(4, {2, 1, 0, -1});
    case GST_VIDEO_FORMAT_RGBP:
      return planar_output(kRgb);
    case GST_VIDEO_FORMAT_BGRP:
      return planar_output(kBgr);
    case GST_VIDEO_FORMAT_GRAY8: {
      OutputLayout o = packed_output(1, {0, -1, -1, -1});
      o.gray = true;
      return o;
    }
    default:
      return std::nullopt;
  }
}

ColourTransform colour_transform(const SourceLayout &source, const GstVideoInfo &in,
                                 const ConvertParams &params, bool gray_out) {
  return source.yuv ? yuv_transform(source, in, params, gray_out) : rgb_transform(source, gray_out);
}

ByteRows content_rows(const ColourTransform &colour, const OutputPlane &plane, bool source_alpha) {
  ByteRows rows;
  for (int b = 0; b < 4; ++b) {
    const int channel = plane.byte_channel[b];
    if (channel < 0 || (channel == 3 && !source_alpha)) {
      rows.constant[b] = 1.0f;  // padding, and the alpha of opaque sources
    } else if (channel == 3) {
      rows.coef[b][3] = 1.0f;
    } else {
      for (int c = 0; c < 3; ++c)
        rows.coef[b][c] = colour.rows[channel][c];
      rows.constant[b] = colour.offset[channel];
    }
  }
  return rows;
}

ByteRows fill_rows(const ConvertParams &params, const OutputPlane &plane, bool gray_out) {
  std::array<float, 4> colour;
  for (int c = 0; c < 4; ++c)
    colour[c] = params.fill[c] / 255.0f;
  if (gray_out) {
    const auto &f = params.fill;
    const double *w = kGrayWeights;
    // Rounded here so that the border is one exact byte, whatever the GPU's
    // rounding of a weighted sum.
    const long luma = std::lround(w[0] * f[0] + w[1] * f[1] + w[2] * f[2]);
    colour[0] = colour[1] = colour[2] = float(luma) / 255.0f;
  }
  ByteRows rows;
  for (int b = 0; b < 4; ++b) {
    const int channel = plane.byte_channel[b];
    rows.constant[b] = channel < 0 ? 1.0f : colour[channel];
  }
  return rows;
}

Geometry plan_geometry(const ConvertParams &params) {
  // The map is affine: three points give it, straight from the plan's own
  // inverse, so the shader cannot disagree with map_output_to_input.
  double o[2], x[2], y[2];
  map_output_to_input(params, 0, 0, o[0], o[1]);
  map_output_to_input(params, 1, 0, x[0], x[1]);
  map_output_to_input(params, 0, 1, y[0], y[1]);
  Geometry g;
  for (int i = 0; i < 2; ++i) {
    g.map_x[i] = float(x[i] - o[i]);
    g.map_y[i] = float(y[i] - o[i]);
    g.map_o[i] = float(o[i]);
  }
  const GstVideoRectangle &crop = params.crop;
  g.clamp = {crop.x + 0.5f, crop.y + 0.5f, crop.x + crop.w - 0.5f, crop.y + crop.h - 0.5f};
  // At 1:1 the map's coefficients are exactly 0 and +-1.
  const bool unscaled = std::fabs(g.map_x[0]) + std::fabs(g.map_x[1]) == 1.0f &&
                        std::fabs(g.map_y[0]) + std::fabs(g.map_y[1]) == 1.0f;
  g.nearest = params.method == ScaleMethod::Nearest || unscaled;
  // The output pixel's square maps to a rectangle along the source's axes
  // (the map only scales, flips and turns by quarters).
  g.footprint = {std::fabs(double(g.map_x[0])) + std::fabs(double(g.map_y[0])),
                 std::fabs(double(g.map_x[1])) + std::fabs(double(g.map_y[1]))};
  g.edges = {float(crop.x), float(crop.y), float(crop.x + crop.w), float(crop.y + crop.h)};
  return g;
}

std::array<float, 4> chroma_siting(const GstVideoInfo &in) {
  // Chroma sample k sits between luma pixels 2k and 2k+1, or on luma pixel
  // 2k when cosited: half a luma pixel further on.
  const guint w_sub = GST_VIDEO_FORMAT_INFO_W_SUB(in.finfo, 1);
  const guint h_sub = GST_VIDEO_FORMAT_INFO_H_SUB(in.finfo, 1);
  const bool h_cosited = w_sub && (in.chroma_site & GST_VIDEO_CHROMA_SITE_H_COSITED);
  const bool v_cosited = h_sub && (in.chroma_site & GST_VIDEO_CHROMA_SITE_V_COSITED);
  const float sx = 1.0f / float(1u << w_sub), sy = 1.0f / float(1u << h_sub);
  return {sx, sy, h_cosited ? 0.5f * sx : 0.0f, v_cosited ? 0.5f * sy : 0.0f};
}

}  // namespace ef::gst::plan
