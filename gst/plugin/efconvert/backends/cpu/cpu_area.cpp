// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_area.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "cpu_area_window.hpp"
#include "cpu_simd.hpp"
#include "common/vectorize.hpp"

namespace ef::gst::cpu {
namespace {

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// floor(v / unit) and what remains of v, for v = start + i * step at
// i = 0, 1, ..: one division, then additions (planned once a frame, for
// every output row and column).
class Quotients {
 public:
  Quotients(int64_t start, int64_t step, int64_t unit)
      : unit_(unit),
        dq_(step / unit),
        dr_(step % unit),
        q_(floor_div(start, unit)),
        r_(start - q_ * unit) {}
  int64_t q() const { return q_; }
  int64_t r() const { return r_; }
  void next() {
    q_ += dq_, r_ += dr_;
    if (r_ >= unit_)
      r_ -= unit_, ++q_;
  }

 private:
  int64_t unit_, dq_, dr_, q_, r_;
};

template <typename T>
T *take(Arena &arena, size_t n) {
  return reinterpret_cast<T *>(arena.take(std::max<size_t>(n, 1) * sizeof(T)));
}

// The taps of every output of `a`. Positions are counted in units of
// 1 / (4 * sub * out) sample, in which every footprint edge and every
// site is a whole number: a footprint is 4 * span units long and a site a
// quarter sample (2 * out units) from the centre. Parts of a footprint
// before the first sample or past the last count for that sample, as the
// box reference and the GL backend read them (a clamped fetch).
Taps make_taps(const Axis &a, Arena &arena) {
  const int64_t unit = 4 * int64_t(a.sub) * a.out;
  const int64_t length = 4 * int64_t(a.span);
  const int64_t offset = a.sub == 2 ? 2 * int64_t(a.site) * a.out : 0;
  const int last = a.samples - 1;
  Taps t;
  t.outputs = a.out;
  t.n = a.area ? int((length + unit - 1) / unit) + 1 : 2;
  t.total = uint32_t(a.area ? length : unit);
  t.first = take<int32_t>(arena, size_t(t.outputs));
  t.weights = take<uint32_t>(arena, size_t(t.outputs) * t.n);
  std::fill_n(t.weights, size_t(t.outputs) * t.n, 0u);
  // Each footprint's first and last sample, and the interpolated centre's.
  Quotients first(offset, length, unit), last_k(offset + length - 1, length, unit);
  Quotients centre(offset + length / 2 - unit / 2, length, unit);
  for (int i = 0; i < t.outputs; ++i, first.next(), last_k.next(), centre.next()) {
    uint32_t *w = t.weights + size_t(i) * t.n;
    const int64_t lo = i * length + offset, hi = lo + length;
    if (a.area) {
      const int64_t k0 = first.q(), k1 = last_k.q();
      const int first = int(std::clamp<int64_t>(k0, 0, last));
      for (int64_t k = k0; k <= k1; ++k) {
        const int64_t covered = std::min(hi, (k + 1) * unit) - std::max(lo, k * unit);
        w[std::clamp<int64_t>(k, 0, last) - first] += uint32_t(covered);
      }
      t.first[i] = first;
    } else {
      // Sample k sits at (k + 1/2) unit; the output's centre between two.
      const int64_t k = centre.q(), past = centre.r();
      const int first = int(std::clamp<int64_t>(k, 0, last));
      w[0] = uint32_t(unit - past);
      w[std::clamp<int64_t>(k + 1, 0, last) - first] += uint32_t(past);
      t.first[i] = first;
    }
  }
  // As many taps as the widest output uses (the bound above allows for a
  // footprint that straddles one sample more than its length).
  int used = 1;
  for (int i = 0; i < t.outputs; ++i)
    for (int k = used; k < t.n; ++k)
      if (t.weights[size_t(i) * t.n + size_t(k)] != 0)
        used = k + 1;
  if (used < t.n) {
    for (int i = 0; i < t.outputs; ++i)
      std::memmove(t.weights + size_t(i) * used, t.weights + size_t(i) * t.n,
                   size_t(used) * sizeof(uint32_t));
    t.n = used;
  }
  // The smallest whole weights: sums stay small, most in 16 or 32 bits.
  uint32_t g = t.total, seen = t.total;
  for (size_t k = 0; k < size_t(t.outputs) * t.n; ++k)
    if (t.weights[k] != seen)  // the weights repeat: no division for a repeat
      seen = t.weights[k], g = std::gcd(g, seen);
  // Every weight a multiple of g: the quotient by a multiplication in
  // double, off by far less than a half (no division a weight).
  const double inverse = 1.0 / g;
  for (size_t k = 0; k < size_t(t.outputs) * t.n; ++k)
    t.weights[k] = uint32_t(double(t.weights[k]) * inverse + 0.5);
  t.total /= g;
  return t;
}

// The largest sample.
template <typename In>
constexpr uint64_t kTop = In(~In(0));

// Column sums of one output row: each sample of the source rows it covers,
// weighed and summed down its column. Bytes in 16 bits where 255 times the
// vertical total fits (the common ratios), else in 32; words in 32 or 64.
template <typename In, typename Col>
EF_VECTORIZE void set_weighed(const uint8_t *bytes, uint32_t w, Col *col, int n) {
  const auto *row = reinterpret_cast<const In *>(bytes);
  for (int b = 0; b < n; ++b)
    col[b] = Col(w * Col(row[b]));
}

template <typename In, typename Col>
EF_VECTORIZE void add_weighed(const uint8_t *bytes, uint32_t w, Col *col, int n) {
  const auto *row = reinterpret_cast<const In *>(bytes);
  for (int b = 0; b < n; ++b)
    col[b] = Col(col[b] + w * Col(row[b]));
}

// The rows of output row `index` with weights: past the last sample, or on
// a site exactly on a sample, a tap weighs nothing and is left out.
struct RowTaps {
  std::array<const uint8_t *, 16> rows;
  std::array<uint32_t, 16> weights;
  int n = 0;
};

template <typename In, typename Col>
void weigh_rows_c(const uint8_t *src, int stride, const Taps &ty, int index, Col *col, int bytes) {
  const uint8_t *row = src + ptrdiff_t(ty.first[index]) * stride;
  bool first = true;
  for (int t = 0; t < ty.n; ++t, row += stride) {
    const uint32_t w = ty.weights[size_t(index) * ty.n + size_t(t)];
    if (w == 0)
      continue;
    (first ? set_weighed<In, Col> : add_weighed<In, Col>)(row, w, col, bytes);
    first = false;
  }
}

#ifdef EF_CPU_X86
// Weights below 128, 32 columns at a time: the bytes weighed as words with
// no widening shuffle (pmaddubsw of the row against w, 0 pairs takes the
// even bytes, against 0, w the odd), even and odd summed apart and
// interleaved once. `N` taps, or 0: taps.n (unrolled where known).
template <int N>
EF_AVX2 int weigh_small(const RowTaps &taps, uint16_t *col, int bytes) {
  const int n = N ? N : taps.n;
  __m256i even[16], odd[16];
  for (int t = 0; t < n; ++t) {
    even[t] = _mm256_set1_epi16(short(taps.weights[size_t(t)]));
    odd[t] = _mm256_set1_epi16(short(taps.weights[size_t(t)] << 8));
  }
  int b = 0;
  for (; b + 32 <= bytes; b += 32) {
    __m256i e = _mm256_setzero_si256(), o = _mm256_setzero_si256();
    for (int t = 0; t < n; ++t) {
      const __m256i v =
          _mm256_loadu_si256(reinterpret_cast<const __m256i *>(taps.rows[size_t(t)] + b));
      e = _mm256_add_epi16(e, _mm256_maddubs_epi16(v, even[t]));
      o = _mm256_add_epi16(o, _mm256_maddubs_epi16(v, odd[t]));
    }
    // Columns 0-7 | 16-23 and 8-15 | 24-31.
    const __m256i lo = _mm256_unpacklo_epi16(e, o), hi = _mm256_unpackhi_epi16(e, o);
    auto *out = reinterpret_cast<__m128i *>(col + b);
    _mm_storeu_si128(out, _mm256_castsi256_si128(lo));
    _mm_storeu_si128(out + 1, _mm256_castsi256_si128(hi));
    _mm_storeu_si128(out + 2, _mm256_extracti128_si256(lo, 1));
    _mm_storeu_si128(out + 3, _mm256_extracti128_si256(hi, 1));
  }
  return b;
}

// The columns from `b` on, 16 at a time, then one at a time.
EF_AVX2 void weigh_block_from(const RowTaps &taps, uint16_t *col, int b, int bytes) {
  for (; b + 16 <= bytes; b += 16) {
    __m256i acc = _mm256_setzero_si256();
    for (int t = 0; t < taps.n; ++t) {
      const __m256i v = _mm256_cvtepu8_epi16(
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(taps.rows[size_t(t)] + b)));
      acc = _mm256_add_epi16(
          acc, _mm256_mullo_epi16(v, _mm256_set1_epi16(short(taps.weights[size_t(t)]))));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(col + b), acc);
  }
  for (; b < bytes; ++b) {
    uint32_t s = 0;
    for (int t = 0; t < taps.n; ++t)
      s += taps.weights[size_t(t)] * taps.rows[size_t(t)][b];
    col[b] = uint16_t(s);
  }
}

// Up to 16 taps, 32, 16 (or 8) columns at a time in registers across all
// the rows: each column sum written once.
EF_AVX2 void weigh_block(const RowTaps &taps, uint16_t *col, int bytes) {
  const bool small = std::all_of(taps.weights.begin(), taps.weights.begin() + taps.n,
                                 [](uint32_t w) { return w < 128; });
  int b = 0;
  if (small) {
    constexpr std::array kUnrolled{weigh_small<0>, weigh_small<1>, weigh_small<2>, weigh_small<3>,
                                   weigh_small<4>};
    b = (taps.n < int(kUnrolled.size()) ? kUnrolled[size_t(taps.n)] : weigh_small<0>)(taps, col,
                                                                                      bytes);
  }
  weigh_block_from(taps, col, b, bytes);
}

EF_AVX2 void weigh_block(const RowTaps &taps, uint32_t *col, int bytes) {
  int b = 0;
  for (; b + 8 <= bytes; b += 8) {
    __m256i acc = _mm256_setzero_si256();
    for (int t = 0; t < taps.n; ++t) {
      const __m256i v = _mm256_cvtepu8_epi32(
          _mm_loadl_epi64(reinterpret_cast<const __m128i *>(taps.rows[size_t(t)] + b)));
      acc = _mm256_add_epi32(
          acc, _mm256_mullo_epi32(v, _mm256_set1_epi32(int(taps.weights[size_t(t)]))));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(col + b), acc);
  }
  for (; b < bytes; ++b) {
    uint32_t s = 0;
    for (int t = 0; t < taps.n; ++t)
      s += taps.weights[size_t(t)] * taps.rows[size_t(t)][b];
    col[b] = s;
  }
}
#endif

template <typename In, typename Col>
void weigh_rows(const uint8_t *src, int stride, const Taps &ty, int index, Col *col, int bytes) {
#ifdef EF_CPU_X86
  // A footprint of many rows (a strong reduction) streams each row once
  // instead: the blocks would read from too many rows at once. Words are
  // summed in C.
  if constexpr (sizeof(In) == 1) {
    if (have_avx2() && ty.n <= 16) {
      RowTaps taps;
      const uint8_t *row = src + ptrdiff_t(ty.first[index]) * stride;
      for (int t = 0; t < ty.n; ++t, row += stride)
        if (const uint32_t w = ty.weights[size_t(index) * ty.n + size_t(t)]; w != 0)
          taps.rows[size_t(taps.n)] = row, taps.weights[size_t(taps.n++)] = w;
      return weigh_block(taps, col, bytes);
    }
  }
#endif
  weigh_rows_c<In>(src, stride, ty, index, col, bytes);
}

// floor(s / total + 1/2), exactly, by a multiplication: the quotient from
// a double (exact below 2^53) corrected by one where it rounded across.
class Rounder {
 public:
  explicit Rounder(uint64_t total) : total_(total), twice_(2 * total), inverse_(0.5 / total) {}
  uint32_t operator()(uint64_t sum) const {
    const uint64_t num = 2 * sum + total_;
    uint64_t q = uint64_t(double(num) * inverse_);
    if (q * twice_ > num)
      --q;
    else if ((q + 1) * twice_ <= num)
      ++q;
    return uint32_t(q);
  }

