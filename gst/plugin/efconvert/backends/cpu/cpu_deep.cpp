// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_deep.hpp"

#include <algorithm>

#include <cstring>

#include "cpu_simd.hpp"
#include "common/vectorize.hpp"

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

// R', G', B' planes of words (a widened 8-bit RGB image): each /256, or
// GRAY8's luma of them.
EF_VECTORIZE void rgb_row(const Image &image, int r, int width, bool gray, float *const out[3]) {
  const uint16_t *__restrict red = samples(image.planes[0], r);
  const uint16_t *__restrict green = samples(image.planes[1], r);
  const uint16_t *__restrict blue = samples(image.planes[2], r);
  float *__restrict const o0 = out[0];
  float *__restrict const o1 = out[1];
  float *__restrict const o2 = out[2];
  constexpr float k = 1.0f / 256;
  if (gray) {
    for (int x = 0; x < width; ++x)
      o0[x] =
          (kGray[0] * float(red[x]) + kGray[1] * float(green[x]) + kGray[2] * float(blue[x])) * k;
    return;
  }
  for (int x = 0; x < width; ++x) {
    o0[x] = float(red[x]) * k;
    o1[x] = float(green[x]) * k;
    o2[x] = float(blue[x]) * k;
  }
}

#ifdef EF_CPU_X86
// YUV's colour loops below, eight pixels a vector in the same operations
// in the same order (a multiply, then an add: never contracted into an FMA,
// which rounds once where they round twice), so every value is theirs to
// the bit; the last pixels of a row through a vector of copies.
struct Vectors {
  __m256 ys, yo, cs, co, rv, gu, gv, bu, zero, top;
};

EF_AVX2 inline Vectors vectors_of(const DeepMatrix &m) {
  return {_mm256_set1_ps(m.y_scale),  _mm256_set1_ps(m.y_offset), _mm256_set1_ps(m.c_scale),
          _mm256_set1_ps(m.c_offset), _mm256_set1_ps(m.rv),       _mm256_set1_ps(m.gu),
          _mm256_set1_ps(m.gv),       _mm256_set1_ps(m.bu),       _mm256_setzero_ps(),
          _mm256_set1_ps(255.0f)};
}

EF_AVX2 inline __m256 words8(const uint16_t *p) {
  return _mm256_cvtepi32_ps(
      _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p))));
}

// std::clamp(v, 0, 255): max(0, v) keeps a -0 as it is.
EF_AVX2 inline __m256 clamped(__m256 v, const Vectors &k) {
  return _mm256_min_ps(_mm256_max_ps(k.zero, v), k.top);
}

// Eight pixels' R', G', B' into c[0..2], or with Gray their luma into c[0].
template <bool Gray>
EF_AVX2 inline void colour8(const uint16_t *y, const uint16_t *u, const uint16_t *v,
                            const Vectors &k, __m256 c[3]) {
  const __m256 l = _mm256_add_ps(_mm256_mul_ps(words8(y), k.ys), k.yo);
  const __m256 cb = _mm256_add_ps(_mm256_mul_ps(words8(u), k.cs), k.co);
  const __m256 cr = _mm256_add_ps(_mm256_mul_ps(words8(v), k.cs), k.co);
  const __m256 red = _mm256_add_ps(l, _mm256_mul_ps(k.rv, cr));
  const __m256 green =
      _mm256_add_ps(_mm256_add_ps(l, _mm256_mul_ps(k.gu, cb)), _mm256_mul_ps(k.gv, cr));
  const __m256 blue = _mm256_add_ps(l, _mm256_mul_ps(k.bu, cb));
  if constexpr (Gray) {
    const __m256 luma = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(kGray[0]), red),
                                                    _mm256_mul_ps(_mm256_set1_ps(kGray[1]), green)),
                                      _mm256_mul_ps(_mm256_set1_ps(kGray[2]), blue));
    c[0] = clamped(luma, k);
  } else {
    c[0] = clamped(red, k);
    c[1] = clamped(green, k);
    c[2] = clamped(blue, k);
  }
}

// The last n (< 8) samples of a row from x on, copied into eight.
struct Tail {
  uint16_t y[8] = {}, u[8] = {}, v[8] = {};
  Tail(const uint16_t *py, const uint16_t *pu, const uint16_t *pv, size_t n) {
    std::memcpy(y, py, n * 2);
    std::memcpy(u, pu, n * 2);
    std::memcpy(v, pv, n * 2);
  }
};

