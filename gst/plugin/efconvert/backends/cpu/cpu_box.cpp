// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_box.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "cpu_simd.hpp"

namespace ef::gst::cpu {
namespace {

// The mean of 9 samples, rounded: floor((s + 4) / 9), which 7282 / 65536
// gives exactly for every sum of 9 bytes (s + 4 < 2300).
constexpr uint32_t kNinth = 7282;

inline uint8_t mean9(uint32_t s) {
  return uint8_t(((s + 4) * kNinth) >> 16);
}

// The means as 16-bit words, times 256, rounded (a float tensor's planes):
// round(256 s / 9) = 28 s + round(4 s / 9), the second floor((4 s + 4) / 9)
// by the same multiplication (exact while 4 s + 4 < 9200), at most 65280.
inline uint16_t word9(uint32_t s) {
  return uint16_t(28 * s + (((4 * s + 4) * kNinth) >> 16));
}

// Of 18: round(256 s / 18) = 14 s + round(2 s / 9).
inline uint16_t word18(uint32_t s) {
  return uint16_t(14 * s + (((2 * s + 4) * kNinth) >> 16));
}

inline uint8_t mean18(uint32_t s);  // below, with the quarters
// A sum of 9 (of 18 with kEighteen) as its mean in a sample of type Out.
template <typename Out, bool kEighteen = false>
inline Out mean_as(uint32_t s) {
  if constexpr (sizeof(Out) == 2)
    return kEighteen ? word18(s) : word9(s);
  else
    return kEighteen ? mean18(s) : mean9(s);
}

// Sum of the 3x3 block whose top-left byte is at p, samples `step` bytes apart.
inline uint32_t block(const uint8_t *p, ptrdiff_t stride, int step) {
  uint32_t s = 0;
  for (int r = 0; r < 3; ++r, p += stride)
    s += p[0] + p[step] + p[2 * step];
  return s;
}

template <typename Out>
void plane_c(const uint8_t *src, ptrdiff_t stride, Out *dst, int x0, int w) {
  for (int x = x0; x < w; ++x)
    dst[x] = mean_as<Out>(block(src + 3 * x, stride, 1));
}

void uv_c(const uint8_t *src, ptrdiff_t stride, uint8_t *u, uint8_t *v, int x0, int w) {
  for (int x = x0; x < w; ++x) {
    u[x] = mean9(block(src + 6 * x, stride, 2));
    v[x] = mean9(block(src + 6 * x + 1, stride, 2));
  }
}

// Cosited across, an output of 3 covers samples [3x + 1/4, 3x + 13/4):
// in quarters 3a + 4b + 4c + d, d the next output's a, or c where the row
// ends; down, centred, the three rows alike: sums of 36, rounded as
// floor((s + 18) * 58255 / 2^21), exact for every such sum (s + 18 < 9200).
constexpr uint32_t kThirtySixth = 58255;

inline uint8_t mean36(uint32_t s) {
  return uint8_t(((s + 18) * kThirtySixth) >> 21);
}

void uv_cosited_c(const uint8_t *src, ptrdiff_t stride, uint8_t *u, uint8_t *v, int x0, int w) {
  for (int x = x0; x < w; ++x)
    for (int c = 0; c < 2; ++c) {
      uint32_t s = 0;
      for (int r = 0; r < 3; ++r) {
        const uint8_t *p = src + r * stride + 6 * x + c;
        s += 3u * p[0] + 4u * (p[2] + p[4]) + p[x + 1 < w ? 6 : 4];
      }
      (c ? v : u)[x] = mean36(s);
    }
}

// Two outputs from three inputs a, b, c, each the area it covers: 2a + b
// and b + 2c (thirds); `step` bytes between samples.
inline void thirds(const uint8_t *p, int step, uint32_t &first, uint32_t &second) {
  first = 2u * p[0] + p[step];
  second = p[step] + 2u * p[2 * step];
}

// The same where each sample sits on the first of its two pixels (cosited
// across): the outputs cover samples [3x + 1/4, 3x + 7/4) and [3x + 7/4,
// 3x + 13/4), so 3a + 3b and b + 4c + d (quarters), d the next group's a,
// or c where the row ends (past the last sample it stands).
inline void quarters(const uint8_t *p, int step, bool last, uint32_t &first, uint32_t &second) {
  const uint32_t d = p[(last ? 2 : 3) * step];
  first = 3u * (p[0] + p[step]);
  second = p[step] + 4u * p[2 * step] + d;
}

// The mean of 18 (quarters across, thirds down), rounded: 3641 / 65536
// gives floor((s + 9) / 18) exactly for every sum of 18 bytes (s + 9 < 4600).
constexpr uint32_t kEighteenth = 3641;

inline uint8_t mean18(uint32_t s) {
  return uint8_t(((s + 9) * kEighteenth) >> 16);
}

template <bool kCosited, typename Out>
void uv32_c(const uint8_t *src, ptrdiff_t stride, Out *const u[2], Out *const v[2], int x0, int w) {
  for (int x = x0; x < w; ++x)
    for (int c = 0; c < 2; ++c) {
      uint32_t h[3][2];
      for (int r = 0; r < 3; ++r) {
        const uint8_t *p = src + r * stride + 6 * x + c;
        if (kCosited)
          quarters(p, 2, x + 1 == w, h[r][0], h[r][1]);
        else
          thirds(p, 2, h[r][0], h[r][1]);
      }
      Out *const *out = c ? v : u;
      const auto mean = mean_as<Out, kCosited>;
      for (int k = 0; k < 2; ++k) {
        out[0][2 * x + k] = mean(2 * h[0][k] + h[1][k]);
        out[1][2 * x + k] = mean(h[1][k] + 2 * h[2][k]);
      }
    }
}

#ifdef EF_CPU_X86
// Three rows of triplets, each shuffled to (a, b, c, 0), summed in pairs by
// maddubs, the pairs of all three rows added, then one horizontal add: 8
// sums of 9 from 24 bytes a row.
EF_SSSE3 inline __m128i pair_sums(const uint8_t *p, ptrdiff_t stride, int offset, __m128i shuffle) {
  const __m128i ones = _mm_set1_epi8(1);
  __m128i s = _mm_setzero_si128();
  for (int r = 0; r < 3; ++r, p += stride) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + offset));
    s = _mm_add_epi16(s, _mm_maddubs_epi16(_mm_shuffle_epi8(bytes, shuffle), ones));
  }
  return s;
}

