// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_up2.hpp"

#include <algorithm>
#include <cstddef>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "cpu_simd.hpp"

namespace ef::gst::cpu {
namespace {

// Down, centred: output row 2j lies a quarter sample above sample row j,
// 2j + 1 a quarter below: 3 parts of row j, 1 of its neighbour (the edge
// row itself past the first or last). Across, cosited: output 2k is sample
// k, 2k + 1 halfway to k + 1 (k itself past the last). In eighths: 2 (3a +
// b) and (3a + b) + (3a' + b'), rounded.
inline uint8_t eighths(uint32_t s) {
  return uint8_t((s + 4) >> 3);
}

// Outputs [2 k0, 2 w) of one row; `step` bytes between samples.
void row_c(const uint8_t *near, const uint8_t *far, int step, int w, uint8_t *out, int k0) {
  for (int k = k0; k < w; ++k) {
    const int next = (k + 1 < w ? k + 1 : k) * step;
    const uint32_t a = 3u * near[k * step] + far[k * step];
    const uint32_t b = 3u * near[next] + far[next];
    out[2 * k] = eighths(2 * a);
    out[2 * k + 1] = eighths(a + b);
  }
}

#ifdef __SSE2__
// Sixteen outputs from eight samples (16-bit lanes `a`) and the eight after
// them (`b`), as row_c.
inline __m128i outputs16(__m128i a, __m128i b) {
  const __m128i four = _mm_set1_epi16(4);
  const __m128i even = _mm_srli_epi16(_mm_add_epi16(_mm_slli_epi16(a, 1), four), 3);
  const __m128i odd = _mm_srli_epi16(_mm_add_epi16(_mm_add_epi16(a, b), four), 3);
  return _mm_unpacklo_epi8(_mm_packus_epi16(even, even), _mm_packus_epi16(odd, odd));
}

inline __m128i three_and_one(__m128i near, __m128i far) {
  return _mm_add_epi16(_mm_add_epi16(_mm_slli_epi16(near, 1), near), far);
}

// Interleaved U,V: eight pairs a step (each load reaches one pair further:
// stop one early). Returns the samples done.
int uv_sse2(const uint8_t *near, const uint8_t *far, int w, uint8_t *u, uint8_t *v) {
  const __m128i low = _mm_set1_epi16(0xff);
  int k = 0;
  for (; k + 9 <= w; k += 8) {
    __m128i s[2][2];  // [this or next pair][U or V]
    for (int n = 0; n < 2; ++n) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(near + 2 * (k + n)));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(far + 2 * (k + n)));
      s[n][0] = three_and_one(_mm_and_si128(a, low), _mm_and_si128(b, low));
      s[n][1] = three_and_one(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i *>(u + 2 * k), outputs16(s[0][0], s[1][0]));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(v + 2 * k), outputs16(s[0][1], s[1][1]));
  }
  return k;
}

int plane_sse2(const uint8_t *near, const uint8_t *far, int w, uint8_t *out) {
  const __m128i zero = _mm_setzero_si128();
  auto words = [&](const uint8_t *p) {
    return _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(p)), zero);
  };
  int k = 0;
  for (; k + 9 <= w; k += 8) {
    const __m128i a = three_and_one(words(near + k), words(far + k));
    const __m128i b = three_and_one(words(near + k + 1), words(far + k + 1));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + 2 * k), outputs16(a, b));
  }
  return k;
}
#endif

#ifdef EF_CPU_X86
// The same sixteen pairs (or samples) a step, each 128-bit lane what one
// SSE2 step does: lane 0 the first eight, lane 1 the next.
EF_AVX2 inline __m256i outputs32(__m256i a, __m256i b) {
  const __m256i four = _mm256_set1_epi16(4);
  const __m256i even = _mm256_srli_epi16(_mm256_add_epi16(_mm256_slli_epi16(a, 1), four), 3);
  const __m256i odd = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(a, b), four), 3);
  return _mm256_unpacklo_epi8(_mm256_packus_epi16(even, even), _mm256_packus_epi16(odd, odd));
}

EF_AVX2 inline __m256i three_and_one(__m256i near, __m256i far) {
  return _mm256_add_epi16(_mm256_add_epi16(_mm256_slli_epi16(near, 1), near), far);
}

EF_AVX2 int uv_avx2(const uint8_t *near, const uint8_t *far, int w, uint8_t *u, uint8_t *v) {
  const __m256i low = _mm256_set1_epi16(0xff);
  int k = 0;
  for (; k + 17 <= w; k += 16) {
    __m256i s[2][2];  // [this or next pair][U or V]
    for (int n = 0; n < 2; ++n) {
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(near + 2 * (k + n)));
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(far + 2 * (k + n)));
      s[n][0] = three_and_one(_mm256_and_si256(a, low), _mm256_and_si256(b, low));
      s[n][1] = three_and_one(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(u + 2 * k), outputs32(s[0][0], s[1][0]));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(v + 2 * k), outputs32(s[0][1], s[1][1]));
  }
  return k;
}

EF_AVX2 inline __m256i words16(const uint8_t *p) {
  return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
}

EF_AVX2 int plane_avx2(const uint8_t *near, const uint8_t *far, int w, uint8_t *out) {
  int k = 0;
  for (; k + 17 <= w; k += 16) {
    const __m256i a = three_and_one(words16(near + k), words16(far + k));
    const __m256i b = three_and_one(words16(near + k + 1), words16(far + k + 1));
    // Lane 0 holds samples 0-7, lane 1 8-15: outputs 0-15 and 16-31.
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + 2 * k), outputs32(a, b));
  }
  return k;
}
#endif

}  // namespace

void up2_cosited_rows(const uint8_t *src, int stride, int w, int h, bool interleaved, bool down,
                      uint8_t *u, int u_stride, uint8_t *v, int v_stride, int r0, int r1) {
  for (int r = r0; r < r1; ++r) {
    const int j = down ? r / 2 : r;
    const int other = down ? std::clamp(r % 2 ? j + 1 : j - 1, 0, h - 1) : j;
    const uint8_t *near = src + ptrdiff_t(j) * stride;
    const uint8_t *far = src + ptrdiff_t(other) * stride;
    uint8_t *ur = u + ptrdiff_t(r) * u_stride;
    uint8_t *vr = interleaved ? v + ptrdiff_t(r) * v_stride : nullptr;
    int k = 0;
#ifdef EF_CPU_X86
    if (have_avx2())
      k = interleaved ? uv_avx2(near, far, w, ur, vr) : plane_avx2(near, far, w, ur);
#endif
#ifdef __SSE2__
    k += interleaved ? uv_sse2(near + 2 * k, far + 2 * k, w - k, ur + 2 * k, vr + 2 * k)
                     : plane_sse2(near + k, far + k, w - k, ur + 2 * k);
#endif
    if (!interleaved) {
      row_c(near, far, 1, w, ur, k);
      continue;
    }
    row_c(near, far, 2, w, ur, k);
    row_c(near + 1, far + 1, 2, w, vr, k);
  }
}

}  // namespace ef::gst::cpu