 private:
  uint64_t total_, twice_;
  double inverse_;
};

// Outputs [i0, outputs) of row `row` from the column sums, each across
// its taps, times 2^shift, as samples of type `Out`.
template <typename Sum, typename Out, typename Col>
void weigh_columns(const Col *col, const Taps &tx, int channels, const Outputs &dst, int row,
                   const Rounder &round, int shift, int i0 = 0) {
  const int step = dst.step, outputs = tx.outputs, n = tx.n;
  for (int c = 0; c < channels; ++c) {
    if (!dst.data[size_t(c)])
      continue;
    auto *out =
        reinterpret_cast<Out *>(dst.data[size_t(c)] + ptrdiff_t(row) * dst.stride[size_t(c)]);
    for (int i = i0; i < outputs; ++i) {
      const Col *p = col + ptrdiff_t(tx.first[i]) * channels + c;
      const uint32_t *w = &tx.weights[size_t(i) * size_t(n)];
      Sum s = 0;
      for (int t = 0; t < n; ++t)
        s += Sum(w[t]) * p[t * channels];
      out[ptrdiff_t(i) * step] = Out(round(uint64_t(s) << shift));
    }
  }
}

#ifdef EF_CPU_X86
// Eight column sums as 32-bit lanes.
EF_AVX2 inline __m256i load8(const uint32_t *p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
}

EF_AVX2 inline __m256i load8(const uint16_t *p) {
  return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
}

// Where every sum fits 31 bits, eight lanes at a time along each output's
// taps (contiguous loads; gathers are slow where microcode guards them):
// `lanes` holds each output's weights repeated for each channel and padded
// to `vectors` of 8; the lanes are summed by channel into `sums` (channel c
// of output i at i * channels + c). For many taps an output.
void expand_lanes(const Taps &tx, int channels, int vectors, uint32_t *lanes) {
  for (int i = 0; i < tx.outputs; ++i)
    for (int l = 0; l < vectors * 8; ++l)
      lanes[size_t(i) * vectors * 8 + size_t(l)] =
          l < tx.n * channels ? tx.weights[size_t(i) * tx.n + size_t(l / channels)] : 0;
}

// Output i's lanes: its taps' column sums times their weights.
template <typename Col>
EF_AVX2 inline __m256i weighed(const Col *col, const Taps &tx, const uint32_t *lanes, int vectors,
                               int channels, int i) {
  const Col *p = col + ptrdiff_t(tx.first[i]) * channels;
  const uint32_t *w = lanes + size_t(i) * vectors * 8;
  __m256i acc = _mm256_setzero_si256();
  for (int v = 0; v < vectors; ++v, p += 8, w += 8)
    acc = _mm256_add_epi32(
        acc,
        _mm256_mullo_epi32(load8(p), _mm256_loadu_si256(reinterpret_cast<const __m256i *>(w))));
  return acc;
}

// The lanes of eight outputs (one channel) summed: a tree of horizontal
// adds, the eight sums in one vector.
EF_AVX2 inline __m256i sum8(const __m256i a[8]) {
  const __m256i p = _mm256_hadd_epi32(_mm256_hadd_epi32(a[0], a[1]), _mm256_hadd_epi32(a[2], a[3]));
  const __m256i q = _mm256_hadd_epi32(_mm256_hadd_epi32(a[4], a[5]), _mm256_hadd_epi32(a[6], a[7]));
  return _mm256_add_epi32(_mm256_permute2x128_si256(p, q, 0x20),
                          _mm256_permute2x128_si256(p, q, 0x31));
}

// The same for four outputs of U,V pairs, each first sorted to U U U U
// V V V V: U0 U1 U2 U3 | V0 V1 V2 V3.
EF_AVX2 inline __m256i sum4_pairs(const __m256i a[4]) {
  const __m256i sort = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  __m256i s[4];
  for (int k = 0; k < 4; ++k)
    s[k] = _mm256_permutevar8x32_epi32(a[k], sort);
  return _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_hadd_epi32(s[2], s[3]));
}