EF_SSSE3 inline __m128i means(__m128i sums) {
  return _mm_mulhi_epu16(_mm_add_epi16(sums, _mm_set1_epi16(4)), _mm_set1_epi16(short(kNinth)));
}

EF_SSSE3 int plane_ssse3(const uint8_t *src, ptrdiff_t stride, uint8_t *dst, int w) {
  // Triplets 0-3 from bytes 0-11 of the first load, 4-7 from bytes 4-15 of
  // the second (at byte 8): every load ends inside the 24 bytes.
  const __m128i first = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
  const __m128i second = _mm_setr_epi8(4, 5, 6, -1, 7, 8, 9, -1, 10, 11, 12, -1, 13, 14, 15, -1);
  int x = 0;
  for (; x + 8 <= w; x += 8) {
    const uint8_t *p = src + 3 * x;
    const __m128i sums =
        _mm_hadd_epi16(pair_sums(p, stride, 0, first), pair_sums(p, stride, 8, second));
    const __m128i m = means(sums);
    _mm_storel_epi64(reinterpret_cast<__m128i *>(dst + x), _mm_packus_epi16(m, m));
  }
  return x;
}

EF_SSSE3 int uv_ssse3(const uint8_t *src, ptrdiff_t stride, uint8_t *u, uint8_t *v, int w) {
  // Two output pairs from each 12 bytes: U triplet, V triplet, U, V.
  const __m128i pick = _mm_setr_epi8(0, 2, 4, -1, 1, 3, 5, -1, 6, 8, 10, -1, 7, 9, 11, -1);
  // U0 V0 U1 V1 ... to U0..U7 V0..V7.
  const __m128i split = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
  int x = 0;
  // 8 pairs read 48 bytes, the last load 4 beyond them: stop one block early.
  for (; x + 9 <= w; x += 8) {
    const uint8_t *p = src + 6 * x;
    const __m128i lo =
        _mm_hadd_epi16(pair_sums(p, stride, 0, pick), pair_sums(p, stride, 12, pick));
    const __m128i hi =
        _mm_hadd_epi16(pair_sums(p, stride, 24, pick), pair_sums(p, stride, 36, pick));
    const __m128i bytes = _mm_shuffle_epi8(_mm_packus_epi16(means(lo), means(hi)), split);
    _mm_storel_epi64(reinterpret_cast<__m128i *>(u + x), bytes);
    _mm_storel_epi64(reinterpret_cast<__m128i *>(v + x), _mm_srli_si128(bytes, 8));
  }
  return x;
}

