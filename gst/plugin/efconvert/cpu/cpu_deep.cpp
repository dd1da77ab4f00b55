// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_deep.hpp"

#include <algorithm>

#include "cpu_vectorize.hpp"

namespace ef::gst::cpu {
namespace {

// GRAY8's weights (its colorimetry is full-range BT.601).
constexpr float kGray[3] = {0.299f, 0.587f, 0.114f};

inline float clamp255(float v) {
  return std::clamp(v, 0.0f, 255.0f);
}

const uint16_t *samples(const Plane &p, int r) {
  return reinterpret_cast<const uint16_t *>(p.row(r));
}

}  // namespace

DeepMatrix deep_matrix(GstVideoColorMatrix matrix, GstVideoColorRange range, int bits) {
  double kr, kb;
  if (!gst_video_color_matrix_get_Kr_Kb(matrix, &kr, &kb))
    gst_video_color_matrix_get_Kr_Kb(GST_VIDEO_COLOR_MATRIX_BT601, &kr, &kb);
  const double kg = 1 - kr - kb;
  // The range's offsets and scales at `bits` (gst_video_color_range_offsets).
  const bool full = range == GST_VIDEO_COLOR_RANGE_0_255;
  const double depth = double(1 << (bits - 8));
  const double y_off = full ? 0 : 16 * depth, c_off = full ? double(1 << (bits - 1)) : 128 * depth;
  const double y_range = full ? (1 << bits) - 1 : 219 * depth;
  const double c_range = full ? (1 << bits) - 1 : 224 * depth;
  // A sample in the high bits is the code value times 2^(16 - bits).
  const double word = double(1 << (16 - bits));
  DeepMatrix m;
  m.y_scale = float(255 / (y_range * word));
  m.y_offset = float(-255 * y_off / y_range);
  m.c_scale = float(255 / (c_range * word));
  m.c_offset = float(-255 * c_off / c_range);
  m.rv = float(2 * (1 - kr));
  m.bu = float(2 * (1 - kb));
  m.gu = float(-2 * kb * (1 - kb) / kg);
  m.gv = float(-2 * kr * (1 - kr) / kg);
  return m;
}

EF_VECTORIZE void deep_row(const Image &image, const DeepMatrix &matrix, int r, int width,
                           bool gray, float *const out[3]) {
  const DeepMatrix m = matrix;  // a copy no store can alias: kept in registers
  const uint16_t *y = samples(image.planes[0], r);
  if (image.layout == Layout::Gray) {
    // Y' as stored: its high byte and what lies below it.
    for (int x = 0; x < width; ++x)
      out[0][x] = clamp255(float(y[x]) * (1.0f / 256));
    return;
  }
  const uint16_t *__restrict u = samples(image.planes[1], r);
  const uint16_t *__restrict v = samples(image.planes[2], r);
  float *__restrict const o0 = out[0];
  float *__restrict const o1 = out[1];
  float *__restrict const o2 = out[2];
  // Two loops, each one the compiler vectorizes: luma alone, or colour.
  if (gray) {
    for (int x = 0; x < width; ++x) {
      const float l = float(y[x]) * m.y_scale + m.y_offset;
      const float cb = float(u[x]) * m.c_scale + m.c_offset;
      const float cr = float(v[x]) * m.c_scale + m.c_offset;
      const float red = l + m.rv * cr, green = l + m.gu * cb + m.gv * cr, blue = l + m.bu * cb;
      o0[x] = clamp255(kGray[0] * red + kGray[1] * green + kGray[2] * blue);
    }
    return;
  }
  for (int x = 0; x < width; ++x) {
    const float l = float(y[x]) * m.y_scale + m.y_offset;
    const float cb = float(u[x]) * m.c_scale + m.c_offset;
    const float cr = float(v[x]) * m.c_scale + m.c_offset;
    o0[x] = clamp255(l + m.rv * cr);
    o1[x] = clamp255(l + m.gu * cb + m.gv * cr);
    o2[x] = clamp255(l + m.bu * cb);
  }
}

}  // namespace ef::gst::cpu
