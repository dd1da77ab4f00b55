// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend's pass, one output pixel at a time. Written once in the
// C++ that both clang's CUDA device compiler and the host compiler take:
// the kernel (cuda_kernel.cu, compiled to PTX at build time) runs it on the
// GPU, and the tests run the very same arithmetic on machines without one
// (cuda_plan.hpp run_on_host). No C library headers: the device compile has no C
// library.
//
// It computes what the GL pass computes for 8-bit 4:2:0 sources (NV12,
// I420), from the same numbers (pass_plan: geometry, colour rows, fill):
// along a source axis where an output pixel spans more than kBoxFrom source
// pixels, the exact mean of the source over the pixel's footprint (texels
// weighed by what the footprint covers of them), chroma over the same
// footprint in its own samples; elsewhere one bilinear sample at the
// footprint's centre.
//
// It writes images (bytes, packed or a plane a channel) and tensors
// (float32, float16, int8, uint8; a channel's values interleaved or in
// planes) alike: a pixel's values, each at its own place (a plane's
// offset, the pixel's step, the row's stride), from the same 8-bit levels,
// as the GL pass's tensor output makes them: a float from the level
// unrounded, an int8 or uint8 from it rounded half to even, by the
// formula every backend shares (tensor_formula.hpp).
#pragma once

#include "efconvert/tensors/tensor_formula.hpp"

#if defined(__CUDA__)
#define EF_CUDA_FN __attribute__((device)) inline
#else
#define EF_CUDA_FN inline
#endif