// Cosited: from the 16 bytes at an output pair's first sample (7 pairs),
// (a, b) weighted (3, 4) and (c, d) (4, 1) by maddubs for U and V of both
// outputs; the three rows added, then two such vectors' neighbours
// (hadd): U0 V0 U1 V1 U2 V2 U3 V3, each a sum of 36.
EF_SSSE3 inline __m128i quarter_sums(const uint8_t *p, ptrdiff_t stride) {
  const __m128i pick = _mm_setr_epi8(0, 2, 4, 6, 1, 3, 5, 7, 6, 8, 10, 12, 7, 9, 11, 13);
  const __m128i weights = _mm_setr_epi8(3, 4, 4, 1, 3, 4, 4, 1, 3, 4, 4, 1, 3, 4, 4, 1);
  __m128i s = _mm_setzero_si128();
  for (int r = 0; r < 3; ++r, p += stride) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    s = _mm_add_epi16(s, _mm_maddubs_epi16(_mm_shuffle_epi8(bytes, pick), weights));
  }
  return s;
}

EF_SSSE3 int uv_cosited_ssse3(const uint8_t *src, ptrdiff_t stride, uint8_t *u, uint8_t *v, int w) {
  // U0 V0 U1 V1 U2 V2 U3 V3 (bytes) to U0..U3 V0..V3.
  const __m128i split = _mm_setr_epi8(0, 2, 4, 6, 1, 3, 5, 7, -1, -1, -1, -1, -1, -1, -1, -1);
  int x = 0;
  // 4 outputs read 28 bytes, 4 beyond their 24 (the next output's first
  // pair, which the last output weighs): stop one early.
  for (; x + 5 <= w; x += 4) {
    const uint8_t *p = src + 6 * x;
    const __m128i sums = _mm_hadd_epi16(quarter_sums(p, stride), quarter_sums(p + 12, stride));
    const __m128i m = _mm_srli_epi16(_mm_mulhi_epu16(_mm_add_epi16(sums, _mm_set1_epi16(18)),
                                                     _mm_set1_epi16(short(kThirtySixth))),
                                     5);
    const __m128i bytes = _mm_shuffle_epi8(_mm_packus_epi16(m, m), split);
    const int uv = _mm_cvtsi128_si32(bytes), vv = _mm_cvtsi128_si32(_mm_srli_si128(bytes, 4));
    std::memcpy(u + x, &uv, 4);
    std::memcpy(v + x, &vv, 4);
  }
  return x;
}

// Per 12 bytes (3 pairs of two groups): the pairs (a, b) and (b, c) of U
// and of V next to each other, weighted (2, 1) and (1, 2) by maddubs:
// U0 U1 V0 V1 U2 U3 V2 V3, each a row's thirds. Cosited, (3, 3) and (1, 4)
// and each second output's d (the next group's a, 4 bytes on) added as
// it is: the row's quarters.
template <bool kCosited>
EF_SSSE3 inline __m128i row_thirds(const uint8_t *p) {
  const __m128i pick = _mm_setr_epi8(0, 2, 2, 4, 1, 3, 3, 5, 6, 8, 8, 10, 7, 9, 9, 11);
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
  if (!kCosited) {
    const __m128i weights = _mm_setr_epi8(2, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2);
    return _mm_maddubs_epi16(_mm_shuffle_epi8(bytes, pick), weights);
  }
  const __m128i weights = _mm_setr_epi8(3, 3, 1, 4, 3, 3, 1, 4, 3, 3, 1, 4, 3, 3, 1, 4);
  const __m128i next = _mm_setr_epi8(-1, -1, 6, -1, -1, -1, 7, -1, -1, -1, 12, -1, -1, -1, 13, -1);
  return _mm_add_epi16(_mm_maddubs_epi16(_mm_shuffle_epi8(bytes, pick), weights),
                       _mm_shuffle_epi8(bytes, next));
}

