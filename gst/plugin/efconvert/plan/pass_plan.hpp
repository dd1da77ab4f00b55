// SPDX-License-Identifier: LGPL-2.1-or-later
// The pass's numbers for one conversion, computed on the CPU and read by
// every GPU backend's pass (the GL shader, the CUDA kernel; a Vulkan pass
// would take the same): how a source format's samples lie in its planes,
// how an output format's bytes are ordered, the colour transform, the
// border's bytes and the geometry of one conversion. Plain arithmetic on
// ConvertParams, so that every backend makes the same picture; what only
// one backend needs (GL's textures, texel spans, glClear's colour) stays
// in its folder (gl/gl_layout).
#pragma once

#include <gst/video/video.h>

#include <array>
#include <optional>

#include "convert_params.hpp"

namespace ef::gst::plan {

// How a pass reads the source planes (as textures on GL).
enum class SourceKind {
  Direct,      // one texture holding whole pixels: RGBA8, RGB8 or R8 (GRAY8)
  SemiPlanar,  // NV12: R8 luma + RG8 chroma
  Planar,      // I420: three R8 planes
  Packed422,   // YUY2/UYVY: RG8 of the frame's width, texel i = bytes 2i, 2i+1
};

struct SourceLayout {
  SourceKind kind = SourceKind::Direct;
  guint n_textures = 1;
  bool yuv = false;    // texture channels are Y, U, V (GRAY8: Y only)
  bool alpha = false;  // the texture's fourth channel is alpha (not x padding)
  // Which texture channel holds R, G and B (RGB sources).
  std::array<int, 3> rgb_channel{0, 1, 2};
  bool luma_first = true;  // Packed422: Y in the red channel (YUY2), else green (UYVY)
  // Deep sources (more than 8 bits a sample) are 16-bit textures (R16,
  // RG16), sampled as words / 65535: `code_scale` turns a texture value
  // back into the sample's code (P010's 10 bits in the high bits: 65535 /
  // 64; I420_10LE's in the low bits: 65535; bytes: 255), `bits` its depth.
  bool deep = false;
  double code_scale = 255.0;
  int bits = 8;
  // The format whose planes the textures hold: the input's, but
  // NV12_10LE40's samples are unpacked into P010_10LE's on upload.
  GstVideoFormat texture_format = GST_VIDEO_FORMAT_UNKNOWN;
};

std::optional<SourceLayout> source_layout(GstVideoFormat format);

// A plane of the output: which colour channel (0..3 = R, G, B, A; -1 =
// padding, written 0xff) goes into each byte of a pixel.
struct OutputPlane {
  guint bytes_per_pixel = 1;
  std::array<int, 4> byte_channel{-1, -1, -1, -1};
};

struct OutputLayout {
  guint n_planes = 1;
  std::array<OutputPlane, 3> planes{};
  bool gray = false;    // GRAY8: one byte of luma
  bool pixels = false;  // one RGBA8 texel a pixel: render_pixels can write it
};

std::optional<OutputLayout> output_layout(GstVideoFormat format);

// rgb = matrix * sample + offset, where sample holds the texture channels
// in [0, 1] (Y, U, V or the texture's own channel order). For GRAY8 outputs
// every row gives the luma.
struct ColourTransform {
  std::array<std::array<float, 3>, 3> rows{};
  std::array<float, 3> offset{};
};

ColourTransform colour_transform(const SourceLayout &source, const GstVideoInfo &in,
                                 const ConvertParams &params, bool gray_out);

// What the shader writes for byte b of a pixel of one output plane:
// clamp(dot(coef[b], sample) + constant[b]), sample = (c0, c1, c2, alpha).
// Colour matrix, channel order, alpha and padding bytes all fold into it.
struct ByteRows {
  std::array<std::array<float, 4>, 4> coef{};
  std::array<float, 4> constant{};
};

ByteRows content_rows(const ColourTransform &colour, const OutputPlane &plane, bool source_alpha);

// The fill colour of params (R, G, B, A; for GRAY8 outputs the luma of the
// fill colour rounded to a byte) as the bytes of one output plane.
ByteRows fill_rows(const ConvertParams &params, const OutputPlane &plane, bool gray_out);

struct Geometry {
  // source point = map_x * out_x + map_y * out_y + map_o, in source pixels
  // (edges at integers), for an output point in output pixels.
  std::array<float, 2> map_x{}, map_y{}, map_o{};
  // Samples stay between the centres of the crop's edge pixels, so nothing
  // outside the crop bleeds in (GstVideoConverter clamps the same).
  std::array<float, 4> clamp{};
  // Nearest by method, or because the content is the crop at 1:1: bilinear
  // would sample texel centres anyway, and texelFetch is exact there.
  bool nearest = false;
  // Source pixels an output pixel spans along source x and y (the map may
  // turn: output x then runs along source y).
  std::array<double, 2> footprint{1, 1};
  // The crop's edges in source pixels (x0, y0, x1, y1): a box footprint
  // stays inside them.
  std::array<float, 4> edges{};
};

// Along a source axis where an output pixel spans more than kBoxFrom source
// pixels, the pass takes the exact mean of the source over the output
// pixel's footprint, luma and chroma alike: a box whose edges weigh the
// texels they cut by the part they cover, as the CPU backend's box reduces
// and whatever the reduction (a fixed set of taps misses most of a 320:1
// footprint). Below it one bilinear sample at the footprint's centre,
// which a box would hardly change.
inline constexpr double kBoxFrom = 1.5;

inline bool takes_box(double footprint) {
  return footprint > kBoxFrom;
}

Geometry plan_geometry(const ConvertParams &params);

// Chroma sample spacing and siting for the shader: chroma coordinate =
// luma coordinate * xy + zw, per axis.
std::array<float, 4> chroma_siting(const GstVideoInfo &in);

}  // namespace ef::gst::plan
