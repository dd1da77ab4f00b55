// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_layout.hpp"

#include <cmath>

namespace ef::gst::gl {

GstVideoInfo texture_info(const GstVideoInfo &in) {
  const auto source = source_layout(GST_VIDEO_INFO_FORMAT(&in));
  if (source && source->texture_format != GST_VIDEO_FORMAT_UNKNOWN) {
    GstVideoInfo unpacked;
    gst_video_info_set_format(&unpacked, source->texture_format, GST_VIDEO_INFO_WIDTH(&in),
                              GST_VIDEO_INFO_HEIGHT(&in));
    unpacked.colorimetry = in.colorimetry;
    unpacked.chroma_site = in.chroma_site;
    unpacked.fps_n = in.fps_n, unpacked.fps_d = in.fps_d;
    return unpacked;
  }
  GstVideoInfo wide = in;
  if (source && source->kind == SourceKind::Packed422 && GST_VIDEO_INFO_WIDTH(&in) % 2 == 1)
    wide.width += 1;  // strides, offsets and size stay: the pair was always there
  return wide;
}

OutputPlane planes_as_one(const OutputLayout &output) {
  OutputPlane joint{output.n_planes, {-1, -1, -1, -1}};
  for (guint p = 0; p < output.n_planes; ++p)
    joint.byte_channel[p] = output.planes[p].byte_channel[0];
  return joint;
}

std::optional<std::array<float, 4>> clear_colour(const ByteRows &fill, guint bytes_per_pixel,
                                                 guint texel_bytes) {
  const auto &v = fill.constant;
  std::array<float, 4> colour{};
  for (guint k = 0; k < 4; ++k)
    colour[k] = v[k % bytes_per_pixel];
  // Texels of whole pixels repeat one pattern; otherwise a texel's bytes
  // shift through the pixel's from texel to texel.
  if (texel_bytes % bytes_per_pixel == 0)
    return colour;
  for (guint b = 1; b < bytes_per_pixel; ++b)
    if (v[b] != v[0])
      return std::nullopt;
  return std::array<float, 4>{v[0], v[0], v[0], v[0]};
}

std::vector<TexelSpan> texel_spans(gint begin, gint end, guint texel_bytes) {
  const gint t = gint(texel_bytes);
  auto part = [&](gint texel) {
    TexelSpan s{texel, 1, {}};
    for (gint k = 0; k < 4; ++k)
      s.bytes[k] = k < t && texel * t + k >= begin && texel * t + k < end;
    return s;
  };
  std::vector<TexelSpan> spans;
  if (end <= begin)
    return spans;
  const gint whole_begin = (begin + t - 1) / t, whole_end = end / t;
  if (whole_begin > whole_end) {  // both edges inside one texel
    spans.push_back(part(begin / t));
    return spans;
  }
  if (begin % t)
    spans.push_back(part(whole_begin - 1));
  if (whole_end > whole_begin)
    spans.push_back({whole_begin, whole_end - whole_begin, {true, true, true, true}});
  if (end % t)
    spans.push_back(part(whole_end));
  return spans;
}

guint box_samples(double texels) {
  // An interval `texels` long cuts at most ceil(texels) + 1 of them, taken
  // two a sample from the first. The slack keeps a whole footprint that
  // float rounding stretches by an ulp from taking a sample more for a
  // texel it covers by nothing.
  const double cut = std::ceil(texels - 1e-4) + 1;
  return guint(std::ceil(cut / 2));
}

}  // namespace ef::gst::gl