// Rounded means of 9 (thirds both ways) or of 18 (quarters across).
template <bool kCosited>
EF_SSSE3 inline __m128i means32(__m128i sums) {
  if (!kCosited)
    return means(sums);
  return _mm_mulhi_epu16(_mm_add_epi16(sums, _mm_set1_epi16(9)),
                         _mm_set1_epi16(short(kEighteenth)));
}

template <bool kCosited>
EF_SSSE3 int uv32_ssse3(const uint8_t *src, ptrdiff_t stride, uint8_t *const u[2],
                        uint8_t *const v[2], int w) {
  // U0 U1 V0 V1 U2 U3 V2 V3 | U4 ... to U0..U7 V0..V7.
  const __m128i split = _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
  int x = 0;
  // 4 groups read 24 bytes, the last load 4 beyond them (the next group's
  // first pair, which cosited sums read): stop one early.
  for (; x + 5 <= w; x += 4) {
    const uint8_t *p = src + 6 * x;
    __m128i h[3][2];
    for (int r = 0; r < 3; ++r) {
      h[r][0] = row_thirds<kCosited>(p + r * stride);
      h[r][1] = row_thirds<kCosited>(p + r * stride + 12);
    }
    const __m128i top0 = means32<kCosited>(_mm_add_epi16(_mm_slli_epi16(h[0][0], 1), h[1][0]));
    const __m128i top1 = means32<kCosited>(_mm_add_epi16(_mm_slli_epi16(h[0][1], 1), h[1][1]));
    const __m128i bot0 = means32<kCosited>(_mm_add_epi16(h[1][0], _mm_slli_epi16(h[2][0], 1)));
    const __m128i bot1 = means32<kCosited>(_mm_add_epi16(h[1][1], _mm_slli_epi16(h[2][1], 1)));
    const __m128i rows[2] = {_mm_shuffle_epi8(_mm_packus_epi16(top0, top1), split),
                             _mm_shuffle_epi8(_mm_packus_epi16(bot0, bot1), split)};
    for (int k = 0; k < 2; ++k) {
      _mm_storel_epi64(reinterpret_cast<__m128i *>(u[k] + 2 * x), rows[k]);
      _mm_storel_epi64(reinterpret_cast<__m128i *>(v[k] + 2 * x), _mm_srli_si128(rows[k], 8));
    }
  }
  return x;
}

// The same 16 outputs at a time: each 128-bit lane does what one SSSE3
// step does, on the first and second 24 bytes.

EF_AVX2 inline __m256i two_loads(const uint8_t *p, int second) {
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
  const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + second));
  return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

// 16 sums of 9 (or 18) as words: word9 (word18) in 16-bit lanes.
template <bool kEighteen>
EF_AVX2 inline __m256i words_of(__m256i sums) {
  const __m256i q = _mm256_mulhi_epu16(
      _mm256_add_epi16(_mm256_slli_epi16(sums, kEighteen ? 1 : 2), _mm256_set1_epi16(4)),
      _mm256_set1_epi16(short(kNinth)));
  return _mm256_add_epi16(_mm256_mullo_epi16(sums, _mm256_set1_epi16(kEighteen ? 14 : 28)), q);
}

