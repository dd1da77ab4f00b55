// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_tensor.hpp"

#include "cpu_simd.hpp"
#include "efconvert/tensors/tensor_values.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <unistd.h>

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

// AVX2 as cpu_simd.hpp allows it, with FMA and F16C.
bool have_avx2_fma() {
  static const bool have =
      simd() >= Simd::Avx2 && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
  return have;
}

// What the vector path reads: consecutive bytes, byte shift / 8 of each
// 4-byte pixel, or floats (values between the levels).
enum class Src { Bytes, Pixels, Floats };

// A row's values for the vector path: `chunks` runs of 8 from `in` (as
// its Src says) into `out`; run k takes vector k % 3 of the lanes.
struct VectorRun {
  const uint8_t *in;
  unsigned shift;
  uint8_t *out;
  size_t chunks;
  const TensorKernel::Lanes &l;
  int zero_point;
  bool streams;  // float32 from a 32-byte address
};

// The vector path's constants, in registers through a row.
struct Consts {
  __m256 a[3], b[3];  // scale and offset of vectors 0, 1, 2 of a round
  __m256i zero_point, byte;
  __m128i shift;
};

// Vector j of a round: 8 values from `in` as floats, x * scale + offset;
// `in` moves on.
template <Src S>
EF_TENSOR_TARGET __attribute__((always_inline)) inline __m256 values(const uint8_t *&in,
                                                                     const Consts &c, int j) {
  if constexpr (S == Src::Floats) {
    const __m256 v = _mm256_loadu_ps(reinterpret_cast<const float *>(in));
    in += 32;
    return _mm256_fmadd_ps(v, c.a[j], c.b[j]);
  }
  __m256i ints;
  if constexpr (S == Src::Pixels) {
    // A shift and a mask: no shuffle, where widening bytes takes one.
    const __m256i px = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(in));
    ints = _mm256_and_si256(_mm256_srl_epi32(px, c.shift), c.byte);
    in += 32;
  } else {
    ints = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(in)));
    in += 8;
  }
  return _mm256_fmadd_ps(_mm256_cvtepi32_ps(ints), c.a[j], c.b[j]);
}

// The same quantised: rounded (to even, MXCSR's default), the zero point
// added, not clamped: the packs to bytes saturate at the type's range,
// which is the clamp (the kernel checks every value lies within int32).
template <Src S>
EF_TENSOR_TARGET __attribute__((always_inline)) inline __m256i levels(const uint8_t *&in,
                                                                      const Consts &c, int j) {
  return _mm256_add_epi32(_mm256_cvtps_epi32(values<S>(in, c, j)), c.zero_point);
}

// Vector j of a round: 8 values from `in` to `out`; both move on.
template <TensorType T, Src S, bool Stream>
EF_TENSOR_TARGET __attribute__((always_inline)) inline void step(const uint8_t *&in, uint8_t *&out,
                                                                 const Consts &c, int j) {
  if constexpr (T == TensorType::Float32) {
    const __m256 v = values<S>(in, c, j);
    if constexpr (Stream)
      _mm256_stream_ps(reinterpret_cast<float *>(out), v);
    else
      _mm256_storeu_ps(reinterpret_cast<float *>(out), v);
    out += 32;
  } else if constexpr (T == TensorType::Float16) {
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out),
                     _mm256_cvtps_ph(values<S>(in, c, j), _MM_FROUND_TO_NEAREST_INT));
    out += 16;
  } else {
    const __m256i q = levels<S>(in, c, j);
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    const __m128i p = T == TensorType::Uint8 ? _mm_packus_epi16(w, w) : _mm_packs_epi16(w, w);
    _mm_storel_epi64(reinterpret_cast<__m128i *>(out), p);
    out += 8;
  }
}

