// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_up2.hpp"

#include <algorithm>
#include <cstddef>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
#ifdef __SSE2__
    k = interleaved ? uv_sse2(near, far, w, ur, vr) : plane_sse2(near, far, w, ur);
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