template <typename Out>
EF_AVX2 int plane_avx2(const uint8_t *src, ptrdiff_t stride, Out *dst, int w) {
  const __m256i first = _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1, 0, 1,
                                         2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
  const __m256i second = _mm256_setr_epi8(4, 5, 6, -1, 7, 8, 9, -1, 10, 11, 12, -1, 13, 14, 15, -1,
                                          4, 5, 6, -1, 7, 8, 9, -1, 10, 11, 12, -1, 13, 14, 15, -1);
  const __m256i ones = _mm256_set1_epi8(1);
  int x = 0;
  for (; x + 16 <= w; x += 16) {
    const uint8_t *p = src + 3 * x;
    __m256i a = _mm256_setzero_si256(), b = _mm256_setzero_si256();
    for (int r = 0; r < 3; ++r, p += stride) {
      a = _mm256_add_epi16(
          a, _mm256_maddubs_epi16(_mm256_shuffle_epi8(two_loads(p, 24), first), ones));
      b = _mm256_add_epi16(
          b, _mm256_maddubs_epi16(_mm256_shuffle_epi8(two_loads(p + 8, 24), second), ones));
    }
    // Outputs x..x+7 in lane 0, x+8..x+15 in lane 1.
    const __m256i sums = _mm256_hadd_epi16(a, b);
    if constexpr (sizeof(Out) == 2) {
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + x), words_of<false>(sums));
      continue;
    }
    const __m256i m = _mm256_mulhi_epu16(_mm256_add_epi16(sums, _mm256_set1_epi16(4)),
                                         _mm256_set1_epi16(short(kNinth)));
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(m, m), 0x08);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + x), _mm256_castsi256_si128(packed));
  }
  return x;
}

template <bool kCosited>
EF_AVX2 inline __m256i row_thirds2(const uint8_t *p) {
  const __m256i pick = _mm256_setr_epi8(0, 2, 2, 4, 1, 3, 3, 5, 6, 8, 8, 10, 7, 9, 9, 11, 0, 2, 2,
                                        4, 1, 3, 3, 5, 6, 8, 8, 10, 7, 9, 9, 11);
  const __m256i bytes = two_loads(p, 24);
  if (!kCosited) {
    const __m256i weights = _mm256_setr_epi8(2, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2, 1,
                                             1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2);
    return _mm256_maddubs_epi16(_mm256_shuffle_epi8(bytes, pick), weights);
  }
  const __m256i weights = _mm256_setr_epi8(3, 3, 1, 4, 3, 3, 1, 4, 3, 3, 1, 4, 3, 3, 1, 4, 3, 3, 1,
                                           4, 3, 3, 1, 4, 3, 3, 1, 4, 3, 3, 1, 4);
  const __m256i next =
      _mm256_setr_epi8(-1, -1, 6, -1, -1, -1, 7, -1, -1, -1, 12, -1, -1, -1, 13, -1, -1, -1, 6, -1,
                       -1, -1, 7, -1, -1, -1, 12, -1, -1, -1, 13, -1);
  return _mm256_add_epi16(_mm256_maddubs_epi16(_mm256_shuffle_epi8(bytes, pick), weights),
                          _mm256_shuffle_epi8(bytes, next));
}

template <bool kCosited>
EF_AVX2 inline __m256i means2(__m256i sums) {
  const int round = kCosited ? 9 : 4;
  const int scale = kCosited ? kEighteenth : kNinth;
  return _mm256_mulhi_epu16(_mm256_add_epi16(sums, _mm256_set1_epi16(short(round))),
                            _mm256_set1_epi16(short(scale)));
}

// Per lane U0 U1 V0 V1 U2 U3 V2 V3 and U4 U5 V4 V5 U6 U7 V6 V7 (sums, as
// words) to U0..U7 and V0..V7 into u and v.
EF_AVX2 inline void store_words(__m256i first, __m256i second, uint16_t *u, uint16_t *v) {
  const __m256i sort = _mm256_setr_epi8(0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15, 0, 1,
                                        2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15);
  const __m256i a = _mm256_shuffle_epi8(first, sort), b = _mm256_shuffle_epi8(second, sort);
  _mm256_storeu_si256(reinterpret_cast<__m256i *>(u), _mm256_unpacklo_epi64(a, b));
  _mm256_storeu_si256(reinterpret_cast<__m256i *>(v), _mm256_unpackhi_epi64(a, b));
}