// The sums of each output by channel: channel c of output i at
// sums[c * outputs + i].
template <typename Col>
EF_AVX2 void sum_along(const Col *col, const Taps &tx, const uint32_t *lanes, int vectors,
                       int channels, uint32_t *sums) {
  const int outputs = tx.outputs;
  int i = 0;
  __m256i a[8];
  if (channels == 1)
    for (; i + 8 <= outputs; i += 8) {
      for (int k = 0; k < 8; ++k)
        a[k] = weighed(col, tx, lanes, vectors, channels, i + k);
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(sums + i), sum8(a));
    }
  if (channels == 2)
    for (; i + 4 <= outputs; i += 4) {
      for (int k = 0; k < 4; ++k)
        a[k] = weighed(col, tx, lanes, vectors, channels, i + k);
      const __m256i uv = sum4_pairs(a);
      _mm_storeu_si128(reinterpret_cast<__m128i *>(sums + i), _mm256_castsi256_si128(uv));
      _mm_storeu_si128(reinterpret_cast<__m128i *>(sums + outputs + i),
                       _mm256_extracti128_si256(uv, 1));
    }
  for (; i < outputs; ++i) {
    const __m256i acc = weighed(col, tx, lanes, vectors, channels, i);
    // Lanes l and l + 4 hold the same channel (4 is a multiple of 1, 2, 4).
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    if (channels <= 2)
      s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
    if (channels == 1)
      s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
    alignas(16) uint32_t by_channel[4];
    _mm_store_si128(reinterpret_cast<__m128i *>(by_channel), s);
    for (int c = 0; c < channels; ++c)
      sums[c * outputs + i] = by_channel[c];
  }
}

