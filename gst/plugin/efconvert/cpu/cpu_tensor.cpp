// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_tensor.hpp"

#include "efconvert/tensor_values.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define EF_TENSOR_AVX2 1
#endif

namespace ef::gst::cpu {

namespace {

size_t bytes_of(TensorType type) {
  switch (type) {
    case TensorType::Float32:
      return 4;
    case TensorType::Float16:
      return 2;
    default:
      return 1;
  }
}

bool quantised(TensorType type) {
  return type == TensorType::Uint8 || type == TensorType::Int8;
}

#ifdef EF_TENSOR_AVX2
#define EF_TENSOR_TARGET __attribute__((target("avx2,fma,f16c")))

bool have_avx2() {
  static const bool have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                           __builtin_cpu_supports("f16c");
  return have;
}

// `chunks` runs of 8 values; run k takes vector k % 3 of the lanes.
template <TensorType T>
EF_TENSOR_TARGET void run_avx2(const uint8_t *in, uint8_t *out, size_t chunks,
                               const TensorKernel::Lanes &l, float low, float high,
                               int zero_point) {
  __m256 a[3], b[3];
  for (int j = 0; j < 3; ++j) {
    a[j] = _mm256_loadu_ps(l.scale + 8 * j);
    b[j] = _mm256_loadu_ps(l.offset + 8 * j);
  }
  const __m256 lo = _mm256_set1_ps(low), hi = _mm256_set1_ps(high);
  const __m256i zp = _mm256_set1_epi32(zero_point);
  // float32 rows that start on 32 bytes (a 640-wide row does) stream past
  // the cache: the tensor is 4 times the bytes of the image, and a store
  // that first reads its line would double the traffic.
  const bool stream = T == TensorType::Float32 && (reinterpret_cast<uintptr_t>(out) & 31) == 0;
  for (size_t k = 0, j = 0; k < chunks; ++k, in += 8, j = j == 2 ? 0 : j + 1) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(in));
    const __m256 x = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
    const __m256 v = _mm256_fmadd_ps(x, a[j], b[j]);
    if constexpr (T == TensorType::Float32) {
      if (stream)
        _mm256_stream_ps(reinterpret_cast<float *>(out), v);
      else
        _mm256_storeu_ps(reinterpret_cast<float *>(out), v);
      out += 32;
    } else if constexpr (T == TensorType::Float16) {
      _mm_storeu_si128(reinterpret_cast<__m128i *>(out),
                       _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
      out += 16;
    } else {
      // Clamped first, so the rounding (to even, MXCSR's default) and
      // the packs never see a value beyond the type.
      const __m256i q =
          _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(v, lo), hi)), zp);
      const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
      const __m128i p = T == TensorType::Uint8 ? _mm_packus_epi16(w, w) : _mm_packs_epi16(w, w);
      _mm_storel_epi64(reinterpret_cast<__m128i *>(out), p);
      out += 8;
    }
  }
  if (stream)
    _mm_sfence();  // streamed stores are weakly ordered: done before the frame is
}
#endif

}  // namespace

TensorKernel::TensorKernel(TensorType type, const TensorNorm &norm, unsigned channels)
    : type_(type), channels_(channels), bytes_(bytes_of(type)) {
  const bool quant = quantised(type);
  const int low = type == TensorType::Int8 ? -128 : 0;
  const int high = type == TensorType::Int8 ? 127 : 255;
  zero_point_ = norm.zero_point;
  low_ = float(low - zero_point_);
  high_ = float(high - zero_point_);
  const double divisor = quant ? norm.quant_scale : 1.0;
  for (unsigned c = 0; c < 3; ++c) {
    const double mean = norm.mean[c], stddev = norm.stddev[c];
    scale_[c] = float(1.0 / (stddev * divisor));
    offset_[c] = float(-mean / (stddev * divisor));
    for (unsigned x = 0; x < 256; ++x) {
      // The value every backend gives (tensor_values.hpp), as its bytes.
      const uint32_t bits = tensor_value_bits(type, norm, c, x);
      uint8_t *cell = table_[c].data() + size_t(x) * bytes_;
      if (bytes_ == 4) {
        std::memcpy(cell, &bits, 4);
      } else if (bytes_ == 2) {
        const uint16_t h = uint16_t(bits);
        std::memcpy(cell, &h, 2);
      } else {
        cell[0] = uint8_t(bits);
      }
    }
  }
  // The vector path's constants: a plane's channel, or the channels
  // interleaved (lanes_[3]), made here once rather than for every row.
  for (unsigned c = 0; c < 4; ++c)
    for (unsigned j = 0; j < 24; ++j) {
      const unsigned channel = c < 3 ? c : j % channels_;
      lanes_[c].scale[j] = scale_[channel];
      lanes_[c].offset[j] = offset_[channel];
    }
#ifdef EF_TENSOR_AVX2
  simd_ = have_avx2();
  // The vector path quantises in float: it runs only where it gives every
  // value the table holds.
  for (unsigned c = 0; c < channels_ && simd_ && quant; ++c)
    for (int x = 0; x < 256 && simd_; ++x) {
      const float v = std::clamp(std::fma(float(x), scale_[c], offset_[c]), low_, high_);
      const int q = int(std::nearbyint(v)) + zero_point_;
      simd_ = uint8_t(q) == table_[c][size_t(x)];
    }
#endif
}