template <bool kCosited, typename Out>
EF_AVX2 int uv32_avx2(const uint8_t *src, ptrdiff_t stride, Out *const u[2], Out *const v[2],
                      int w) {
  const __m256i split = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, 0, 1,
                                         4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
  int x = 0;
  // 8 groups read 48 bytes, the last load 4 beyond them: stop one early.
  for (; x + 9 <= w; x += 8) {
    const uint8_t *p = src + 6 * x;
    __m256i h[3][2];
    for (int r = 0; r < 3; ++r) {
      h[r][0] = row_thirds2<kCosited>(p + r * stride);
      h[r][1] = row_thirds2<kCosited>(p + r * stride + 12);
    }
    if constexpr (sizeof(Out) == 2) {
      for (int k = 0; k < 2; ++k) {  // the top row of outputs, then the bottom
        const __m256i *a = k ? h[1] : h[0], *b = k ? h[2] : h[1];
        const __m256i s0 = _mm256_add_epi16(_mm256_slli_epi16(a[0], k ? 0 : 1),
                                            _mm256_slli_epi16(b[0], k ? 1 : 0));
        const __m256i s1 = _mm256_add_epi16(_mm256_slli_epi16(a[1], k ? 0 : 1),
                                            _mm256_slli_epi16(b[1], k ? 1 : 0));
        store_words(words_of<kCosited>(s0), words_of<kCosited>(s1), u[k] + 2 * x, v[k] + 2 * x);
      }
      continue;
    }
    const __m256i top0 = means2<kCosited>(_mm256_add_epi16(_mm256_slli_epi16(h[0][0], 1), h[1][0]));
    const __m256i top1 = means2<kCosited>(_mm256_add_epi16(_mm256_slli_epi16(h[0][1], 1), h[1][1]));
    const __m256i bot0 = means2<kCosited>(_mm256_add_epi16(h[1][0], _mm256_slli_epi16(h[2][0], 1)));
    const __m256i bot1 = means2<kCosited>(_mm256_add_epi16(h[1][1], _mm256_slli_epi16(h[2][1], 1)));
    // Per lane U0..U7 V0..V7; then U of both lanes, V of both lanes.
    const __m256i rows[2] = {
        _mm256_permute4x64_epi64(_mm256_shuffle_epi8(_mm256_packus_epi16(top0, top1), split), 0xd8),
        _mm256_permute4x64_epi64(_mm256_shuffle_epi8(_mm256_packus_epi16(bot0, bot1), split),
                                 0xd8)};
    for (int k = 0; k < 2; ++k) {
      _mm_storeu_si128(reinterpret_cast<__m128i *>(u[k] + 2 * x), _mm256_castsi256_si128(rows[k]));
      _mm_storeu_si128(reinterpret_cast<__m128i *>(v[k] + 2 * x),
                       _mm256_extracti128_si256(rows[k], 1));
    }
  }
  return x;
}

#endif

}  // namespace

void box3_plane(const uint8_t *src, int src_stride, uint8_t *dst, int dst_stride, int w, int h) {
  for (int y = 0; y < h; ++y) {
    const uint8_t *in = src + ptrdiff_t(3 * y) * src_stride;
    uint8_t *out = dst + ptrdiff_t(y) * dst_stride;
    int x = 0;
#ifdef EF_CPU_X86
    if (have_avx2())
      x = plane_avx2(in, src_stride, out, w);
    if (have_ssse3())
      x += plane_ssse3(in + 3 * x, src_stride, out + x, w - x);
#endif
    plane_c(in, src_stride, out, x, w);
  }
}

void box3_plane(const uint8_t *src, int src_stride, uint16_t *dst, int dst_stride, int w, int h) {
  for (int y = 0; y < h; ++y) {
    const uint8_t *in = src + ptrdiff_t(3 * y) * src_stride;
    auto *out =
        reinterpret_cast<uint16_t *>(reinterpret_cast<uint8_t *>(dst) + ptrdiff_t(y) * dst_stride);
    int x = 0;
#ifdef EF_CPU_X86
    // Words have no SSSE3 step: the last outputs again in a vector of
    // outputs already made (the same values) rather than in C.
    if (have_avx2() && w >= 16) {
      x = plane_avx2(in, src_stride, out, w);
      if (x < w)
        x = w - 16 + plane_avx2(in + 3 * (w - 16), src_stride, out + (w - 16), 16);
    }
#endif
    plane_c(in, src_stride, out, x, w);
  }
}