// For few taps and many outputs (enlarging, or reducing by less than 2),
// eight outputs a vector: their taps lie within two vectors of column
// sums, from which each tap's eight values are permuted into place. Says
// whether every eight neighbouring outputs of a channel reach no further
// than those 16 lanes; the outputs past the last eight are left to the
// caller. `base`: each vector's first column sum; `index`, `weights`: the
// lanes of each vector and tap.
bool plan_permuted(const Taps &tx, int channels, int32_t *base, uint32_t *index,
                   uint32_t *weights) {
  for (int k = 0; k < tx.outputs / 8; ++k) {
    const int first = tx.first[8 * k];
    base[k] = first * channels;
    for (int t = 0; t < tx.n; ++t)
      for (int l = 0; l < 8; ++l) {
        const int i = 8 * k + l;
        const int lane = (tx.first[i] - first + t) * channels;
        const uint32_t w = tx.weights[size_t(i) * tx.n + size_t(t)];
        if (w != 0 && lane >= 16)
          return false;
        const size_t at = (size_t(k) * tx.n + size_t(t)) * 8 + size_t(l);
        index[at] = w != 0 ? uint32_t(lane) : 0;
        weights[at] = w;
      }
  }
  return true;
}

template <typename Col>
EF_AVX2 void sum_permuted(const Col *col, const Taps &tx, const int32_t *base,
                          const uint32_t *index, const uint32_t *weights, int c, uint32_t *sums) {
  const __m256i seven = _mm256_set1_epi32(7);
  for (int k = 0; k < tx.outputs / 8; ++k) {
    const Col *p = col + base[k] + c;
    const __m256i a = load8(p), b = load8(p + 8);
    __m256i acc = _mm256_setzero_si256();
    for (int t = 0; t < tx.n; ++t, index += 8, weights += 8) {
      const __m256i i = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(index));
      const __m256i v =
          _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(a, i), _mm256_permutevar8x32_epi32(b, i),
                             _mm256_cmpgt_epi32(i, seven));
      acc = _mm256_add_epi32(
          acc,
          _mm256_mullo_epi32(v, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(weights))));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(sums + 8 * k), acc);
  }
}