namespace ef::gst::cuda {

struct Pass {
  // The source planes: luma, and chroma as one plane of U, V pairs
  // (semi_planar) or as two planes. Addresses as the pass reads them
  // (device pointers in the kernel).
  unsigned long long y = 0, u = 0, v = 0;
  int y_stride = 0, u_stride = 0, v_stride = 0;
  int semi_planar = 1;
  int y_w = 0, y_h = 0;  // luma samples
  int c_w = 0, c_h = 0;  // chroma samples
  // The output: `values` values a pixel, value b of pixel (x, y) at
  // out + plane[b] + y * out_stride + x * step, each of `kind`.
  unsigned long long out = 0;
  int out_stride = 0, out_w = 0, out_h = 0, values = 0;
  long long plane[4] = {0, 0, 0, 0};
  int step = 0;
  int kind = 0;  // ValueKind
  // Tensors: value b's mean and standard deviation; int8 and uint8's
  // quantisation and range.
  double mean[4] = {0, 0, 0, 0}, stddev[4] = {1, 1, 1, 1};
  double quant_scale = 1;
  int zero_point = 0, low = 0, high = 255;
  int content[4] = {0, 0, 0, 0};  // x, y, w, h; the rest is border
  // Output point -> source point (pass_plan Geometry).
  float map_x[2] = {0, 0}, map_y[2] = {0, 0}, map_o[2] = {0, 0};
  float clamp[4] = {0, 0, 0, 0}, edges[4] = {0, 0, 0, 0};
  float half[2] = {0.5f, 0.5f};    // half the footprint, along source x and y
  float chroma[4] = {1, 1, 0, 0};  // chroma coordinate = luma * xy + zw
  int box[2] = {0, 0};             // each source axis: the box, or bilinear
  int nearest = 0;
  // Byte b of a content pixel: clamp(dot(coef[b], (Y, U, V, 1)) +
  // constant[b]) on [0, 1], Y, U, V on [0, 1].
  float coef[4][4] = {};
  float constant[4] = {0, 0, 0, 0};
  unsigned char fill[4] = {0, 0, 0, 255};  // the border's levels
};

enum ValueKind { kBytes = 0, kFloat32 = 1, kFloat16 = 2, kQuantised = 3 };

EF_CUDA_FN int clamp_index(int i, int n) {
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}

EF_CUDA_FN float clampf(float v, float lo, float hi) {
  return __builtin_fminf(__builtin_fmaxf(v, lo), hi);
}

// The texels along one axis and their weights: a box [lo, hi), or the two
// texels around a point (texel centres at k + 0.5).
struct Axis {
  int first = 0, count = 0;
  float lo = 0, hi = 0;  // the box; for a point, lo is the second texel's weight
  int box = 0;
};

EF_CUDA_FN Axis axis_of(float lo, float hi, float point, int box) {
  Axis a;
  a.box = box;
  if (box) {
    a.lo = lo;
    a.hi = hi;
    a.first = int(__builtin_floorf(lo));
    a.count = int(__builtin_ceilf(hi)) - a.first;
    if (a.count < 1)
      a.count = 1;
    return a;
  }
  const float t = point - 0.5f;
  const float k = __builtin_floorf(t);
  a.first = int(k);
  a.count = 2;
  a.lo = t - k;
  return a;
}

EF_CUDA_FN float weight(const Axis &a, int i) {
  if (!a.box)
    return i == 0 ? 1.0f - a.lo : a.lo;
  const float k = float(a.first + i);
  const float w = __builtin_fminf(a.hi, k + 1.0f) - __builtin_fmaxf(a.lo, k);
  return w > 0.0f ? w : 0.0f;
}

// The weighted mean over ax x ay of `channels` interleaved samples (1, or
// 2 for a U, V plane) of a plane of w x h samples; beyond its edges the
// edge sample stands, as a clamped texture fetch gives it. Summed a row at
// a time, as the GL pass sums.
EF_CUDA_FN void plane_mean(unsigned long long plane, int stride, int w, int h, int channels,
                           const Axis &ax, const Axis &ay, float *mean) {
  float sum0 = 0.0f, sum1 = 0.0f, total = 0.0f;
  for (int j = 0; j < ay.count; ++j) {
    const float wy = weight(ay, j);
    if (wy <= 0.0f)
      continue;
    const unsigned char *row = reinterpret_cast<const unsigned char *>(plane) +
                               (long long)clamp_index(ay.first + j, h) * (long long)stride;
    float row0 = 0.0f, row1 = 0.0f, row_weight = 0.0f;
    for (int i = 0; i < ax.count; ++i) {
      const float wx = weight(ax, i);
      if (wx <= 0.0f)
        continue;
      const unsigned char *s = row + clamp_index(ax.first + i, w) * channels;
      row0 += wx * float(s[0]);
      if (channels == 2)
        row1 += wx * float(s[1]);
      row_weight += wx;
    }
    sum0 += wy * row0;
    sum1 += wy * row1;
    total += wy * row_weight;
  }
  const float scale = total > 0.0f ? 1.0f / (255.0f * total) : 0.0f;
  mean[0] = sum0 * scale;
  mean[1] = sum1 * scale;
}

// Y, U, V (each on [0, 1]) at output pixel centre (cx, cy).
EF_CUDA_FN void source_at(const Pass &s, float cx, float cy, float *yuv) {
  const float c0 = s.map_x[0] * cx + s.map_y[0] * cy + s.map_o[0];
  const float c1 = s.map_x[1] * cx + s.map_y[1] * cy + s.map_o[1];
  float p0 = clampf(c0, s.clamp[0], s.clamp[2]);
  float p1 = clampf(c1, s.clamp[1], s.clamp[3]);
  if (s.nearest) {
    p0 = __builtin_floorf(p0) + 0.5f;
    p1 = __builtin_floorf(p1) + 0.5f;
  }
  const float lo0 = __builtin_fmaxf(c0 - s.half[0], s.edges[0]);
  const float hi0 = __builtin_fminf(c0 + s.half[0], s.edges[2]);
  const float lo1 = __builtin_fmaxf(c1 - s.half[1], s.edges[1]);
  const float hi1 = __builtin_fminf(c1 + s.half[1], s.edges[3]);
  float m[2];
  plane_mean(s.y, s.y_stride, s.y_w, s.y_h, 1, axis_of(lo0, hi0, p0, s.box[0]),
             axis_of(lo1, hi1, p1, s.box[1]), m);
  yuv[0] = m[0];
  // Chroma over the same footprint (or at the same point) in its own
  // samples.
  const Axis cx_axis = axis_of(lo0 * s.chroma[0] + s.chroma[2], hi0 * s.chroma[0] + s.chroma[2],
                               p0 * s.chroma[0] + s.chroma[2], s.box[0]);
  const Axis cy_axis = axis_of(lo1 * s.chroma[1] + s.chroma[3], hi1 * s.chroma[1] + s.chroma[3],
                               p1 * s.chroma[1] + s.chroma[3], s.box[1]);
  if (s.semi_planar) {
    plane_mean(s.u, s.u_stride, s.c_w, s.c_h, 2, cx_axis, cy_axis, m);
    yuv[1] = m[0];
    yuv[2] = m[1];
  } else {
    plane_mean(s.u, s.u_stride, s.c_w, s.c_h, 1, cx_axis, cy_axis, m);
    yuv[1] = m[0];
    plane_mean(s.v, s.v_stride, s.c_w, s.c_h, 1, cx_axis, cy_axis, m);
    yuv[2] = m[0];
  }
}

// Value b of a pixel at `at`, from its 8-bit level (unrounded, on
// [0, 255]).
EF_CUDA_FN void store(const Pass &s, unsigned char *at, int b, float level) {
  if (s.kind == kBytes) {
    *at = (unsigned char)(int)(level + 0.5f);
  } else if (s.kind == kQuantised) {
    const double v =
        tensor_formula::normalised(double(__builtin_rintf(level)), s.mean[b], s.stddev[b]);
    *at = (unsigned char)tensor_formula::quantised(v, s.quant_scale, s.zero_point, s.low, s.high);
  } else {
    const float v = (level - float(s.mean[b])) / float(s.stddev[b]);
    if (s.kind == kFloat32)
      *reinterpret_cast<float *>(at) = v;
    else
      *reinterpret_cast<unsigned short *>(at) = tensor_formula::half_bits(v);
  }
}

// Writes output pixel (x, y): the border's levels, or the source's
// converted.
EF_CUDA_FN void write_pixel(const Pass &s, int x, int y) {
  unsigned char *out = reinterpret_cast<unsigned char *>(s.out) +
                       (long long)y * (long long)s.out_stride + (long long)x * s.step;
  if (x < s.content[0] || y < s.content[1] || x >= s.content[0] + s.content[2] ||
      y >= s.content[1] + s.content[3]) {
    for (int b = 0; b < s.values; ++b)
      store(s, out + s.plane[b], b, float(s.fill[b]));
    return;
  }
  float yuv[3];
  source_at(s, float(x) + 0.5f, float(y) + 0.5f, yuv);
  for (int b = 0; b < s.values; ++b) {
    const float v = s.coef[b][0] * yuv[0] + s.coef[b][1] * yuv[1] + s.coef[b][2] * yuv[2] +
                    s.coef[b][3] + s.constant[b];
    store(s, out + s.plane[b], b, clampf(v, 0.0f, 1.0f) * 255.0f);
  }
}

}  // namespace ef::gst::cuda