void TensorKernel::run(const uint8_t *in, void *out, size_t n,
                       const std::array<unsigned, 3> &channel, unsigned period) const {
  auto *o = static_cast<uint8_t *>(out);
  size_t done = 0;
#ifdef EF_TENSOR_AVX2
  if (simd_ && n >= 8) {
    const Lanes &l = period == 1 ? lanes_[channel[0]] : lanes_[3];
    const size_t chunks = n / 8;
    switch (type_) {
      case TensorType::Float32:
        run_avx2<TensorType::Float32>(in, o, chunks, l, low_, high_, zero_point_);
        break;
      case TensorType::Float16:
        run_avx2<TensorType::Float16>(in, o, chunks, l, low_, high_, zero_point_);
        break;
      case TensorType::Uint8:
        run_avx2<TensorType::Uint8>(in, o, chunks, l, low_, high_, zero_point_);
        break;
      case TensorType::Int8:
        run_avx2<TensorType::Int8>(in, o, chunks, l, low_, high_, zero_point_);
        break;
    }
    done = chunks * 8;
  }
#endif
  switch (bytes_) {  // the rest from the tables, a fixed size a copy
    case 4:
      tail<4>(in, o, done, n, channel, period);
      break;
    case 2:
      tail<2>(in, o, done, n, channel, period);
      break;
    default:
      tail<1>(in, o, done, n, channel, period);
      break;
  }
}

template <size_t Bytes>
void TensorKernel::tail(const uint8_t *in, uint8_t *out, size_t from, size_t n,
                        const std::array<unsigned, 3> &channel, unsigned period) const {
  for (size_t i = from; i < n; ++i)
    std::memcpy(out + i * Bytes, table_[channel[i % period]].data() + size_t(in[i]) * Bytes, Bytes);
}

void TensorKernel::interleaved(const uint8_t *in, void *out, size_t n) const {
  run(in, out, n, {0, 1, 2}, channels_);
}

void TensorKernel::plane(const uint8_t *in, void *out, size_t n, unsigned c) const {
  run(in, out, n, {c, c, c}, 1);
}

// Values between the 8-bit levels: no table, each computed as the vector
// path computes (x * scale + offset in float, quantised after a clamp).
void TensorKernel::run(const float *in, void *out, size_t n, const std::array<unsigned, 3> &channel,
                       unsigned period) const {
  auto *o = static_cast<uint8_t *>(out);
  for (size_t i = 0; i < n; ++i) {
    const unsigned c = channel[i % period];
    const float v = std::fma(in[i], scale_[c], offset_[c]);
    if (type_ == TensorType::Float32) {
      std::memcpy(o + 4 * i, &v, 4);
    } else if (type_ == TensorType::Float16) {
      const uint16_t h = half_of(v);
      std::memcpy(o + 2 * i, &h, 2);
    } else {
      o[i] = uint8_t(int(std::nearbyint(std::clamp(v, low_, high_))) + zero_point_);
    }
  }
}

void TensorKernel::interleaved(const float *in, void *out, size_t n) const {
  run(in, out, n, {0, 1, 2}, channels_);
}

void TensorKernel::plane(const float *in, void *out, size_t n, unsigned c) const {
  run(in, out, n, {c, c, c}, 1);
}

GstVideoFormat TensorWriter::staging_format(const TensorSpec &spec, bool bgr) {
  if (spec.channels == 1)
    return GST_VIDEO_FORMAT_GRAY8;
  if (spec.layout == TensorLayout::Nchw)
    return GST_VIDEO_FORMAT_RGBP;
  return bgr ? GST_VIDEO_FORMAT_BGR : GST_VIDEO_FORMAT_RGB;
}

namespace {

size_t aligned(size_t n) {
  return (n + 63) / 64 * 64;
}

}  // namespace

TensorWriter::TensorWriter(const TensorTarget &target, const ConvertParams &params,
                           YuvMatrix matrix, const TensorKernel &kernel, Arena &arena)
    : target_(target),
      content_(params.content),
      kernel_(kernel),
      deep_(matrix.deep),
      staging_(staging_format(target.spec, params.norm.bgr), target.spec.width, target.spec.height,
               params.content, params.fill, matrix),
      planar_(target.spec.layout == TensorLayout::Nchw && target.spec.channels == 3),
      bgr_(params.norm.bgr),
      planes_(planar_ ? 3 : 1),
      row_values_(size_t(target.spec.width) * (planar_ ? 1 : target.spec.channels)) {
  staging_row_ = aligned(row_values_);
  staging_bytes_ = aligned(staging_row_ * kChunkRows * planes_);
  // A border row's 8-bit values, made once for the frame as the staging
  // writer makes them (the fill colour, its luma for one channel).
  const GstVideoRectangle &c = params.content;
  const int border = c.y > 0 ? 0 : c.y + c.h < target.spec.height ? target.spec.height - 1 : -1;
  if (border < 0)
    return;
  uint8_t *bytes = arena.take(staging_row_ * planes_);
  for (unsigned p = 0; p < planes_; ++p)
    fill_[p] = {bytes + p * staging_row_, int(staging_row_), target.spec.width, 1,
                planar_ ? 1 : int(target.spec.channels)};
  staging_.write_into(fill_, border, Image{}, border, border + 1, nullptr);
}