// Four quantised vectors from vector j of a round on, packed to 32 bytes
// together: half the packing and a quarter of the stores of four steps.
template <TensorType T, Src S>
EF_TENSOR_TARGET __attribute__((always_inline)) inline void quad(const uint8_t *&in, uint8_t *&out,
                                                                 const Consts &c, int j) {
  const __m256i q0 = levels<S>(in, c, j);
  const __m256i q1 = levels<S>(in, c, (j + 1) % 3);
  const __m256i q2 = levels<S>(in, c, (j + 2) % 3);
  const __m256i q3 = levels<S>(in, c, j);
  // The packs work within 128-bit lanes: 4 values of each vector a lane,
  // put back in order by whole groups of 4 (as 32-bit elements).
  const __m256i w01 = _mm256_packs_epi32(q0, q1), w23 = _mm256_packs_epi32(q2, q3);
  const __m256i b =
      T == TensorType::Uint8 ? _mm256_packus_epi16(w01, w23) : _mm256_packs_epi16(w01, w23);
  _mm256_storeu_si256(reinterpret_cast<__m256i *>(out),
                      _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
  out += 32;
}

// Whole rounds of three vectors, so each keeps its constants in registers
// rather than picking them by index every 8 values, then the last one or
// two; quantised, rounds of twelve (three groups of four).
template <TensorType T, Src S, bool Stream>
EF_TENSOR_TARGET void rounds(const VectorRun &r, const Consts &c) {
  const uint8_t *in = r.in;
  uint8_t *out = r.out;
  const size_t chunks = r.chunks;  // a local: the byte stores could alias `r`
  size_t k = 0;
  if constexpr (T == TensorType::Uint8 || T == TensorType::Int8) {
    for (; k + 12 <= chunks; k += 12) {
      quad<T, S>(in, out, c, 0);
      quad<T, S>(in, out, c, 1);
      quad<T, S>(in, out, c, 2);
    }
    for (; k + 4 <= chunks; k += 4)
      quad<T, S>(in, out, c, int(k % 3));
  } else {
    for (; k + 3 <= chunks; k += 3) {
      step<T, S, Stream>(in, out, c, 0);
      step<T, S, Stream>(in, out, c, 1);
      step<T, S, Stream>(in, out, c, 2);
    }
  }
  for (; k < chunks; ++k)
    step<T, S, Stream>(in, out, c, int(k % 3));
  if constexpr (Stream)
    _mm_sfence();  // streamed stores are weakly ordered: done before the frame is
}

template <TensorType T, Src S>
EF_TENSOR_TARGET void run_avx2(const VectorRun &r) {
  Consts c;
  for (int j = 0; j < 3; ++j) {
    c.a[j] = _mm256_loadu_ps(r.l.scale + 8 * j);
    c.b[j] = _mm256_loadu_ps(r.l.offset + 8 * j);
  }
  c.zero_point = _mm256_set1_epi32(r.zero_point);
  c.byte = _mm256_set1_epi32(0xff);
  c.shift = _mm_cvtsi32_si128(int(r.shift));
  // Streamed from 32-byte addresses (the caller peels the values before).
  if (T == TensorType::Float32 && r.streams && (reinterpret_cast<uintptr_t>(r.out) & 31) == 0)
    rounds<T, S, true>(r, c);
  else
    rounds<T, S, false>(r, c);
}

template <Src S>
void run_avx2(TensorType type, const VectorRun &r) {
  switch (type) {
    case TensorType::Float32:
      return run_avx2<TensorType::Float32, S>(r);
    case TensorType::Float16:
      return run_avx2<TensorType::Float16, S>(r);
    case TensorType::Uint8:
      return run_avx2<TensorType::Uint8, S>(r);
    case TensorType::Int8:
      return run_avx2<TensorType::Int8, S>(r);
  }
}
#endif

}  // namespace

// Streamed float32 stores only where the tensors could not stay in the
// last-level cache anyway (the pool's two or more, and the frames read
// beside them: more than a quarter of it). A store through the cache
// reads its line first, but from that cache, where the tensor stays for
// its consumer; a streamed store goes to memory and holds a fill buffer
// until it is there, which the conversion's own loads then wait for
// (measured: docs/BENCHMARKS.md, "efconvert tensors").
bool TensorKernel::streams_tensor(size_t bytes) {
  // EF_CPU_TENSOR_STORES=stream|cache (a measurement) forces either.
  if (const char *forced = g_getenv("EF_CPU_TENSOR_STORES"))
    return std::strcmp(forced, "stream") == 0;
  static const size_t cache = [] {
    for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE})
      if (const long size = sysconf(name); size > 0)
        return size_t(size);
    return size_t(8) << 20;
  }();
  return bytes > cache / 4;
}

