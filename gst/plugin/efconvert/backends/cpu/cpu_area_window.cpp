// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_area_window.hpp"

namespace ef::gst::cpu {
namespace {

constexpr int kWords = 8;  // column sums an output's load takes

// Output i's load, shuffled, puts channel c's taps side by side: word p
// of it is channel p / (8 / channels)'s tap p % (8 / channels).
int tap_of(int p, int channels) {
  return p % (kWords / channels);
}

// In a block of eight outputs, vector j holds output j in its low half
// and output j + 4 in its high half.
int output_of(int block, int j, int half) {
  return 8 * block + j + 4 * half;
}

}  // namespace

bool window_fits(const Taps &tx, int channels, uint32_t col_top) {
  return (channels == 1 || channels == 2) && tx.n * channels <= kWords && tx.total <= 0x7fff &&
         col_top <= 0xffff;
}

size_t window_words(const Taps &tx) {
  return size_t(tx.outputs / 8) * 8 * kWords;
}

void plan_window(const Taps &tx, int channels, int16_t *weights) {
  int taps[kWords];
  for (int p = 0; p < kWords; ++p)
    taps[p] = tap_of(p, channels);
  for (int k = 0; k < tx.outputs / 8; ++k)
    for (int j = 0; j < 4; ++j)
      for (int half = 0; half < 2; ++half, weights += kWords) {
        const uint32_t *w = tx.weights + size_t(output_of(k, j, half)) * tx.n;
        for (int p = 0; p < kWords; ++p)
          weights[p] = taps[p] < tx.n ? int16_t(w[taps[p]]) : 0;
      }
}

#ifdef EF_CPU_X86
namespace {

// Outputs i and i + 4's column sums, one a half, less 2^15 (the multiply
// reads them signed; add_bias() puts it back); pairs (U0 V0 U1 V1 ..)
// sorted to U0 U1 U2 U3 V0 V1 V2 V3 in each half.
template <int Channels>
EF_AVX2 inline __m256i load_pair(const uint16_t *col, const int32_t *first, int i) {
  const auto *lo = reinterpret_cast<const __m128i *>(col + ptrdiff_t(first[i]) * Channels);
  const auto *hi = reinterpret_cast<const __m128i *>(col + ptrdiff_t(first[i + 4]) * Channels);
  const __m256i v = _mm256_xor_si256(
      _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(lo)), _mm_loadu_si128(hi), 1),
      _mm256_set1_epi16(short(0x8000)));
  if constexpr (Channels == 1)
    return v;
  const __m256i sort = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, 0, 1,
                                        4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
  return _mm256_shuffle_epi8(v, sort);
}

// Eight outputs of one channel: four vectors of two outputs' four partial
// sums each, added across into o0..o7.
EF_AVX2 inline void sum_plane8(__m256i a0, __m256i a1, __m256i a2, __m256i a3, __m256i bias,
                               uint32_t *sums) {
  const __m256i s = _mm256_hadd_epi32(_mm256_hadd_epi32(a0, a1), _mm256_hadd_epi32(a2, a3));
  _mm256_storeu_si256(reinterpret_cast<__m256i *>(sums), _mm256_add_epi32(s, bias));
}

// Eight outputs of U,V pairs, each U01 U23 V01 V23: U and V apart.
EF_AVX2 inline void sum_pairs8(__m256i a0, __m256i a1, __m256i a2, __m256i a3, __m256i bias,
                               uint32_t *u, uint32_t *v) {
  // U0 V0 U1 V1 | U4 V4 U5 V5, and the same of outputs 2, 3, 6, 7; then
  // U0 U1 V0 V1 | U4 U5 V4 V5.
  const __m256i p = _mm256_shuffle_epi32(_mm256_hadd_epi32(a0, a1), _MM_SHUFFLE(3, 1, 2, 0));
  const __m256i q = _mm256_shuffle_epi32(_mm256_hadd_epi32(a2, a3), _MM_SHUFFLE(3, 1, 2, 0));
  _mm256_storeu_si256(reinterpret_cast<__m256i *>(u),
                      _mm256_add_epi32(_mm256_unpacklo_epi64(p, q), bias));
  _mm256_storeu_si256(reinterpret_cast<__m256i *>(v),
                      _mm256_add_epi32(_mm256_unpackhi_epi64(p, q), bias));
}

template <int Channels>
EF_AVX2 void sum_window_of(const uint16_t *col, const Taps &tx, const int16_t *weights,
                           uint32_t *sums) {
  const int32_t *first = tx.first;
  const auto *w = reinterpret_cast<const __m256i *>(weights);
  const int outputs = tx.outputs;
  // What the 2^15 taken from each column sum took from a sum: every
  // output's weights add up to the total.
  const __m256i bias = _mm256_set1_epi32(int(0x8000 * tx.total));
  for (int i = 0; i + 8 <= outputs; i += 8, w += 4) {
    const __m256i a0 = _mm256_madd_epi16(load_pair<Channels>(col, first, i), _mm256_loadu_si256(w));
    const __m256i a1 =
        _mm256_madd_epi16(load_pair<Channels>(col, first, i + 1), _mm256_loadu_si256(w + 1));
    const __m256i a2 =
        _mm256_madd_epi16(load_pair<Channels>(col, first, i + 2), _mm256_loadu_si256(w + 2));
    const __m256i a3 =
        _mm256_madd_epi16(load_pair<Channels>(col, first, i + 3), _mm256_loadu_si256(w + 3));
    if constexpr (Channels == 1)
      sum_plane8(a0, a1, a2, a3, bias, sums + i);
    else
      sum_pairs8(a0, a1, a2, a3, bias, sums + i, sums + outputs + i);
  }
}

}  // namespace

void sum_window(const uint16_t *col, const Taps &tx, const int16_t *weights, int channels,
                uint32_t *sums) {
  if (channels == 1)
    sum_window_of<1>(col, tx, weights, sums);
  else
    sum_window_of<2>(col, tx, weights, sums);
}
#endif

}  // namespace ef::gst::cpu
