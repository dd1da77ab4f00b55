// SPDX-License-Identifier: LGPL-2.1-or-later
// What one conversion does, decided once per caps/property change and shared
// by the CPU and GL backends: which source rectangle, where it lands in the
// output, how it is turned, scaled and coloured, and what fills the borders.
#pragma once

#include <gst/video/video.h>

#include <array>
#include <cstdint>

#include "ef/result.hpp"

namespace ef::gst {

enum class ScaleMethod { Bilinear, Nearest };

// A tensor's values from the 8-bit channel values x (0..255) the
// conversion makes, per channel of the tensor in its own order (BGR: blue
// first): float (x - mean) / stddev; int8 and uint8
// clamp(round(((x - mean) / stddev) / quant_scale) + zero_point).
struct TensorNorm {
  bool bgr = false;  // channel order: B, G, R (else R, G, B)
  std::array<double, 3> mean{0, 0, 0};
  std::array<double, 3> stddev{1, 1, 1};
  double quant_scale = 1.0;
  int zero_point = 0;
  bool operator==(const TensorNorm &) const = default;
};

struct ConvertParams {
  // The source rectangle, in source pixels (crop meta and the crop property).
  GstVideoRectangle crop{};
  // Where the (turned) crop lands in the output. With letterbox the aspect
  // ratio is kept and the rest of the output is border; without it the
  // content is the whole output.
  GstVideoRectangle content{};
  // Flips and quarter turns, applied to the crop before scaling.
  GstVideoOrientationMethod direction = GST_VIDEO_ORIENTATION_IDENTITY;
  ScaleMethod method = ScaleMethod::Bilinear;
  // Border colour, 8-bit R, G, B, A (from the fill-color property 0xAARRGGBB).
  std::array<uint8_t, 4> fill{0, 0, 0, 255};
  // The source's YUV matrix and range (from its caps' colorimetry). The
  // output is always full-range RGB (or its luma for GRAY8).
  GstVideoColorMatrix matrix = GST_VIDEO_COLOR_MATRIX_BT601;
  GstVideoColorRange range = GST_VIDEO_COLOR_RANGE_16_235;
  // Where the source's subsampled chroma sits (its caps' chroma-site);
  // unknown is taken as centred.
  GstVideoChromaSite chroma_site = GST_VIDEO_CHROMA_SITE_UNKNOWN;
  // Tensor outputs only.
  TensorNorm norm{};
  // The border rows may be left where the output memory holds them
  // already (the keep-borders property; cpu/cpu_border_tag.hpp).
  bool keep_borders = true;
};

// True for the four directions that swap width and height.
bool direction_swaps_axes(GstVideoOrientationMethod direction);

// Computes crop (clamped to nothing: an out-of-frame crop is an error),
// content and direction for a source of in_w x in_h, a crop rectangle
// (w == 0 or h == 0 means "the whole frame"), and an output of out_w x
// out_h. EINVAL for a crop of zero size after clipping, or outside the frame.
Result<ConvertParams> plan_conversion(guint in_w, guint in_h, GstVideoRectangle crop, guint out_w,
                                      guint out_h, bool letterbox,
                                      GstVideoOrientationMethod direction);

// Maps an output point back to source coordinates (the inverse of plan).
void map_output_to_input(const ConvertParams &params, double out_x, double out_y, double &in_x,
                         double &in_y);

}  // namespace ef::gst