TensorKernel::TensorKernel(TensorType type, const TensorNorm &norm, unsigned channels,
                           size_t tensor_bytes)
    : type_(type),
      channels_(channels),
      bytes_(bytes_of(type)),
      stream_(type == TensorType::Float32 && streams_tensor(tensor_bytes)) {
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
  // interleaved from channel 0, 1 or 2 on (lanes_[3 + c]: a row whose first
  // values were peeled off starts its vectors on any channel), made here
  // once rather than for every row.
  for (unsigned c = 0; c < lanes_.size(); ++c)
    for (unsigned j = 0; j < 24; ++j) {
      const unsigned channel = c < 3 ? c : (j + c - 3) % channels_;
      lanes_[c].scale[j] = scale_[channel];
      lanes_[c].offset[j] = offset_[channel];
    }
#ifdef EF_TENSOR_AVX2
  simd_ = have_avx2_fma();
  // The vector path quantises in float: it runs only where it gives every
  // value the table holds, and where each lies well within int32 (its
  // conversion, the zero point added, must not wrap before the packs clamp).
  for (unsigned c = 0; c < channels_ && simd_ && quant; ++c)
    for (int x = 0; x < 256 && simd_; ++x) {
      const float raw = std::fma(float(x), scale_[c], offset_[c]);
      const float v = std::clamp(raw, low_, high_);
      const int q = int(std::nearbyint(v)) + zero_point_;
      simd_ = std::fabs(raw) < 0x1p30f && uint8_t(q) == table_[c][size_t(x)];
    }
#endif
}

void TensorKernel::run(const Source &from, void *out, size_t n,
                       const std::array<unsigned, 3> &channel, unsigned period) const {
  auto *o = static_cast<uint8_t *>(out);
  size_t done = 0;
  // float32 beside the vectors is computed as they compute it (one fma in
  // float), not from the tables (in double): where a row starts in memory
  // moves values between the vectors and the rest, and must not change them.
  // Floats between the levels have no table: all computed.
  const bool computed = from.floats || (simd_ && type_ == TensorType::Float32);
#ifdef EF_TENSOR_AVX2
  if (simd_) {
    // Streamed stores need 32-byte addresses, which a downstream pool need
    // not give (GStreamer's system memory is aligned to 8): the values
    // before the first such address are written one by one.
    const auto at = reinterpret_cast<uintptr_t>(o);
    if (type_ == TensorType::Float32 && stream_ && (at & 3) == 0) {
      done = std::min(n, ((32 - (at & 31)) & 31) / 4);
      computed_values(from, o, 0, done, channel, period);
    }
    // The lanes of the channel the first vector starts on.
    const Lanes &l = period == 1 ? lanes_[channel[0]] : lanes_[3 + done % period];
    const size_t chunks = (n - done) / 8;
    const auto *first = from.floats ? reinterpret_cast<const uint8_t *>(from.floats + done)
                                    : from.data + from.stride * done;
    const VectorRun r{first, 8 * from.byte, o + done * bytes_, chunks, l, zero_point_, stream_};
    if (from.floats)
      run_avx2<Src::Floats>(type_, r);
    else if (from.stride == 4)
      run_avx2<Src::Pixels>(type_, r);
    else
      run_avx2<Src::Bytes>(type_, r);
    done += chunks * 8;
  }
#endif
  if (computed)
    return computed_values(from, o, done, n, channel, period);
  switch (bytes_) {  // the rest from the tables, a fixed size a copy
    case 4:
      tail<4>(from, o, done, n, channel, period);
      break;
    case 2:
      tail<2>(from, o, done, n, channel, period);
      break;
    default:
      tail<1>(from, o, done, n, channel, period);
      break;
  }
}

// As the vector path computes them: x * scale + offset in float (one fma),
// quantised after a clamp.
void TensorKernel::computed_values(const Source &from, uint8_t *out, size_t begin, size_t n,
                                   const std::array<unsigned, 3> &channel, unsigned period) const {
  for (size_t i = begin; i < n; ++i) {
    const unsigned c = channel[i % period];
    const float x = from.floats ? from.floats[i] : float(from.data[i * from.stride + from.byte]);
    const float v = std::fma(x, scale_[c], offset_[c]);
    if (type_ == TensorType::Float32) {
      std::memcpy(out + 4 * i, &v, 4);
    } else if (type_ == TensorType::Float16) {
      const uint16_t h = half_of(v);
      std::memcpy(out + 2 * i, &h, 2);
    } else {
      out[i] = uint8_t(int(std::nearbyint(std::clamp(v, low_, high_))) + zero_point_);
    }
  }
}

