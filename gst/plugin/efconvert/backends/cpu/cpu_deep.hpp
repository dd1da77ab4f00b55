// SPDX-License-Identifier: LGPL-2.1-or-later
// Sources of more than 8 bits a sample (P010_10LE, I420_10LE, NV12_10LE40,
// ...): their crop is read into 16-bit planes holding each sample in the
// high bits (P010's own layout, which is read in place), scaled and turned
// as 16-bit planes, and made colour at the end by the exact matrix in
// float, applied to the samples as they are: nothing is rounded to 8 bits
// before the output's own rounding (once, in the writer), and a float
// tensor keeps what lies between two 8-bit levels. An 8-bit source's
// planes scaled for a float tensor are such planes too (each mean times
// 256: cpu_steps.hpp `fine`), colour by the same matrix.
#pragma once

#include <gst/video/video.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "cpu_image.hpp"
#include "efconvert/backends/deep_samples.hpp"

namespace ef::gst::cpu {

// How a deep source's samples lie.
enum class Deep {
  None,      // 8 bits
  Msb,       // 16-bit little-endian words, the sample in the high bits (P010, P012, P016)
  Lsb,       // 16-bit little-endian words, the sample in the low bits (I420_10LE, Y444_12LE, ...)
  Packed40,  // four 10-bit samples in five bytes, little-endian (NV12_10LE40)
};

// Y', Cb, Cr of 16-bit samples (a `bits`-bit sample in the high bits) to
// R', G', B' in 8-bit units (0..255): the matrix of Kr and Kb, and the
// range's offsets and scales at the source's depth, as GStreamer defines
// them (gst_video_color_range_offsets).
struct DeepMatrix {
  float y_scale = 0, y_offset = 0;  // Y' * 255 = sample * y_scale + y_offset
  float c_scale = 0, c_offset = 0;  // the same for Cb and Cr, about 0
  float rv = 0, gu = 0, gv = 0, bu = 0;
};

// GStreamer's matrix for `matrix` (BT.601's where it names none) and range.
DeepMatrix deep_matrix(GstVideoColorMatrix matrix, GstVideoColorRange range, int bits);

// Floats of scratch a row of `width` takes: whole cache lines.
inline size_t deep_row_floats(int width) {
  return (size_t(width) + 15) / 16 * 16;
}

// Row `r` of a deep image, `width` samples from its left edge, as 8-bit
// units clamped to 0..255, unrounded: R', G', B' into out[0..2] (4:4:4
// YUV, or an Rgb4 image's R, G, B planes), or with `gray` GRAY8's luma
// into out[0]: a Gray image's Y' as stored (range included; out[0] alone
// whatever `gray`), or the BT.601 full-range luma of YUV's or RGB's R'G'B'
// composed without clamping between, as GstVideoConverter gives them.
void deep_row(const Image &image, const DeepMatrix &m, int r, int width, bool gray,
              float *const out[3]);

// A row of a float tensor's three planes (NCHW) straight from a deep
// image's colour: planes R', G', B' (B', G', R' with `bgr`) as deep_row
// gives them, plane k's times scale[k] plus offset[k] in one fma, stored
// as float32 or float16 (to nearest even): what deep_row and
// TensorKernel's vector path give, to the bit, in one pass.
struct TensorPlanes {
  std::array<uint8_t *, 3> row{};
  bool bgr = false;
  std::array<float, 3> scale{}, offset{};
  bool half = false;
};

// Row `r`, `width` pixels, into `out`, for a caller that has checked the
// CPU has AVX2, FMA and F16C (TensorKernel's vector path); false, nothing
// written, for an image that is not YUV or a CPU that is not x86.
bool deep_planes(const Image &image, const DeepMatrix &m, int r, int width,
                 const TensorPlanes &out);

}  // namespace ef::gst::cpu