size_t TensorWriter::strip_bytes(const Image &image) const {
  if (image.deep)  // a row's R, G, B floats, and a tensor row's (or plane's) values
    return (3 * deep_row_floats(content_.w) + aligned(row_values_)) * sizeof(float);
  return staging_bytes_ + aligned(staging_.strip_bytes(image));
}

uint8_t *TensorWriter::row(unsigned p, int y) const {
  const size_t values = (size_t(p) * size_t(target_.spec.height) + size_t(y)) * row_values_;
  return target_.data + values * kernel_.element_bytes();
}

void TensorWriter::write_rows(const Image &image, int y0, int y1, uint8_t *strip) const {
  const int top = content_.y, bottom = content_.y + content_.h;
  border_rows(y0, std::min(y1, top));
  border_rows(std::max(y0, bottom), y1);
  content_rows(image, std::max(y0, top), std::min(y1, bottom), strip);
}

// The border's 8-bit row through the kernel, as any row: the same values,
// and float32 streamed like the content's.
void TensorWriter::border_rows(int y0, int y1) const {
  for (int y = y0; y < y1; ++y)
    expand_row(fill_, 0, y);
}

// Row r of the staging planes `from` into tensor row y.
void TensorWriter::expand_row(const Planes &from, int r, int y) const {
  for (unsigned p = 0; p < planes_; ++p) {
    if (planar_)  // tensor channel p from colour plane R, G or B
      kernel_.plane(from[bgr_ ? 2 - p : p].row(r), row(p, y), row_values_, p);
    else
      kernel_.interleaved(from[0].row(r), row(p, y), row_values_);
  }
}

// Tensor channel k's border value: the byte the staging writer gives it.
float TensorWriter::border_value(unsigned k) const {
  if (planar_)  // RGBP staging: a plane per colour
    return staging_.fill_pixel(int(bgr_ ? 2 - k : k))[0];
  return staging_.fill_pixel(0)[k];  // RGB, BGR or GRAY8: bytes in the tensor's order
}

void TensorWriter::deep_rows(const Image &image, int y0, int y1, uint8_t *strip) const {
  const int width = target_.spec.width, cx = content_.x, cw = content_.w;
  const unsigned channels = target_.spec.channels;
  const bool gray = channels == 1;
  const size_t step = deep_row_floats(cw);
  auto *floats = reinterpret_cast<float *>(strip);
  float *const colour[3] = {floats, floats + step, floats + 2 * step};
  float *const values = floats + 3 * step;
  // The colour behind tensor channel k: luma, or R, G, B in the tensor's order.
  auto source = [&](unsigned k) { return colour[gray ? 0 : bgr_ ? 2 - k : k]; };
  for (int y = y0; y < y1; ++y) {
    deep_row(image, deep_, y - content_.y, cw, gray, colour);
    for (unsigned p = 0; p < planes_; ++p) {
      const unsigned per_pixel = planar_ ? 1 : channels;
      for (int x = 0; x < width; ++x)
        for (unsigned i = 0; i < per_pixel; ++i) {
          const unsigned k = planar_ ? p : i;
          const bool inside = x >= cx && x < cx + cw;
          values[size_t(x) * per_pixel + i] = inside ? source(k)[x - cx] : border_value(k);
        }
      if (planar_)
        kernel_.plane(values, row(p, y), row_values_, p);
      else
        kernel_.interleaved(values, row(p, y), row_values_);
    }
  }
}

void TensorWriter::content_rows(const Image &image, int y0, int y1, uint8_t *strip) const {
  if (image.deep)
    return deep_rows(image, y0, y1, strip);
  for (int c = y0; c < y1; c += kChunkRows) {
    const int n = std::min(kChunkRows, y1 - c);
    Planes frame{};
    for (unsigned p = 0; p < planes_; ++p)
      frame[p] = {strip + p * staging_row_ * kChunkRows, int(staging_row_), target_.spec.width, n,
                  planar_ ? 1 : int(target_.spec.channels)};
    staging_.write_into(frame, c, image, c, c + n, strip + staging_bytes_);
    for (int r = 0; r < n; ++r)
      expand_row(frame, r, c + r);
  }
}

}  // namespace ef::gst::cpu