template <size_t Bytes>
void TensorKernel::tail(const Source &from, uint8_t *out, size_t begin, size_t n,
                        const std::array<unsigned, 3> &channel, unsigned period) const {
  for (size_t i = begin; i < n; ++i) {
    const uint8_t x = from.data[i * from.stride + from.byte];
    std::memcpy(out + i * Bytes, table_[channel[i % period]].data() + size_t(x) * Bytes, Bytes);
  }
}

void TensorKernel::interleaved(const uint8_t *in, void *out, size_t n) const {
  run({in, 1, 0}, out, n, {0, 1, 2}, channels_);
}

void TensorKernel::plane(const uint8_t *in, void *out, size_t n, unsigned c) const {
  run({in, 1, 0}, out, n, {c, c, c}, 1);
}

void TensorKernel::plane_of_pixels(const uint8_t *pixels, unsigned byte, void *out, size_t n,
                                   unsigned c) const {
  run({pixels, 4, byte}, out, n, {c, c, c}, 1);
}

void TensorKernel::interleaved(const float *in, void *out, size_t n) const {
  run({nullptr, 1, 0, in}, out, n, {0, 1, 2}, channels_);
}

void TensorKernel::plane(const float *in, void *out, size_t n, unsigned c) const {
  run({nullptr, 1, 0, in}, out, n, {c, c, c}, 1);
}

bool TensorKernel::colour_planes(const Image &image, const DeepMatrix &m, int r, int n,
                                 const std::array<uint8_t *, 3> &rows, bool bgr) const {
  const bool floats = type_ == TensorType::Float32 || type_ == TensorType::Float16;
  if (!floats || !simd_ || stream_)
    return false;
  TensorPlanes out{rows, bgr, scale_, offset_, type_ == TensorType::Float16};
  return deep_planes(image, m, r, n, out);
}