void box3_uv(const uint8_t *src, int src_stride, uint8_t *dst_u, int stride_u, uint8_t *dst_v,
             int stride_v, int w, int h, bool cosited) {
  for (int y = 0; y < h; ++y) {
    const uint8_t *in = src + ptrdiff_t(3 * y) * src_stride;
    uint8_t *u = dst_u + ptrdiff_t(y) * stride_u;
    uint8_t *v = dst_v + ptrdiff_t(y) * stride_v;
    int x = 0;
#ifdef EF_CPU_X86
    if (have_ssse3())
      x = cosited ? uv_cosited_ssse3(in, src_stride, u, v, w) : uv_ssse3(in, src_stride, u, v, w);
#endif
    (cosited ? uv_cosited_c : uv_c)(in, src_stride, u, v, x, w);
  }
}

namespace {

// Row r of `plane` (strides in bytes, whatever the sample).
template <typename Out>
Out *row_of(Out *plane, int stride, int r) {
  return reinterpret_cast<Out *>(reinterpret_cast<uint8_t *>(plane) + ptrdiff_t(r) * stride);
}

template <bool kCosited, typename Out>
void box32_uv_rows(const uint8_t *src, int src_stride, Out *dst_u, int stride_u, Out *dst_v,
                   int stride_v, int w, int h) {
  for (int y = 0; y < h; ++y) {
    const uint8_t *in = src + ptrdiff_t(3 * y) * src_stride;
    Out *const u[2] = {row_of(dst_u, stride_u, 2 * y), row_of(dst_u, stride_u, 2 * y + 1)};
    Out *const v[2] = {row_of(dst_v, stride_v, 2 * y), row_of(dst_v, stride_v, 2 * y + 1)};
    int x = 0;
#ifdef EF_CPU_X86
    if (have_avx2())
      x = uv32_avx2<kCosited>(in, src_stride, u, v, w);
    // Words have no SSSE3 step: the groups before the last again in a
    // vector of groups already made (the same values) rather than in C.
    if (sizeof(Out) == 2 && have_avx2() && w >= 9 && x < w - 1) {
      const int at = w - 9;
      Out *const ut[2] = {u[0] + 2 * at, u[1] + 2 * at}, *const vt[2] = {v[0] + 2 * at,
                                                                         v[1] + 2 * at};
      x = at + uv32_avx2<kCosited>(in + 6 * at, src_stride, ut, vt, 9);
    }
    if constexpr (sizeof(Out) == 1)  // words: AVX2 or C
      if (have_ssse3()) {
        uint8_t *const ut[2] = {u[0] + 2 * x, u[1] + 2 * x};
        uint8_t *const vt[2] = {v[0] + 2 * x, v[1] + 2 * x};
        x += uv32_ssse3<kCosited>(in + 6 * x, src_stride, ut, vt, w - x);
      }
#endif
    uv32_c<kCosited>(in, src_stride, u, v, x, w);
  }
}

template <typename Out>
void box32_uv_any(const uint8_t *src, int src_stride, Out *dst_u, int stride_u, Out *dst_v,
                  int stride_v, int w, int h, bool cosited) {
  if (cosited)
    box32_uv_rows<true>(src, src_stride, dst_u, stride_u, dst_v, stride_v, w, h);
  else
    box32_uv_rows<false>(src, src_stride, dst_u, stride_u, dst_v, stride_v, w, h);
}

}  // namespace

void box32_uv(const uint8_t *src, int src_stride, uint8_t *dst_u, int stride_u, uint8_t *dst_v,
              int stride_v, int w, int h, bool cosited) {
  box32_uv_any(src, src_stride, dst_u, stride_u, dst_v, stride_v, w, h, cosited);
}

void box32_uv(const uint8_t *src, int src_stride, uint16_t *dst_u, int stride_u, uint16_t *dst_v,
              int stride_v, int w, int h, bool cosited) {
  box32_uv_any(src, src_stride, dst_u, stride_u, dst_v, stride_v, w, h, cosited);
}

}  // namespace ef::gst::cpu