// floor(s 2^shift / total + 1/2) of n sums below 2^31 into samples of
// type `Out` (bytes; words with a shift of 8), eight at a time:
// floor(s * (2^shift / total) + 1/2 + 1e-9) in double, exact while
// total < 5e8 (a quotient that is no whole number is at least
// 1 / (2 total) below the next, and the double's error, below 65536 times
// 2^-52, is far less). The tail by `round`.
template <typename Out>
EF_AVX2 void round_sums(const uint32_t *sums, int n, uint64_t total, int shift,
                        const Rounder &round, Out *out) {
  const __m256d inverse = _mm256_set1_pd(double(1 << shift) / double(total));
  const __m256d half = _mm256_set1_pd(0.5 + 1e-9);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i s = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(sums + i));
    const __m128i lo = _mm256_cvttpd_epi32(
        _mm256_add_pd(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(s)), inverse), half));
    const __m128i hi = _mm256_cvttpd_epi32(_mm256_add_pd(
        _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(s, 1)), inverse), half));
    const __m128i words = _mm_packus_epi32(lo, hi);
    if constexpr (sizeof(Out) == 2)
      _mm_storeu_si128(reinterpret_cast<__m128i *>(out + i), words);
    else
      _mm_storel_epi64(reinterpret_cast<__m128i *>(out + i), _mm_packus_epi16(words, words));
  }
  for (; i < n; ++i)
    out[i] = Out(round(uint64_t(sums[i]) << shift));
}