// NCHW stages BGRx, which libyuv writes from YUV in one pass (RGBP is
// that and a split of each row into planes), and the kernel takes each
// plane's byte out of the pixels itself, at no more cost than widening
// bytes.
GstVideoFormat TensorWriter::staging_format(const TensorSpec &spec, bool bgr) {
  if (spec.channels == 1)
    return GST_VIDEO_FORMAT_GRAY8;
  if (spec.layout == TensorLayout::Nchw)
    return GST_VIDEO_FORMAT_BGRx;
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
      row_values_(size_t(target.spec.width) * (planar_ ? 1 : target.spec.channels)),
      pixel_bytes_(planar_ ? 4 : int(target.spec.channels)) {
  staging_row_ = aligned(size_t(target.spec.width) * size_t(pixel_bytes_));
  staging_bytes_ = aligned(staging_row_ * kChunkRows);
  // A border row's 8-bit values, made once for the frame as the staging
  // writer makes them (the fill colour, its luma for one channel).
  const GstVideoRectangle &c = params.content;
  const int border = c.y > 0 ? 0 : c.y + c.h < target.spec.height ? target.spec.height - 1 : -1;
  if (border < 0)
    return;
  fill_ = staging_rows(arena.take(staging_row_), 1);
  staging_.write_into({fill_}, border, Image{}, border, border + 1, nullptr);
  fill_.stride = 0;  // the same row for every border row
}

Plane TensorWriter::staging_rows(uint8_t *data, int rows) const {
  return {data, int(staging_row_), target_.spec.width, rows, pixel_bytes_};
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
// and float32 stored like the content's.
void TensorWriter::border_rows(int y0, int y1) const {
  if (y0 < y1 && !target_.borders_in_place)
    expand(fill_, y0, y1);
}

// Staging rows 0, 1, ... of `from` into tensor rows [y0, y1). A plane at a
// time: each tensor plane's rows follow one another in memory, so a thread
// writes one sequential stream, not three interleaved.
void TensorWriter::expand(const Plane &from, int y0, int y1) const {
  for (unsigned p = 0; p < planes_; ++p)
    for (int y = y0; y < y1; ++y) {
      const uint8_t *in = from.row(y - y0);
      if (planar_)  // tensor channel p from byte R, G or B of each BGRx pixel
        kernel_.plane_of_pixels(in, kByteOf[bgr_ ? 2 - p : p], row(p, y), row_values_, p);
      else
        kernel_.interleaved(in, row(p, y), row_values_);
    }
}

// Tensor channel k's border value: the byte the staging writer gives it.
float TensorWriter::border_value(unsigned k) const {
  if (planar_)  // BGRx staging
    return staging_.fill_pixel(0)[kByteOf[bgr_ ? 2 - k : k]];
  return staging_.fill_pixel(0)[k];  // RGB, BGR or GRAY8: bytes in the tensor's order
}

// Row by row: the colour in float (cpu_deep.hpp), straight into each
// tensor plane's content columns (NCHW, one channel) or interleaved first
// (NHWC); the border columns from the staging writer's fill bytes.
void TensorWriter::deep_rows(const Image &image, int y0, int y1, uint8_t *strip) const {
  const int width = target_.spec.width, cx = content_.x, cw = content_.w;
  const unsigned channels = target_.spec.channels;
  const bool gray = channels == 1;
  const size_t step = deep_row_floats(cw);
  auto *floats = reinterpret_cast<float *>(strip);
  float *const colour[3] = {floats, floats + step, floats + 2 * step};
  float *const values = floats + 3 * step;
  // The colour behind tensor channel k: luma (a gray image's in every
  // channel), or R, G, B in the tensor's order.
  const bool one = gray || image.layout == Layout::Gray;
  auto source = [&](unsigned k) { return colour[one ? 0 : bgr_ ? 2 - k : k]; };
  const size_t bytes = kernel_.element_bytes();
  const bool interleave = !planar_ && !gray;
  // Border columns, each side: NHWC's in `values` once (the content
  // between them is written every row), a plane's from there too.
  const int right = cx + cw;
  auto fill = [&](unsigned per_pixel, unsigned k0) {
    for (int x = 0; x < width; ++x)
      if (x < cx || x >= right)
        for (unsigned i = 0; i < per_pixel; ++i)
          values[size_t(x) * per_pixel + i] = border_value(k0 + i);
  };
  if (interleave)
    fill(channels, 0);
  for (int y = y0; y < y1; ++y) {
    if (interleave) {
      deep_row(image, deep_, y - content_.y, cw, gray, colour);
      const float *r = source(0), *g = source(1), *b = source(2);
      float *v = values + size_t(cx) * 3;
      for (int x = 0; x < cw; ++x) {
        v[3 * x] = r[x];
        v[3 * x + 1] = g[x];
        v[3 * x + 2] = b[x];
      }
      kernel_.interleaved(values, row(0, y), row_values_);
      continue;
    }
    // The content columns of the three planes in one pass where it runs.
    const std::array<uint8_t *, 3> content{row(0, y) + size_t(cx) * bytes,
                                           planar_ ? row(1, y) + size_t(cx) * bytes : nullptr,
                                           planar_ ? row(2, y) + size_t(cx) * bytes : nullptr};
    const bool fused =
        planar_ && kernel_.colour_planes(image, deep_, y - content_.y, cw, content, bgr_);
    if (!fused)
      deep_row(image, deep_, y - content_.y, cw, gray, colour);
    for (unsigned p = 0; p < planes_; ++p) {
      uint8_t *out = row(p, y);
      if (cw < width) {
        fill(1, p);
        kernel_.plane(values, out, size_t(cx), p);
        kernel_.plane(values + right, out + size_t(right) * bytes, size_t(width - right), p);
      }
      if (!fused)
        kernel_.plane(source(p), out + size_t(cx) * bytes, size_t(cw), p);
    }
  }
}

void TensorWriter::content_rows(const Image &image, int y0, int y1, uint8_t *strip) const {
  if (image.deep)
    return deep_rows(image, y0, y1, strip);
  for (int c = y0; c < y1; c += kChunkRows) {
    const int n = std::min(kChunkRows, y1 - c);
    const Plane rows = staging_rows(strip, n);
    staging_.write_into({rows}, c, image, c, c + n, strip + staging_bytes_);
    expand(rows, c, c + n);
  }
}

}  // namespace ef::gst::cpu