template <bool Gray>
EF_AVX2 void colour_avx2(const uint16_t *y, const uint16_t *u, const uint16_t *v,
                         float *const out[3], int width, const DeepMatrix &m) {
  const Vectors k = vectors_of(m);
  constexpr int channels = Gray ? 1 : 3;
  __m256 c[3];
  int x = 0;
  for (; x + 8 <= width; x += 8) {
    colour8<Gray>(y + x, u + x, v + x, k, c);
    for (int i = 0; i < channels; ++i)
      _mm256_storeu_ps(out[i] + x, c[i]);
  }
  if (x == width)
    return;
  const size_t n = size_t(width - x);
  const Tail t(y + x, u + x, v + x, n);
  colour8<Gray>(t.y, t.u, t.v, k, c);
  float last[8];
  for (int i = 0; i < channels; ++i) {
    _mm256_storeu_ps(last, c[i]);
    std::memcpy(out[i] + x, last, n * sizeof(float));
  }
}

// The colour straight into three float tensor planes: the colour as
// colour_avx2 computes it (its multiplies and adds never contracted here,
// where FMA is allowed), then each plane's one fma, as TensorKernel's
// vector path computes it.
#define EF_PLANES __attribute__((target("avx2,fma,f16c"), optimize("fp-contract=off")))

// Eight values of one plane from colour `c` into `to`.
template <bool Half>
EF_PLANES inline void store_plane(__m256 c, __m256 a, __m256 b, uint8_t *to) {
  const __m256 value = _mm256_fmadd_ps(c, a, b);
  if constexpr (Half)
    _mm_storeu_si128(reinterpret_cast<__m128i *>(to),
                     _mm256_cvtps_ph(value, _MM_FROUND_TO_NEAREST_INT));
  else
    _mm256_storeu_ps(reinterpret_cast<float *>(to), value);
}

// Plane 0 takes R' (B' with Bgr), plane 1 G', plane 2 B' (R'): fixed here,
// so that each plane's colour, constants and row stay in registers.
template <bool Half, bool Bgr>
EF_PLANES void planes_avx2(const uint16_t *y, const uint16_t *u, const uint16_t *v, int width,
                           const DeepMatrix &m, const TensorPlanes &out) {
  const Vectors k = vectors_of(m);
  const __m256 a0 = _mm256_set1_ps(out.scale[0]), b0 = _mm256_set1_ps(out.offset[0]);
  const __m256 a1 = _mm256_set1_ps(out.scale[1]), b1 = _mm256_set1_ps(out.offset[1]);
  const __m256 a2 = _mm256_set1_ps(out.scale[2]), b2 = _mm256_set1_ps(out.offset[2]);
  uint8_t *const r0 = out.row[0], *const r1 = out.row[1], *const r2 = out.row[2];
  constexpr size_t bytes = Half ? 2 : 4;
  constexpr int first = Bgr ? 2 : 0, last = Bgr ? 0 : 2;
  __m256 c[3];
  int x = 0;
  for (; x + 8 <= width; x += 8) {
    colour8<false>(y + x, u + x, v + x, k, c);
    const size_t at = size_t(x) * bytes;
    store_plane<Half>(c[first], a0, b0, r0 + at);
    store_plane<Half>(c[1], a1, b1, r1 + at);
    store_plane<Half>(c[last], a2, b2, r2 + at);
  }
  if (x == width)
    return;
  const size_t n = size_t(width - x), at = size_t(x) * bytes;
  const Tail t(y + x, u + x, v + x, n);
  colour8<false>(t.y, t.u, t.v, k, c);
  alignas(32) uint8_t tail[3][32];
  store_plane<Half>(c[first], a0, b0, tail[0]);
  store_plane<Half>(c[1], a1, b1, tail[1]);
  store_plane<Half>(c[last], a2, b2, tail[2]);
  std::memcpy(r0 + at, tail[0], n * bytes);
  std::memcpy(r1 + at, tail[1], n * bytes);
  std::memcpy(r2 + at, tail[2], n * bytes);
}
#endif

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
  if (image.layout == Layout::Rgb4) {
    rgb_row(image, r, width, gray, out);
    return;
  }
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
#ifdef EF_CPU_X86
  if (have_avx2())
    return gray ? colour_avx2<true>(y, u, v, out, width, m)
                : colour_avx2<false>(y, u, v, out, width, m);
#endif
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

bool deep_planes(const Image &image, const DeepMatrix &m, int r, int width,
                 const TensorPlanes &out) {
#ifdef EF_CPU_X86
  if (image.layout != Layout::Yuv)
    return false;
  const uint16_t *y = samples(image.planes[0], r), *u = samples(image.planes[1], r),
                 *v = samples(image.planes[2], r);
  const auto run = out.half ? (out.bgr ? planes_avx2<true, true> : planes_avx2<true, false>)
                            : (out.bgr ? planes_avx2<false, true> : planes_avx2<false, false>);
  run(y, u, v, width, m, out);
  return true;
#else
  (void)image, (void)m, (void)r, (void)width, (void)out;
  return false;
#endif
}

}  // namespace ef::gst::cpu