#endif

#ifdef EF_CPU_X86
// Rounded sums of channel c (times 2^shift) into output row `row` as
// samples of type `Out`: straight into a plane, through `staging` into
// interleaved pixels; a channel without data is left out.
template <typename Out>
void put(const uint32_t *sums, int n, uint64_t total, int shift, const Rounder &round,
         uint8_t *staging, const Outputs &dst, int c, int row) {
  if (!dst.data[size_t(c)])
    return;
  auto *out = reinterpret_cast<Out *>(dst.data[size_t(c)] + ptrdiff_t(row) * dst.stride[size_t(c)]);
  auto *staged = reinterpret_cast<Out *>(staging);
  const int step = dst.step;
  round_sums(sums, n, total, shift, round, step == 1 ? out : staged);
  for (int i = 0; step != 1 && i < n; ++i)
    out[ptrdiff_t(i) * step] = staged[i];
}
#endif

size_t aligned(size_t n) {
  return (n + 63) / 64 * 64;
}

}  // namespace

Resampler::Resampler(const Axis &x, const Axis &y, int channels, unsigned slots, Arena &arena,
                     Samples samples)
    : x_(make_taps(x, arena)),
      y_(make_taps(y, arena)),
      channels_(channels),
      words_(samples == Samples::Words),
      shift_(samples == Samples::BytesToWords ? 8 : 0) {
  const bool words = words_;
  bytes_ = x.samples * channels;
  // Past the last sample: the zero weights that pad an output's taps, and
  // the vectors that read them.
  room_ = size_t(x.samples + x_.n) * channels + 16;
  narrow_ = words ? kTop<uint16_t> * y_.total <= 0xffffffff : 255 * y_.total <= 0xffff;
  total_ = uint64_t(x_.total) * y_.total;
#ifdef EF_CPU_X86
  vector_ = !words && 255 * total_ < (uint64_t(1) << 31) && have_avx2();
  if (vector_)
    plan_vectors(arena);
#endif
  const size_t col_size = (narrow_ ? 2 : 4) * (words ? 2 : 1);  // uint16..uint64
  const size_t col_bytes = aligned(room_ * col_size);
  const size_t outputs = size_t(x_.outputs) * channels;
  const size_t out_size = words || shift_ ? 2 : 1;
  slot_bytes_ = col_bytes + aligned(outputs * sizeof(uint32_t)) + aligned(outputs * out_size);
  scratch_ = arena.take(slot_bytes_ * std::max(slots, 1u));
  // The padding is read (times nothing) but never written: defined once.
  for (unsigned k = 0; k < std::max(slots, 1u); ++k)
    std::memset(scratch_ + k * slot_bytes_, 0, col_bytes);
}

// Where they fit, the 16-bit window (one multiply a pair of taps); else
// permuted (two source vectors reach every eight outputs' taps); else
// along the lanes.
void Resampler::plan_vectors([[maybe_unused]] Arena &arena) {
#ifdef EF_CPU_X86
  if (narrow_ && window_fits(x_, channels_, 255 * y_.total)) {
    window_ = take<int16_t>(arena, window_words(x_));
    return plan_window(x_, channels_, window_);
  }
  const size_t chunks = size_t(x_.outputs / 8);
  base_ = take<int32_t>(arena, chunks);
  index_ = take<uint32_t>(arena, chunks * x_.n * 8);
  lane_weights_ = take<uint32_t>(arena, chunks * x_.n * 8);
  permuted_ = plan_permuted(x_, channels_, base_, index_, lane_weights_);
  if (permuted_)
    return;
  if (narrow_ && window_fits(x_, channels_, 255 * y_.total)) {
    window_ = take<int16_t>(arena, window_words(x_));
    return plan_window(x_, channels_, window_);
  }
  vectors_ = (x_.n * channels_ + 7) / 8;
  lane_weights_ = take<uint32_t>(arena, size_t(x_.outputs) * vectors_ * 8);
  expand_lanes(x_, channels_, vectors_, lane_weights_);
#endif
}

void Resampler::rows(const uint8_t *src, int stride, const Outputs &dst, unsigned slot, int r0,
                     int r1) const {
  uint8_t *scratch = scratch_ + slot * slot_bytes_;
  if (words_ && narrow_)
    run<uint16_t, uint16_t>(src, stride, dst, reinterpret_cast<uint32_t *>(scratch), slot, r0, r1);
  else if (words_)
    run<uint16_t, uint16_t>(src, stride, dst, reinterpret_cast<uint64_t *>(scratch), slot, r0, r1);
  else if (shift_ && narrow_)
    run<uint8_t, uint16_t>(src, stride, dst, reinterpret_cast<uint16_t *>(scratch), slot, r0, r1);
  else if (shift_)
    run<uint8_t, uint16_t>(src, stride, dst, reinterpret_cast<uint32_t *>(scratch), slot, r0, r1);
  else if (narrow_)
    run<uint8_t, uint8_t>(src, stride, dst, reinterpret_cast<uint16_t *>(scratch), slot, r0, r1);
  else
    run<uint8_t, uint8_t>(src, stride, dst, reinterpret_cast<uint32_t *>(scratch), slot, r0, r1);
}

template <typename In, typename Out, typename Col>
void Resampler::run(const uint8_t *src, int stride, const Outputs &dst, Col *col, unsigned slot,
                    int r0, int r1) const {
  const Rounder round(total_);
  const int channels = channels_, shift = shift_;
#ifdef EF_CPU_X86
  // Bytes only: words are summed in C.
  if constexpr (sizeof(In) == 1) {
    if (vector_) {
      uint8_t *scratch = scratch_ + slot * slot_bytes_;
      auto *sums = reinterpret_cast<uint32_t *>(scratch + aligned(room_ * sizeof(Col)));
      uint8_t *out = reinterpret_cast<uint8_t *>(sums) +
                     aligned(size_t(x_.outputs) * channels * sizeof(uint32_t));
      const int vectors = x_.outputs / 8 * 8;
      for (int r = r0; r < r1; ++r) {
        weigh_rows<In>(src, stride, y_, r, col, bytes_);
        if constexpr (std::is_same_v<Col, uint16_t>) {
          if (window_) {
            sum_window(col, x_, window_, channels, sums);
            for (int c = 0; c < channels; ++c)
              put<Out>(sums + ptrdiff_t(c) * x_.outputs, vectors, total_, shift, round, out, dst, c,
                       r);
            weigh_columns<uint32_t, Out>(col, x_, channels, dst, r, round, shift, vectors);
            continue;
          }
        }
        if (!permuted_) {
          sum_along(col, x_, lane_weights_, vectors_, channels, sums);
          for (int c = 0; c < channels; ++c)
            put<Out>(sums + ptrdiff_t(c) * x_.outputs, x_.outputs, total_, shift, round, out, dst,
                     c, r);
          continue;
        }
        for (int c = 0; c < channels; ++c) {
          sum_permuted(col, x_, base_, index_, lane_weights_, c, sums);
          put<Out>(sums, vectors, total_, shift, round, out, dst, c, r);
        }
        weigh_columns<uint32_t, Out>(col, x_, channels, dst, r, round, shift, vectors);
      }
      return;
    }
  }
#endif
  for (int r = r0; r < r1; ++r) {
    weigh_rows<In>(src, stride, y_, r, col, bytes_);
    if (kTop<In> * total_ < (uint64_t(1) << 32))
      weigh_columns<uint32_t, Out>(col, x_, channels, dst, r, round, shift);
    else
      weigh_columns<uint64_t, Out>(col, x_, channels, dst, r, round, shift);
  }
}

}  // namespace ef::gst::cpu
